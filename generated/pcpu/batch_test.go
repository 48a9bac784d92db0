package pcpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/batchdiff"
	"github.com/htabgen/htabgen/internal/kernel"
)

// The batch tests for BPF_MAP_TYPE_PERCPU_HASH, on the k4v4 maps of
// gen_batch.go (PerCPUK4V4, PerCPUK4V4Always, PerCPUK4V4Sparse). Helpers
// carry the prefix pbo so as not to collide with the package's other tests.

// pboKind is one k4v4 map type: newMap makes a map of it as batchdiff
// drives it, edges and race are pboEdges and pboLookupAndDeleteRace on it.
type pboKind struct {
	mode        string
	newMap      func(htab.Options) (batchdiff.Map, error)
	edges, race func(t *testing.T)
}

// pboKindOf is the pboKind of the maps kind stands for.
func pboKindOf[K, V comparable](mode string, kind htabtest.Map[K, V]) pboKind {
	return pboKind{
		mode: mode,
		newMap: func(o htab.Options) (batchdiff.Map, error) {
			m, err := kind.New(o)
			if err != nil {
				return nil, err
			}
			return batchdiff.Generated(m), nil
		},
		edges: func(t *testing.T) { pboEdges(t, kind) },
		race:  func(t *testing.T) { pboLookupAndDeleteRace(t, kind) },
	}
}

// pboModes runs f once per -batch-lock mode with that mode's kind. (The
// kinds are made here, not in a package-level variable: inferring K and V
// from an adapter's methods fails in the initializer of a variable declared
// in a file that sorts before the adapter's.)
func pboModes(t *testing.T, f func(t *testing.T, kind pboKind)) {
	for _, kind := range []pboKind{
		pboKindOf("nonempty", perCPUK4V4TestMap{}),
		pboKindOf("always", perCPUK4V4AlwaysTestMap{}),
		pboKindOf("sparse", perCPUK4V4SparseTestMap{}),
	} {
		t.Run("lock="+kind.mode, func(t *testing.T) { f(t, kind) })
	}
}

// pboU32 is i as a 4-byte little-endian key or value.
func pboU32[T comparable](i uint32) (b T) {
	binary.LittleEndian.PutUint32(kernel.Bytes(&b), i)
	return
}

// pboGet is the number a 4-byte key or value holds.
func pboGet[T comparable](b T) uint32 { return binary.LittleEndian.Uint32(kernel.Bytes(&b)) }

// TestPerCPUBatchOpsPort ports the PERCPU_HASH variant of the kernel's
// htab_map_batch_ops.c (tools/testing/selftests/bpf/map_tests;
// batchdiff.Port): max_entries 10, keys i+1, and on CPU j the value i+2+j;
// every chunk size 1..9 for lookup, delete and lookup-and-delete batches,
// each call's buffer the count the previous call returned. As there, a step
// whose first bucket does not fit (ErrNoSpace) is skipped, every other step
// returns, deletes and drains all ten keys, and at least one step must
// succeed.
func TestPerCPUBatchOpsPort(t *testing.T) {
	pboModes(t, func(t *testing.T, kind pboKind) {
		for _, ncpu := range []int{1, 2, 5} {
			for _, zero := range []bool{false, true} {
				t.Run(fmt.Sprintf("cpus=%d/zeroseed=%v", ncpu, zero), func(t *testing.T) {
					d, err := kind.newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero, CPUs: ncpu})
					require.NoError(t, err)
					batchdiff.Port(t, d).RequireAllKept(t)
				})
			}
		}
	})
}

// TestPerCPUBatchOpsPortKernel runs the same port on the kernel's PERCPU_HASH
// (ZeroSeed, the generated map with the kernel's possible CPUs) and requires
// the same trace: every call's count, error, cursor, keys and values.
func TestPerCPUBatchOpsPortKernel(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	opts := htab.Options{MaxEntries: 10, ZeroSeed: true, CPUs: ncpu}
	km, err := kernel.New(htab.PerCPUHash, 4, 4, opts)
	require.NoError(t, err)
	defer km.Close()
	want := batchdiff.Port(t, batchdiff.Kernel(km, ncpu))
	pboModes(t, func(t *testing.T, kind pboKind) {
		d, err := kind.newMap(opts)
		require.NoError(t, err)
		require.Equal(t, want, batchdiff.Port(t, d))
	})
}

// TestPerCPUBatchEdges checks per-CPU specific argument checks: vals must hold
// len(keys)*CPUs() values, and batch update flags other than UpdateAny are
// ErrInvalid (as the kernel's generic_map_update_batch); a lookup batch
// returns CPU j's value of key i in vals[i*CPUs()+j], as set through CPU(j).
func TestPerCPUBatchEdges(t *testing.T) {
	pboModes(t, func(t *testing.T, kind pboKind) { kind.edges(t) })
}

// pboEdges is TestPerCPUBatchEdges on a map of kind's type.
func pboEdges[K, V comparable](t *testing.T, kind htabtest.Map[K, V]) {
	const ncpu = 3
	m, err := kind.New(htab.Options{MaxEntries: 4, ZeroSeed: true, CPUs: ncpu})
	require.NoError(t, err)
	_, err = m.UpdateBatch(make([]K, 2), make([]V, 2), htab.UpdateAny)
	require.ErrorIs(t, err, htab.ErrInvalid, "one value per key is too few")
	_, err = m.LookupBatch(nil, make([]K, 2), make([]V, 2*ncpu+1))
	require.ErrorIs(t, err, htab.ErrInvalid, "too many values")
	_, err = m.LookupAndDeleteBatch(nil, make([]K, 2), make([]V, 2))
	require.ErrorIs(t, err, htab.ErrInvalid, "too few values")
	for _, f := range []htab.UpdateFlags{htab.UpdateNoExist, htab.UpdateExist, 3, 4} {
		n, err := m.UpdateBatch([]K{pboU32[K](1)}, make([]V, ncpu), f)
		require.ErrorIs(t, err, htab.ErrInvalid, "flags %d", f)
		require.Zero(t, n)
	}
	require.Zero(t, m.Len())

	// A key created through CPU(1) holds zero on the other CPUs.
	require.NoError(t, m.CPU(1).Update(pboU32[K](7), pboU32[V](70), htab.UpdateNoExist))
	require.NoError(t, m.CPU(2).Update(pboU32[K](7), pboU32[V](72), htab.UpdateExist))
	n, err := m.UpdateBatch([]K{pboU32[K](8), pboU32[K](9), pboU32[K](10), pboU32[K](11), pboU32[K](12)},
		append([]V{pboU32[V](80), pboU32[V](81), pboU32[V](82), pboU32[V](90), pboU32[V](91), pboU32[V](92), pboU32[V](100), pboU32[V](101), pboU32[V](102)},
			make([]V, 6)...), htab.UpdateAny)
	require.ErrorIs(t, err, htab.ErrFull, "the fifth key into a map of 4")
	require.Equal(t, 3, n)
	keys, vals := make([]K, 4), make([]V, 4*ncpu)
	n, err = m.LookupBatch(nil, keys, vals)
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	require.Equal(t, 4, n)
	got := map[uint32][]uint32{}
	for i := range n {
		for j := range ncpu {
			got[pboGet(keys[i])] = append(got[pboGet(keys[i])], pboGet(vals[i*ncpu+j]))
		}
	}
	require.Equal(t, map[uint32][]uint32{7: {0, 70, 72}, 8: {80, 81, 82}, 9: {90, 91, 92}, 10: {100, 101, 102}}, got)

	n, err = m.DeleteBatch([]K{pboU32[K](7), pboU32[K](8), pboU32[K](11), pboU32[K](9)})
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	require.Equal(t, 2, n, "stops at the missing third key")
	require.Equal(t, 2, m.Len())
}

// TestPerCPUBatchKernelDifferential compares every batch call with the
// kernel's BPF_MAP_TYPE_PERCPU_HASH (4-byte keys and values, ZeroSeed; the
// generated map with the kernel's possible CPUs) after random fills: walks
// with every buffer size 1..16 must return the same keys and per-CPU values
// in each call, in the same order, the same count, leave the cursor on the
// same bucket and end with the same error; the same for lookup-and-delete
// walks, which must also leave both maps with the same contents. UpdateBatch
// and DeleteBatch must stop at the same element with the same error
// (batchdiff.Differential).
func TestPerCPUBatchKernelDifferential(t *testing.T) {
	kernel.Require(t)
	pboModes(t, func(t *testing.T, kind pboKind) {
		for _, max := range []int{1, 2, 7, 10, 33, 256, 1000} {
			t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
				ncpu := kernel.PossibleCPUs()
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: ncpu}
				km, err := kernel.New(htab.PerCPUHash, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				d, err := kind.newMap(opts)
				require.NoError(t, err)
				batchdiff.Differential(t, batchdiff.Kernel(km, ncpu), d, max, kernel.Seed(t, 4))
			})
		}
	})
}

// TestPerCPUBatchLookupAndDeleteRace races lookup-and-delete walks (two
// drainers, each with its own cursor and buffer sizes) with writers on every
// -batch-lock mode. The writers insert distinct keys, alternately through
// the userspace Update (every CPU's value) and through their CPU(i) handle
// (CPU i's value, zero elsewhere), and rewrite CPU i's value of every other
// key they inserted with CPU(i).Update(UpdateExist). Every key must end up
// either returned by exactly one batch or still in the map, never both, with
// each CPU's value one that was written; a key whose rewrite found it gone
// must have been returned by a batch. Run it with -race.
func TestPerCPUBatchLookupAndDeleteRace(t *testing.T) {
	pboModes(t, func(t *testing.T, kind pboKind) { kind.race(t) })
}

// pboLookupAndDeleteRace is TestPerCPUBatchLookupAndDeleteRace on a map of
// kind's type.
func pboLookupAndDeleteRace[K, V comparable](t *testing.T, kind htabtest.Map[K, V]) {
	const writers, perWriter, ncpu = 4, 2000, 3
	m, err := kind.New(htab.Options{MaxEntries: writers * perWriter, CPUs: ncpu})
	require.NoError(t, err)
	initVal := func(k uint32, cpu int, user bool) V {
		if user {
			return pboU32[V](k*8 + uint32(cpu) + 1)
		}
		return pboU32[V](k*8 + uint32(cpu) + 4)
	}
	rewritten := func(k uint32) V { return pboU32[V](^k) }

	var stop atomic.Bool
	var wg sync.WaitGroup
	returned := make([]map[uint32][]V, 2)
	var dupes atomic.Int64
	for d := range returned {
		returned[d] = map[uint32][]V{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(d), 11))
			c := new(htab.Cursor)
			for !stop.Load() {
				buf := 1 + rng.IntN(12)
				keys, vals := make([]K, buf), make([]V, buf*ncpu)
				n, err := m.LookupAndDeleteBatch(c, keys, vals)
				for i := range n {
					k := pboGet(keys[i])
					if _, dup := returned[d][k]; dup {
						dupes.Add(1)
					}
					returned[d][k] = slices.Clone(vals[i*ncpu : (i+1)*ncpu])
				}
				switch {
				case errors.Is(err, htab.ErrKeyNotExist):
					c = new(htab.Cursor) // start the next walk
				case errors.Is(err, htab.ErrNoSpace), err == nil:
				default:
					t.Errorf("LookupAndDeleteBatch: %v", err)
					return
				}
			}
		}()
	}
	gone := make([][]uint32, writers) // keys whose rewrite found them deleted
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			cpu := w % ncpu
			h := m.CPU(cpu)
			for i := range perWriter {
				k := uint32(w<<16 | i)
				var err error
				if i%2 == 0 {
					v := make([]V, ncpu)
					for j := range v {
						v[j] = initVal(k, j, true)
					}
					err = m.Update(pboU32[K](k), v, htab.UpdateNoExist)
				} else {
					err = h.Update(pboU32[K](k), initVal(k, cpu, false), htab.UpdateNoExist)
				}
				if err != nil {
					t.Errorf("insert %#x: %v", k, err)
					return
				}
				if i%4 >= 2 { // rewrite a key inserted a little earlier
					p := k - 2
					switch err := h.Update(pboU32[K](p), rewritten(p), htab.UpdateExist); {
					case errors.Is(err, htab.ErrKeyNotExist):
						gone[w] = append(gone[w], p)
					case err != nil:
						t.Errorf("rewrite %#x: %v", p, err)
						return
					}
				}
			}
		}()
	}
	writersWG.Wait()
	stop.Store(true)
	wg.Wait()

	assert.Zero(t, dupes.Load(), "a drainer got a key twice")
	all := map[uint32][]V{}
	byBatch := map[uint32]bool{}
	for _, r := range returned {
		for k, v := range r {
			_, dup := all[k]
			assert.False(t, dup, "key %#x returned by both drainers", k)
			all[k] = v
			byBatch[k] = true
		}
	}
	remaining := 0
	for k, v := range m.All() {
		_, dup := all[pboGet(k)]
		assert.False(t, dup, "key %x returned and still in the map", k)
		all[pboGet(k)] = slices.Clone(v) // All may reuse v
		remaining++
	}
	assert.Equal(t, remaining, m.Len())
	require.Len(t, all, writers*perWriter, "keys lost")
	for w := range writers {
		cpu := w % ncpu
		for i := range perWriter {
			k := uint32(w<<16 | i)
			got := all[k]
			require.Len(t, got, ncpu, "key %#x", k)
			for j := range ncpu {
				var ok bool
				switch {
				case i%2 == 0:
					ok = got[j] == initVal(k, j, true)
				case j == cpu:
					ok = got[j] == initVal(k, j, false)
				default:
					ok = got[j] == *new(V)
				}
				if i%4 < 2 && i+2 < perWriter && j == cpu {
					ok = ok || got[j] == rewritten(k)
				}
				require.True(t, ok, "key %#x (inserted by writer %d, step %d): CPU %d holds %x", k, w, i, j, got[j])
			}
		}
		for _, k := range gone[w] {
			require.True(t, byBatch[k], "key %#x was gone for its rewrite but no batch returned it", k)
		}
	}
	t.Logf("returned by batches: %d, left: %d", len(all)-remaining, remaining)
}
