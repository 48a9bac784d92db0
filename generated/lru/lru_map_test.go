package lru

// Ports of the kernel's tools/testing/selftests/bpf/test_lru_map.c (v6.16+,
// kernel-htab.md §6.6) to the generated LRU maps: sanity0..8, for both LRU
// types, common and per-CPU LRU lists (NoCommonLRU) and 1, 2 and 4 CPUs. The
// kernel test runs every operation on CPU 0: here the userspace methods (which
// act as CPU 0) stand for its syscalls, and CPU(0).Lookup for its lookup_ref
// (a lookup by a BPF program, which sets the ref bit). sanity5 walks every
// CPU: there the syscalls of the child pinned to CPU c are CPU(c)'s.

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// lruTwin is one generated LRU map behind the few operations the ports and
// the differential tests need, with uint64 keys and values (the unsigned long
// long of test_lru_map.c). A per-CPU map's value is summarised by CPU 0's
// slot (value[0], which map_equal compares); userspace updates write the same
// value to every CPU.
type lruTwin interface {
	typeName() string
	cpus() int
	maxEntries() int
	length() int
	// update is a syscall update issued on CPU cpu: the userspace Update for
	// CPU 0, CPU(cpu).Update otherwise.
	update(cpu int, key, val uint64, flags htab.UpdateFlags) error
	lookup(key uint64) (uint64, bool)    // syscall lookup: no ref bit
	lookupRef(key uint64) (uint64, bool) // program lookup on CPU 0: CPU(0).Lookup
	lookupRefOn(cpu int, key uint64) (uint64, bool)
	lookupAndDelete(key uint64) (uint64, error)
	delete(key uint64) error
	contents() map[uint64]uint64 // from All: key -> value[0]
	allKeys() []uint64           // All's keys, in its order
	nextKeys() ([]uint64, error) // the NextKey walk from nil
}

func lruKey(k uint64) (b [8]byte) { binary.LittleEndian.PutUint64(b[:], k); return }
func lruU64(b [8]byte) uint64     { return binary.LittleEndian.Uint64(b[:]) }

// ---- LRU_HASH ----

type lruHashTwin struct{ m *LruK8V8 }

func (w lruHashTwin) typeName() string { return "lru_hash" }
func (w lruHashTwin) cpus() int        { return w.m.CPUs() }
func (w lruHashTwin) maxEntries() int  { return w.m.MaxEntries() }
func (w lruHashTwin) length() int      { return w.m.Len() }

func (w lruHashTwin) update(cpu int, key, val uint64, flags htab.UpdateFlags) error {
	if cpu == 0 {
		return w.m.Update(lruKey(key), lruKey(val), flags)
	}
	return w.m.CPU(cpu).Update(lruKey(key), lruKey(val), flags)
}

func (w lruHashTwin) lookup(key uint64) (uint64, bool) {
	v, ok := w.m.Lookup(lruKey(key))
	return lruU64(v), ok
}

func (w lruHashTwin) lookupRef(key uint64) (uint64, bool) { return w.lookupRefOn(0, key) }

func (w lruHashTwin) lookupRefOn(cpu int, key uint64) (uint64, bool) {
	v, ok := w.m.CPU(cpu).Lookup(lruKey(key))
	return lruU64(v), ok
}

func (w lruHashTwin) lookupAndDelete(key uint64) (uint64, error) {
	v, err := w.m.LookupAndDelete(lruKey(key))
	return lruU64(v), err
}

func (w lruHashTwin) delete(key uint64) error { return w.m.Delete(lruKey(key)) }

func (w lruHashTwin) contents() map[uint64]uint64 {
	out := map[uint64]uint64{}
	for k, v := range w.m.All() {
		out[lruU64(k)] = lruU64(v)
	}
	return out
}

func (w lruHashTwin) allKeys() []uint64 {
	var out []uint64
	for k := range w.m.All() {
		out = append(out, lruU64(k))
	}
	return out
}

func (w lruHashTwin) nextKeys() ([]uint64, error) {
	var out []uint64
	var prev *LruK8V8Key
	for range w.m.MaxEntries() + 1 {
		k, err := w.m.NextKey(prev)
		if err != nil {
			if err == htab.ErrKeyNotExist {
				return out, nil
			}
			return out, err
		}
		out = append(out, lruU64(k))
		prev = &k
	}
	return out, fmt.Errorf("NextKey walk longer than MaxEntries (%d)", w.m.MaxEntries())
}

// ---- LRU_PERCPU_HASH ----

type lruPcpuTwin struct{ m *LruPcpuK8V8 }

func (w lruPcpuTwin) typeName() string { return "lru_percpu_hash" }
func (w lruPcpuTwin) cpus() int        { return w.m.CPUs() }
func (w lruPcpuTwin) maxEntries() int  { return w.m.MaxEntries() }
func (w lruPcpuTwin) length() int      { return w.m.Len() }

func (w lruPcpuTwin) vals(v uint64) []LruPcpuK8V8Value {
	out := make([]LruPcpuK8V8Value, w.m.CPUs())
	for i := range out {
		out[i] = lruKey(v)
	}
	return out
}

func (w lruPcpuTwin) update(cpu int, key, val uint64, flags htab.UpdateFlags) error {
	if cpu == 0 {
		return w.m.Update(lruKey(key), w.vals(val), flags)
	}
	return w.m.CPU(cpu).Update(lruKey(key), lruKey(val), flags)
}

func (w lruPcpuTwin) lookup(key uint64) (uint64, bool) {
	vals := make([]LruPcpuK8V8Value, w.m.CPUs())
	ok := w.m.Lookup(lruKey(key), vals)
	return lruU64(vals[0]), ok
}

func (w lruPcpuTwin) lookupRef(key uint64) (uint64, bool) { return w.lookupRefOn(0, key) }

func (w lruPcpuTwin) lookupRefOn(cpu int, key uint64) (uint64, bool) {
	v, ok := w.m.CPU(cpu).Lookup(lruKey(key))
	return lruU64(v), ok
}

func (w lruPcpuTwin) lookupAndDelete(key uint64) (uint64, error) {
	vals := make([]LruPcpuK8V8Value, w.m.CPUs())
	err := w.m.LookupAndDelete(lruKey(key), vals)
	return lruU64(vals[0]), err
}

func (w lruPcpuTwin) delete(key uint64) error { return w.m.Delete(lruKey(key)) }

func (w lruPcpuTwin) contents() map[uint64]uint64 {
	out := map[uint64]uint64{}
	for k, vs := range w.m.All() {
		out[lruU64(k)] = lruU64(vs[0])
	}
	return out
}

func (w lruPcpuTwin) allKeys() []uint64 {
	var out []uint64
	for k := range w.m.All() {
		out = append(out, lruU64(k))
	}
	return out
}

func (w lruPcpuTwin) nextKeys() ([]uint64, error) {
	var out []uint64
	var prev *LruPcpuK8V8Key
	for range w.m.MaxEntries() + 1 {
		k, err := w.m.NextKey(prev)
		if err != nil {
			if err == htab.ErrKeyNotExist {
				return out, nil
			}
			return out, err
		}
		out = append(out, lruU64(k))
		prev = &k
	}
	return out, fmt.Errorf("NextKey walk longer than MaxEntries (%d)", w.m.MaxEntries())
}

func newLRUTwin(t testing.TB, percpu bool, opts htab.Options) lruTwin {
	t.Helper()
	if percpu {
		m, err := NewLruPcpuK8V8(opts)
		require.NoError(t, err)
		return lruPcpuTwin{m}
	}
	m, err := NewLruK8V8(opts)
	require.NoError(t, err)
	return lruHashTwin{m}
}

// ---- test_lru_map.c ----

const (
	lruMapLocalFreeTarget  = 128 // LOCAL_FREE_TARGET in test_lru_map.c
	lruMapPercpuFreeTarget = 4   // PERCPU_FREE_TARGET in test_lru_map.c
)

type lruMapEnv struct {
	t        *testing.T
	percpu   bool // LRU_PERCPU_HASH
	noCommon bool // BPF_F_NO_COMMON_LRU
	cpus     int  // nr_cpus
	tgtFree  uint64
	expected map[uint64]uint64 // the kernel test's expected map

	// newTwin, if set, makes the map instead of newLRUTwin (the kernel's,
	// in TestKernelLRUSanity).
	newTwin func(t testing.TB, percpu bool, opts htab.Options) lruTwin
}

func (e *lruMapEnv) newMap(size int) lruTwin {
	e.expected = map[uint64]uint64{}
	mk := newLRUTwin
	if e.newTwin != nil {
		mk = e.newTwin
	}
	m := mk(e.t, e.percpu, htab.Options{MaxEntries: size, CPUs: e.cpus, NoCommonLRU: e.noCommon})
	require.Equal(e.t, e.cpus, m.cpus())
	return m
}

// mapSize is __map_size(); tgtSize is __tgt_size().
func (e *lruMapEnv) mapSize(tgt uint64) uint64 { return tgt * uint64(e.cpus) * 2 }
func (e *lruMapEnv) tgtSize(m uint64) uint64   { return m / uint64(e.cpus) / 2 }

// ins inserts key with BPF_NOEXIST from CPU 0; expect adds it to the expected map.
func (e *lruMapEnv) ins(m lruTwin, key, val uint64, expect bool) {
	e.t.Helper()
	require.NoError(e.t, m.update(0, key, val, htab.UpdateNoExist), "insert %d", key)
	if expect {
		e.expected[key] = val
	}
}

// ref is lookup_ref: a program's lookup on CPU 0, which must find key.
func (e *lruMapEnv) ref(m lruTwin, key uint64) uint64 {
	e.t.Helper()
	v, ok := m.lookupRef(key)
	require.True(e.t, ok, "lookup_ref %d", key)
	return v
}

// absent is a syscall lookup that must answer ENOENT.
func (e *lruMapEnv) absent(m lruTwin, key uint64) {
	e.t.Helper()
	_, ok := m.lookup(key)
	require.False(e.t, ok, "key %d should be absent", key)
}

// equal is map_equal(lru, expected): the same keys, and value[0] of each equal.
// It also checks that Len and the NextKey walk agree with All.
func (e *lruMapEnv) equal(m lruTwin) {
	e.t.Helper()
	got := m.contents()
	if !assert.Equal(e.t, e.expected, got, "map_equal") {
		e.t.Logf("missing: %v", lruMapKeyDiff(e.expected, got))
		e.t.Logf("unexpected: %v", lruMapKeyDiff(got, e.expected))
	}
	require.Equal(e.t, len(got), m.length(), "Len")
	walk, err := m.nextKeys()
	require.NoError(e.t, err)
	require.Equal(e.t, m.allKeys(), walk, "NextKey walk vs All")
}

// expectKeys checks the survivors against the sets of kernel-htab.md §6.6,
// independently of the expected map built as the test went.
func (e *lruMapEnv) expectKeys(m lruTwin, keys ...[]uint64) {
	e.t.Helper()
	want := slices.Concat(keys...)
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(m.contents()))
	require.Equal(e.t, want, got)
}

func lruMapKeyDiff(a, b map[uint64]uint64) []uint64 {
	var out []uint64
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func lruMapRange(lo, hi uint64) []uint64 { // [lo, hi]
	var out []uint64
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}

// sanity0: size 2; lookup_ref 1, insert 3 evicts 2; lookup_and_delete 1.
func lruMapSanity0(e *lruMapEnv) {
	t := e.t
	size := 2
	if e.noCommon {
		size = 2 * e.cpus
	}
	m := e.newMap(size)
	e.ins(m, 1, 1234, true)
	require.ErrorIs(t, m.update(0, 1, 1234, htab.UpdateNoExist), htab.ErrKeyExist)
	require.ErrorIs(t, m.update(0, 1, 1234, math.MaxUint64), htab.ErrInvalid) // flags -1
	e.absent(m, 2)
	require.ErrorIs(t, m.update(0, 2, 1234, htab.UpdateExist), htab.ErrKeyNotExist)
	e.ins(m, 2, 1234, false)
	e.absent(m, 3)
	require.Equal(t, uint64(1234), e.ref(m, 1))
	e.ins(m, 3, 1234, true)
	e.absent(m, 2)
	v, err := m.lookupAndDelete(1)
	require.NoError(t, err)
	require.Equal(t, uint64(1234), v)
	delete(e.expected, 1)
	e.equal(m)
	e.expectKeys(m, []uint64{3})
}

// sanity1: unreferenced elements are recycled before referenced ones.
func lruMapSanity1(e *lruMapEnv) {
	batch := e.tgtFree / 2
	ms := e.mapSize(e.tgtFree)
	m := e.newMap(int(ms + batch))
	for k := uint64(1); k <= ms; k++ {
		e.ins(m, k, 1234, false)
	}
	for k := uint64(1); k <= batch; k++ {
		e.expected[k] = e.ref(m, k)
	}
	for k := ms + 1; k <= 2*ms; k++ {
		e.ins(m, k, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, lruMapRange(1, batch), lruMapRange(ms+1, 2*ms))
}

// sanity2: the element taken before the key is looked up evicts keys
// 1..batch, key 1 itself too.
func lruMapSanity2(e *lruMapEnv) {
	t := e.t
	batch := e.tgtFree / 2
	ms := e.mapSize(e.tgtFree)
	m := e.newMap(int(ms + batch))
	for k := uint64(1); k <= ms; k++ {
		e.ins(m, k, 1234, false)
	}
	if e.percpu {
		require.NoError(t, m.update(0, 1, 1234, htab.UpdateNoExist))
		require.NoError(t, m.delete(1))
	} else {
		require.ErrorIs(t, m.update(0, 1, 1234, htab.UpdateExist), htab.ErrKeyNotExist)
	}
	for k := uint64(1); k <= batch; k++ {
		e.absent(m, k)
		e.ins(m, k, 4321, true)
		require.Equal(t, uint64(4321), e.ref(m, k))
	}
	key := ms + 1
	for ; key < ms+1+batch; key++ {
		e.ins(m, key, 1234, false)
	}
	for end := key + ms; key < end; key++ {
		e.ins(m, key, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, lruMapRange(1, batch), lruMapRange(ms+batch+1, 2*ms+batch))
}

// sanity3: active/inactive rotation.
func lruMapSanity3(e *lruMapEnv) {
	batch := e.tgtSize(e.tgtFree)
	ms := e.tgtFree * 2
	m := e.newMap(int(ms))
	for k := uint64(1); k <= ms; k++ {
		e.ins(m, k, 1234, false)
	}
	for k := uint64(1); k <= ms-batch; k++ {
		e.expected[k] = e.ref(m, k)
	}
	for k := 2*e.tgtFree + 1; k < 2*e.tgtFree+1+batch; k++ {
		e.ins(m, k, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, lruMapRange(1, ms-batch), lruMapRange(ms+1, ms+batch))
}

// sanity4: deletion.
func lruMapSanity4(e *lruMapEnv) {
	t := e.t
	tgt := e.tgtFree
	size := 3 * e.mapSize(tgt)
	if e.noCommon {
		size = 3 * tgt * uint64(e.cpus)
	}
	m := e.newMap(int(size))
	for k := uint64(1); k <= 2*tgt; k++ {
		e.ins(m, k, 1234, false)
	}
	require.ErrorIs(t, m.update(0, 1, 1234, htab.UpdateNoExist), htab.ErrKeyExist)
	key := uint64(1)
	for ; key <= tgt; key++ {
		e.expected[key] = e.ref(m, key)
	}
	for ; key <= 2*tgt; key++ {
		require.NoError(t, m.delete(key))
		require.ErrorIs(t, m.delete(key), htab.ErrKeyNotExist)
	}
	for end := key + 2*tgt; key < end; key++ {
		e.ins(m, key, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, lruMapRange(1, tgt), lruMapRange(2*tgt+1, 4*tgt))
}

// sanity5: a one-element map, walked across every CPU in order; on CPU c
// the kernel test's forked child does lookup_ref, insert and lookup there.
func lruMapSanity5(e *lruMapEnv) {
	t := e.t
	m := e.newMap(1)
	key := uint64(0)
	require.NoError(t, m.update(0, key, 1234, htab.UpdateNoExist))
	for cpu := 0; cpu < e.cpus; cpu++ {
		_, ok := m.lookupRefOn(cpu, key)
		require.True(t, ok, "cpu %d: lookup_ref %d", cpu, key)
		require.NoError(t, m.update(cpu, key+1, 1234, htab.UpdateNoExist), "cpu %d: insert %d", cpu, key+1)
		v, ok := m.lookupRefOn(cpu, key+1)
		require.True(t, ok, "cpu %d: lookup_ref %d", cpu, key+1)
		require.Equal(t, uint64(1234), v, "cpu %d: lookup_ref %d: CPU %d's value", cpu, key+1, cpu)
		e.absent(m, key)
		key++
	}
	// The last key was inserted on CPU nr_cpus-1. A per-CPU map inserted into
	// from a CPU other than 0 holds zero in CPU 0's slot (a program's insert
	// zeroes the other CPUs).
	e.expected[uint64(e.cpus)] = 1234
	if e.percpu && e.cpus > 1 {
		e.expected[uint64(e.cpus)] = 0
	}
	e.equal(m)
	e.expectKeys(m, []uint64{uint64(e.cpus)})
}

// sanity6: rotation of a NO_COMMON_LRU map.
func lruMapSanity6(e *lruMapEnv) {
	tgt := e.tgtFree
	ms := tgt * 2
	m := e.newMap(int(ms) * e.cpus)
	key := uint64(1)
	for ; key <= tgt; key++ {
		e.ins(m, key, 1234, true)
	}
	for ; key <= 2*tgt; key++ {
		for sk := uint64(1); sk <= tgt; sk++ {
			e.ref(m, sk)
		}
		e.ins(m, key, 1234, false)
	}
	for ; key <= 3*tgt; key++ {
		e.ins(m, key, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, lruMapRange(1, tgt), lruMapRange(2*tgt+1, 3*tgt))
}

// sanity7 (refKey1) and sanity8 (!refKey1): size 2; one of keys 1 and 2 is
// read by a program (ref), the other by a syscall; inserting 3 evicts the
// latter.
func lruMapSanity78(e *lruMapEnv, refKey1 bool) {
	t := e.t
	size := 2
	if e.noCommon {
		size = 2 * e.cpus
	}
	m := e.newMap(size)
	e.ins(m, 1, 1234, refKey1)
	require.ErrorIs(t, m.update(0, 1, 1234, htab.UpdateNoExist), htab.ErrKeyExist)
	e.absent(m, 2)
	require.ErrorIs(t, m.update(0, 2, 1234, htab.UpdateExist), htab.ErrKeyNotExist)
	e.ins(m, 2, 1234, !refKey1)
	e.absent(m, 3)
	refd, read := uint64(1), uint64(2)
	if refKey1 {
		require.Equal(t, uint64(1234), e.ref(m, refd))
		v, ok := m.lookup(read)
		require.True(t, ok)
		require.Equal(t, uint64(1234), v)
	} else {
		refd, read = 2, 1
		v, ok := m.lookup(read)
		require.True(t, ok)
		require.Equal(t, uint64(1234), v)
		require.Equal(t, uint64(1234), e.ref(m, refd))
	}
	e.ins(m, 3, 1234, true)
	e.absent(m, read)
	e.equal(m)
	e.expectKeys(m, []uint64{refd, 3})
}

type lruMapSanityTest struct {
	name     string
	run      func(*lruMapEnv)
	common   bool // runs with the common LRU
	noCommon bool // runs with BPF_F_NO_COMMON_LRU
}

// lruMapSanityTests are test_lru_map.c's tests with the lists they run with.
func lruMapSanityTests() []lruMapSanityTest {
	return []lruMapSanityTest{
		{"sanity0", lruMapSanity0, true, true},
		{"sanity1", lruMapSanity1, true, false},
		{"sanity2", lruMapSanity2, true, false},
		{"sanity3", lruMapSanity3, true, false},
		{"sanity4", lruMapSanity4, true, true},
		{"sanity5", lruMapSanity5, true, false},
		{"sanity6", lruMapSanity6, false, true},
		{"sanity7", func(e *lruMapEnv) { lruMapSanity78(e, true) }, true, true},
		{"sanity8", func(e *lruMapEnv) { lruMapSanity78(e, false) }, true, true},
	}
}

func TestLRUMapSanity(t *testing.T) {
	tests := lruMapSanityTests()
	applicable := 0
	for _, percpu := range []bool{false, true} {
		typ := "lru_hash"
		if percpu {
			typ = "lru_percpu_hash"
		}
		for _, noCommon := range []bool{false, true} {
			lists, tgt := "common", uint64(lruMapLocalFreeTarget)
			if noCommon {
				lists, tgt = "no_common_lru", lruMapPercpuFreeTarget
			}
			for _, cpus := range []int{1, 2, 4} {
				for _, tc := range tests {
					if (noCommon && !tc.noCommon) || (!noCommon && !tc.common) {
						continue
					}
					if cpus == 1 {
						applicable++
					}
					t.Run(fmt.Sprintf("%s/%s/cpus=%d/%s", typ, lists, cpus, tc.name), func(t *testing.T) {
						tc.run(&lruMapEnv{t: t, percpu: percpu, noCommon: noCommon, cpus: cpus, tgtFree: tgt})
					})
				}
			}
		}
	}
	require.Equal(t, 26, applicable, "applicable test_lru_map.c runs")
}
