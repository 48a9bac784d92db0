// Package lrusanity holds the ports of the kernel's test_lru_map.c sanity
// tests (tools/testing/selftests/bpf/test_lru_map.c, v6.16+, with target_free):
// sanity0..8, for both LRU map types, common and per-CPU LRU lists, over a
// small interface with uint64 keys and values (the test's unsigned long
// long). They run on htab's LRU engine under a model table (htab's own
// tests), on the generated LRU maps and on the kernel's maps, so that the
// three are held to one copy of the kernel's expectations.
//
// The package does not import htab: htab's tests are in package htab and
// could not import a package that does.
//
// The kernel test runs every operation on CPU 0: Update and Lookup on CPU 0
// stand for its syscalls, and LookupRef(0, k) for its lookup_ref (a lookup
// by a BPF program, which sets the ref bit). sanity5 walks every CPU: there
// the syscalls of the child pinned to CPU c are Update(c, ...) and
// LookupRef(c, ...).
package lrusanity

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Update flags of BPF_MAP_UPDATE_ELEM.
const (
	Any     uint64 = 0 // BPF_ANY
	NoExist uint64 = 1 // BPF_NOEXIST
	Exist   uint64 = 2 // BPF_EXIST
)

// Map is an LRU map under test. A per-CPU map's value is CPU 0's slot
// (value[0], which the kernel test's map_equal compares); an Update on CPU 0
// (the syscall) writes val to every CPU's slot.
type Map interface {
	// Update is a syscall update (cpu 0) or a program's update on CPU cpu.
	Update(cpu int, key, val, flags uint64) error
	Lookup(key uint64) (uint64, bool)             // syscall lookup: no ref bit
	LookupRef(cpu int, key uint64) (uint64, bool) // a program's lookup on CPU cpu: sets the ref bit
	LookupAndDelete(key uint64) (uint64, error)
	Delete(key uint64) error
	Contents() map[uint64]uint64 // key -> value[0]
}

// Errors are the caller's errors for the errnos the tests expect.
type Errors struct {
	KeyExist    error // EEXIST
	KeyNotExist error // ENOENT
	Invalid     error // EINVAL
}

// Env is one run of a test: the map type, the lists, the CPUs and how to
// make and check a map.
type Env struct {
	T        *testing.T
	PerCPU   bool // LRU_PERCPU_HASH (else LRU_HASH)
	NoCommon bool // BPF_F_NO_COMMON_LRU
	CPUs     int  // nr_cpus
	// PerCPUValues: the map keeps a value per CPU, so that a program's
	// insert on CPU c > 0 leaves 0 in CPU 0's slot. False for a model with
	// one value per key.
	PerCPUValues bool
	Errs         Errors
	// New makes an empty map of max_entries size, of the Env's type, lists
	// and CPUs.
	New func(size int) Map
	// Check, if set, runs at every map_equal after the contents compare
	// equal: what the caller can check beyond them (Len, NextKey, internal
	// invariants).
	Check func(Map)

	tgtFree  uint64
	expected map[uint64]uint64 // the kernel test's expected map
}

// Tunables of test_lru_map.c.
const (
	localFreeTarget  = 128 // LOCAL_FREE_TARGET
	percpuFreeTarget = 4   // PERCPU_FREE_TARGET
)

// Test is one of test_lru_map.c's tests and the lists it runs with.
type Test struct {
	Name     string
	Run      func(*Env)
	Common   bool // runs with the common LRU
	NoCommon bool // runs with BPF_F_NO_COMMON_LRU
}

// Tests are test_lru_map.c's sanity tests.
func Tests() []Test {
	return []Test{
		{"sanity0", sanity0, true, true},
		{"sanity1", sanity1, true, false},
		{"sanity2", sanity2, true, false},
		{"sanity3", sanity3, true, false},
		{"sanity4", sanity4, true, true},
		{"sanity5", sanity5, true, false},
		{"sanity6", sanity6, false, true},
		{"sanity7", func(e *Env) { sanity78(e, true) }, true, true},
		{"sanity8", func(e *Env) { sanity78(e, false) }, true, true},
	}
}

// Applicable is the number of (map type, lists, test) runs of
// test_lru_map.c's sanity tests.
const Applicable = 26

// ForEach runs every test that applies, for both map types and both kinds
// of lists, once per CPU count of cpus, as subtests named
// "<type>/<lists>/cpus=<n>/<test>", on the Env that env returns for them (T
// and the fields that describe the run are set by ForEach). It returns how
// many (type, lists, test) runs applied.
func ForEach(t *testing.T, cpus []int, env func(t *testing.T, perCPU, noCommon bool, cpus int) *Env) int {
	applicable := 0
	for _, perCPU := range []bool{false, true} {
		typ := "lru_hash"
		if perCPU {
			typ = "lru_percpu_hash"
		}
		for _, noCommon := range []bool{false, true} {
			lists, tgt := "common", uint64(localFreeTarget)
			if noCommon {
				lists, tgt = "no_common_lru", percpuFreeTarget
			}
			for _, tc := range Tests() {
				if (noCommon && !tc.NoCommon) || (!noCommon && !tc.Common) {
					continue
				}
				applicable++
				for _, n := range cpus {
					t.Run(fmt.Sprintf("%s/%s/cpus=%d/%s", typ, lists, n, tc.Name), func(t *testing.T) {
						e := env(t, perCPU, noCommon, n)
						e.T, e.PerCPU, e.NoCommon, e.CPUs, e.tgtFree = t, perCPU, noCommon, n, tgt
						tc.Run(e)
					})
				}
			}
		}
	}
	return applicable
}

func (e *Env) newMap(size int) Map {
	e.expected = map[uint64]uint64{}
	return e.New(size)
}

// mapSize is __map_size(); tgtSize is __tgt_size().
func (e *Env) mapSize(tgt uint64) uint64 { return tgt * uint64(e.CPUs) * 2 }
func (e *Env) tgtSize(m uint64) uint64   { return m / uint64(e.CPUs) / 2 }

// ins inserts key with BPF_NOEXIST from CPU 0; expect adds it to the expected map.
func (e *Env) ins(m Map, key, val uint64, expect bool) {
	e.T.Helper()
	require.NoError(e.T, m.Update(0, key, val, NoExist), "insert %d", key)
	if expect {
		e.expected[key] = val
	}
}

// ref is lookup_ref: a program's lookup on CPU 0, which must find key.
func (e *Env) ref(m Map, key uint64) uint64 {
	e.T.Helper()
	v, ok := m.LookupRef(0, key)
	require.True(e.T, ok, "lookup_ref %d", key)
	return v
}

// absent is a syscall lookup that must answer ENOENT.
func (e *Env) absent(m Map, key uint64) {
	e.T.Helper()
	_, ok := m.Lookup(key)
	require.False(e.T, ok, "key %d should be absent", key)
}

// equal is map_equal(lru, expected): the same keys, and value[0] of each
// equal; then the caller's Check.
func (e *Env) equal(m Map) {
	e.T.Helper()
	got := m.Contents()
	if !assert.Equal(e.T, e.expected, got, "map_equal") {
		e.T.Logf("missing: %v", keyDiff(e.expected, got))
		e.T.Logf("unexpected: %v", keyDiff(got, e.expected))
	}
	if e.Check != nil {
		e.Check(m)
	}
}

// expectKeys checks the survivors against the sets test_lru_map.c expects,
// independently of the expected map built as the test went.
func (e *Env) expectKeys(m Map, keys ...[]uint64) {
	e.T.Helper()
	want := slices.Concat(keys...)
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(m.Contents()))
	require.Equal(e.T, want, got)
}

func keyDiff(a, b map[uint64]uint64) []uint64 {
	var out []uint64
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func keyRange(lo, hi uint64) []uint64 { // [lo, hi]
	var out []uint64
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}

// sanity0: size 2; lookup_ref 1, insert 3 evicts 2; lookup_and_delete 1.
func sanity0(e *Env) {
	t := e.T
	size := 2
	if e.NoCommon {
		size = 2 * e.CPUs
	}
	m := e.newMap(size)
	e.ins(m, 1, 1234, true)
	require.ErrorIs(t, m.Update(0, 1, 1234, NoExist), e.Errs.KeyExist)
	require.ErrorIs(t, m.Update(0, 1, 1234, math.MaxUint64), e.Errs.Invalid) // flags -1
	e.absent(m, 2)
	require.ErrorIs(t, m.Update(0, 2, 1234, Exist), e.Errs.KeyNotExist)
	e.ins(m, 2, 1234, false)
	e.absent(m, 3)
	require.Equal(t, uint64(1234), e.ref(m, 1))
	e.ins(m, 3, 1234, true)
	e.absent(m, 2)
	v, err := m.LookupAndDelete(1)
	require.NoError(t, err)
	require.Equal(t, uint64(1234), v)
	delete(e.expected, 1)
	e.equal(m)
	e.expectKeys(m, []uint64{3})
}

// sanity1: unreferenced elements are recycled before referenced ones.
func sanity1(e *Env) {
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
	e.expectKeys(m, keyRange(1, batch), keyRange(ms+1, 2*ms))
}

// sanity2: the element taken before the key is looked up evicts keys
// 1..batch, key 1 itself too.
func sanity2(e *Env) {
	t := e.T
	batch := e.tgtFree / 2
	ms := e.mapSize(e.tgtFree)
	m := e.newMap(int(ms + batch))
	for k := uint64(1); k <= ms; k++ {
		e.ins(m, k, 1234, false)
	}
	if e.PerCPU {
		require.NoError(t, m.Update(0, 1, 1234, NoExist))
		require.NoError(t, m.Delete(1))
	} else {
		require.ErrorIs(t, m.Update(0, 1, 1234, Exist), e.Errs.KeyNotExist)
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
	e.expectKeys(m, keyRange(1, batch), keyRange(ms+batch+1, 2*ms+batch))
}

// sanity3: active/inactive rotation.
func sanity3(e *Env) {
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
	e.expectKeys(m, keyRange(1, ms-batch), keyRange(ms+1, ms+batch))
}

// sanity4: deletion.
func sanity4(e *Env) {
	t := e.T
	tgt := e.tgtFree
	size := 3 * e.mapSize(tgt)
	if e.NoCommon {
		size = 3 * tgt * uint64(e.CPUs)
	}
	m := e.newMap(int(size))
	for k := uint64(1); k <= 2*tgt; k++ {
		e.ins(m, k, 1234, false)
	}
	require.ErrorIs(t, m.Update(0, 1, 1234, NoExist), e.Errs.KeyExist)
	key := uint64(1)
	for ; key <= tgt; key++ {
		e.expected[key] = e.ref(m, key)
	}
	for ; key <= 2*tgt; key++ {
		require.NoError(t, m.Delete(key))
		require.ErrorIs(t, m.Delete(key), e.Errs.KeyNotExist)
	}
	for end := key + 2*tgt; key < end; key++ {
		e.ins(m, key, 1234, true)
	}
	e.equal(m)
	e.expectKeys(m, keyRange(1, tgt), keyRange(2*tgt+1, 4*tgt))
}

// sanity5: a one-element map, walked across every CPU in order; on CPU c
// the kernel test's forked child does lookup_ref, insert and lookup there.
func sanity5(e *Env) {
	t := e.T
	m := e.newMap(1)
	key := uint64(0)
	require.NoError(t, m.Update(0, key, 1234, NoExist))
	for cpu := 0; cpu < e.CPUs; cpu++ {
		_, ok := m.LookupRef(cpu, key)
		require.True(t, ok, "cpu %d: lookup_ref %d", cpu, key)
		require.NoError(t, m.Update(cpu, key+1, 1234, NoExist), "cpu %d: insert %d", cpu, key+1)
		v, ok := m.LookupRef(cpu, key+1)
		require.True(t, ok, "cpu %d: lookup_ref %d", cpu, key+1)
		require.Equal(t, uint64(1234), v, "cpu %d: lookup_ref %d: CPU %d's value", cpu, key+1, cpu)
		e.absent(m, key)
		key++
	}
	// The last key was inserted on CPU nr_cpus-1. A per-CPU map inserted into
	// from a CPU other than 0 holds zero in CPU 0's slot (a program's insert
	// zeroes the other CPUs).
	e.expected[uint64(e.CPUs)] = 1234
	if e.PerCPU && e.PerCPUValues && e.CPUs > 1 {
		e.expected[uint64(e.CPUs)] = 0
	}
	e.equal(m)
	e.expectKeys(m, []uint64{uint64(e.CPUs)})
}

// sanity6: rotation of a NO_COMMON_LRU map.
func sanity6(e *Env) {
	tgt := e.tgtFree
	ms := tgt * 2
	m := e.newMap(int(ms) * e.CPUs)
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
	e.expectKeys(m, keyRange(1, tgt), keyRange(2*tgt+1, 3*tgt))
}

// sanity7 (refKey1) and sanity8 (!refKey1): size 2; one of keys 1 and 2 is
// read by a program (ref), the other by a syscall; inserting 3 evicts the
// latter.
func sanity78(e *Env, refKey1 bool) {
	t := e.T
	size := 2
	if e.NoCommon {
		size = 2 * e.CPUs
	}
	m := e.newMap(size)
	e.ins(m, 1, 1234, refKey1)
	require.ErrorIs(t, m.Update(0, 1, 1234, NoExist), e.Errs.KeyExist)
	e.absent(m, 2)
	require.ErrorIs(t, m.Update(0, 2, 1234, Exist), e.Errs.KeyNotExist)
	e.ins(m, 2, 1234, !refKey1)
	e.absent(m, 3)
	refd, read := uint64(1), uint64(2)
	if refKey1 {
		require.Equal(t, uint64(1234), e.ref(m, refd))
		v, ok := m.Lookup(read)
		require.True(t, ok)
		require.Equal(t, uint64(1234), v)
	} else {
		refd, read = 2, 1
		v, ok := m.Lookup(read)
		require.True(t, ok)
		require.Equal(t, uint64(1234), v)
		require.Equal(t, uint64(1234), e.ref(m, refd))
	}
	e.ins(m, 3, 1234, true)
	e.absent(m, read)
	e.equal(m)
	e.expectKeys(m, []uint64{refd, 3})
}
