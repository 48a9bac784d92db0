package lru

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/batchdiff"
	"github.com/htabgen/htabgen/internal/kernel"
)

// The batch tests for BPF_MAP_TYPE_LRU_HASH and
// BPF_MAP_TYPE_LRU_PERCPU_HASH, on the k4v4 maps of gen_batch.go. Helpers
// carry the prefix lbo so as not to collide with the package's other tests.
//
// Every test body runs against a batchdiff.Map: byte-level keys and values
// (a per-CPU value is the CPUs' values concatenated, the kernel harness's
// layout), implemented by the generated maps and by the kernel's maps, so
// that the same sequence can run on both and be compared call by call.

// lboMap is a generated map driven through batchdiff, plus what the race
// test needs beyond it: an insert (UpdateNoExist) through CPU(cpu), whose
// v is that CPU's value (a per-CPU map zeroes the others).
type lboMap struct {
	batchdiff.Map
	cpuInsert func(cpu int, k, v []byte) error
}

// lboMapKind is one generated map type and -batch-lock mode.
type lboMapKind struct {
	name   string
	typ    htab.MapType
	newMap func(htab.Options) (lboMap, error)
}

// lboKind is the lboMapKind of the maps kind stands for.
func lboKind[K, V comparable](name string, kind htabtest.Map[K, V]) lboMapKind {
	return lboMapKind{name, kind.Info().Type, func(o htab.Options) (lboMap, error) {
		m, err := kind.New(o)
		if err != nil {
			return lboMap{}, err
		}
		return lboMap{batchdiff.Generated(m), func(cpu int, k, v []byte) error {
			var key K
			var val V
			copy(kernel.Bytes(&key), k)
			copy(kernel.Bytes(&val), v)
			return m.CPU(cpu).Update(key, val, htab.UpdateNoExist)
		}}, nil
	}}
}

// lboKinds are the k4v4 maps of gen_batch.go. (A function, not a variable:
// inferring K and V from an adapter's methods fails in the initializer of a
// package-level variable declared in a file that sorts before the
// adapter's.)
func lboKinds() []lboMapKind {
	return []lboMapKind{
		lboKind("lru/lock=nonempty", lRUK4V4TestMap{}),
		lboKind("lru/lock=always", lRUK4V4AlwaysTestMap{}),
		lboKind("lru/lock=sparse", lRUK4V4SparseTestMap{}),
		lboKind("lru_pcpu/lock=nonempty", lRUPerCPUK4V4TestMap{}),
		lboKind("lru_pcpu/lock=always", lRUPerCPUK4V4AlwaysTestMap{}),
		lboKind("lru_pcpu/lock=sparse", lRUPerCPUK4V4SparseTestMap{}),
	}
}

// lboPortCPUs is the number of CPUs of the generated maps in
// TestLRUBatchOpsPort: the expectations there are what the kernel (Linux
// 6.18, pinned to CPU 0) does with 2 possible CPUs, as
// TestLRUBatchOpsPortKernel checks on any machine.
const lboPortCPUs = 2

// TestLRUBatchOpsPort runs the port of the kernel's htab_map_batch_ops.c on
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
//     then 7..10 remain, as TestLRUBatchRepopulateKernel checks.)
func TestLRUBatchOpsPort(t *testing.T) {
	for _, kind := range lboKinds() {
		for _, noCommon := range []bool{false, true} {
			for _, zero := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/nocommon=%v/zeroseed=%v", kind.name, noCommon, zero), func(t *testing.T) {
					d, err := kind.newMap(htab.Options{MaxEntries: 10, ZeroSeed: zero, CPUs: lboPortCPUs, NoCommonLRU: noCommon})
					require.NoError(t, err)
					r := batchdiff.Port(t, d)
					require.Len(t, r.Skipped, 9)
					want := 10
					if noCommon {
						want = 2
						// In NextKey order: under ZeroSeed the kernel's, else either.
						orders := []string{lboPortContents(d.Slots(), 10, 9)}
						if !zero {
							orders = append(orders, lboPortContents(d.Slots(), 9, 10))
						}
						require.Contains(t, orders, lboContentsAfterPopulate(r), "keys left after a populate")
					}
					success := 0
					for i := range r.Skipped {
						step := i + 1
						if noCommon && i > 0 && r.Skipped[i-1] && r.Present[i-1] == 2 {
							// The populate found keys 9 and 10 still in:
							// 7..10 remain (TestLRUBatchRepopulateKernel).
							want = 4
						} else if noCommon {
							want = 2
						}
						require.Equal(t, want, r.Present[i], "step %d: keys after the populate", step)
						if r.Skipped[i] {
							// Keys 7..10 may share buckets under random seeds.
							require.False(t, noCommon && zero, "step %d skipped", step)
							continue
						}
						success++
						require.Equal(t, want, r.Looked[i], "step %d: lookup", step)
						require.Equal(t, want, r.Deleted[i], "step %d: delete", step)
						// The second populate of a step always starts empty.
						require.Equal(t, map[bool]int{false: 10, true: 2}[noCommon], r.Drained[i], "step %d: lookup-and-delete", step)
						require.True(t, r.EmptyAfter[i], "step %d: empty after the drain", step)
					}
					if zero {
						// Under a random seed every step's walk may meet a bucket
						// larger than the shrunk count, as in the kernel's test,
						// which then fails.
						require.Positive(t, success, "no step succeeded")
					}
					if zero && !noCommon {
						require.Equal(t, []bool{true, true, false, false, false, false, false, false, false}, r.Skipped, "steps skipped for ErrNoSpace")
					}
				})
			}
		}
	}
}

// lboContentsAfterPopulate returns the contents the trace recorded after the
// first populate.
func lboContentsAfterPopulate(r batchdiff.PortResult) string {
	for i, l := range r.Trace {
		if len(l) > 9 && l[:9] == "populate:" && i+1 < len(r.Trace) {
			return r.Trace[i+1]
		}
	}
	return ""
}

// lboPortContents is the contents line lboPort records for keys, in that
// (NextKey) order, with the port's values.
func lboPortContents(ns int, keys ...uint32) string {
	var c [][]byte
	for _, k := range keys {
		e := batchdiff.U32(k)
		for j := range ns {
			e = append(e, batchdiff.U32(k+1+uint32(j))...)
		}
		c = append(c, e)
	}
	return fmt.Sprintf("contents: %x", c)
}

// TestLRUBatchOpsPortKernel runs the same port on the kernel's LRU_HASH and
// LRU_PERCPU_HASH (ZeroSeed, common and per-CPU lists, every operation from
// CPU 0) and on the generated maps (CPUs = the kernel's possible CPUs), and
// requires the same trace: every call's count, error, cursor and keys in
// order, and the contents after every populate (so the same evictions).
func TestLRUBatchOpsPortKernel(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds() {
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
				want := batchdiff.Port(t, batchdiff.Kernel(km, d.Slots()))
				got := batchdiff.Port(t, d)
				require.Equal(t, want.Trace, got.Trace)
				require.Equal(t, want, got)
				if ncpu == lboPortCPUs && !noCommon {
					require.Equal(t, []bool{true, true, false, false, false, false, false, false, false}, want.Skipped,
						"the kernel's skipped steps, which TestLRUBatchOpsPort expects")
				}
			})
		}
	}
}

// TestLRUBatchKernelDifferential compares batch walks on the generated LRU
// maps with the kernel's (ZeroSeed, common and per-CPU lists, CPU 0, the
// generated map with the kernel's possible CPUs): after random fills by
// updates, update batches and delete batches, which evict as the kernel's
// LRU does, walks with every buffer size 1..16 must return the same keys and
// values in each call, the same count, leave the cursor on the same bucket
// and end with the same error; lookup-and-delete walks too, which must leave
// the same contents.
func TestLRUBatchKernelDifferential(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds() {
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
					batchdiff.Differential(t, batchdiff.Kernel(km, d.Slots()), d, max, kernel.Seed(t, 5))
				})
			}
		}
	}
}

// TestLRUBatchLookupAndDeleteRace races lookup-and-delete walks (two
// drainers, each with its own cursor and buffer sizes) with writers
// inserting distinct keys, half through the userspace Update and half
// through their CPU(i) handle (their CPU's LRU lists), on both LRU types,
// every -batch-lock mode, common and per-CPU lists. MaxEntries is four times
// the keys inserted, so that the LRU evicts nothing (free nodes parked in
// the other CPUs' local lists are fewer than the spare ones). Every key must
// end up either returned by exactly one batch, with its value, or still in
// the map. Run it with -race.
func TestLRUBatchLookupAndDeleteRace(t *testing.T) {
	for _, kind := range lboKinds() {
		for _, noCommon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nocommon=%v", kind.name, noCommon), func(t *testing.T) {
				const writers, perWriter, ncpu = 4, 1500, 4
				// With NoCommonLRU each CPU's lists hold MaxEntries/ncpu nodes,
				// still four times all the keys.
				d, err := kind.newMap(htab.Options{MaxEntries: 4 * ncpu * writers * perWriter, CPUs: ncpu, NoCommonLRU: noCommon})
				require.NoError(t, err)
				ns := d.Slots()
				userVal := func(k uint32) []byte {
					var v []byte
					for j := range ns {
						v = append(v, batchdiff.U32(k*8+uint32(j)+1)...)
					}
					return v
				}
				// cpuVal is the value of a key inserted through CPU(cpu) as ^k.
				cpuVal := func(k uint32, cpu int) []byte {
					if ns == 1 {
						return batchdiff.U32(^k)
					}
					v := make([]byte, 4*ns)
					copy(v[4*cpu:], batchdiff.U32(^k))
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
							ks, vs, next, err := d.LookupBatch(cur, 1+rng.IntN(12), true)
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
								err = d.Update(batchdiff.U32(k), userVal(k), uint64(htab.UpdateNoExist))
							} else {
								err = d.cpuInsert(w%ncpu, batchdiff.U32(k), batchdiff.U32(^k))
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
				left := d.Contents()
				for _, e := range left {
					k := binary.LittleEndian.Uint32(e)
					_, dup := all[k]
					require.False(t, dup, "key %#x returned and still in the map", k)
					all[k] = e[4:]
				}
				require.Equal(t, len(left), d.Len())
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

// TestLRUBatchRepopulateKernel updates keys 1..10 by UpdateBatch four times
// over into LRU maps of max_entries 10 without deleting (what the port does
// after a skipped step), on the kernel's maps and the generated ones (CPU 0,
// ZeroSeed, the kernel's possible CPUs), and requires the same contents
// after each round. With 2 possible CPUs and BPF_F_NO_COMMON_LRU the kernel
// leaves keys 9 and 10, then 7..10, then 9 and 10 again, and so on.
func TestLRUBatchRepopulateKernel(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, kind := range lboKinds() {
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
				k := batchdiff.Kernel(km, d.Slots())
				var ks, vs [][]byte
				for i := range 10 {
					ks = append(ks, batchdiff.U32(uint32(i+1)))
					var v []byte
					for j := range d.Slots() {
						v = append(v, batchdiff.U32(uint32(i+2+j))...)
					}
					vs = append(vs, v)
				}
				var sizes []int
				for round := range 4 {
					wn, werr := k.UpdateBatch(ks, vs, 0)
					gn, gerr := d.UpdateBatch(ks, vs, 0)
					require.NoError(t, werr)
					require.NoError(t, gerr)
					require.Equal(t, wn, gn)
					want := k.Contents()
					require.Equal(t, want, d.Contents(), "round %d", round)
					sizes = append(sizes, len(want))
				}
				if noCommon && ncpu == lboPortCPUs {
					require.Equal(t, []int{2, 4, 2, 4}, sizes, "what TestLRUBatchOpsPort expects")
				}
			})
		}
	}
}
