package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// batchTests emits the -tests file's test of the batch operations: batch
// walks with every buffer size 1..8 return, call after call, exactly what All
// yields (the same order: buckets ascending, each newest first), whole
// buckets only; a lookup-and-delete walk returns everything once and empties
// the map; UpdateBatch and DeleteBatch stop at the first error. It reaches
// the map through the test adapters (testAdapters) and batchTestValues, so it
// covers every type; per-CPU values are checked with <prefix>TestCheckValues.
// errors.Is and slices.Equal are <prefix>TestIs and <prefix>TestSame, which
// tests emits with their imports.
func (g *generator) batchTests(f *jen.File) {
	vals := batchTestSingle
	if g.l.PerCPU != nil {
		vals = batchTestPerCPU
	}
	f.Add(jen.Id(fmt.Sprintf(vals+batchTestBody, g.n.Map, g.n.Key, g.n.Value, g.n.Prefix)))
}

// batchTestSingle: hash and lru, one value per key in batches.
const batchTestSingle = `
// %[4]sTestBatchVals is a value buffer for a batch of n keys.
func %[4]sTestBatchVals(m *%[1]s, n int) []%[3]s { return make([]%[3]s, n) }

// %[4]sTestBatchValue is key i's value in a batch's vals.
func %[4]sTestBatchValue(t testing.TB, m *%[1]s, k %[2]s, vals []%[3]s, i int) %[3]s {
	return vals[i]
}

// %[4]sTestBatchSpread is what UpdateBatch takes for these values.
func %[4]sTestBatchSpread(m *%[1]s, vs []%[3]s) []%[3]s { return vs }
`

// batchTestPerCPU: pcpu and lru_pcpu, CPUs() values per key in batches.
const batchTestPerCPU = `
// %[4]sTestBatchVals is a value buffer for a batch of n keys: CPUs() values each.
func %[4]sTestBatchVals(m *%[1]s, n int) []%[3]s { return make([]%[3]s, n*m.CPUs()) }

// %[4]sTestBatchValue is key i's value in a batch's vals, after checking that
// its CPUs' values are the spread of CPU 0's.
func %[4]sTestBatchValue(t testing.TB, m *%[1]s, k %[2]s, vals []%[3]s, i int) %[3]s {
	c := m.CPUs()
	%[4]sTestCheckValues(t, m, k, vals[i*c:(i+1)*c])
	return vals[i*c]
}

// %[4]sTestBatchSpread is what UpdateBatch takes for these values: each
// spread over the CPUs as %[4]sTestUpdate does.
func %[4]sTestBatchSpread(m *%[1]s, vs []%[3]s) []%[3]s {
	var all []%[3]s
	for _, v := range vs {
		all = append(all, %[4]sTestValues(m, v)...)
	}
	return all
}
`

const batchTestBody = `
// %[4]sTestBatchWalk runs one whole batch walk with buffers of buf keys
// (doubled for a call that says ErrNoSpace) and returns what it got.
func %[4]sTestBatchWalk(t *testing.T, m *%[1]s, buf int, del bool) (keys []%[2]s, vals []%[3]s) {
	t.Helper()
	c := new(htab.Cursor)
	for call := 0; ; call++ {
		if call > 4*m.MaxEntries()+10 {
			t.Fatalf("buf %%d: the walk does not end", buf)
		}
		ks, vs := make([]%[2]s, buf), %[4]sTestBatchVals(m, buf)
		var n int
		var err error
		if del {
			n, err = m.LookupAndDeleteBatch(c, ks, vs)
		} else {
			n, err = m.LookupBatch(c, ks, vs)
		}
		if %[4]sTestIs(err, htab.ErrNoSpace) {
			if n != 0 || c.Done() {
				t.Fatalf("buf %%d: ErrNoSpace with %%d keys, done %%v", buf, n, c.Done())
			}
			buf *= 2
			continue
		}
		if err != nil && !%[4]sTestIs(err, htab.ErrKeyNotExist) {
			t.Fatalf("buf %%d: %%v", buf, err)
		}
		for i := range n {
			keys = append(keys, ks[i])
			vals = append(vals, %[4]sTestBatchValue(t, m, ks[i], vs, i))
		}
		if err != nil {
			if !c.Done() {
				t.Fatalf("buf %%d: ErrKeyNotExist but the cursor is not done", buf)
			}
			return keys, vals
		}
		if n == 0 {
			t.Fatalf("buf %%d: a call returned nothing and no error", buf)
		}
	}
}

// Test%[1]sBatch checks the batch operations against All.
func Test%[1]sBatch(t *testing.T) {
	m, err := New%[1]s(htab.Options{MaxEntries: 48, ZeroSeed: true, CPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := m.LookupBatch(nil, make([]%[2]s, 4), %[4]sTestBatchVals(m, 4)); n != 0 || !%[4]sTestIs(err, htab.ErrKeyNotExist) {
		t.Fatalf("empty map: %%d, %%v; want 0, ErrKeyNotExist", n, err)
	}
	var ks []%[2]s
	var vs []%[3]s
	for i := range 40 {
		ks, vs = append(ks, %[4]sTestKey(i)), append(vs, %[4]sTestVal(i))
	}
	if n, err := m.UpdateBatch(ks, %[4]sTestBatchSpread(m, vs), htab.UpdateAny); n != len(ks) || err != nil {
		t.Fatalf("UpdateBatch: %%d, %%v", n, err)
	}
	wantKeys, wantVals := %[4]sTestAll(t, m)
	if len(wantKeys) == 0 || len(wantKeys) != m.Len() {
		t.Fatalf("All yields %%d keys, Len is %%d", len(wantKeys), m.Len())
	}

	c := new(htab.Cursor)
	if n, err := m.LookupBatch(c, nil, nil); n != 0 || err != nil || *c != (htab.Cursor{}) {
		t.Fatalf("zero-length batch: %%d, %%v, cursor %%v", n, err, *c)
	}
	for buf := 1; buf <= 8; buf++ {
		keys, vals := %[4]sTestBatchWalk(t, m, buf, false)
		if !%[4]sTestSame(keys, wantKeys) || !%[4]sTestSame(vals, wantVals) {
			t.Fatalf("buf %%d: the walk returned\n%%x\n%%x\nAll yields\n%%x\n%%x", buf, keys, vals, wantKeys, wantVals)
		}
	}
	if m.Len() != len(wantKeys) {
		t.Fatalf("LookupBatch changed the map: Len %%d", m.Len())
	}
	keys, vals := %[4]sTestBatchWalk(t, m, 3, true)
	if !%[4]sTestSame(keys, wantKeys) || !%[4]sTestSame(vals, wantVals) {
		t.Fatalf("lookup-and-delete walk returned\n%%x\nAll yielded\n%%x", keys, wantKeys)
	}
	if k, _ := %[4]sTestAll(t, m); m.Len() != 0 || len(k) != 0 {
		t.Fatalf("after a lookup-and-delete walk: Len %%d, All %%x", m.Len(), k)
	}

	if n, err := m.UpdateBatch(ks[:1], %[4]sTestBatchSpread(m, vs[:1]), htab.UpdateNoExist); n != 0 || !%[4]sTestIs(err, htab.ErrInvalid) {
		t.Fatalf("UpdateBatch with UpdateNoExist: %%d, %%v; want ErrInvalid, as the kernel", n, err)
	}
	if n, err := m.UpdateBatch(ks[:3], %[4]sTestBatchSpread(m, vs[:3]), htab.UpdateAny); n != 3 || err != nil {
		t.Fatalf("UpdateBatch: %%d, %%v", n, err)
	}
	if n, err := m.DeleteBatch([]%[2]s{ks[0], ks[1], ks[5], ks[2]}); n != 2 || !%[4]sTestIs(err, htab.ErrKeyNotExist) {
		t.Fatalf("DeleteBatch with an absent third key: %%d, %%v; want 2, ErrKeyNotExist", n, err)
	}
	if _, ok := %[4]sTestLookup(t, m, ks[2]); !ok || m.Len() != 1 {
		t.Fatalf("DeleteBatch went past the absent key: Len %%d", m.Len())
	}
}
`
