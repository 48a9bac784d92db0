package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// testAdapters emits the functions through which the generated tests reach
// the map, so that one set of checks covers every type: the tests speak of
// one value per key, and for the per-CPU types the adapters write CPU c's
// value as that value with c added to its first byte, and check on every
// read that all CPUs' values agree with that pattern.
func (g *generator) testAdapters(f *jen.File) {
	src := singleValueAdapters
	if g.l.PerCPU != nil {
		src = perCPUAdapters
	}
	f.Add(jen.Id(fmt.Sprintf(src, g.n.Map, g.n.Key, g.n.Value, g.n.Prefix)))
}

// singleValueAdapters: hash and lru, whose API already has one value per key.
const singleValueAdapters = `
// %[4]sTestUpdate, %[4]sTestLookup and %[4]sTestAll are the map's userspace
// methods, as the checks below use them (%[4]sTestAll collects All).
func %[4]sTestUpdate(m *%[1]s, k %[2]s, v %[3]s, flags htab.UpdateFlags) error {
	return m.Update(k, v, flags)
}

func %[4]sTestLookup(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, bool) { return m.Lookup(k) }

func %[4]sTestAll(t testing.TB, m *%[1]s) (keys []%[2]s, vals []%[3]s) {
	for k, v := range m.All() {
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals
}
`

// perCPUAdapters: pcpu and lru_pcpu, whose userspace side carries every CPU's value.
const perCPUAdapters = `
// %[4]sTestValues spreads v over the CPUs: CPU c's value is v with c added
// to its first byte.
func %[4]sTestValues(m *%[1]s, v %[3]s) []%[3]s {
	vals := make([]%[3]s, m.CPUs())
	for c := range vals {
		vals[c] = v
		vals[c][0] += byte(c)
	}
	return vals
}

// %[4]sTestCheckValues fails t unless vals is the spread of vals[0].
func %[4]sTestCheckValues(t testing.TB, m *%[1]s, k %[2]s, vals []%[3]s) {
	t.Helper()
	for c, v := range %[4]sTestValues(m, vals[0]) {
		if vals[c] != v {
			t.Fatalf("key %%x: CPU %%d's value is %%x, want %%x", k, c, vals[c], v)
		}
	}
}

// %[4]sTestUpdate, %[4]sTestLookup and %[4]sTestAll are the map's userspace
// methods with one value standing for every CPU's.
func %[4]sTestUpdate(m *%[1]s, k %[2]s, v %[3]s, flags htab.UpdateFlags) error {
	return m.Update(k, %[4]sTestValues(m, v), flags)
}

func %[4]sTestLookup(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, bool) {
	vals := make([]%[3]s, m.CPUs())
	if !m.Lookup(k, vals) {
		return %[3]s{}, false
	}
	%[4]sTestCheckValues(t, m, k, vals)
	return vals[0], true
}

func %[4]sTestAll(t testing.TB, m *%[1]s) (keys []%[2]s, vals []%[3]s) {
	for k, vs := range m.All() {
		%[4]sTestCheckValues(t, m, k, vs)
		keys, vals = append(keys, k), append(vals, vs[0])
	}
	return keys, vals
}
`
