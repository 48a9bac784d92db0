package hash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/batchdiff"
	"github.com/htabgen/htabgen/internal/kernel"
)

// batchMap is what the batch tests need of a generated k4v4 hash map; the
// three -batch-lock modes in both layouts (HashK4V4, HashK4V4Always,
// HashK4V4Sparse, and the same names with Home) all have it.
type batchMap[K ~[4]byte, V ~[4]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	NextKey(*K) (K, error)
	Len() int
	All() iter.Seq2[K, V]
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
	UpdateBatch([]K, []V, htab.UpdateFlags) (int, error)
	DeleteBatch([]K) (int, error)
}

// batchMaps are the k4v4 maps, by layout and -batch-lock mode.
var batchMaps = []struct {
	layout, mode string
	newMap       func(htab.Options) (batchMap[[4]byte, [4]byte], error)
}{
	{"classic", "nonempty", adapt(NewHashK4V4)},
	{"classic", "always", adapt(NewHashK4V4Always)},
	{"classic", "sparse", adapt(NewHashK4V4Sparse)},
	{"home", "nonempty", adapt(NewHomeK4V4)},
	{"home", "always", adapt(NewHomeK4V4Always)},
	{"home", "sparse", adapt(NewHomeK4V4Sparse)},
}

// forEachBatchMap runs body once per layout and -batch-lock mode, with that
// map's constructor.
func forEachBatchMap(t *testing.T, body func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error))) {
	for _, bm := range batchMaps {
		t.Run("layout="+bm.layout+"/lock="+bm.mode, func(t *testing.T) { body(t, bm.newMap) })
	}
}

// adapt turns a map with named [4]byte keys and values into one with plain
// [4]byte keys and values, so that one generic test body serves every mode.
func adapt[K ~[4]byte, V ~[4]byte, M batchMap[K, V]](newMap func(htab.Options) (M, error)) func(htab.Options) (batchMap[[4]byte, [4]byte], error) {
	return func(o htab.Options) (batchMap[[4]byte, [4]byte], error) {
		m, err := newMap(o)
		if err != nil {
			return nil, err
		}
		return plain[K, V, M]{m}, nil
	}
}

type plain[K ~[4]byte, V ~[4]byte, M batchMap[K, V]] struct{ m M }

func (p plain[K, V, M]) Update(k [4]byte, v [4]byte, f htab.UpdateFlags) error {
	return p.m.Update(K(k), V(v), f)
}
func (p plain[K, V, M]) Delete(k [4]byte) error { return p.m.Delete(K(k)) }
func (p plain[K, V, M]) NextKey(k *[4]byte) ([4]byte, error) {
	var kp *K
	if k != nil {
		kk := K(*k)
		kp = &kk
	}
	n, err := p.m.NextKey(kp)
	return [4]byte(n), err
}
func (p plain[K, V, M]) Len() int { return p.m.Len() }
func (p plain[K, V, M]) All() iter.Seq2[[4]byte, [4]byte] {
	return func(yield func([4]byte, [4]byte) bool) {
		for k, v := range p.m.All() {
			if !yield([4]byte(k), [4]byte(v)) {
				return
			}
		}
	}
}

// The batch methods convert the buffers; converting a []K to a [][4]byte is
// not allowed, so they copy (the tests are not about speed).
func (p plain[K, V, M]) lookup(c *htab.Cursor, keys, vals [][4]byte, del bool) (int, error) {
	ks, vs := make([]K, len(keys)), make([]V, len(vals))
	var n int
	var err error
	if del {
		n, err = p.m.LookupAndDeleteBatch(c, ks, vs)
	} else {
		n, err = p.m.LookupBatch(c, ks, vs)
	}
	for i := range n {
		keys[i], vals[i] = [4]byte(ks[i]), [4]byte(vs[i])
	}
	return n, err
}
func (p plain[K, V, M]) LookupBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return p.lookup(c, keys, vals, false)
}
func (p plain[K, V, M]) LookupAndDeleteBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return p.lookup(c, keys, vals, true)
}
func (p plain[K, V, M]) UpdateBatch(keys, vals [][4]byte, f htab.UpdateFlags) (int, error) {
	ks, vs := make([]K, len(keys)), make([]V, len(vals))
	for i := range keys {
		ks[i] = K(keys[i])
	}
	for i := range vals {
		vs[i] = V(vals[i])
	}
	return p.m.UpdateBatch(ks, vs, f)
}
func (p plain[K, V, M]) DeleteBatch(keys [][4]byte) (int, error) {
	ks := make([]K, len(keys))
	for i := range keys {
		ks[i] = K(keys[i])
	}
	return p.m.DeleteBatch(ks)
}

func u32k(i uint32) (b [4]byte) {
	binary.LittleEndian.PutUint32(b[:], i)
	return
}

// TestBatchOpsPort ports the kernel's htab_map_batch_ops.c
// (tools/testing/selftests/bpf/map_tests; batchdiff.Port): max_entries 10,
// keys i+1 and values i+2, every chunk size 1..9 for lookup, delete and
// lookup-and-delete batches, each call's buffer the count the previous call
// returned. As there, a step whose first bucket does not fit (ErrNoSpace) is
// skipped, every other step returns, deletes and drains all ten keys, and
// at least one step must succeed.
func TestBatchOpsPort(t *testing.T) {
	forEachBatchMap(t, func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error)) {
		for _, zero := range []bool{false, true} {
			t.Run(fmt.Sprintf("zeroseed=%v", zero), func(t *testing.T) {
				m, err := newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero})
				require.NoError(t, err)
				batchdiff.Port(t, batchdiff.Plain(m)).RequireAllKept(t)
			})
		}
	})
}

// TestBatchOpsPortKernel runs the same port on the kernel's HASH map
// (ZeroSeed) and requires the same trace: every call's count, error, cursor
// and keys in order.
func TestBatchOpsPortKernel(t *testing.T) {
	kernel.Require(t)
	opts := htab.Options{MaxEntries: 10, ZeroSeed: true, CPUs: 1}
	km, err := kernel.New(htab.Hash, 4, 4, opts)
	require.NoError(t, err)
	defer km.Close()
	want := batchdiff.Port(t, batchdiff.Kernel(km, 1))
	forEachBatchMap(t, func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error)) {
		m, err := newMap(opts)
		require.NoError(t, err)
		require.Equal(t, want, batchdiff.Port(t, batchdiff.Plain(m)))
	})
}

// TestBatchEdges checks the calls at the edges of the contract on every mode:
// a zero-length call, a cursor past the end, a done cursor, slice lengths,
// update flags, and UpdateBatch / DeleteBatch stopping at the first error.
func TestBatchEdges(t *testing.T) {
	forEachBatchMap(t, func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error)) {
		m, err := newMap(htab.Options{MaxEntries: 4, ZeroSeed: true})
		require.NoError(t, err)
		keys, vals := make([][4]byte, 8), make([][4]byte, 8)

		n, err := m.LookupBatch(nil, keys, vals)
		require.ErrorIs(t, err, htab.ErrKeyNotExist, "empty map")
		require.Zero(t, n)

		n, err = m.UpdateBatch([][4]byte{u32k(1), u32k(2), u32k(3), u32k(4), u32k(5), u32k(6)}, make([][4]byte, 6), htab.UpdateAny)
		require.ErrorIs(t, err, htab.ErrFull)
		require.Equal(t, 4, n, "ErrFull at the fifth key")
		require.Equal(t, 4, m.Len())

		for _, f := range []htab.UpdateFlags{htab.UpdateNoExist, htab.UpdateExist, 3, 4} {
			n, err = m.UpdateBatch([][4]byte{u32k(9)}, make([][4]byte, 1), f)
			require.ErrorIs(t, err, htab.ErrInvalid, "flags %d", f)
			require.Zero(t, n)
			n, err = m.UpdateBatch(nil, nil, f)
			require.ErrorIs(t, err, htab.ErrInvalid, "flags %d, no keys", f)
			require.Zero(t, n)
		}
		_, err = m.UpdateBatch(make([][4]byte, 2), make([][4]byte, 1), htab.UpdateAny)
		require.ErrorIs(t, err, htab.ErrInvalid, "fewer values than keys")
		_, err = m.LookupBatch(nil, make([][4]byte, 2), make([][4]byte, 3))
		require.ErrorIs(t, err, htab.ErrInvalid, "more values than keys")

		n, err = m.DeleteBatch([][4]byte{u32k(1), u32k(2), u32k(9), u32k(3)})
		require.ErrorIs(t, err, htab.ErrKeyNotExist)
		require.Equal(t, 2, n, "stops at the missing third key")
		require.Equal(t, 2, m.Len())
		n, err = m.DeleteBatch(nil)
		require.NoError(t, err)
		require.Zero(t, n)

		c := new(htab.Cursor)
		n, err = m.LookupBatch(c, nil, nil)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Equal(t, htab.Cursor{}, *c)

		n, err = m.LookupBatch(c, keys, vals)
		require.ErrorIs(t, err, htab.ErrKeyNotExist)
		require.Equal(t, 2, n)
		require.True(t, c.Done())
		require.Equal(t, uint32(4), c.Bucket(), "the cursor is past the last bucket")
		n, err = m.LookupBatch(c, keys, vals)
		require.ErrorIs(t, err, htab.ErrKeyNotExist, "a done walk stays done")
		require.Zero(t, n)

		c.Advance(100, false)
		n, err = m.LookupAndDeleteBatch(c, keys, vals)
		require.ErrorIs(t, err, htab.ErrKeyNotExist, "cursor past the end")
		require.Zero(t, n)
		require.Equal(t, uint32(100), c.Bucket(), "left where it was, as the kernel leaves out_batch")
		require.Equal(t, 2, m.Len())
	})
}

// TestBatchKernelDifferential compares every batch call with the kernel's
// BPF_MAP_TYPE_HASH (4-byte keys and values, ZeroSeed) after random fills
// up to a full map, in both layouts and every -batch-lock mode: walks with
// every buffer size must return the same keys and values in each call, in
// the same order, leave the cursor on the same bucket and end with the same
// error; lookup-and-delete walks must also leave the same contents, and
// UpdateBatch and DeleteBatch fail at the same element with the same error
// (batchdiff.Differential).
func TestBatchKernelDifferential(t *testing.T) {
	kernel.Require(t)
	forEachBatchMap(t, func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error)) {
		for _, max := range []int{1, 2, 7, 10, 33, 256, 1000} {
			t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 1}
				km, err := kernel.New(htab.Hash, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := newMap(opts)
				require.NoError(t, err)
				batchdiff.Differential(t, batchdiff.Kernel(km, 1), batchdiff.Plain(m), max, kernel.Seed(t, 3))
			})
		}
	})
}

// TestBatchLookupAndDeleteRace races lookup-and-delete walks (two drainers,
// each with its own cursor and buffer sizes) with goroutines inserting
// distinct keys, on every -batch-lock mode. Every key must end up either
// returned by exactly one batch, with its value, or still in the map: the
// batches lose nothing and return nothing twice. Run it with -race.
func TestBatchLookupAndDeleteRace(t *testing.T) {
	forEachBatchMap(t, func(t *testing.T, newMap func(htab.Options) (batchMap[[4]byte, [4]byte], error)) {
		const writers, perWriter = 3, 3000
		m, err := newMap(htab.Options{MaxEntries: writers * perWriter})
		require.NoError(t, err)
		var stop atomic.Bool
		var wg sync.WaitGroup
		returned := make([]map[[4]byte][4]byte, 2)
		var dupes atomic.Int64
		for d := range returned {
			returned[d] = map[[4]byte][4]byte{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(d), 9))
				c := new(htab.Cursor)
				for !stop.Load() {
					buf := 1 + rng.IntN(12)
					keys, vals := make([][4]byte, buf), make([][4]byte, buf)
					n, err := m.LookupAndDeleteBatch(c, keys, vals)
					for i := range n {
						if _, dup := returned[d][keys[i]]; dup {
							dupes.Add(1)
						}
						returned[d][keys[i]] = vals[i]
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
		var writersWG sync.WaitGroup
		for w := range writers {
			writersWG.Add(1)
			go func() {
				defer writersWG.Done()
				for i := range perWriter {
					k := uint32(w<<20 | i)
					if err := m.Update(u32k(k), u32k(^k), htab.UpdateNoExist); err != nil {
						t.Errorf("Update(%#x): %v", k, err)
						return
					}
				}
			}()
		}
		writersWG.Wait()
		stop.Store(true)
		wg.Wait()

		assert.Zero(t, dupes.Load(), "a drainer got a key twice")
		all := map[[4]byte][4]byte{}
		for _, r := range returned {
			for k, v := range r {
				_, dup := all[k]
				assert.False(t, dup, "key %x returned by both drainers", k)
				all[k] = v
			}
		}
		remaining := 0
		for k, v := range m.All() {
			_, dup := all[k]
			assert.False(t, dup, "key %x returned and still in the map", k)
			all[k] = v
			remaining++
		}
		assert.Equal(t, remaining, m.Len())
		require.Len(t, all, writers*perWriter, "keys lost")
		for w := range writers {
			for i := range perWriter {
				k := uint32(w<<20 | i)
				require.Equal(t, u32k(^k), all[u32k(k)], "key %#x", k)
			}
		}
		t.Logf("returned by batches: %d, left: %d", len(all)-remaining, remaining)
	})
}
