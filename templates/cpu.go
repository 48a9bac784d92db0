package templates

import "github.com/dave/jennifer/jen"

// cpuHandles emits the program side of the map: CPU(i) and its handle, whose
// methods act as a BPF program running on CPU i would. For a plain hash map
// they are the userspace methods; per-CPU and LRU types differ.
//
//	type <CPU> struct{ m *<Map>; cpu int }
//	func (m *<Map>) CPU(i int) *<CPU>
//	func (c *<CPU>) Lookup(k <Key>) (<Value>, bool)
//	func (c *<CPU>) Update(k <Key>, v <Value>, flags htab.UpdateFlags) error
//	func (c *<CPU>) Delete(k <Key>) error
func (g *generator) cpuHandles(f *jen.File) {
	l := g.l
	lookupDoc, lookup := "// Lookup is bpf_map_lookup_elem from a program on this CPU.\n", "\treturn c.m.Lookup(k)\n"
	updateDoc, update := "// Update is bpf_map_update_elem from a program on this CPU.\n", "c.m.update(&k, &v, flags)"
	switch {
	case l.PerCPU != nil && l.LRU != nil:
		lookupDoc = "// Lookup is bpf_map_lookup_elem from a program on this CPU: this CPU's value;\n// it sets the element's ref bit, which the LRU uses to keep it.\n"
	case l.PerCPU != nil:
		lookupDoc = "// Lookup is bpf_map_lookup_elem from a program on this CPU: this CPU's value.\n"
	case l.LRU != nil:
		lookupDoc = "// Lookup is bpf_map_lookup_elem from a program on this CPU: it sets the\n// element's ref bit, which the LRU uses to keep it.\n"
	}
	if l.PerCPU != nil || l.LRU != nil {
		args := "&k"
		if l.PerCPU != nil {
			args = "&k, c.cpu"
		}
		lookup = "\tv, i := c.m.lookupOn(" + args + ")\n"
		if l.LRU != nil {
			// The element carries its node: set its ref bit directly (htab.LRUNode.Ref).
			lookup += "\tif i != 0 {\n\t\tc.m.elem(i - 1).node.Ref()\n\t}\n"
		}
		lookup += "\treturn v, i != 0\n"
	}
	switch {
	case l.PerCPU != nil:
		updateDoc = "// Update is bpf_map_update_elem from a program on this CPU: it sets this CPU's\n// value; a new key has every other CPU's value zeroed.\n"
		update = "c.m.update(&k, nil, &v, c.cpu, flags)"
	case l.LRU != nil:
		updateDoc = "// Update is bpf_map_update_elem from a program on this CPU: a new element comes\n// from this CPU's LRU lists.\n"
		update = "c.m.update(&k, &v, c.cpu, flags)"
	}
	f.Add(g.code(`
// $CPU is the program side of $Map as on one CPU: the door BPF programs
// use. Worker goroutines that each hold their own handle get per-CPU behaviour
// deterministically.
type $CPU struct {
	m   *$Map
	cpu int
}

// CPU returns the handle of CPU i, 0 <= i < CPUs(); it panics outside that range.
func (m *$Map) CPU(i int) *$CPU {
	if uint(i) >= uint(len(m.handles)) {
		htab.CPUOutOfRange("$Map", i, len(m.handles))
	}
	return &m.handles[i]
}

` + lookupDoc + `func (c *$CPU) Lookup(k $Key) ($Value, bool) {
` + lookup + `}

` + updateDoc + `func (c *$CPU) Update(k $Key, v $Value, flags htab.UpdateFlags) error {
	return ` + update + `
}

// Delete is bpf_map_delete_elem from a program on this CPU.
func (c *$CPU) Delete(k $Key) error {
	return c.m.Delete(k)
}
`))
}
