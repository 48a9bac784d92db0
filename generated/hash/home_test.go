package hash

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

func k16(i uint64) (k HomeK16V8Key) {
	binary.LittleEndian.PutUint64(k[:], i)
	binary.LittleEndian.PutUint64(k[8:], ^i*0x9e3779b97f4a7c15)
	return
}

// TestKernelDifferentialK16 is TestKernelDifferential for the 16-byte key
// (the slot caches the hash; eviction reads it back): random operations on
// HomeK16V8 and the kernel's BPF_MAP_TYPE_HASH, every result compared, and
// the whole iteration order compared every so often.
func TestKernelDifferentialK16(t *testing.T) {
	kernel.Require(t)
	for _, max := range []int{1, 3, 16, 100, 1000, 4096} {
		t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
			opts := htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 1}
			km, err := kernel.New(htab.Hash, 16, 8, opts)
			require.NoError(t, err)
			defer km.Close()
			m, err := NewHomeK16V8(opts)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 16)))
			steps := min(20000, 40*max+200)
			for step := range steps {
				k := k16(uint64(rng.IntN(2*max + 2)))
				var v HomeK16V8Value
				binary.LittleEndian.PutUint64(v[:], uint64(step))
				switch op := rng.IntN(10); {
				case op < 5:
					flags := uint64(rng.IntN(3))
					kernel.RequireSameErr(t, km.Update(k[:], v[:], flags), m.Update(k, v, htab.UpdateFlags(flags)), "step %d: Update(%x, %d)", step, k, flags)
				case op < 7:
					kernel.RequireSameErr(t, km.Delete(k[:]), m.Delete(k), "step %d: Delete(%x)", step, k)
				case op < 9:
					got, ok := m.Lookup(k)
					want, werr := km.Lookup(k[:])
					require.Equal(t, werr == nil, ok, "step %d: Lookup(%x)", step, k)
					if ok {
						require.Equal(t, want, got[:], "step %d: Lookup(%x)", step, k)
					}
				default:
					got, gerr := m.NextKey(&k)
					want, werr := km.NextKey(k[:])
					kernel.RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, k)
					if werr == nil {
						require.Equal(t, want, got[:], "step %d: NextKey(%x)", step, k)
					}
				}
				if step%(steps/4) == steps/4-1 {
					var kernelKeys, ourKeys [][]byte
					for k, err := km.NextKey(nil); err == nil; k, err = km.NextKey(k) {
						kernelKeys = append(kernelKeys, k)
					}
					for k := range m.All() {
						ourKeys = append(ourKeys, append([]byte(nil), k[:]...))
					}
					require.Equal(t, kernelKeys, ourKeys, "step %d: iteration order", step)
					require.Equal(t, len(kernelKeys), m.Len())
				}
			}
		})
	}
}

// TestHomeConcurrentRace churns a small, full map (every insert into an empty
// bucket relocates overflow elements; every insert into a full one fails)
// while readers look up a set of stable keys that nobody touches: each must
// be found, with its value, every time, although the elements around it are
// moved, pushed and evicted; All must yield each exactly once. Run with -race.
func TestHomeConcurrentRace(t *testing.T) {
	for _, max := range []int{8, 64, 1000} {
		t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
			m, err := NewHomeK8V8(htab.Options{MaxEntries: max})
			require.NoError(t, err)
			stable := max / 4
			key := func(i int) (k HomeK8V8Key) { binary.LittleEndian.PutUint64(k[:], uint64(i)); return }
			val := func(i int) (v HomeK8V8Value) { binary.LittleEndian.PutUint64(v[:], uint64(i)*7+1); return }
			for i := range stable {
				require.NoError(t, m.Update(key(i), val(i), htab.UpdateNoExist))
			}
			iters := 20000
			if testing.Short() {
				iters = 3000
			}
			var stop atomic.Bool
			var wg, writers sync.WaitGroup
			for w := range 4 {
				writers.Add(1)
				go func() {
					defer writers.Done()
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					for range iters {
						i := stable + rng.IntN(2*max)
						switch rng.IntN(4) {
						case 0, 1:
							_ = m.Update(key(i), val(i), htab.UpdateAny)
						case 2:
							_ = m.Delete(key(i))
						default:
							if v, ok := m.Lookup(key(i)); ok && v != val(i) {
								t.Errorf("churn key %d: value %x", i, v)
							}
						}
					}
				}()
			}
			for r := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(r), 2))
					for n := 0; !stop.Load(); n++ {
						if stable == 0 {
							return
						}
						if n%500 == 499 {
							seen := map[HomeK8V8Key]int{}
							for k := range m.All() {
								seen[k]++
							}
							for i := range stable {
								if seen[key(i)] != 1 {
									t.Errorf("All yielded stable key %d %d times", i, seen[key(i)])
								}
							}
							continue
						}
						i := rng.IntN(stable)
						if v, ok := m.Lookup(key(i)); !ok || v != val(i) {
							t.Errorf("stable key %d: %x, %v", i, v, ok)
							return
						}
					}
				}()
			}
			writers.Wait()
			stop.Store(true)
			wg.Wait()
			n := 0
			seen := map[HomeK8V8Key]bool{}
			for k, v := range m.All() {
				require.False(t, seen[k], "key %x twice", k)
				seen[k] = true
				i := int(binary.LittleEndian.Uint64(k[:]))
				require.Equal(t, val(i), v)
				n++
			}
			require.Equal(t, n, m.Len())
			require.LessOrEqual(t, n, max)
			checkHomeSlots(t, m)
		})
	}
}

// checkHomeSlots checks the home layout's invariants on a map no one is
// using: every chain's keys hash to its bucket, no slot is in two chains,
// every bucket's summary holds exactly the bits of its chain's keys (a bit
// missing loses a key; one left over, a stale summary, costs misses a slot
// read), the free bitmap marks exactly the slots in no chain, and count
// (with its reservations all settled) is the number of keys, as Len is.
func checkHomeSlots(t *testing.T, m *HomeK8V8) {
	t.Helper()
	owner := make([]int, len(m.slots)) // bucket+1 of the chain holding the slot
	keys := 0
	for b := range m.slots {
		var summary uint8
		for i := m.head(uint32(b)); i != 0; i = atomic.LoadUint32(&m.slots[i-1].next) & homeK8V8IndexMask {
			require.Zero(t, owner[i-1], "slot %d is in the chains of buckets %d and %d", i-1, owner[i-1]-1, b)
			owner[i-1] = b + 1
			require.Equal(t, uint32(b), m.slotBucket(&m.slots[i-1]), "slot %d in bucket %d's chain holds another bucket's key", i-1, b)
			summary |= htab.SummaryBit(m.elemHash(&m.slots[i-1]))
			keys++
		}
		require.Equal(t, summary, m.summary.Get(uint32(b)), "bucket %d: summary %08b, its keys' bits %08b", b, m.summary.Get(uint32(b)), summary)
	}
	for i := range m.slots {
		free := m.freeSlots.Claim(uint32(i))
		if free {
			m.freeSlots.Release(uint32(i))
		}
		require.NotEqual(t, free, owner[i] != 0, "slot %d: free %v, in a chain %v", i, free, owner[i] != 0)
	}
	require.Equal(t, int64(keys), m.count.Load(), "count")
	require.Equal(t, keys, m.Len(), "Len")
}

// TestHomeSummaries runs random operations on small maps, through every
// path that links or unlinks a key (inserts into empty and non-empty buckets,
// inserts refused for a full map, replaces of the head and of older keys,
// Delete, LookupAndDelete, the batch delete), and checks the layout's
// invariants after each, the summaries exact among them; absent keys must be
// reported absent and present ones found, whatever their summary bit.
func TestHomeSummaries(t *testing.T) {
	ops := 3000
	if testing.Short() {
		ops = 500
	}
	for _, o := range []htab.Options{{MaxEntries: 16, ZeroSeed: true}, {MaxEntries: 64}, {MaxEntries: 100}} {
		t.Run(fmt.Sprintf("max=%d/zeroseed=%v", o.MaxEntries, o.ZeroSeed), func(t *testing.T) {
			m, err := NewHomeK8V8(o)
			require.NoError(t, err)
			model := map[HomeK8V8Key]HomeK8V8Value{}
			rng := rand.New(rand.NewPCG(uint64(o.MaxEntries), 7))
			key := func() (k HomeK8V8Key) {
				binary.LittleEndian.PutUint64(k[:], uint64(rng.IntN(3*o.MaxEntries)))
				return k
			}
			for n := range ops {
				k := key()
				var v HomeK8V8Value
				binary.LittleEndian.PutUint64(v[:], uint64(n))
				switch op := rng.IntN(10); {
				case op < 5:
					err := m.Update(k, v, htab.UpdateAny)
					if _, ok := model[k]; !ok && len(model) == o.MaxEntries {
						require.ErrorIs(t, err, htab.ErrFull)
					} else {
						require.NoError(t, err)
						model[k] = v
					}
				case op < 7:
					_, ok := model[k]
					require.Equal(t, ok, m.Delete(k) == nil)
					delete(model, k)
				case op < 9:
					got, err := m.LookupAndDelete(k)
					if want, ok := model[k]; ok {
						require.NoError(t, err)
						require.Equal(t, want, got)
					} else {
						require.ErrorIs(t, err, htab.ErrKeyNotExist)
					}
					delete(model, k)
				default: // a batch delete of the first few buckets
					var c htab.Cursor
					keys := make([]HomeK8V8Key, o.MaxEntries)
					vals := make([]HomeK8V8Value, o.MaxEntries)
					got, _ := m.LookupAndDeleteBatch(&c, keys[:4], vals[:4])
					for _, dk := range keys[:got] {
						delete(model, dk)
					}
				}
				checkHomeSlots(t, m)
				for j := range 3 * o.MaxEntries {
					var k HomeK8V8Key
					binary.LittleEndian.PutUint64(k[:], uint64(j))
					want, ok := model[k]
					got, found := m.Lookup(k)
					require.Equal(t, ok, found, "key %d after op %d", j, n)
					require.Equal(t, want, got, "key %d after op %d", j, n)
				}
			}
		})
	}
}

// TestHomeMaxEntriesLimit: the home layout marks a bucket's head with bit 31
// of next, so it takes at most 2^30 slots; past that (MaxEntries > 2^30,
// which the kernel and the classic layout accept up to 2^31) it is
// ErrInvalid naming the limit, before anything is allocated.
func TestHomeMaxEntriesLimit(t *testing.T) {
	_, err := NewHomeK8V8(htab.Options{MaxEntries: 1<<30 + 1})
	require.ErrorIs(t, err, htab.ErrInvalid)
	require.ErrorContains(t, err, "MaxEntries 1073741825 (allowed in the home layout: 1..1073741824)")
	_, err = NewHomeK8V8(htab.Options{MaxEntries: 1 << 31})
	require.ErrorIs(t, err, htab.ErrInvalid)
}

// TestHomeLookupBulkBig: LookupBulk on a map of htab.SummaryPrefetchBuckets
// buckets, which prefetches its summaries in a loop of their own (the kit's
// LookupBulk check uses smaller maps), against Lookup, for present, absent
// and repeated keys, in slices of odd lengths.
func TestHomeLookupBulkBig(t *testing.T) {
	m, err := NewHomeK8V8(htab.Options{MaxEntries: htab.SummaryPrefetchBuckets})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	key := func(i int) (k HomeK8V8Key) { binary.LittleEndian.PutUint64(k[:], uint64(i)); return }
	const universe = 40000
	for i := range universe / 2 {
		var v HomeK8V8Value
		binary.LittleEndian.PutUint64(v[:], uint64(i)+1)
		require.NoError(t, m.Update(key(rng.IntN(universe)), v, htab.UpdateAny))
	}
	for _, n := range []int{1, 15, 16, 17, 1000, 4099} {
		keys := make([]HomeK8V8Key, n)
		for i := range keys {
			keys[i] = key(rng.IntN(universe))
			if i > 0 && rng.IntN(8) == 0 {
				keys[i] = keys[rng.IntN(i)]
			}
		}
		vals, found := make([]HomeK8V8Value, n), make([]bool, n)
		for i := range vals {
			vals[i][0], found[i] = 0xee, true // LookupBulk must overwrite both
		}
		got, want := m.LookupBulk(keys, vals, found), 0
		for i, k := range keys {
			v, ok := m.Lookup(k)
			require.Equal(t, ok, found[i], "%d keys: key %d", n, i)
			require.Equal(t, v, vals[i], "%d keys: key %d", n, i)
			if ok {
				want++
			}
		}
		require.Equal(t, want, got, "%d keys", n)
		if n >= 1000 {
			require.Positive(t, want, "%d keys: some present", n)
			require.Less(t, want, n, "%d keys: some absent", n)
		}
	}
}
