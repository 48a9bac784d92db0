package htabtest

import (
	"errors"
	"slices"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// testModel is a model of a map whose buckets hold sizes[b] keys; it is
// enough for the model's own rules, which read no map.
func testModel(sizes ...int) *model[[4]byte, [4]byte] {
	md := &model[[4]byte, [4]byte]{vals: map[[4]byte][][4]byte{}, buckets: make([][][4]byte, len(sizes))}
	n := 0
	for b, size := range sizes {
		for range size {
			md.buckets[b] = append(md.buckets[b], Key[[4]byte](n))
			n++
		}
	}
	return md
}

// The kernel's split of a batch walk: whole buckets that fit, ErrNoSpace
// when the first non-empty bucket does not fit an empty call,
// ErrKeyNotExist from the call that reaches the end. Buckets of 0, 2, 1, 3,
// 0 and 1 keys, worked out by hand.
func TestBatchCallSplit(t *testing.T) {
	md := testModel(0, 2, 1, 3, 0, 1)
	for _, c := range []struct {
		from, room int
		got, next  int
		err        error
	}{
		{0, 3, 3, 3, nil},                 // buckets 1 and 2; bucket 3's 3 keys would make 6
		{0, 2, 2, 2, nil},                 // bucket 1 only
		{0, 1, 0, 1, htab.ErrNoSpace},     // bucket 1's 2 keys do not fit
		{3, 3, 3, 5, nil},                 // bucket 3, empty bucket 4; bucket 5 would make 4
		{3, 4, 4, 6, htab.ErrKeyNotExist}, // to the end
		{3, 2, 0, 3, htab.ErrNoSpace},
		{5, 1, 1, 6, htab.ErrKeyNotExist},
		{6, 1, 0, 6, htab.ErrKeyNotExist}, // past the end
		{0, 7, 7, 6, htab.ErrKeyNotExist}, // the whole map in one call
	} {
		got, next, err := md.batchCall(c.from, c.room)
		if got != c.got || next != c.next || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("batchCall(from bucket %d, room %d) = %d, next %d, %v; want %d, next %d, %v", c.from, c.room, got, next, err, c.got, c.next, c.err)
		}
	}
	if got, next, err := testModel(0, 0).batchCall(0, 4); got != 0 || next != 2 || err != htab.ErrKeyNotExist {
		t.Errorf("empty map: %d, next %d, %v; want 0, 2, ErrKeyNotExist", got, next, err)
	}
}

// The kernel's order: buckets ascending, each newest first; NextKey from
// nil or an absent key is the first key, after the last none.
func TestModelOrder(t *testing.T) {
	md := testModel(2, 0, 1)
	md.mask = 0 // put files every key in bucket 0, newest first
	md.buckets = make([][][4]byte, 1)
	for i := range 3 {
		md.put(Key[[4]byte](i), nil, false)
	}
	md.put(Key[[4]byte](0), nil, true) // in place: stays last
	if want := [][4]byte{Key[[4]byte](2), Key[[4]byte](1), Key[[4]byte](0)}; !slices.Equal(md.order(), want) {
		t.Errorf("order %x, want %x", md.order(), want)
	}
	md.put(Key[[4]byte](0), nil, false) // a replace: the newest
	if want := [][4]byte{Key[[4]byte](0), Key[[4]byte](2), Key[[4]byte](1)}; !slices.Equal(md.order(), want) {
		t.Errorf("after a replace: order %x, want %x", md.order(), want)
	}
	absent := Key[[4]byte](9)
	for _, c := range []struct {
		from *[4]byte
		want [4]byte
		ok   bool
	}{
		{nil, Key[[4]byte](0), true},
		{&absent, Key[[4]byte](0), true},
		{&md.buckets[0][0], Key[[4]byte](2), true},
		{&md.buckets[0][2], [4]byte{}, false},
	} {
		if got, ok := md.next(c.from); got != c.want || ok != c.ok {
			t.Errorf("next(%x) = %x, %v; want %x, %v", c.from, got, ok, c.want, c.ok)
		}
	}
}

// evictMap is a Map that only knows its size, for evictBounds.
type evictMap struct {
	Map[[4]byte, [4]byte]
	max, cpus int
}

func (m evictMap) MaxEntries() int { return m.max }
func (m evictMap) CPUs() int       { return m.cpus }

// How many keys one LRU update may evict, worked out by hand from the
// kernel's bpf_lru: target_free is max/cpus/2 (1..128), PERCPU_FREE_TARGET
// (4) with NoCommonLRU.
func TestEvictBounds(t *testing.T) {
	common := &model[[4]byte, [4]byte]{m: evictMap{max: 64, cpus: 2}, vals: map[[4]byte][][4]byte{}, evictMax: 16, onlyCPU0: true}
	for i := range 60 {
		common.vals[Key[[4]byte](i)] = nil
	}
	// Only CPU 0 has updated: the global list lacks 16-4 of target_free.
	if low, high := common.evictBounds(0, false, false); low != 0 || high != 12 {
		t.Errorf("common LRU, 60 of 64 keys, only CPU 0: %d..%d, want 0..12", low, high)
	}
	if low, high := common.evictBounds(0, false, true); low != 0 || high != 0 {
		t.Errorf("an update that takes no element: %d..%d, want 0..0", low, high)
	}
	common.onlyCPU0 = false
	if low, high := common.evictBounds(1, false, false); low != 0 || high != 16 {
		t.Errorf("common LRU, two CPUs updating: %d..%d, want 0..16", low, high)
	}

	own := &model[[4]byte, [4]byte]{m: evictMap{max: 8, cpus: 2}, evictMax: 4, share: 4, owner: map[[4]byte]int{}}
	for i := range 3 {
		own.owner[Key[[4]byte](i)] = 1
	}
	if low, high := own.evictBounds(1, false, false); low != 0 || high != 0 {
		t.Errorf("NoCommonLRU, CPU 1's list 3 of 4 in use: %d..%d, want 0..0", low, high)
	}
	own.owner[Key[[4]byte](3)] = 1
	if low, high := own.evictBounds(1, false, false); low != 1 || high != 4 {
		t.Errorf("NoCommonLRU, CPU 1's list full, a new key: %d..%d, want 1..4", low, high)
	}
	if low, high := own.evictBounds(1, true, false); low != 0 || high != 4 {
		t.Errorf("NoCommonLRU, CPU 1's list full, a present key: %d..%d, want 0..4", low, high)
	}
	if low, high := own.evictBounds(0, false, false); low != 0 || high != 0 {
		t.Errorf("NoCommonLRU, CPU 0's list empty: %d..%d, want 0..0", low, high)
	}
}

// The test keys and values, and the spread of per-CPU values.
func TestKeysValuesSpread(t *testing.T) {
	if got, want := Key[[10]byte](0x0102), [10]byte{2, 1, 0, 0, 0, 0, 0, 0, 8 * 31, 9 * 31 & 0xff}; got != want {
		t.Errorf("Key(0x0102) = %x, want %x", got, want)
	}
	if got, want := Value[[3]byte](254), [3]byte{254, 255, 0}; got != want {
		t.Errorf("Value(254) = %x, want %x", got, want)
	}
	vals := Spread([2]byte{1, 9}, 3)
	if want := [][2]byte{{1, 9}, {2, 9}, {3, 9}}; !slices.Equal(vals, want) {
		t.Errorf("Spread = %x, want %x", vals, want)
	}
	if !isSpread(vals) {
		t.Error("a spread is not a spread")
	}
	vals[2][1]++
	if isSpread(vals) {
		t.Error("a changed spread is still a spread")
	}
}
