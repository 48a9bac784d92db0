package templates

import "github.com/dave/jennifer/jen"

// cpuHandles emits the program side of the map: CPU(i) and its handle, whose
// methods act as a BPF program running on CPU i would. For a plain hash map
// they are the userspace methods; per-CPU and LRU types differ.
func (g *generator) cpuHandles(f *jen.File) {
	// type <Map>CPU struct{ m *<Map>; cpu int }
	f.Commentf("%s is the program side of %s as on one CPU: the door BPF programs", g.cpuT, g.mapT)
	f.Comment("use. Worker goroutines that each hold their own handle get per-CPU behaviour")
	f.Comment("deterministically.")
	f.Type().Id(g.cpuT).Struct(
		jen.Id("m").Op("*").Id(g.mapT),
		jen.Id("cpu").Int(),
	)
	// func (m *<Map>) CPU(i int) *<Map>CPU
	f.Comment("CPU returns the handle of CPU i, 0 <= i < CPUs(); it panics outside that range.")
	f.Func().Params(g.recvMap()).Id("CPU").Params(jen.Id("i").Int()).Op("*").Id(g.cpuT).Block(
		jen.If(jen.Uint().Call(jen.Id("i")).Op(">=").Uint().Call(jen.Len(jen.Id("m").Dot("handles")))).Block(
			jen.Qual(htabPkg, "CPUOutOfRange").Call(jen.Lit(g.mapT), jen.Id("i"), jen.Len(jen.Id("m").Dot("handles"))),
		),
		jen.Return(jen.Op("&").Id("m").Dot("handles").Index(jen.Id("i"))),
	)
	c := func() *jen.Statement { return jen.Id("c").Op("*").Id(g.cpuT) }
	l := g.l
	cm := func(name string) *jen.Statement { return jen.Id("c").Dot("m").Dot(name) }

	// func (c *<Map>CPU) Lookup(k <Key>) (<Value>, bool)
	var lookup []jen.Code
	switch {
	case !l.PerCPU && !l.LRU:
		f.Comment("Lookup is bpf_map_lookup_elem from a program on this CPU.")
		lookup = []jen.Code{jen.Return(cm("Lookup").Call(jen.Id("k")))}
	default:
		switch {
		case l.PerCPU && l.LRU:
			f.Comment("Lookup is bpf_map_lookup_elem from a program on this CPU: this CPU's value;")
			f.Comment("it sets the element's ref bit, which the LRU uses to keep it.")
		case l.PerCPU:
			f.Comment("Lookup is bpf_map_lookup_elem from a program on this CPU: this CPU's value.")
		default:
			f.Comment("Lookup is bpf_map_lookup_elem from a program on this CPU: it sets the")
			f.Comment("element's ref bit, which the LRU uses to keep it.")
		}
		args := []jen.Code{jen.Op("&").Id("k")}
		if l.PerCPU {
			args = append(args, jen.Id("c").Dot("cpu"))
		}
		lookup = []jen.Code{jen.List(jen.Id("v"), jen.Id("i")).Op(":=").Add(cm("lookupOn")).Call(args...)}
		if l.LRU {
			// The element carries its node: set its ref bit directly (htab.LRUNode.Ref).
			lookup = append(lookup, jen.If(jen.Id("i").Op("!=").Lit(0)).Block(cm("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("node").Dot("Ref").Call()))
		}
		lookup = append(lookup, jen.Return(jen.Id("v"), jen.Id("i").Op("!=").Lit(0)))
	}
	f.Func().Params(c()).Id("Lookup").Params(jen.Id("k").Id(g.keyT)).Params(jen.Id(g.valT), jen.Bool()).Block(lookup...)

	// func (c *<Map>CPU) Update(k <Key>, v <Value>, flags htab.UpdateFlags) error
	update := cm("update").Call(jen.Op("&").Id("k"), jen.Op("&").Id("v"), jen.Id("c").Dot("cpu"), jen.Id("flags"))
	switch {
	case l.PerCPU:
		f.Comment("Update is bpf_map_update_elem from a program on this CPU: it sets this CPU's")
		f.Comment("value; a new key has every other CPU's value zeroed.")
		update = cm("update").Call(jen.Op("&").Id("k"), jen.Nil(), jen.Op("&").Id("v"), jen.Id("c").Dot("cpu"), jen.Id("flags"))
	case l.LRU:
		f.Comment("Update is bpf_map_update_elem from a program on this CPU: a new element comes")
		f.Comment("from this CPU's LRU lists.")
	default:
		f.Comment("Update is bpf_map_update_elem from a program on this CPU.")
	}
	f.Func().Params(c()).Id("Update").Params(jen.Id("k").Id(g.keyT), jen.Id("v").Id(g.valT), jen.Id("flags").Qual(htabPkg, "UpdateFlags")).Error().Block(
		jen.Return(update),
	)
	f.Comment("Delete is bpf_map_delete_elem from a program on this CPU.")
	f.Func().Params(c()).Id("Delete").Params(jen.Id("k").Id(g.keyT)).Error().Block(
		jen.Return(jen.Id("c").Dot("m").Dot("Delete").Call(jen.Id("k"))),
	)
}
