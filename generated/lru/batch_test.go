package lru

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

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// The batch tests of issue 4 for BPF_MAP_TYPE_LRU_HASH and
// BPF_MAP_TYPE_LRU_PERCPU_HASH, on the k4v4 maps of gen_batch.go. Helpers
// carry the prefix lbo so as not to collide with the package's other tests.
//
// Every test body runs against an lboDriver: byte-level keys and values (a
// per-CPU value is the CPUs' values concatenated, the kernel harness's
// layout), implemented by the generated maps and by the kernel's maps, so
// that the same sequence can run on both and be compared call by call.

type lboDriver interface {
	slots() int // values per key: 1, or the CPUs of a per-CPU map
	update(k, v []byte) error
	lookupBatch(cursor *uint32, count int, del bool) (keys, vals [][]byte, next uint32, err error)
	updateBatch(keys, vals [][]byte) (int, error)
	deleteBatch(keys [][]byte) (int, error)
	firstKey() error     // NextKey(nil)'s error
	contents() [][]byte  // key||value, in NextKey order
	length() (int, bool) // Len(), false if the driver cannot tell
}

// lboKernel drives a kernel map; run it on a goroutine pinned to CPU 0.
type lboKernel struct {
	km    *kernel.Map
	nslot int
}

func (d lboKernel) slots() int               { return d.nslot }
func (d lboKernel) update(k, v []byte) error { return d.km.Update(k, v, 0) }
func (d lboKernel) lookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
	var b kernel.Batch
	var err error
	if del {
		b, err = d.km.LookupAndDeleteBatch(cursor, count)
	} else {
		b, err = d.km.LookupBatch(cursor, count)
	}
	return lboNil(b.Keys), lboNil(b.Values), b.Next, err
}

// lboNil makes an empty result nil, whichever driver returned it.
func lboNil(s [][]byte) [][]byte {
	if len(s) == 0 {
		return nil
	}
	return s
}
func (d lboKernel) updateBatch(keys, vals [][]byte) (int, error) {
	return d.km.UpdateBatch(keys, vals, 0)
}
func (d lboKernel) deleteBatch(keys [][]byte) (int, error) { return d.km.DeleteBatch(keys) }
func (d lboKernel) firstKey() error {
	_, err := d.km.NextKey(nil)
	return err
}
func (d lboKernel) contents() [][]byte {
	var r [][]byte
	for k, err := d.km.NextKey(nil); err == nil; k, err = d.km.NextKey(k) {
		v, err := d.km.Lookup(k)
		if err != nil {
			continue // evicted meanwhile: cannot happen on one goroutine
		}
		r = append(r, append(slices.Clone(k), v...))
	}
	return r
}
func (d lboKernel) length() (int, bool) { return 0, false }

// lboGenCPU is the program side of a generated k4v4 LRU map, as on one CPU.
type lboGenCPU[K ~[4]byte, V ~[4]byte] interface {
	Update(K, V, htab.UpdateFlags) error
}

// lboGen is what the tests need of a generated k4v4 LRU map (LruK4V4*).
type lboGen[K ~[4]byte, V ~[4]byte, C lboGenCPU[K, V]] interface {
	CPU(int) C
	Len() int
	Update(K, V, htab.UpdateFlags) error
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
	UpdateBatch([]K, []V, htab.UpdateFlags) (int, error)
	DeleteBatch([]K) (int, error)
}

// lboGenPcpu is what the tests need of a generated k4v4 LRU per-CPU map.
type lboGenPcpu[K ~[4]byte, V ~[4]byte, C lboGenCPU[K, V]] interface {
	CPU(int) C
	Len() int
	CPUs() int
	Update(K, []V, htab.UpdateFlags) error
	NextKey(*K) (K, error)
	All() iter.Seq2[K, []V]
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
	UpdateBatch([]K, []V, htab.UpdateFlags) (int, error)
	DeleteBatch([]K) (int, error)
}

func lboKey[K ~[4]byte](b []byte) K { return K([4]byte(b)) }

// lboVals splits a byte-level value into the generated map's values.
func lboVals[V ~[4]byte](b []byte) []V {
	r := make([]V, len(b)/4)
	for i := range r {
		r[i] = V([4]byte(b[4*i:]))
	}
	return r
}

func lboBytes[V ~[4]byte](vs []V) []byte {
	var r []byte
	for _, v := range vs {
		r = append(r, v[:]...)
	}
	return r
}

// lboCursor starts a generated walk where the kernel's would: nil is the
// start, else the bucket *cursor.
func lboCursor(cursor *uint32) *htab.Cursor {
	c := new(htab.Cursor)
	if cursor != nil {
		c.Advance(*cursor, false)
	}
	return c
}

type lboHash[K ~[4]byte, V ~[4]byte, C lboGenCPU[K, V], M lboGen[K, V, C]] struct{ m M }

func (d lboHash[K, V, C, M]) slots() int { return 1 }
func (d lboHash[K, V, C, M]) update(k, v []byte) error {
	return d.m.Update(lboKey[K](k), V([4]byte(v)), htab.UpdateAny)
}
func (d lboHash[K, V, C, M]) lookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
	c := lboCursor(cursor)
	ks, vs := make([]K, count), make([]V, count)
	var n int
	var err error
	if del {
		n, err = d.m.LookupAndDeleteBatch(c, ks, vs)
	} else {
		n, err = d.m.LookupBatch(c, ks, vs)
	}
	keys, vals := make([][]byte, n), make([][]byte, n)
	for i := range n {
		keys[i], vals[i] = slices.Clone(ks[i][:]), slices.Clone(vs[i][:])
	}
	return lboNil(keys), lboNil(vals), c.Bucket(), err
}
func (d lboHash[K, V, C, M]) updateBatch(keys, vals [][]byte) (int, error) {
	ks, vs := make([]K, len(keys)), make([]V, len(vals))
	for i := range keys {
		ks[i], vs[i] = lboKey[K](keys[i]), V([4]byte(vals[i]))
	}
	return d.m.UpdateBatch(ks, vs, htab.UpdateAny)
}
func (d lboHash[K, V, C, M]) deleteBatch(keys [][]byte) (int, error) {
	ks := make([]K, len(keys))
	for i := range keys {
		ks[i] = lboKey[K](keys[i])
	}
	return d.m.DeleteBatch(ks)
}
func (d lboHash[K, V, C, M]) firstKey() error {
	_, err := d.m.NextKey(nil)
	return err
}
func (d lboHash[K, V, C, M]) contents() [][]byte {
	var r [][]byte
	for k, v := range d.m.All() {
		r = append(r, append(slices.Clone(k[:]), v[:]...))
	}
	return r
}
func (d lboHash[K, V, C, M]) length() (int, bool) { return d.m.Len(), true }
func (d lboHash[K, V, C, M]) insert(k, v []byte) error {
	return d.m.Update(lboKey[K](k), V([4]byte(v)), htab.UpdateNoExist)
}
func (d lboHash[K, V, C, M]) cpuInsert(cpu int, k, v []byte) error {
	return d.m.CPU(cpu).Update(lboKey[K](k), V([4]byte(v)), htab.UpdateNoExist)
}

type lboPcpu[K ~[4]byte, V ~[4]byte, C lboGenCPU[K, V], M lboGenPcpu[K, V, C]] struct{ m M }

func (d lboPcpu[K, V, C, M]) slots() int { return d.m.CPUs() }
func (d lboPcpu[K, V, C, M]) update(k, v []byte) error {
	return d.m.Update(lboKey[K](k), lboVals[V](v), htab.UpdateAny)
}
func (d lboPcpu[K, V, C, M]) lookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
	c := lboCursor(cursor)
	ncpu := d.m.CPUs()
	ks, vs := make([]K, count), make([]V, count*ncpu)
	var n int
	var err error
	if del {
		n, err = d.m.LookupAndDeleteBatch(c, ks, vs)
	} else {
		n, err = d.m.LookupBatch(c, ks, vs)
	}
	keys, vals := make([][]byte, n), make([][]byte, n)
	for i := range n {
		keys[i], vals[i] = slices.Clone(ks[i][:]), lboBytes(vs[i*ncpu:(i+1)*ncpu])
	}
	return lboNil(keys), lboNil(vals), c.Bucket(), err
}
func (d lboPcpu[K, V, C, M]) updateBatch(keys, vals [][]byte) (int, error) {
	ks := make([]K, len(keys))
	var vs []V
	for i := range keys {
		ks[i] = lboKey[K](keys[i])
		vs = append(vs, lboVals[V](vals[i])...)
	}
	return d.m.UpdateBatch(ks, vs, htab.UpdateAny)
}
func (d lboPcpu[K, V, C, M]) deleteBatch(keys [][]byte) (int, error) {
	ks := make([]K, len(keys))
	for i := range keys {
		ks[i] = lboKey[K](keys[i])
	}
	return d.m.DeleteBatch(ks)
}
func (d lboPcpu[K, V, C, M]) firstKey() error {
	_, err := d.m.NextKey(nil)
	return err
}
func (d lboPcpu[K, V, C, M]) contents() [][]byte {
	var r [][]byte
	for k, vs := range d.m.All() {
		r = append(r, append(slices.Clone(k[:]), lboBytes(vs)...))
	}
	return r
}
func (d lboPcpu[K, V, C, M]) length() (int, bool) { return d.m.Len(), true }
func (d lboPcpu[K, V, C, M]) insert(k, v []byte) error {
	return d.m.Update(lboKey[K](k), lboVals[V](v), htab.UpdateNoExist)
}
func (d lboPcpu[K, V, C, M]) cpuInsert(cpu int, k, v []byte) error {
	return d.m.CPU(cpu).Update(lboKey[K](k), V([4]byte(v)), htab.UpdateNoExist)
}

func lboWrap[M any, D lboDriver](newMap func(htab.Options) (M, error), wrap func(M) D) func(htab.Options) (lboDriver, error) {
	return func(o htab.Options) (lboDriver, error) {
		m, err := newMap(o)
		if err != nil {
			return nil, err
		}
		return wrap(m), nil
	}
}

// lboMapKind is one generated map type and -batch-lock mode.
type lboMapKind struct {
	name   string
	typ    htab.MapType
	newMap func(htab.Options) (lboDriver, error)
}

var lboKinds = []lboMapKind{
	{"lru/lock=nonempty", htab.LRUHash, lboWrap(NewLruK4V4, func(m *LruK4V4) lboDriver { return lboHash[LruK4V4Key, LruK4V4Value, *LruK4V4CPU, *LruK4V4]{m} })},
	{"lru/lock=always", htab.LRUHash, lboWrap(NewLruK4V4Always, func(m *LruK4V4Always) lboDriver {
		return lboHash[LruK4V4AlwaysKey, LruK4V4AlwaysValue, *LruK4V4AlwaysCPU, *LruK4V4Always]{m}
	})},
	{"lru/lock=sparse", htab.LRUHash, lboWrap(NewLruK4V4Sparse, func(m *LruK4V4Sparse) lboDriver {
		return lboHash[LruK4V4SparseKey, LruK4V4SparseValue, *LruK4V4SparseCPU, *LruK4V4Sparse]{m}
	})},
	{"lru_pcpu/lock=nonempty", htab.LRUPerCPUHash, lboWrap(NewLruPcpuK4V4, func(m *LruPcpuK4V4) lboDriver {
		return lboPcpu[LruPcpuK4V4Key, LruPcpuK4V4Value, *LruPcpuK4V4CPU, *LruPcpuK4V4]{m}
	})},
	{"lru_pcpu/lock=always", htab.LRUPerCPUHash, lboWrap(NewLruPcpuK4V4Always, func(m *LruPcpuK4V4Always) lboDriver {
		return lboPcpu[LruPcpuK4V4AlwaysKey, LruPcpuK4V4AlwaysValue, *LruPcpuK4V4AlwaysCPU, *LruPcpuK4V4Always]{m}
	})},
	{"lru_pcpu/lock=sparse", htab.LRUPerCPUHash, lboWrap(NewLruPcpuK4V4Sparse, func(m *LruPcpuK4V4Sparse) lboDriver {
		return lboPcpu[LruPcpuK4V4SparseKey, LruPcpuK4V4SparseValue, *LruPcpuK4V4SparseCPU, *LruPcpuK4V4Sparse]{m}
	})},
}

func lboU32(i uint32) []byte { return binary.LittleEndian.AppendUint32(nil, i) }

func lboErr(err error) string {
	for _, e := range []error{htab.ErrKeyNotExist, htab.ErrKeyExist, htab.ErrFull, htab.ErrInvalid, htab.ErrNoSpace} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "ok"
}

// lboPortResult is what the port observed, for the assertions that depend
// on the LRU (see lboPort).
type lboPortResult struct {
	trace []string // every call and its result, for comparison with the kernel
	// Per step 1..9 (index step-1):
	skipped    []bool // the lookup walk hit ErrNoSpace
	looked     []int  // elements returned by the lookup walk
	deleted    []int  // elements deleted by the delete batches
	drained    []int  // elements returned by the lookup-and-delete walk
	emptyAfter []bool // NextKey(nil) said ErrKeyNotExist after the drain
	present    []int  // keys present after each populate of the step (lookup's)
}

// lboPort runs the sequence of the kernel's htab_map_batch_ops.c on d
// (max_entries 10, keys i+1, values i+2, per CPU i+2+cpu; count 0; one call
// of 10; then for every step 1..9 lookup, delete and lookup-and-delete walks
// in chunks of step, each next call with the count the previous one
// returned). It fails on what must hold on any map (every returned key is
// one of the keys, once, with its value; counts within the buffer; a walk
// ends) and records the rest: what an LRU map holds after the populates
// depends on its eviction, which the callers check.
func lboPort(t *testing.T, d lboDriver) lboPortResult {
	const max = 10
	ns := d.slots()
	var r lboPortResult
	rec := func(format string, args ...any) { r.trace = append(r.trace, fmt.Sprintf(format, args...)) }
	inKeys, inVals := make([][]byte, max), make([][]byte, max)
	for i := range max {
		inKeys[i] = lboU32(uint32(i + 1))
		for j := range ns {
			inVals[i] = append(inVals[i], lboU32(uint32(i+2+j))...)
		}
	}
	populate := func() int {
		t.Helper()
		n, err := d.updateBatch(inKeys, inVals)
		rec("populate: %d %s", n, lboErr(err))
		require.NoError(t, err, "an LRU map is never full")
		require.Equal(t, max, n)
		c := d.contents()
		rec("contents: %x", c)
		if l, ok := d.length(); ok {
			require.Equal(t, len(c), l, "Len")
		}
		return len(c)
	}
	verify := func(keys, vals [][]byte) {
		t.Helper()
		seen := map[uint32]bool{}
		for i := range keys {
			k := binary.LittleEndian.Uint32(keys[i])
			require.True(t, k >= 1 && k <= max, "key %d", k)
			require.False(t, seen[k], "key %d returned twice", k)
			seen[k] = true
			require.Len(t, vals[i], 4*ns)
			for j := range ns {
				require.Equal(t, k+1+uint32(j), binary.LittleEndian.Uint32(vals[i][4*j:]), "value of key %d on CPU %d", k, j)
			}
		}
	}
	// walk is one lookup (-and-delete) walk in calls of count elements,
	// starting with step; it returns the keys and whether it hit ErrNoSpace.
	walk := func(step int, del bool) ([][]byte, bool) {
		t.Helper()
		var keys, vals [][]byte
		var batch uint32
		count := step
		for calls := 0; ; calls++ {
			require.Less(t, calls, 100, "the walk does not end")
			cur := &batch
			if len(keys) == 0 {
				cur = nil // as the kernel's test: total ? &batch : NULL
			}
			ks, vs, next, err := d.lookupBatch(cur, count, del)
			rec("walk step %d del %v call %d count %d: %s n=%d next=%d keys=%x", step, del, calls, count, lboErr(err), len(ks), next, ks)
			if errors.Is(err, htab.ErrNoSpace) {
				require.Empty(t, ks)
				return keys, true
			}
			if err != nil {
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
			}
			require.LessOrEqual(t, len(ks), count)
			keys, vals = append(keys, ks...), append(vals, vs...)
			batch, count = next, len(ks)
			if err != nil {
				break
			}
			require.NotEmpty(t, ks, "a successful call returns something")
		}
		verify(keys, vals)
		return keys, false
	}

	// test 1: lookup/delete an empty hash table: ENOENT.
	ks, _, _, err := d.lookupBatch(nil, max, true)
	rec("empty: %s %d", lboErr(err), len(ks))
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	require.Empty(t, ks)

	present := populate()
	// test 2: count 0 succeeds and does nothing.
	ks, _, _, err = d.lookupBatch(nil, 0, true)
	rec("count 0: %s %d", lboErr(err), len(ks))
	require.NoError(t, err)
	require.Empty(t, ks)
	require.Len(t, d.contents(), present)

	// test 3: count max_entries returns everything there is.
	ks, vs, _, err := d.lookupBatch(nil, max, true)
	rec("count 10: %s %x", lboErr(err), ks)
	if err != nil {
		require.ErrorIs(t, err, htab.ErrKeyNotExist)
	}
	require.Len(t, ks, present)
	verify(ks, vs)
	require.ErrorIs(t, d.firstKey(), htab.ErrKeyNotExist, "not empty after test 3")

	// test 4: lookup / delete / lookup-and-delete in steps.
	for step := 1; step < max; step++ {
		present := populate()
		r.present = append(r.present, present)
		keys, nospace := walk(step, false)
		r.skipped = append(r.skipped, nospace)
		r.looked = append(r.looked, len(keys))
		if nospace {
			r.deleted = append(r.deleted, 0)
			r.drained = append(r.drained, 0)
			r.emptyAfter = append(r.emptyAfter, false)
			continue
		}
		require.Len(t, keys, present, "the lookup walk returns what is there")
		total := 0
		for total < len(keys) {
			count := min(step, len(keys)-total)
			n, err := d.deleteBatch(keys[total : total+count])
			rec("delete step %d at %d: %d %s", step, total, n, lboErr(err))
			if err != nil {
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
			}
			total += n
			if err != nil {
				break
			}
		}
		r.deleted = append(r.deleted, total)
		require.ErrorIs(t, d.firstKey(), htab.ErrKeyNotExist, "step %d: not empty after the deletes", step)

		present = populate()
		keys, nospace = walk(step, true)
		require.False(t, nospace, "step %d: lookup-and-delete ErrNoSpace although lookup fitted", step)
		require.Len(t, keys, present, "the lookup-and-delete walk returns what is there")
		r.drained = append(r.drained, len(keys))
		err := d.firstKey()
		rec("after drain: %s", lboErr(err))
		r.emptyAfter = append(r.emptyAfter, errors.Is(err, htab.ErrKeyNotExist))
	}
	return r
}

// lboPortCPUs is the number of CPUs of the generated maps in
// TestLruBatchOpsPort: the expectations there are what the kernel (Linux
// 6.18, pinned to CPU 0) does with 2 possible CPUs, as
// TestLruBatchOpsPortKernel checks on any machine.
const lboPortCPUs = 2

// TestLruBatchOpsPort runs the port of the kernel's htab_map_batch_ops.c on
// the LRU maps (both types, every -batch-lock mode, common and per-CPU LRU
// lists, zero and random seeds), with 2 CPUs, and requires what the kernel
// does there:
//
//   - common LRU lists: ten keys fit in max_entries 10, including when the
//     populate replaces all ten keys of a full map (steps skipped for
//     ErrNoSpace leave the map full). Every step that is not skipped
//     returns, deletes and drains all ten keys. Under ZeroSeed the kernel's
//     bucket layout makes steps 1 and 2 hit ErrNoSpace (step 2 after
//     returning elements, since the kernel's test shrinks each call's count
//     to the previous call's).
//   - BPF_F_NO_COMMON_LRU: each CPU's list has max_entries/CPUs = 5 nodes,
//     and CPU 0 inserting ten keys evicts: only keys 9 and 10 remain after
//     each populate (the kernel's per-CPU shrink frees 4 at a time). So
//     test 3 returns 2 keys, not 10, and every step returns, deletes and
//     drains those 2. (Under a random seed keys 9 and 10 may share a bucket,
//     so that step 1 is skipped and step 2 populates a map holding them:
//     then 7..10 remain, as TestLruBatchRepopulateKernel checks.)
func TestLruBatchOpsPort(t *testing.T) {
	for _, kind := range lboKinds {
		for _, noCommon := range []bool{false, true} {
			for _, zero := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/nocommon=%v/zeroseed=%v", kind.name, noCommon, zero), func(t *testing.T) {
					d, err := kind.newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero, CPUs: lboPortCPUs, NoCommonLRU: noCommon})
					require.NoError(t, err)
					r := lboPort(t, d)
					require.Len(t, r.skipped, 9)
					want := 10
					if noCommon {
						want = 2
						// In NextKey order: under ZeroSeed the kernel's, else either.
						orders := []string{lboPortContents(d.slots(), 10, 9)}
						if !zero {
							orders = append(orders, lboPortContents(d.slots(), 9, 10))
						}
						require.Contains(t, orders, lboContentsAfterPopulate(r), "keys left after a populate")
					}
					success := 0
					for i := range r.skipped {
						step := i + 1
						if noCommon && i > 0 && r.skipped[i-1] && r.present[i-1] == 2 {
							// The populate found keys 9 and 10 still in:
							// 7..10 remain (TestLruBatchRepopulateKernel).
							want = 4
						} else if noCommon {
							want = 2
						}
						require.Equal(t, want, r.present[i], "step %d: keys after the populate", step)
						if r.skipped[i] {
							// Keys 7..10 may share buckets under random seeds.
							require.False(t, noCommon && zero, "step %d skipped", step)
							continue
						}
						success++
						require.Equal(t, want, r.looked[i], "step %d: lookup", step)
						require.Equal(t, want, r.deleted[i], "step %d: delete", step)
						// The second populate of a step always starts empty.
						require.Equal(t, map[bool]int{false: 10, true: 2}[noCommon], r.drained[i], "step %d: lookup-and-delete", step)
						require.True(t, r.emptyAfter[i], "step %d: empty after the drain", step)
					}
					if zero {
						// Under a random seed every step's walk may meet a bucket
						// larger than the shrunk count, as in the kernel's test,
						// which then fails.
						require.Positive(t, success, "no step succeeded")
					}
					if zero && !noCommon {
						require.Equal(t, []bool{true, true, false, false, false, false, false, false, false}, r.skipped, "steps skipped for ErrNoSpace")
					}
				})
			}
		}
	}
}

// lboContentsAfterPopulate returns the contents the trace recorded after the
// first populate.
func lboContentsAfterPopulate(r lboPortResult) string {
	for i, l := range r.trace {
		if len(l) > 9 && l[:9] == "populate:" && i+1 < len(r.trace) {
			return r.trace[i+1]
		}
	}
	return ""
}

// lboPortContents is the contents line lboPort records for keys, in that
// (NextKey) order, with the port's values.
func lboPortContents(ns int, keys ...uint32) string {
	var c [][]byte
	for _, k := range keys {
		e := lboU32(k)
		for j := range ns {
			e = append(e, lboU32(k+1+uint32(j))...)
		}
		c = append(c, e)
	}
	return fmt.Sprintf("contents: %x", c)
}

// TestLruBatchOpsPortKernel runs the same port on the kernel's LRU_HASH and
// LRU_PERCPU_HASH (ZeroSeed, common and per-CPU lists, every operation from
// CPU 0) and on the generated maps (CPUs = the kernel's possible CPUs), and
// requires the same trace: every call's count, error, cursor and keys in
// order, and the contents after every populate (so the same evictions).
func TestLruBatchOpsPortKernel(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds {
		for _, noCommon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nocommon=%v", kind.name, noCommon), func(t *testing.T) {
				unpin, err := kernel.PinCPU(0)
				require.NoError(t, err)
				defer unpin()
				opts := htab.Options{MaxEntries: 10, ZeroSeed: true, CPUs: ncpu, NoCommonLRU: noCommon}
				km, err := kernel.New(kind.typ, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				d, err := kind.newMap(opts)
				require.NoError(t, err)
				want := lboPort(t, lboKernel{km, d.slots()})
				got := lboPort(t, d)
				require.Equal(t, want.trace, got.trace)
				require.Equal(t, want, got)
				if ncpu == lboPortCPUs && !noCommon {
					require.Equal(t, []bool{true, true, false, false, false, false, false, false, false}, want.skipped,
						"the kernel's skipped steps, which TestLruBatchOpsPort expects")
				}
			})
		}
	}
}

// TestLruBatchKernelDifferential compares batch walks on the generated LRU
// maps with the kernel's (ZeroSeed, common and per-CPU lists, CPU 0, the
// generated map with the kernel's possible CPUs): after random fills by
// updates, update batches and delete batches, which evict as the kernel's
// LRU does, walks with every buffer size 1..16 must return the same keys and
// values in each call, the same count, leave the cursor on the same bucket
// and end with the same error; lookup-and-delete walks too, which must leave
// the same contents.
func TestLruBatchKernelDifferential(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds {
		for _, noCommon := range []bool{false, true} {
			for _, max := range []int{2, 7, 10, 33, 256} {
				t.Run(fmt.Sprintf("%s/nocommon=%v/max=%d", kind.name, noCommon, max), func(t *testing.T) {
					unpin, err := kernel.PinCPU(0)
					require.NoError(t, err)
					defer unpin()
					opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: ncpu, NoCommonLRU: noCommon}
					km, err := kernel.New(kind.typ, 4, 4, opts)
					require.NoError(t, err)
					defer km.Close()
					d, err := kind.newMap(opts)
					require.NoError(t, err)
					lboDifferential(t, lboKernel{km, d.slots()}, d, max)
				})
			}
		}
	}
}

func lboDifferential(t *testing.T, k, g lboDriver, max int) {
	rng := rand.New(rand.NewPCG(uint64(max), 5))
	ns := g.slots()
	keySpace := 3*max + 3
	randKey := func() []byte { return lboU32(uint32(rng.IntN(keySpace))) }
	randVal := func() []byte {
		var v []byte
		for range ns {
			v = binary.LittleEndian.AppendUint32(v, rng.Uint32())
		}
		return v
	}
	sameErr := func(want, got error, what string) {
		t.Helper()
		require.Equal(t, lboErr(want), lboErr(got), what)
	}
	sameContents := func(what string) {
		t.Helper()
		require.Equal(t, k.contents(), g.contents(), "contents %s", what)
	}
	fill := func(ops int) {
		t.Helper()
		for range ops {
			switch rng.IntN(5) {
			case 0, 1, 2:
				key, v := randKey(), randVal()
				sameErr(k.update(key, v), g.update(key, v), fmt.Sprintf("update %x", key))
			case 3:
				var ks, vs [][]byte
				for range 1 + rng.IntN(8) {
					ks, vs = append(ks, randKey()), append(vs, randVal())
				}
				wn, werr := k.updateBatch(ks, vs)
				gn, gerr := g.updateBatch(ks, vs)
				sameErr(werr, gerr, fmt.Sprintf("update batch %x", ks))
				require.Equal(t, wn, gn, "update batch %x", ks)
			case 4:
				var ks [][]byte
				for range 1 + rng.IntN(4) {
					ks = append(ks, randKey())
				}
				wn, werr := k.deleteBatch(ks)
				gn, gerr := g.deleteBatch(ks)
				sameErr(werr, gerr, fmt.Sprintf("delete batch %x", ks))
				require.Equal(t, wn, gn, "delete batch %x", ks)
			}
		}
		sameContents("after the fill")
	}
	walk := func(buf int, del bool) {
		t.Helper()
		var cur *uint32
		for call := 0; ; call++ {
			require.Less(t, call, 4*max+10, "walk does not end")
			wk, wv, wnext, werr := k.lookupBatch(cur, buf, del)
			gk, gv, gnext, gerr := g.lookupBatch(cur, buf, del)
			what := fmt.Sprintf("buf %d, del %v, call %d", buf, del, call)
			sameErr(werr, gerr, what)
			require.Equal(t, wk, gk, "%s: keys", what)
			require.Equal(t, wv, gv, "%s: values", what)
			require.Equal(t, wnext, gnext, "%s: cursor", what)
			next := wnext
			cur = &next
			if errors.Is(werr, htab.ErrNoSpace) {
				buf *= 2
				continue
			}
			if werr != nil {
				return
			}
		}
	}
	for _, ops := range []int{1, max / 2, max, 3 * max, 10 * max} {
		fill(ops)
		for buf := 1; buf <= 16; buf++ {
			walk(buf, false)
		}
		sameContents("after the lookup walks")
		walk(1+rng.IntN(16), true)
		require.ErrorIs(t, g.firstKey(), htab.ErrKeyNotExist, "not empty after a lookup-and-delete walk")
		sameContents("after the lookup-and-delete walk")
		// Lookup-and-delete walks with every buffer size on the same
		// contents, restored by the same update batch on both (which, in
		// an LRU map, may evict the same keys on both).
		fill(ops)
		for buf := 1; buf <= 16; buf++ {
			var ks, vs [][]byte
			for _, e := range g.contents() {
				ks, vs = append(ks, e[:4]), append(vs, e[4:])
			}
			walk(buf, true)
			sameContents("after a lookup-and-delete walk")
			wn, werr := k.updateBatch(ks, vs)
			gn, gerr := g.updateBatch(ks, vs)
			sameErr(werr, gerr, "refill")
			require.Equal(t, wn, gn, "refill")
			sameContents("after the refill")
		}
		walk(16, true)
	}
}

// lboRacer is what the race test needs beyond lboDriver; the generated
// maps' drivers have it. Both insert with UpdateNoExist: insert from user
// space (v holds every CPU's value), cpuInsert through CPU(cpu) (v is that
// CPU's value; a per-CPU map zeroes the others).
type lboRacer interface {
	lboDriver
	insert(k, v []byte) error
	cpuInsert(cpu int, k, v []byte) error
}

// TestLruBatchLookupAndDeleteRace races lookup-and-delete walks (two
// drainers, each with its own cursor and buffer sizes) with writers
// inserting distinct keys, half through the userspace Update and half
// through their CPU(i) handle (their CPU's LRU lists), on both LRU types,
// every -batch-lock mode, common and per-CPU lists. MaxEntries is four times
// the keys inserted, so that the LRU evicts nothing (free nodes parked in
// the other CPUs' local lists are fewer than the spare ones). Every key must
// end up either returned by exactly one batch, with its value, or still in
// the map. Run it with -race.
func TestLruBatchLookupAndDeleteRace(t *testing.T) {
	for _, kind := range lboKinds {
		for _, noCommon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nocommon=%v", kind.name, noCommon), func(t *testing.T) {
				const writers, perWriter, ncpu = 4, 1500, 4
				// With NoCommonLRU each CPU's lists hold MaxEntries/ncpu nodes,
				// still four times all the keys.
				d, err := kind.newMap(htab.Options{MaxEntries: 4 * ncpu * writers * perWriter, CPUs: ncpu, NoCommonLRU: noCommon})
				require.NoError(t, err)
				m := d.(lboRacer)
				ns := m.slots()
				userVal := func(k uint32) []byte {
					var v []byte
					for j := range ns {
						v = append(v, lboU32(k*8+uint32(j)+1)...)
					}
					return v
				}
				// cpuVal is the value of a key inserted through CPU(cpu) as ^k.
				cpuVal := func(k uint32, cpu int) []byte {
					if ns == 1 {
						return lboU32(^k)
					}
					v := make([]byte, 4*ns)
					copy(v[4*cpu:], lboU32(^k))
					return v
				}

				var stop atomic.Bool
				var wg sync.WaitGroup
				returned := make([]map[uint32][]byte, 2)
				var dupes atomic.Int64
				for dr := range returned {
					returned[dr] = map[uint32][]byte{}
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(dr), 13))
						var cur *uint32
						for !stop.Load() {
							ks, vs, next, err := m.lookupBatch(cur, 1+rng.IntN(12), true)
							for i := range ks {
								k := binary.LittleEndian.Uint32(ks[i])
								if _, dup := returned[dr][k]; dup {
									dupes.Add(1)
								}
								returned[dr][k] = vs[i]
							}
							switch {
							case errors.Is(err, htab.ErrKeyNotExist):
								cur = nil // start the next walk
							case errors.Is(err, htab.ErrNoSpace), err == nil:
								cur = &next
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
							k := uint32(w<<16 | i)
							var err error
							if i%2 == 0 {
								err = m.insert(lboU32(k), userVal(k))
							} else {
								err = m.cpuInsert(w%ncpu, lboU32(k), lboU32(^k))
							}
							if err != nil {
								t.Errorf("insert %#x: %v", k, err)
								return
							}
						}
					}()
				}
				writersWG.Wait()
				stop.Store(true)
				wg.Wait()

				require.Zero(t, dupes.Load(), "a drainer got a key twice")
				all := map[uint32][]byte{}
				for _, r := range returned {
					for k, v := range r {
						_, dup := all[k]
						require.False(t, dup, "key %#x returned by both drainers", k)
						all[k] = v
					}
				}
				left := m.contents()
				for _, e := range left {
					k := binary.LittleEndian.Uint32(e)
					_, dup := all[k]
					require.False(t, dup, "key %#x returned and still in the map", k)
					all[k] = e[4:]
				}
				l, _ := m.length()
				require.Equal(t, len(left), l)
				require.Len(t, all, writers*perWriter, "keys lost (or evicted)")
				for w := range writers {
					for i := range perWriter {
						k := uint32(w<<16 | i)
						want := userVal(k)
						if i%2 == 1 {
							want = cpuVal(k, w%ncpu)
						}
						require.Equal(t, want, all[k], "key %#x", k)
					}
				}
				t.Logf("returned by batches: %d, left: %d", len(all)-len(left), len(left))
			})
		}
	}
}

// TestLruBatchRepopulateKernel updates keys 1..10 by UpdateBatch four times
// over into LRU maps of max_entries 10 without deleting (what the port does
// after a skipped step), on the kernel's maps and the generated ones (CPU 0,
// ZeroSeed, the kernel's possible CPUs), and requires the same contents
// after each round. With 2 possible CPUs and BPF_F_NO_COMMON_LRU the kernel
// leaves keys 9 and 10, then 7..10, then 9 and 10 again, and so on.
func TestLruBatchRepopulateKernel(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds {
		for _, noCommon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nocommon=%v", kind.name, noCommon), func(t *testing.T) {
				unpin, err := kernel.PinCPU(0)
				require.NoError(t, err)
				defer unpin()
				opts := htab.Options{MaxEntries: 10, ZeroSeed: true, CPUs: ncpu, NoCommonLRU: noCommon}
				km, err := kernel.New(kind.typ, 4, 4, opts)
				require.NoError(t, err)
				defer km.Close()
				d, err := kind.newMap(opts)
				require.NoError(t, err)
				k := lboKernel{km, d.slots()}
				var ks, vs [][]byte
				for i := range 10 {
					ks = append(ks, lboU32(uint32(i+1)))
					var v []byte
					for j := range d.slots() {
						v = append(v, lboU32(uint32(i+2+j))...)
					}
					vs = append(vs, v)
				}
				var sizes []int
				for round := range 4 {
					wn, werr := k.updateBatch(ks, vs)
					gn, gerr := d.updateBatch(ks, vs)
					require.NoError(t, werr)
					require.NoError(t, gerr)
					require.Equal(t, wn, gn)
					want := k.contents()
					require.Equal(t, want, d.contents(), "round %d", round)
					sizes = append(sizes, len(want))
				}
				if noCommon && ncpu == lboPortCPUs {
					require.Equal(t, []int{2, 4, 2, 4}, sizes, "what TestLruBatchOpsPort expects")
				}
			})
		}
	}
}
