package htabtest

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// How many operations RandomOps runs on each map; the spec matrix, which
// tests hundreds of maps, runs them with -short.
const randomOps, randomOpsShort = 4000, 500

// fillPhase is how many operations of RandomOps fill the map before as many
// run uniformly.
const fillPhase = 250

// RandomOps runs 4000 random operations (500 with -short) on each of a few
// maps and on their models (RunOps): 64 entries on 2 CPUs, also with
// NoPrealloc (NoCommonLRU for the LRU types) and with every key in bucket 0;
// 7 entries on 3 CPUs; 1 entry; 16 on 1 CPU; and with every program-side
// operation on CPU 0, 64 entries on 2 CPUs, with and without NoPrealloc (or
// NoCommonLRU), and 7 on 3 CPUs with it (the table below). Every other run of 250 operations is three quarters updates,
// so that the maps fill (and LRU maps evict) before the other operations
// empty them. m stands for the kind of map: the maps are m.New's.
func RandomOps[K, V comparable](t *testing.T, m Map[K, V]) {
	alt := "noprealloc"
	if m.Info().LRU() {
		alt = "nocommonlru" // LRU maps have no NoPrealloc
	}
	for _, run := range []struct {
		name string
		opts byte // as newModel reads it
	}{
		{"max64-cpus2", 0x0f},
		{"max64-cpus2-" + alt, 0x2f},
		{"max64-cpus2-degenerate", 0x4f},
		{"max7-cpus3", 0x14},
		{"max1-cpus2", 0x08},
		{"max16-cpus1", 0x06},
		{"max64-cpus2-cpu0", 0x8f},
		{"max64-cpus2-" + alt + "-cpu0", 0xaf},
		{"max7-cpus3-" + alt + "-cpu0", 0xb4},
	} {
		t.Run(run.name, func(t *testing.T) {
			n := randomOps
			if testing.Short() {
				n = randomOpsShort
			}
			RunOps(t, m, randomOpsData(run.opts, n))
		})
	}
}

// randomOpsData is RandomOps's input for RunOps: the map opts, then n random
// operations, three quarters of them updates in every other run of
// fillPhase.
func randomOpsData(opts byte, n int) []byte {
	rng := rand.New(rand.NewPCG(1, uint64(opts)))
	data := make([]byte, 1+3*n)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := range n {
		if i/fillPhase%2 == 0 && rng.IntN(4) != 0 {
			data[1+3*i] = byte(rng.IntN(2)) // Update or CPU(c).Update
		}
	}
	data[0] = opts
	return data
}

// FuzzOps adds a few seed inputs to f and fuzzes RunOps with maps of m's
// kind: the fuzzer picks the map's options and the operations.
func FuzzOps[K, V comparable](f *testing.F, m Map[K, V]) {
	for _, seed := range []string{
		"\x0f\x00\x01\x00\x00\x02\x01\x05\x01\x00\x07\x02\x03\x02\x01\x00",
		"\x2f\x01\x01\x04\x01\x02\x08\x06\x01\x04\x04\x01\x00\x07\x00\x03",
		"\x48\x00\x01\x00\x00\x02\x02\x00\x03\x01\x03\x01\x00\x05\x03\x00",
		"\x11\x01\x00\x08\x01\x01\x04\x00\x02\x00\x06\x00\x08\x02\x00\x04",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { RunOps(t, m, data) })
}

// RunOps runs the operations that data encodes on a new map of m's kind and
// on a model of the kernel's map, which knows what the map must hold by the
// kernel's rules: each key's values and each bucket's keys, newest first. It
// checks every result, and after every step that the map's contents, in
// iteration order, are the model's; after every 8th and the last, so must
// be what a NextKey walk and one LookupBatch of the whole map see. An LRU
// map's evictions are not predicted, they are reconciled: the model drops
// what the map dropped and checks that the kernel's algorithm could have
// dropped it (how many one update may evict, whose list with NoCommonLRU,
// and none while the map has room enough).
//
// data[0] picks the map: bits 0-2 MaxEntries (1, 2, 3, 4, 7, 8, 16, 64), bits
// 3-4 CPUs (1, 2, 3, 1), bit 5 NoPrealloc (NoCommonLRU for an LRU map), bit 6
// a degenerate hash that puts every key in bucket 0, bit 7 every
// program-side operation on CPU 0 (so that an LRU map's model knows when it
// must not evict). Then every three bytes are an operation, op, kb and arg:
// op%12 is 0 Update, 1 CPU(c).Update, 2 Delete, 3 CPU(c).Delete,
// 4 LookupAndDelete, 5 Lookup, 6 CPU(c).Lookup, 7 NextKey, 8 a LookupBatch
// walk, 9 one LookupAndDeleteBatch, 10 DeleteBatch, 11 UpdateBatch; the key
// is test key kb%(2*MaxEntries+3); arg picks the flags (arg&3, 3 is
// invalid), the CPU (arg>>2), for NextKey a nil key (arg&3 == 3), the room of
// a batch call (arg&7 + 1) and how many keys DeleteBatch and UpdateBatch
// take (arg>>2&3 + 1; one for an LRU map's UpdateBatch, whose evictions are
// reconciled per update).
func RunOps[K, V comparable](t testing.TB, m Map[K, V], data []byte) {
	t.Helper()
	if len(data) == 0 {
		return
	}
	md := newModel(t, m, data[0])
	for i := 1; i+2 < len(data); i += 3 {
		md.step(i/3, data[i], data[i+1], data[i+2])
		if i/3%8 == 7 {
			md.check(i / 3)
		} else if md.compared != i/3+1 { // an LRU update compares already
			keys, vals := all(md.m)
			md.compare(i/3, keys, vals)
		}
	}
	md.check(len(data) / 3)
}

// model is what a map must hold after the operations so far, by the
// kernel's rules: each key's values (CPU c's at [c] for the per-CPU types,
// else one) and each bucket's keys, newest first. Its methods run one
// operation on the map and on the model and fail t at the first difference.
type model[K, V comparable] struct {
	t       testing.TB
	m       Map[K, V]
	perCPU  bool // a value per CPU; a replace is in place
	lru     bool // updates evict
	seed    uint32
	mask    uint32
	vals    map[K][]V
	buckets [][]K // bucket b's keys, newest first

	// LRU maps: how many keys an update may evict (evictBounds). evictMax
	// is one shrink: target_free keys, or PERCPU_FREE_TARGET with
	// NoCommonLRU. With NoCommonLRU each CPU's list holds share elements,
	// and owner says whose list holds each key's element (the userspace
	// side is CPU 0).
	evictMax, share int
	owner           map[K]int // NoCommonLRU only
	onlyCPU0        bool      // no update on another CPU yet

	cpu0 bool // every program-side operation runs on CPU 0

	compared int // the last step after which compare ran (+1, so that 0 is none)
}

// newModel makes a map of m's kind and its model with the options that b
// picks (RunOps).
func newModel[K, V comparable](t testing.TB, kind Map[K, V], b byte) *model[K, V] {
	t.Helper()
	info := kind.Info()
	opts := htab.Options{
		MaxEntries: []int{1, 2, 3, 4, 7, 8, 16, 64}[b&7],
		CPUs:       1 + int(b>>3&3)%3,
		ZeroSeed:   true,
	}
	if info.LRU() {
		opts.NoCommonLRU = b&0x20 != 0
	} else {
		opts.NoPrealloc = b&0x20 != 0
	}
	m := newMap(t, kind, opts)
	if b&0x40 != 0 {
		m.Degenerate()
	}
	md := &model[K, V]{
		t: t, m: m, perCPU: info.PerCPU(), lru: info.LRU(),
		seed: m.Seed(), mask: uint32(m.Buckets() - 1),
		vals: map[K][]V{}, buckets: make([][]K, m.Buckets()),
		onlyCPU0: true, cpu0: b&0x80 != 0,
	}
	if opts.NoCommonLRU {
		md.evictMax, md.share, md.owner = 4, m.MaxEntries()/m.CPUs(), map[K]int{}
	} else {
		md.evictMax = min(max(m.MaxEntries()/m.CPUs()/2, 1), 128) // target_free
	}
	return md
}

// The update callers that are not a CPU's program side.
const (
	userspace = -1 // Update
	batch     = -2 // UpdateBatch of one key
)

// step runs operation op%12 on the map and the model (RunOps says which).
func (md *model[K, V]) step(step int, op, kb, arg byte) {
	t, m := md.t, md.m
	k := Key[K](int(kb) % (2*m.MaxEntries() + 3))
	v := Value[V](step)
	cpu, flags := int(arg>>2)%m.CPUs(), htab.UpdateFlags(arg&3)
	if md.cpu0 {
		cpu = 0
	}
	old, present := md.vals[k]
	switch op %= 12; op {
	case 0:
		md.update(step, k, userspace, v, flags)
	case 1:
		md.update(step, k, cpu, v, flags)
	case 2, 3:
		var err error
		if op == 2 {
			cpu = userspace
			err = m.Delete(k)
		} else {
			err = m.CPU(cpu).Delete(k)
		}
		if present && err != nil || !present && !errors.Is(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: Delete(%x) on CPU %d (-1: userspace) = %v; present %v", step, hex(k), cpu, err, present)
		}
		md.remove(k)
	case 4:
		got, err := lookupAndDelete(m, k)
		if present && (err != nil || !slices.Equal(got, old)) || !present && !errors.Is(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: LookupAndDelete(%x) = %x, %v; want %x, present %v", step, hex(k), hex(got), err, hex(old), present)
		}
		md.remove(k)
	case 5:
		got, ok := lookup(m, k)
		if ok != present || ok && !slices.Equal(got, old) {
			t.Fatalf("step %d: Lookup(%x) = %x, %v; want %x, %v", step, hex(k), hex(got), ok, hex(old), present)
		}
	case 6:
		got, ok := m.CPU(cpu).Lookup(k)
		if ok != present || ok && got != old[md.slot(cpu)] {
			t.Fatalf("step %d: CPU(%d).Lookup(%x) = %x, %v; want %x", step, cpu, hex(k), hex(got), ok, hex(old))
		}
	case 7:
		from := &k
		if arg&3 == 3 {
			from = nil
		}
		next, err := m.NextKey(from)
		want, ok := md.next(from)
		if ok && (err != nil || next != want) || !ok && !errors.Is(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: NextKey(%x, present %v) = %x, %v; want %x, %v", step, hex(k), present && from != nil, hex(next), err, hex(want), ok)
		}
	case 8:
		md.batchWalk(step, int(arg&7)+1)
	case 9:
		md.batchDelete(step, int(arg&7)+1)
	case 10:
		keys := md.run(kb, arg)
		n, err := m.DeleteBatch(keys)
		want := 0 // DeleteBatch stops at the first absent key
		for ; want < len(keys); want++ {
			if _, ok := md.vals[keys[want]]; !ok {
				break
			}
			md.remove(keys[want])
		}
		if n != want || want < len(keys) && !errors.Is(err, htab.ErrKeyNotExist) || want == len(keys) && err != nil {
			t.Fatalf("step %d: DeleteBatch(%x) = %d, %v; want %d", step, hex(keys), n, err, want)
		}
	case 11:
		if md.lru {
			md.update(step, k, batch, v, flags) // one key: evictions are reconciled per update
		} else {
			md.updateBatch(step, md.run(kb, arg), v, flags)
		}
	}
	if n := m.Len(); n != len(md.vals) {
		t.Fatalf("step %d (op %d): Len() = %d, want %d", step, op, n, len(md.vals))
	}
}

// update runs an update of k on CPU cpu's program side, or as userspace or
// batch, and checks its result.
func (md *model[K, V]) update(step int, k K, cpu int, v V, flags htab.UpdateFlags) {
	t, m := md.t, md.m
	old, present := md.vals[k]
	// fresh is what a new k holds, replaced what a present k holds after.
	var fresh []V
	var err error
	if cpu < 0 {
		fresh = Spread(v, md.slots())
		if cpu == userspace {
			err = m.Update(k, fresh, flags)
		} else {
			var n int
			n, err = m.UpdateBatch([]K{k}, fresh, flags)
			if n != 1 && err == nil || n != 0 && err != nil {
				t.Fatalf("step %d: UpdateBatch of one key = %d, %v", step, n, err)
			}
		}
	} else {
		md.onlyCPU0 = md.onlyCPU0 && cpu == 0
		fresh = make([]V, md.slots())
		fresh[md.slot(cpu)] = v // a new key zeroes the other CPUs
		err = m.CPU(cpu).Update(k, v, flags)
	}
	replaced := fresh
	if md.perCPU && present && cpu >= 0 {
		replaced = append([]V(nil), old...)
		replaced[cpu] = v
	}
	// UpdateBatch takes only UpdateAny, as the kernel's (elem_flags).
	invalid := flags > htab.UpdateExist || cpu == batch && flags != htab.UpdateAny
	// An LRU map's contents after the update, read once: for evicted and for
	// the comparison below.
	var keys []K
	var vals [][]V
	if md.lru {
		keys, vals = all(m)
		present = md.evicted(step, k, cpu, present, replaced, flags, invalid, err, keys, vals)
	}
	var want error
	switch {
	case invalid:
		want = htab.ErrInvalid
	case flags == htab.UpdateNoExist && present:
		want = htab.ErrKeyExist
	case flags == htab.UpdateExist && !present:
		want = htab.ErrKeyNotExist
	case !md.lru && !present && len(md.vals) == m.MaxEntries():
		want = htab.ErrFull
	}
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("step %d: Update(%x, flags %d) on CPU %d (-1: Update, -2: UpdateBatch) = %v, want %v; present %v", step, hex(k), flags, cpu, err, want, present)
	}
	if err != nil {
		return
	}
	if present {
		md.put(k, replaced, md.perCPU)
	} else {
		md.put(k, fresh, false)
	}
	if md.owner != nil && !(present && md.perCPU) {
		md.owner[k] = max(cpu, 0) // a new element, from the updating CPU's list
	}
	if md.lru {
		md.compare(step, keys, vals)
	}
}

// evicted drops from an LRU map's model the keys the update of k evicted
// (those the map's contents after it, keys and vals, lack), k too if the
// update's own eviction took it before the update looked it up, checks them
// against evictBounds, and returns whether k was present when the update
// looked it up.
func (md *model[K, V]) evicted(step int, k K, cpu int, present bool, replaced []V, flags htab.UpdateFlags, invalid bool, err error, keys []K, vals [][]V) bool {
	t, c := md.t, max(cpu, 0)
	low, high := md.evictBounds(c, present, invalid || md.perCPU && flags == htab.UpdateExist)
	in := make(map[K][]V, len(keys))
	for i, key := range keys {
		in[key] = vals[i]
	}
	before := len(md.vals)
	var gone []K
	for key := range md.vals {
		if _, ok := in[key]; !ok && key != k {
			gone = append(gone, key)
		}
	}
	for _, key := range gone {
		md.dropEvicted(step, c, key)
	}
	if got, ok := in[k]; present {
		switch {
		case !ok: // then err must be ErrKeyNotExist, for UpdateExist
		case err == nil && flags == htab.UpdateNoExist:
			ok = false // it would have been ErrKeyExist
		case err == nil && flags == htab.UpdateAny && md.perCPU && len(gone) < high:
			// Replaced in place, or evicted and inserted anew, the newest of
			// its bucket: where it is and what it holds tell.
			ok = slices.Equal(got, replaced) && md.place(md.buckets[md.bucket(k)], k) == md.place(keys, k)
		}
		if !ok {
			gone = append(gone, k)
			md.dropEvicted(step, c, k)
		}
		present = ok
	}
	if len(gone) < low || len(gone) > high {
		t.Fatalf("step %d: Update(%x, flags %d) on CPU %d evicted %d keys (%x) of %d; want %d to %d", step, hex(k), flags, cpu, len(gone), hex(gone), before, low, high)
	}
	return present
}

// dropEvicted drops k, which an update on CPU c evicted, from the model;
// with NoCommonLRU, k's element must have been on CPU c's list.
func (md *model[K, V]) dropEvicted(step, c int, k K) {
	if o, ok := md.owner[k]; ok && o != c {
		md.t.Fatalf("step %d: an update on CPU %d evicted %x, whose element is on CPU %d's list", step, c, hex(k), o)
	}
	md.remove(k)
}

// evictBounds is how many keys an update on CPU c (present: of a key the
// map holds; noPop: one that takes no element) may evict, by the kernel's
// LRU. One shrink evicts at most evictMax. With NoCommonLRU, CPU c shrinks
// its own list only when every element on it is in use, and then evicts at
// least one (unless the key was present: it may have evicted the key itself,
// unseen). With the common LRU, while only CPU 0 has updated, every free
// element is on CPU 0's local free list or the global one, and a refill
// (when the local list is empty) evicts only what the global list lacks of
// target_free.
func (md *model[K, V]) evictBounds(c int, present, noPop bool) (low, high int) {
	switch {
	case noPop:
		return 0, 0
	case md.owner != nil:
		used := 0
		for _, o := range md.owner {
			if o == c {
				used++
			}
		}
		if used < md.share {
			return 0, 0
		}
		if !present {
			low = 1
		}
		return low, md.evictMax
	case md.onlyCPU0:
		return 0, max(0, md.evictMax-(md.m.MaxEntries()-len(md.vals)))
	}
	return 0, md.evictMax
}

// run is the keys of a DeleteBatch or UpdateBatch: arg>>2&3 + 1 of them,
// kb's key and the ones after it.
func (md *model[K, V]) run(kb, arg byte) []K {
	keys := make([]K, 1+int(arg>>2&3))
	for j := range keys {
		keys[j] = Key[K]((int(kb) + j) % (2*md.m.MaxEntries() + 3))
	}
	return keys
}

// updateBatch runs UpdateBatch of keys on a hash or per-CPU map, each key's
// values the spread of v with the key's index added to the first byte
// (key i, CPU c: v + i*slots + c): as the kernel's, it takes only
// UpdateAny, updates the keys in turn and stops at the first error
// (ErrFull), returning how many it updated.
func (md *model[K, V]) updateBatch(step int, keys []K, v V, flags htab.UpdateFlags) {
	t, slots := md.t, md.slots()
	vals := Spread(v, len(keys)*slots)
	n, err := md.m.UpdateBatch(keys, vals, flags)
	want, wantErr := 0, error(nil)
	if flags != htab.UpdateAny {
		wantErr = htab.ErrInvalid
	}
	for ; wantErr == nil && want < len(keys); want++ {
		k := keys[want]
		_, present := md.vals[k]
		if !present && len(md.vals) == md.m.MaxEntries() {
			wantErr = htab.ErrFull
			break
		}
		md.put(k, vals[want*slots:(want+1)*slots], md.perCPU)
	}
	if n != want || wantErr == nil && err != nil || wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("step %d: UpdateBatch(%x, flags %d) = %d, %v; want %d, %v", step, hex(keys), flags, n, err, want, wantErr)
	}
}

// batchCall is what a batch call with room for n keys must return from
// bucket b on, by the kernel's rule: the whole buckets that fit; ErrNoSpace
// if the first non-empty one does not fit an empty call; ErrKeyNotExist from
// the call that reaches the end. next is where the next call starts.
func (md *model[K, V]) batchCall(b, n int) (got, next int, err error) {
	for ; b < len(md.buckets); b++ {
		if l := len(md.buckets[b]); got+l > n {
			if got == 0 {
				return 0, b, htab.ErrNoSpace
			}
			return got, b, nil
		}
		got += len(md.buckets[b])
	}
	return got, b, htab.ErrKeyNotExist
}

// batchCheck checks what a batch call returned against batchCall's answer
// and the model's keys from position at of the order.
func (md *model[K, V]) batchCheck(step int, what string, keys []K, vals []V, got int, err error, want int, wantErr error, at int) {
	t, order := md.t, md.order()
	if got != want || wantErr == nil && err != nil || wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("step %d: %s with room for %d keys = %d, %v; want %d, %v", step, what, len(keys), got, err, want, wantErr)
	}
	for i := range got {
		v := vals[i*md.slots() : (i+1)*md.slots()]
		if k := order[at+i]; keys[i] != k || !slices.Equal(v, md.vals[k]) {
			t.Fatalf("step %d: %s's key %d is %x = %x, want %x = %x", step, what, i, hex(keys[i]), hex(v), hex(k), hex(md.vals[k]))
		}
	}
}

// batchWalk walks the whole map with LookupBatch, with room for n keys a
// call (twice as many after ErrNoSpace), checking every call.
func (md *model[K, V]) batchWalk(step, n int) {
	c, b, at := new(htab.Cursor), 0, 0
	for calls := 0; ; calls++ {
		if calls > len(md.buckets)+8 {
			md.t.Fatalf("step %d: the LookupBatch walk does not end", step)
		}
		want, next, wantErr := md.batchCall(b, n)
		keys, vals := make([]K, n), make([]V, n*md.slots())
		got, err := md.m.LookupBatch(c, keys, vals)
		md.batchCheck(step, "LookupBatch", keys, vals, got, err, want, wantErr, at)
		switch at, b = at+got, next; wantErr {
		case nil:
		case htab.ErrNoSpace:
			n *= 2
		default:
			return
		}
	}
}

// batchDelete runs one LookupAndDeleteBatch from the start, with room for
// n keys, and deletes from the model what it must have deleted.
func (md *model[K, V]) batchDelete(step, n int) {
	want, _, wantErr := md.batchCall(0, n)
	keys, vals := make([]K, n), make([]V, n*md.slots())
	got, err := md.m.LookupAndDeleteBatch(new(htab.Cursor), keys, vals)
	md.batchCheck(step, "LookupAndDeleteBatch", keys, vals, got, err, want, wantErr, 0)
	for _, k := range keys[:got] {
		md.remove(k)
	}
}

// bucket is k's bucket: the kernel's jhash of k with the map's seed, masked.
func (md *model[K, V]) bucket(k K) uint32 { return htab.Jhash(bytesOf(&k), md.seed) & md.mask }

// place is how many keys of k's bucket come before k in keys.
func (md *model[K, V]) place(keys []K, k K) int {
	n := 0
	for _, key := range keys {
		if key == k {
			return n
		}
		if md.bucket(key) == md.bucket(k) {
			n++
		}
	}
	return -1
}

// slots is how many values the model keeps per key; slot(c) is the one that
// CPU c's program side reads and writes.
func (md *model[K, V]) slots() int {
	if md.perCPU {
		return md.m.CPUs()
	}
	return 1
}

func (md *model[K, V]) slot(c int) int {
	if md.perCPU {
		return c
	}
	return 0
}

// put gives k the values vals: in place if inPlace and k is present, else
// as the newest key of its bucket.
func (md *model[K, V]) put(k K, vals []V, inPlace bool) {
	if _, ok := md.vals[k]; !ok || !inPlace {
		md.remove(k)
		b := md.bucket(k)
		md.buckets[b] = append([]K{k}, md.buckets[b]...)
	}
	md.vals[k] = vals
}

func (md *model[K, V]) remove(k K) {
	delete(md.vals, k)
	delete(md.owner, k)
	b := md.bucket(k)
	for i, key := range md.buckets[b] {
		if key == k {
			md.buckets[b] = append(md.buckets[b][:i:i], md.buckets[b][i+1:]...)
			return
		}
	}
}

// order is every key in the kernel's order: buckets ascending, each newest first.
func (md *model[K, V]) order() (keys []K) {
	for _, b := range md.buckets {
		keys = append(keys, b...)
	}
	return keys
}

// next is what NextKey(from) must return: the key after from, or the first
// key if from is nil or absent; false after the last.
func (md *model[K, V]) next(from *K) (K, bool) {
	order := md.order()
	i := 0
	if from != nil {
		for j, k := range order {
			if k == *from {
				i = j + 1
			}
		}
	}
	if i == len(order) {
		var zero K
		return zero, false
	}
	return order[i], true
}

// compare checks keys and vals, what All yielded, against the model.
func (md *model[K, V]) compare(step int, keys []K, vals [][]V) {
	md.compared = step + 1
	order := md.order()
	if len(keys) != len(order) {
		md.t.Fatalf("after step %d: All yields %d keys, want %d:\n%x\nwant\n%x", step, len(keys), len(order), hex(keys), hex(order))
	}
	for i, k := range order {
		if keys[i] != k || !slices.Equal(vals[i], md.vals[k]) {
			md.t.Fatalf("after step %d: All's key %d is %x = %x, want %x = %x", step, i, hex(keys[i]), hex(vals[i]), hex(k), hex(md.vals[k]))
		}
	}
}

// check compares the whole map with the model three ways: All, a NextKey
// walk, and one LookupBatch with room for every key.
func (md *model[K, V]) check(step int) {
	t, m := md.t, md.m
	keys, vals := all(m)
	md.compare(step, keys, vals)
	var from *K
	for i, want := range keys {
		next, err := m.NextKey(from)
		if err != nil || next != want {
			t.Fatalf("after step %d: NextKey walk step %d = %x, %v; want %x", step, i, hex(next), err, hex(want))
		}
		from = &next
	}
	if _, err := m.NextKey(from); !errors.Is(err, htab.ErrKeyNotExist) {
		t.Fatalf("after step %d: NextKey after the last key = %v, want ErrKeyNotExist", step, err)
	}
	bkeys := make([]K, max(len(keys), 1))
	bvals := make([]V, len(bkeys)*md.slots())
	n, err := m.LookupBatch(new(htab.Cursor), bkeys, bvals)
	if n != len(keys) || !errors.Is(err, htab.ErrKeyNotExist) {
		t.Fatalf("after step %d: LookupBatch with room for all %d keys = %d, %v; want %d, ErrKeyNotExist", step, len(keys), n, err, len(keys))
	}
	for i := range n {
		if got := bvals[i*md.slots() : (i+1)*md.slots()]; bkeys[i] != keys[i] || !slices.Equal(got, vals[i]) {
			t.Fatalf("after step %d: LookupBatch's key %d is %x = %x, want %x = %x", step, i, hex(bkeys[i]), hex(got), hex(keys[i]), hex(vals[i]))
		}
	}
}
