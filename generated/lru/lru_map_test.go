package lru

// Ports of the kernel's tools/testing/selftests/bpf/test_lru_map.c (v6.16+,
// with target_free) to the generated LRU maps: sanity0..8, for both LRU
// types, common and per-CPU LRU lists (NoCommonLRU) and 1, 2 and 4 CPUs. The
// kernel test runs every operation on CPU 0: here the userspace methods (which
// act as CPU 0) stand for its syscalls, and CPU(0).Lookup for its lookup_ref
// (a lookup by a BPF program, which sets the ref bit). sanity5 walks every
// CPU: there the syscalls of the child pinned to CPU c are CPU(c)'s.

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/lrusanity"
)

// lruTwin is one generated LRU map behind the few operations the ports and
// the differential tests need, with uint64 keys and values (the unsigned long
// long of test_lru_map.c). A per-CPU map's value is summarised by CPU 0's
// slot (value[0], which map_equal compares); userspace updates write the same
// value to every CPU.
type lruTwin interface {
	cpus() int
	maxEntries() int
	length() int
	// update is a syscall update issued on CPU cpu: the userspace Update for
	// CPU 0, CPU(cpu).Update otherwise.
	update(cpu int, key, val uint64, flags htab.UpdateFlags) error
	lookup(key uint64) (uint64, bool) // syscall lookup: no ref bit
	// lookupRefOn is a program's lookup on CPU cpu (CPU(cpu).Lookup), which
	// sets the ref bit.
	lookupRefOn(cpu int, key uint64) (uint64, bool)
	lookupAndDelete(key uint64) (uint64, error)
	delete(key uint64) error
	contents() map[uint64]uint64 // from All: key -> value[0]
	allKeys() []uint64           // All's keys, in its order
	nextKeys() ([]uint64, error) // the NextKey walk from nil
}

func lruKey(k uint64) (b [8]byte) { binary.LittleEndian.PutUint64(b[:], k); return }

// lruU64 is the number an 8-byte key or value holds.
func lruU64[T ~[8]byte](b T) uint64 { return binary.LittleEndian.Uint64(b[:]) }

// lruGenTwin is a generated LRU map of either type, reached through its
// htabtest.Map adapter, as an lruTwin.
type lruGenTwin[K ~[8]byte, V ~[8]byte] struct{ m htabtest.Map[K, V] }

func (w lruGenTwin[K, V]) cpus() int       { return w.m.CPUs() }
func (w lruGenTwin[K, V]) maxEntries() int { return w.m.MaxEntries() }
func (w lruGenTwin[K, V]) length() int     { return w.m.Len() }

func (w lruGenTwin[K, V]) update(cpu int, key, val uint64, flags htab.UpdateFlags) error {
	if cpu == 0 {
		return w.m.Update(K(lruKey(key)), slices.Repeat([]V{V(lruKey(val))}, htabtest.Slots(w.m)), flags)
	}
	return w.m.CPU(cpu).Update(K(lruKey(key)), V(lruKey(val)), flags)
}

func (w lruGenTwin[K, V]) lookup(key uint64) (uint64, bool) {
	vals := make([]V, htabtest.Slots(w.m))
	ok := w.m.Lookup(K(lruKey(key)), vals)
	return lruU64(vals[0]), ok
}

func (w lruGenTwin[K, V]) lookupRefOn(cpu int, key uint64) (uint64, bool) {
	v, ok := w.m.CPU(cpu).Lookup(K(lruKey(key)))
	return lruU64(v), ok
}

func (w lruGenTwin[K, V]) lookupAndDelete(key uint64) (uint64, error) {
	vals := make([]V, htabtest.Slots(w.m))
	err := w.m.LookupAndDelete(K(lruKey(key)), vals)
	return lruU64(vals[0]), err
}

func (w lruGenTwin[K, V]) delete(key uint64) error { return w.m.Delete(K(lruKey(key))) }

func (w lruGenTwin[K, V]) contents() map[uint64]uint64 {
	out := map[uint64]uint64{}
	for k, vs := range w.m.All() {
		out[lruU64(k)] = lruU64(vs[0])
	}
	return out
}

func (w lruGenTwin[K, V]) allKeys() []uint64 {
	var out []uint64
	for k := range w.m.All() {
		out = append(out, lruU64(k))
	}
	return out
}

func (w lruGenTwin[K, V]) nextKeys() ([]uint64, error) {
	var out []uint64
	var prev *K
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
		m, err := lRUPerCPUK8V8TestMap{}.New(opts)
		require.NoError(t, err)
		return lruGenTwin[LRUPerCPUK8V8Key, LRUPerCPUK8V8Value]{m}
	}
	m, err := lRUK8V8TestMap{}.New(opts)
	require.NoError(t, err)
	return lruGenTwin[LRUK8V8Key, LRUK8V8Value]{m}
}

// ---- test_lru_map.c (internal/lrusanity) ----

// lruSanityMap is an lruTwin as lrusanity drives it.
type lruSanityMap struct{ lruTwin }

func (m lruSanityMap) Update(cpu int, key, val, flags uint64) error {
	return m.update(cpu, key, val, htab.UpdateFlags(flags))
}
func (m lruSanityMap) Lookup(key uint64) (uint64, bool) { return m.lookup(key) }
func (m lruSanityMap) LookupRef(cpu int, key uint64) (uint64, bool) {
	return m.lookupRefOn(cpu, key)
}
func (m lruSanityMap) LookupAndDelete(key uint64) (uint64, error) { return m.lookupAndDelete(key) }
func (m lruSanityMap) Delete(key uint64) error                    { return m.delete(key) }
func (m lruSanityMap) Contents() map[uint64]uint64                { return m.contents() }

// lruSanityEnv makes the lrusanity environment of the maps newTwin makes:
// at every map_equal it also checks that Len and the NextKey walk agree
// with All.
func lruSanityEnv(newTwin func(t testing.TB, percpu bool, opts htab.Options) lruTwin) func(*testing.T, bool, bool, int) *lrusanity.Env {
	return func(t *testing.T, percpu, noCommon bool, cpus int) *lrusanity.Env {
		return &lrusanity.Env{
			PerCPUValues: true,
			Errs:         lrusanity.Errors{KeyExist: htab.ErrKeyExist, KeyNotExist: htab.ErrKeyNotExist, Invalid: htab.ErrInvalid},
			New: func(size int) lrusanity.Map {
				m := newTwin(t, percpu, htab.Options{MaxEntries: size, CPUs: cpus, NoCommonLRU: noCommon})
				require.Equal(t, cpus, m.cpus())
				return lruSanityMap{m}
			},
			Check: func(sm lrusanity.Map) {
				t.Helper()
				m := sm.(lruSanityMap)
				require.Equal(t, len(m.contents()), m.length(), "Len")
				walk, err := m.nextKeys()
				require.NoError(t, err)
				require.Equal(t, m.allKeys(), walk, "NextKey walk vs All")
			},
		}
	}
}

// TestLRUMapSanity runs the 26 applicable test_lru_map.c sanity runs on the
// generated maps with 1, 2 and 4 CPUs.
func TestLRUMapSanity(t *testing.T) {
	n := lrusanity.ForEach(t, []int{1, 2, 4}, lruSanityEnv(newLRUTwin))
	require.Equal(t, lrusanity.Applicable, n, "applicable test_lru_map.c runs")
}

// TestLRUNoCommonRoundedLimit: per-CPU LRU lists round MaxEntries up to a
// multiple of CPUs and, as htab_map_alloc, the constructors refuse a result
// past 2^31 instead of sizing the map from it.
func TestLRUNoCommonRoundedLimit(t *testing.T) {
	if math.MaxInt/2 < htab.MaxMaxEntries {
		t.Skip("on 32-bit platforms MaxEntries stops at 2^30, far from the rounding's reach")
	}
	limit := int64(htab.MaxMaxEntries) // a variable: the constant overflows int on 32-bit builds
	opts := htab.Options{MaxEntries: int(limit), CPUs: 3, NoCommonLRU: true}
	_, err := NewLRUK8V8(opts)
	require.ErrorIs(t, err, htab.ErrInvalid)
	require.ErrorContains(t, err, "rounds up to 2147483649")
	_, err = NewLRUPerCPUK8V8(opts)
	require.ErrorIs(t, err, htab.ErrInvalid)
}
