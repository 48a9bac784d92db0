package htabtest

import (
	"errors"
	"slices"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// Batch checks the batch operations against All on a map of 48 entries
// holding 40 keys: LookupBatch of an empty map and with no room; batch
// walks with every buffer size 1..8 (doubled after ErrNoSpace, which must
// return nothing and leave the walk unfinished) return, call after call,
// exactly what All yields, in its order, and change nothing; a
// lookup-and-delete walk returns everything once and empties the map;
// UpdateBatch refuses UpdateNoExist (ErrInvalid, as the kernel's) and
// DeleteBatch stops at the first absent key. m stands for the kind of map:
// the map is m.New's.
func Batch[K, V comparable](t testing.TB, m Map[K, V]) {
	m = newMap(t, m, testOpts(48))
	slots := Slots(m)
	if n, err := m.LookupBatch(nil, make([]K, 4), make([]V, 4*slots)); n != 0 || !errors.Is(err, htab.ErrKeyNotExist) {
		t.Fatalf("empty map: %d, %v; want 0, ErrKeyNotExist", n, err)
	}
	var ks []K
	var vs []V
	for i := range 40 {
		ks, vs = append(ks, Key[K](i)), append(vs, Value[V](i))
	}
	// spread is what UpdateBatch takes for the values vs: each spread over
	// the CPUs.
	spread := func(vs []V) (all []V) {
		for _, v := range vs {
			all = append(all, Spread(v, slots)...)
		}
		return all
	}
	if n, err := m.UpdateBatch(ks, spread(vs), htab.UpdateAny); n != len(ks) || err != nil {
		t.Fatalf("UpdateBatch: %d, %v", n, err)
	}
	wantKeys, wantVals := getAll(t, m)
	if len(wantKeys) == 0 || len(wantKeys) != m.Len() {
		t.Fatalf("All yields %d keys, Len is %d", len(wantKeys), m.Len())
	}

	c := new(htab.Cursor)
	if n, err := m.LookupBatch(c, nil, nil); n != 0 || err != nil || *c != (htab.Cursor{}) {
		t.Fatalf("zero-length batch: %d, %v, cursor %v", n, err, *c)
	}
	for buf := 1; buf <= 8; buf++ {
		keys, vals := batchWalk(t, m, buf, false)
		if !slices.Equal(keys, wantKeys) || !slices.Equal(vals, wantVals) {
			t.Fatalf("buf %d: the walk returned\n%x\n%x\nAll yields\n%x\n%x", buf, hex(keys), hex(vals), hex(wantKeys), hex(wantVals))
		}
	}
	if m.Len() != len(wantKeys) {
		t.Fatalf("LookupBatch changed the map: Len %d", m.Len())
	}
	keys, vals := batchWalk(t, m, 3, true)
	if !slices.Equal(keys, wantKeys) || !slices.Equal(vals, wantVals) {
		t.Fatalf("lookup-and-delete walk returned\n%x\nAll yielded\n%x", hex(keys), hex(wantKeys))
	}
	if k, _ := getAll(t, m); m.Len() != 0 || len(k) != 0 {
		t.Fatalf("after a lookup-and-delete walk: Len %d, All %x", m.Len(), hex(k))
	}

	if n, err := m.UpdateBatch(ks[:1], spread(vs[:1]), htab.UpdateNoExist); n != 0 || !errors.Is(err, htab.ErrInvalid) {
		t.Fatalf("UpdateBatch with UpdateNoExist: %d, %v; want ErrInvalid, as the kernel", n, err)
	}
	if n, err := m.UpdateBatch(ks[:3], spread(vs[:3]), htab.UpdateAny); n != 3 || err != nil {
		t.Fatalf("UpdateBatch: %d, %v", n, err)
	}
	if n, err := m.DeleteBatch([]K{ks[0], ks[1], ks[5], ks[2]}); n != 2 || !errors.Is(err, htab.ErrKeyNotExist) {
		t.Fatalf("DeleteBatch with an absent third key: %d, %v; want 2, ErrKeyNotExist", n, err)
	}
	if _, ok := get(t, m, ks[2]); !ok || m.Len() != 1 {
		t.Fatalf("DeleteBatch went past the absent key: Len %d", m.Len())
	}
}

// batchWalk runs one whole batch walk with buffers of buf keys (doubled for
// a call that says ErrNoSpace) and returns what it got, each key's first
// value after checking that its values are a spread.
func batchWalk[K, V comparable](t testing.TB, m Map[K, V], buf int, del bool) (keys []K, vals []V) {
	t.Helper()
	slots := Slots(m)
	c := new(htab.Cursor)
	for call := 0; ; call++ {
		if call > 4*m.MaxEntries()+10 {
			t.Fatalf("buf %d: the walk does not end", buf)
		}
		ks, vs := make([]K, buf), make([]V, buf*slots)
		var n int
		var err error
		if del {
			n, err = m.LookupAndDeleteBatch(c, ks, vs)
		} else {
			n, err = m.LookupBatch(c, ks, vs)
		}
		if errors.Is(err, htab.ErrNoSpace) {
			if n != 0 || c.Done() {
				t.Fatalf("buf %d: ErrNoSpace with %d keys, done %v", buf, n, c.Done())
			}
			buf *= 2
			continue
		}
		if err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
			t.Fatalf("buf %d: %v", buf, err)
		}
		for i := range n {
			checkSpread(t, ks[i], vs[i*slots:(i+1)*slots])
			keys = append(keys, ks[i])
			vals = append(vals, vs[i*slots])
		}
		if err != nil {
			if !c.Done() {
				t.Fatalf("buf %d: ErrKeyNotExist but the cursor is not done", buf)
			}
			return keys, vals
		}
		if n == 0 {
			t.Fatalf("buf %d: a call returned nothing and no error", buf)
		}
	}
}
