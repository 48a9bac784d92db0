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
		jen.Return(jen.Op("&").Id("m").Dot("handles").Index(jen.Id("i"))),
	)
	c := func() *jen.Statement { return jen.Id("c").Op("*").Id(g.cpuT) }
	f.Comment("Lookup is bpf_map_lookup_elem from a program on this CPU.")
	f.Func().Params(c()).Id("Lookup").Params(jen.Id("k").Id(g.keyT)).Params(jen.Id(g.valT), jen.Bool()).Block(
		jen.Return(jen.Id("c").Dot("m").Dot("Lookup").Call(jen.Id("k"))),
	)
	f.Comment("Update is bpf_map_update_elem from a program on this CPU.")
	f.Func().Params(c()).Id("Update").Params(jen.Id("k").Id(g.keyT), jen.Id("v").Id(g.valT), jen.Id("flags").Qual(htabPkg, "UpdateFlags")).Error().Block(
		jen.Return(jen.Id("c").Dot("m").Dot("Update").Call(jen.Id("k"), jen.Id("v"), jen.Id("flags"))),
	)
	f.Comment("Delete is bpf_map_delete_elem from a program on this CPU.")
	f.Func().Params(c()).Id("Delete").Params(jen.Id("k").Id(g.keyT)).Error().Block(
		jen.Return(jen.Id("c").Dot("m").Dot("Delete").Call(jen.Id("k"))),
	)
}
