package hash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
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

// batchKinds are the k4v4 maps (gen_batch.go, gen_home.go), by layout and
// -batch-lock mode, and with a bloom filter in front of lookups. (A function, not a variable: inferring K and V from an
// adapter's methods fails in the initializer of a package-level variable
// declared in a file that sorts before the adapter's.)
func batchKinds() []batchKind {
	return []batchKind{
		batchKindOf("classic", "nonempty", hashK4V4TestMap{}),
		batchKindOf("classic", "always", hashK4V4AlwaysTestMap{}),
		batchKindOf("classic", "sparse", hashK4V4SparseTestMap{}),
		batchKindOf("home", "nonempty", homeK4V4TestMap{}),
		batchKindOf("home", "always", homeK4V4AlwaysTestMap{}),
		batchKindOf("home", "sparse", homeK4V4SparseTestMap{}),
		batchKindOf("classic", "nonempty/bloom=3", hashK4V4BloomTestMap{}),
		batchKindOf("home", "nonempty/bloom=3", homeK4V4BloomTestMap{}),
	}
}

// batchKind is one k4v4 map type: newMap makes a map of it as batchdiff
// drives it, edges and race are batchEdges and batchLookupAndDeleteRace on
// it.
type batchKind struct {
	layout, mode string
	newMap       func(htab.Options) (batchdiff.Map, error)
	edges, race  func(t *testing.T)
}

// batchKindOf is the batchKind of the maps kind stands for.
func batchKindOf[K, V comparable](layout, mode string, kind htabtest.Map[K, V]) batchKind {
	return batchKind{
		layout: layout,
		mode:   mode,
		newMap: func(o htab.Options) (batchdiff.Map, error) {
			m, err := kind.New(o)
			if err != nil {
				return nil, err
			}
			return batchdiff.Generated(m), nil
		},
		edges: func(t *testing.T) { batchEdges(t, kind) },
		race:  func(t *testing.T) { batchLookupAndDeleteRace(t, kind) },
	}
}

// forEachBatchMap runs body once per layout and -batch-lock mode.
func forEachBatchMap(t *testing.T, body func(t *testing.T, kind batchKind)) {
	for _, bk := range batchKinds() {
		t.Run("layout="+bk.layout+"/lock="+bk.mode, func(t *testing.T) { body(t, bk) })
	}
}

// u32 is i as a 4-byte little-endian key or value.
func u32[T comparable](i uint32) (b T) {
	binary.LittleEndian.PutUint32(kernel.Bytes(&b), i)
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
	forEachBatchMap(t, func(t *testing.T, kind batchKind) {
		for _, zero := range []bool{false, true} {
			t.Run(fmt.Sprintf("zeroseed=%v", zero), func(t *testing.T) {
				d, err := kind.newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero})
				require.NoError(t, err)
				batchdiff.Port(t, d).RequireAllKept(t)
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
	forEachBatchMap(t, func(t *testing.T, kind batchKind) {
		d, err := kind.newMap(opts)
		require.NoError(t, err)
		require.Equal(t, want, batchdiff.Port(t, d))
	})
}

// TestBatchEdges checks the calls at the edges of the contract on every mode:
// a zero-length call, a cursor past the end, a done cursor, slice lengths,
// update flags, and UpdateBatch / DeleteBatch stopping at the first error.
func TestBatchEdges(t *testing.T) {
	forEachBatchMap(t, func(t *testing.T, kind batchKind) { kind.edges(t) })
}

// batchEdges is TestBatchEdges on a map of kind's type.
func batchEdges[K, V comparable](t *testing.T, kind htabtest.Map[K, V]) {
	m, err := kind.New(htab.Options{MaxEntries: 4, ZeroSeed: true})
	require.NoError(t, err)
	keys, vals := make([]K, 8), make([]V, 8)

	n, err := m.LookupBatch(nil, keys, vals)
	require.ErrorIs(t, err, htab.ErrKeyNotExist, "empty map")
	require.Zero(t, n)

	n, err = m.UpdateBatch([]K{u32[K](1), u32[K](2), u32[K](3), u32[K](4), u32[K](5), u32[K](6)}, make([]V, 6), htab.UpdateAny)
	require.ErrorIs(t, err, htab.ErrFull)
	require.Equal(t, 4, n, "ErrFull at the fifth key")
	require.Equal(t, 4, m.Len())

	for _, f := range []htab.UpdateFlags{htab.UpdateNoExist, htab.UpdateExist, 3, 4} {
		n, err = m.UpdateBatch([]K{u32[K](9)}, make([]V, 1), f)
		require.ErrorIs(t, err, htab.ErrInvalid, "flags %d", f)
		require.Zero(t, n)
		n, err = m.UpdateBatch(nil, nil, f)
		require.ErrorIs(t, err, htab.ErrInvalid, "flags %d, no keys", f)
		require.Zero(t, n)
	}
	_, err = m.UpdateBatch(make([]K, 2), make([]V, 1), htab.UpdateAny)
	require.ErrorIs(t, err, htab.ErrInvalid, "fewer values than keys")
	_, err = m.LookupBatch(nil, make([]K, 2), make([]V, 3))
	require.ErrorIs(t, err, htab.ErrInvalid, "more values than keys")

	n, err = m.DeleteBatch([]K{u32[K](1), u32[K](2), u32[K](9), u32[K](3)})
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
	forEachBatchMap(t, func(t *testing.T, kind batchKind) {
		for _, max := range []int{1, 2, 7, 10, 33, 256, 1000} {
			t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 1}
				km, err := kernel.New(htab.Hash, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				d, err := kind.newMap(opts)
				require.NoError(t, err)
				batchdiff.Differential(t, batchdiff.Kernel(km, 1), d, max, kernel.Seed(t, 3))
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
	forEachBatchMap(t, func(t *testing.T, kind batchKind) { kind.race(t) })
}

// batchLookupAndDeleteRace is TestBatchLookupAndDeleteRace on a map of
// kind's type.
func batchLookupAndDeleteRace[K, V comparable](t *testing.T, kind htabtest.Map[K, V]) {
	const writers, perWriter = 3, 3000
	m, err := kind.New(htab.Options{MaxEntries: writers * perWriter})
	require.NoError(t, err)
	var stop atomic.Bool
	var wg sync.WaitGroup
	returned := make([]map[K]V, 2)
	var dupes atomic.Int64
	for d := range returned {
		returned[d] = map[K]V{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(d), 9))
			c := new(htab.Cursor)
			for !stop.Load() {
				buf := 1 + rng.IntN(12)
				keys, vals := make([]K, buf), make([]V, buf)
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
			v := make([]V, 1)
			for i := range perWriter {
				k := uint32(w<<20 | i)
				v[0] = u32[V](^k)
				if err := m.Update(u32[K](k), v, htab.UpdateNoExist); err != nil {
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
	all := map[K]V{}
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
		all[k] = v[0]
		remaining++
	}
	assert.Equal(t, remaining, m.Len())
	require.Len(t, all, writers*perWriter, "keys lost")
	for w := range writers {
		for i := range perWriter {
			k := uint32(w<<20 | i)
			require.Equal(t, u32[V](^k), all[u32[K](k)], "key %#x", k)
		}
	}
	t.Logf("returned by batches: %d, left: %d", len(all)-remaining, remaining)
}
