package pcpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/batchdiff"
	"github.com/htabgen/htabgen/internal/kernel"
)

// The batch tests for BPF_MAP_TYPE_PERCPU_HASH, on the k4v4 maps of
// gen_batch.go (PerCPUK4V4, PerCPUK4V4Always, PerCPUK4V4Sparse). Helpers
// carry the prefix pbo so as not to collide with the package's other tests.

// pboGen is what the batch tests need of a generated k4v4 per-CPU map, with
// its own key, value and CPU-handle types.
type pboGen[K ~[4]byte, V ~[4]byte, C pboGenCPU[K, V]] interface {
	CPUs() int
	Update(K, []V, htab.UpdateFlags) error
	Delete(K) error
	NextKey(*K) (K, error)
	Len() int
	All() iter.Seq2[K, []V]
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
	UpdateBatch([]K, []V, htab.UpdateFlags) (int, error)
	DeleteBatch([]K) (int, error)
	CPU(int) C
}

type pboGenCPU[K ~[4]byte, V ~[4]byte] interface {
	Update(K, V, htab.UpdateFlags) error
}

// pboMap is pboGen with plain [4]byte keys and values, so that one test body
// serves every -batch-lock mode.
type pboMap interface {
	CPUs() int
	Update([4]byte, [][4]byte, htab.UpdateFlags) error
	Delete([4]byte) error
	NextKey(*[4]byte) ([4]byte, error)
	Len() int
	All() iter.Seq2[[4]byte, [][4]byte]
	LookupBatch(*htab.Cursor, [][4]byte, [][4]byte) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, [][4]byte, [][4]byte) (int, error)
	UpdateBatch([][4]byte, [][4]byte, htab.UpdateFlags) (int, error)
	DeleteBatch([][4]byte) (int, error)
	CPU(int) pboCPU
}

type pboCPU interface {
	Update([4]byte, [4]byte, htab.UpdateFlags) error
}

type pboNew func(htab.Options) (pboMap, error)

// pboModes runs f once per -batch-lock mode with that mode's constructor.
func pboModes(t *testing.T, f func(t *testing.T, newMap pboNew)) {
	for _, mode := range []struct {
		name string
		new  pboNew
	}{
		{"nonempty", pboAdapt(NewPerCPUK4V4)},
		{"always", pboAdapt(NewPerCPUK4V4Always)},
		{"sparse", pboAdapt(NewPerCPUK4V4Sparse)},
	} {
		t.Run("lock="+mode.name, func(t *testing.T) { f(t, mode.new) })
	}
}

func pboAdapt[K ~[4]byte, V ~[4]byte, C pboGenCPU[K, V], M pboGen[K, V, C]](newMap func(htab.Options) (M, error)) pboNew {
	return func(o htab.Options) (pboMap, error) {
		m, err := newMap(o)
		if err != nil {
			return nil, err
		}
		return pboPlain[K, V, C, M]{m}, nil
	}
}

type pboPlain[K ~[4]byte, V ~[4]byte, C pboGenCPU[K, V], M pboGen[K, V, C]] struct{ m M }

func pboTo[T ~[4]byte](s [][4]byte) []T {
	r := make([]T, len(s))
	for i := range s {
		r[i] = T(s[i])
	}
	return r
}

func pboFrom[T ~[4]byte](dst [][4]byte, s []T) {
	for i := range s {
		dst[i] = [4]byte(s[i])
	}
}

func (p pboPlain[K, V, C, M]) CPUs() int { return p.m.CPUs() }
func (p pboPlain[K, V, C, M]) Update(k [4]byte, vals [][4]byte, f htab.UpdateFlags) error {
	return p.m.Update(K(k), pboTo[V](vals), f)
}
func (p pboPlain[K, V, C, M]) Delete(k [4]byte) error { return p.m.Delete(K(k)) }
func (p pboPlain[K, V, C, M]) NextKey(k *[4]byte) ([4]byte, error) {
	var kp *K
	if k != nil {
		kk := K(*k)
		kp = &kk
	}
	n, err := p.m.NextKey(kp)
	return [4]byte(n), err
}
func (p pboPlain[K, V, C, M]) Len() int { return p.m.Len() }
func (p pboPlain[K, V, C, M]) All() iter.Seq2[[4]byte, [][4]byte] {
	return func(yield func([4]byte, [][4]byte) bool) {
		for k, vs := range p.m.All() {
			v := make([][4]byte, len(vs))
			pboFrom(v, vs)
			if !yield([4]byte(k), v) {
				return
			}
		}
	}
}
func (p pboPlain[K, V, C, M]) lookup(c *htab.Cursor, keys, vals [][4]byte, del bool) (int, error) {
	ks, vs := make([]K, len(keys)), make([]V, len(vals))
	var n int
	var err error
	if del {
		n, err = p.m.LookupAndDeleteBatch(c, ks, vs)
	} else {
		n, err = p.m.LookupBatch(c, ks, vs)
	}
	ncpu := p.m.CPUs()
	if n > 0 {
		pboFrom(keys[:n], ks[:n])
		pboFrom(vals[:n*ncpu], vs[:n*ncpu])
	}
	return n, err
}
func (p pboPlain[K, V, C, M]) LookupBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return p.lookup(c, keys, vals, false)
}
func (p pboPlain[K, V, C, M]) LookupAndDeleteBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return p.lookup(c, keys, vals, true)
}
func (p pboPlain[K, V, C, M]) UpdateBatch(keys, vals [][4]byte, f htab.UpdateFlags) (int, error) {
	return p.m.UpdateBatch(pboTo[K](keys), pboTo[V](vals), f)
}
func (p pboPlain[K, V, C, M]) DeleteBatch(keys [][4]byte) (int, error) {
	return p.m.DeleteBatch(pboTo[K](keys))
}
func (p pboPlain[K, V, C, M]) CPU(i int) pboCPU { return pboPlainCPU[K, V, C]{p.m.CPU(i)} }

type pboPlainCPU[K ~[4]byte, V ~[4]byte, C pboGenCPU[K, V]] struct{ c C }

func (p pboPlainCPU[K, V, C]) Update(k, v [4]byte, f htab.UpdateFlags) error {
	return p.c.Update(K(k), V(v), f)
}

func pboU32(i uint32) (b [4]byte) {
	binary.LittleEndian.PutUint32(b[:], i)
	return
}

func pboGet(b [4]byte) uint32 { return binary.LittleEndian.Uint32(b[:]) }

// TestPerCPUBatchOpsPort ports the PERCPU_HASH variant of the kernel's
// htab_map_batch_ops.c (tools/testing/selftests/bpf/map_tests;
// batchdiff.Port): max_entries 10, keys i+1, and on CPU j the value i+2+j;
// every chunk size 1..9 for lookup, delete and lookup-and-delete batches,
// each call's buffer the count the previous call returned. As there, a step
// whose first bucket does not fit (ErrNoSpace) is skipped, every other step
// returns, deletes and drains all ten keys, and at least one step must
// succeed.
func TestPerCPUBatchOpsPort(t *testing.T) {
	pboModes(t, func(t *testing.T, newMap pboNew) {
		for _, ncpu := range []int{1, 2, 5} {
			for _, zero := range []bool{false, true} {
				t.Run(fmt.Sprintf("cpus=%d/zeroseed=%v", ncpu, zero), func(t *testing.T) {
					m, err := newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero, CPUs: ncpu})
					require.NoError(t, err)
					batchdiff.Port(t, batchdiff.PerCPU(m)).RequireAllKept(t)
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
	pboModes(t, func(t *testing.T, newMap pboNew) {
		m, err := newMap(opts)
		require.NoError(t, err)
		require.Equal(t, want, batchdiff.Port(t, batchdiff.PerCPU(m)))
	})
}

// TestPerCPUBatchEdges checks per-CPU specific argument checks: vals must hold
// len(keys)*CPUs() values, and batch update flags other than UpdateAny are
// ErrInvalid (as the kernel's generic_map_update_batch); a lookup batch
// returns CPU j's value of key i in vals[i*CPUs()+j], as set through CPU(j).
func TestPerCPUBatchEdges(t *testing.T) {
	pboModes(t, func(t *testing.T, newMap pboNew) {
		const ncpu = 3
		m, err := newMap(htab.Options{MaxEntries: 4, ZeroSeed: true, CPUs: ncpu})
		require.NoError(t, err)
		_, err = m.UpdateBatch(make([][4]byte, 2), make([][4]byte, 2), htab.UpdateAny)
		require.ErrorIs(t, err, htab.ErrInvalid, "one value per key is too few")
		_, err = m.LookupBatch(nil, make([][4]byte, 2), make([][4]byte, 2*ncpu+1))
		require.ErrorIs(t, err, htab.ErrInvalid, "too many values")
		_, err = m.LookupAndDeleteBatch(nil, make([][4]byte, 2), make([][4]byte, 2))
		require.ErrorIs(t, err, htab.ErrInvalid, "too few values")
		for _, f := range []htab.UpdateFlags{htab.UpdateNoExist, htab.UpdateExist, 3, 4} {
			n, err := m.UpdateBatch([][4]byte{pboU32(1)}, make([][4]byte, ncpu), f)
			require.ErrorIs(t, err, htab.ErrInvalid, "flags %d", f)
			require.Zero(t, n)
		}
		require.Zero(t, m.Len())

		// A key created through CPU(1) holds zero on the other CPUs.
		require.NoError(t, m.CPU(1).Update(pboU32(7), pboU32(70), htab.UpdateNoExist))
		require.NoError(t, m.CPU(2).Update(pboU32(7), pboU32(72), htab.UpdateExist))
		n, err := m.UpdateBatch([][4]byte{pboU32(8), pboU32(9), pboU32(10), pboU32(11), pboU32(12)},
			[][4]byte{pboU32(80), pboU32(81), pboU32(82), pboU32(90), pboU32(91), pboU32(92), pboU32(100), pboU32(101), pboU32(102),
				{}, {}, {}, {}, {}, {}}, htab.UpdateAny)
		require.ErrorIs(t, err, htab.ErrFull, "the fifth key into a map of 4")
		require.Equal(t, 3, n)
		keys, vals := make([][4]byte, 4), make([][4]byte, 4*ncpu)
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

		n, err = m.DeleteBatch([][4]byte{pboU32(7), pboU32(8), pboU32(11), pboU32(9)})
		require.ErrorIs(t, err, htab.ErrKeyNotExist)
		require.Equal(t, 2, n, "stops at the missing third key")
		require.Equal(t, 2, m.Len())
	})
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
	pboModes(t, func(t *testing.T, newMap pboNew) {
		for _, max := range []int{1, 2, 7, 10, 33, 256, 1000} {
			t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
				ncpu := kernel.PossibleCPUs()
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: ncpu}
				km, err := kernel.New(htab.PerCPUHash, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := newMap(opts)
				require.NoError(t, err)
				batchdiff.Differential(t, batchdiff.Kernel(km, ncpu), batchdiff.PerCPU(m), max, kernel.Seed(t, 4))
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
	pboModes(t, func(t *testing.T, newMap pboNew) {
		const writers, perWriter, ncpu = 4, 2000, 3
		m, err := newMap(htab.Options{MaxEntries: writers * perWriter, CPUs: ncpu})
		require.NoError(t, err)
		initVal := func(k uint32, cpu int, user bool) [4]byte {
			if user {
				return pboU32(k*8 + uint32(cpu) + 1)
			}
			return pboU32(k*8 + uint32(cpu) + 4)
		}
		rewritten := func(k uint32) [4]byte { return pboU32(^k) }

		var stop atomic.Bool
		var wg sync.WaitGroup
		returned := make([]map[uint32][][4]byte, 2)
		var dupes atomic.Int64
		for d := range returned {
			returned[d] = map[uint32][][4]byte{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(d), 11))
				c := new(htab.Cursor)
				for !stop.Load() {
					buf := 1 + rng.IntN(12)
					keys, vals := make([][4]byte, buf), make([][4]byte, buf*ncpu)
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
						v := make([][4]byte, ncpu)
						for j := range v {
							v[j] = initVal(k, j, true)
						}
						err = m.Update(pboU32(k), v, htab.UpdateNoExist)
					} else {
						err = h.Update(pboU32(k), initVal(k, cpu, false), htab.UpdateNoExist)
					}
					if err != nil {
						t.Errorf("insert %#x: %v", k, err)
						return
					}
					if i%4 >= 2 { // rewrite a key inserted a little earlier
						p := k - 2
						switch err := h.Update(pboU32(p), rewritten(p), htab.UpdateExist); {
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
		all := map[uint32][][4]byte{}
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
			all[pboGet(k)] = v
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
						ok = got[j] == [4]byte{}
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
	})
}
