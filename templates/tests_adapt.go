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
	if g.l.PerCPU {
		src = perCPUAdapters
	}
	f.Add(jen.Id(fmt.Sprintf(src, g.mapT, g.keyT, g.valT)))
}

// singleValueAdapters: hash and lru, whose API already has one value per key.
const singleValueAdapters = `
// testUpdate%[1]s, testLookup%[1]s, testLookupAndDelete%[1]s and testAll%[1]s
// are the map's userspace methods, as the checks below use them (testAll
// collects All).
func testUpdate%[1]s(m *%[1]s, k %[2]s, v %[3]s, flags htab.UpdateFlags) error {
	return m.Update(k, v, flags)
}

func testLookup%[1]s(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, bool) { return m.Lookup(k) }

func testLookupAndDelete%[1]s(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, error) {
	return m.LookupAndDelete(k)
}

func testAll%[1]s(t testing.TB, m *%[1]s) (keys []%[2]s, vals []%[3]s) {
	for k, v := range m.All() {
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals
}
`

// perCPUAdapters: pcpu and lru_pcpu, whose userspace side carries every CPU's value.
const perCPUAdapters = `
// testValues%[1]s spreads v over the CPUs: CPU c's value is v with c added
// to its first byte.
func testValues%[1]s(m *%[1]s, v %[3]s) []%[3]s {
	vals := make([]%[3]s, m.CPUs())
	for c := range vals {
		vals[c] = v
		vals[c][0] += byte(c)
	}
	return vals
}

// testCheckValues%[1]s fails t unless vals is the spread of vals[0].
func testCheckValues%[1]s(t testing.TB, m *%[1]s, k %[2]s, vals []%[3]s) {
	t.Helper()
	for c, v := range testValues%[1]s(m, vals[0]) {
		if vals[c] != v {
			t.Fatalf("key %%x: CPU %%d's value is %%x, want %%x", k, c, vals[c], v)
		}
	}
}

// testUpdate%[1]s, testLookup%[1]s, testLookupAndDelete%[1]s and testAll%[1]s
// are the map's userspace methods with one value standing for every CPU's.
func testUpdate%[1]s(m *%[1]s, k %[2]s, v %[3]s, flags htab.UpdateFlags) error {
	return m.Update(k, testValues%[1]s(m, v), flags)
}

func testLookup%[1]s(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, bool) {
	vals := make([]%[3]s, m.CPUs())
	if !m.Lookup(k, vals) {
		return %[3]s{}, false
	}
	testCheckValues%[1]s(t, m, k, vals)
	return vals[0], true
}

func testLookupAndDelete%[1]s(t testing.TB, m *%[1]s, k %[2]s) (%[3]s, error) {
	vals := make([]%[3]s, m.CPUs())
	if err := m.LookupAndDelete(k, vals); err != nil {
		return %[3]s{}, err
	}
	testCheckValues%[1]s(t, m, k, vals)
	return vals[0], nil
}

func testAll%[1]s(t testing.TB, m *%[1]s) (keys []%[2]s, vals []%[3]s) {
	for k, vs := range m.All() {
		testCheckValues%[1]s(t, m, k, vs)
		keys, vals = append(keys, k), append(vals, vs[0])
	}
	return keys, vals
}
`
