package pcpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// Keys of the stress test: counter keys 0..raceCounters-1 are never deleted;
// volatile keys raceVolatileBase.. are updated, deleted and looked up from both
// sides.
const (
	raceCounters     = 64
	raceVolatile     = 256
	raceVolatileBase = 1 << 20
)

// raceTagged is the value written for CPU c under volatile key k (its index
// from raceVolatileBase) in step n: the low byte is c, the next the key's index,
// and the two 32-bit halves are equal, so that a torn read, a value in the
// wrong CPU's slot or under the wrong key (a write that landed on a freed and
// reused element) shows.
func raceTagged(c int, k PerCPUK8V8Key, n int) (v PerCPUK8V8Value) {
	w := uint32(n)<<16 | uint32(kpInt(k[:])-raceVolatileBase)<<8 | uint32(c)
	binary.LittleEndian.PutUint32(v[:4], w)
	binary.LittleEndian.PutUint32(v[4:], w)
	return
}

// raceCheckTagged returns an error unless every vals[c] is zero or a value
// raceTagged wrote for CPU c under k.
func raceCheckTagged(k PerCPUK8V8Key, vals []PerCPUK8V8Value) error {
	ki := kpInt(k[:]) - raceVolatileBase
	for c, v := range vals {
		if v == (PerCPUK8V8Value{}) {
			continue
		}
		lo, hi := binary.LittleEndian.Uint32(v[:4]), binary.LittleEndian.Uint32(v[4:])
		if lo != hi || int(lo&0xff) != c || int64(lo>>8&0xff) != ki {
			return fmt.Errorf("volatile key %d: CPU %d's value %x is not one written for CPU %d under this key (torn, misplaced or on a reused element)", ki, c, v, c)
		}
	}
	return nil
}

// TestPerCPUStressCounters: goroutines, each with its own CPU(i) handle,
// increment per-CPU counters (CPU(i).Lookup then CPU(i).Update, inserting the
// key with NOEXIST when absent, as a BPF program does) and write volatile keys,
// while userspace goroutines Update, Lookup, LookupAndDelete, Delete and
// iterate with All. Run with -race. Afterwards each counter key's slot i is
// the number of increments goroutine i did on it (counter keys are never
// deleted, and only CPU i writes slot i after the insert); all along, readers
// see every counter slot never decrease, and every volatile slot hold zero or
// a whole value written for that slot's CPU.
func TestPerCPUStressCounters(t *testing.T) {
	const workers = 4
	ops := 20000
	if testing.Short() {
		ops = 3000
	}
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			// Room for every key plus the elements the 2 userspace deleters
			// may hold between unlinking and freeing them (a transient
			// ErrFull there is kernel-like but not what this test checks).
			o.MaxEntries, o.CPUs = raceCounters+raceVolatile+4, workers
			m, err := NewPerCPUK8V8(o)
			require.NoError(t, err)

			errs := make(chan error, 64)
			report := func(err error) {
				select {
				case errs <- err:
				default:
				}
			}
			counts := make([][raceCounters]int64, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					cpu := m.CPU(w)
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					for n := range ops {
						if rng.IntN(8) == 0 {
							// A volatile key: this CPU's slot only.
							k := kpKey(raceVolatileBase + int64(rng.IntN(raceVolatile)))
							flags := htab.UpdateFlags(rng.IntN(3))
							err := cpu.Update(k, raceTagged(w, k, n), flags)
							if err != nil && !errors.Is(err, htab.ErrKeyExist) && !errors.Is(err, htab.ErrKeyNotExist) {
								report(fmt.Errorf("CPU %d: Update of volatile key: %w", w, err))
								return
							}
							continue
						}
						ki := rng.IntN(raceCounters)
						k := kpKey(int64(ki))
						for {
							v, ok := cpu.Lookup(k)
							if !ok {
								err := cpu.Update(k, kpVal(1), htab.UpdateNoExist)
								if errors.Is(err, htab.ErrKeyExist) {
									continue // another CPU inserted it first: count again
								}
								if err != nil {
									report(fmt.Errorf("CPU %d: insert of counter %d: %w", w, ki, err))
									return
								}
								break
							}
							if got := kpInt(v[:]); got != counts[w][ki] {
								report(fmt.Errorf("CPU %d: counter %d reads %d, want %d", w, ki, got, counts[w][ki]))
								return
							}
							if err := cpu.Update(k, kpVal(kpInt(v[:])+1), htab.UpdateExist); err != nil {
								report(fmt.Errorf("CPU %d: increment of counter %d: %w", w, ki, err))
								return
							}
							break
						}
						counts[w][ki]++
					}
				})
			}

			stop := make(chan struct{})
			var users sync.WaitGroup
			// Userspace writers and deleters of volatile keys.
			for u := range 2 {
				users.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(100+u), 2))
					vals := make([]PerCPUK8V8Value, workers)
					for n := 0; ; n++ {
						select {
						case <-stop:
							return
						default:
						}
						k := kpKey(raceVolatileBase + int64(rng.IntN(raceVolatile)))
						switch rng.IntN(4) {
						case 0, 1:
							for c := range vals {
								vals[c] = raceTagged(c, k, n)
							}
							err := m.Update(k, vals, htab.UpdateFlags(rng.IntN(3)))
							if err != nil && !errors.Is(err, htab.ErrKeyExist) && !errors.Is(err, htab.ErrKeyNotExist) {
								report(fmt.Errorf("userspace Update: %w", err))
								return
							}
						case 2:
							err := m.LookupAndDelete(k, vals)
							if err == nil {
								err = raceCheckTagged(k, vals)
							} else if errors.Is(err, htab.ErrKeyNotExist) {
								err = nil
							}
							if err != nil {
								report(fmt.Errorf("userspace LookupAndDelete: %w", err))
								return
							}
						default:
							if err := m.Delete(k); err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
								report(fmt.Errorf("userspace Delete: %w", err))
								return
							}
						}
					}
				})
			}
			// Userspace readers: Lookup and All. Counter slots never decrease.
			for u := range 2 {
				users.Go(func() {
					var last [raceCounters][workers]int64
					vals := make([]PerCPUK8V8Value, workers)
					check := func(k PerCPUK8V8Key, vals []PerCPUK8V8Value) error {
						ki := kpInt(k[:])
						if ki >= raceVolatileBase {
							return raceCheckTagged(k, vals)
						}
						if ki < 0 || ki >= raceCounters {
							return fmt.Errorf("unknown key %d", ki)
						}
						for c, v := range vals {
							x := kpInt(v[:])
							if x < last[ki][c] {
								return fmt.Errorf("counter %d on CPU %d went back from %d to %d", ki, c, last[ki][c], x)
							}
							last[ki][c] = x
						}
						return nil
					}
					rng := rand.New(rand.NewPCG(uint64(200+u), 3))
					for {
						select {
						case <-stop:
							return
						default:
						}
						if u == 0 {
							seen := map[PerCPUK8V8Key]bool{}
							for k, vs := range m.All() {
								if seen[k] {
									report(fmt.Errorf("All yielded key %d twice", kpInt(k[:])))
									return
								}
								seen[k] = true
								if len(vs) != workers {
									report(fmt.Errorf("All yielded %d values, want %d", len(vs), workers))
									return
								}
								if err := check(k, vs); err != nil {
									report(fmt.Errorf("All: %w", err))
									return
								}
							}
							continue
						}
						var k PerCPUK8V8Key
						if rng.IntN(2) == 0 {
							k = kpKey(int64(rng.IntN(raceCounters)))
						} else {
							k = kpKey(raceVolatileBase + int64(rng.IntN(raceVolatile)))
						}
						if m.Lookup(k, vals) {
							if err := check(k, vals); err != nil {
								report(fmt.Errorf("Lookup: %w", err))
								return
							}
						}
					}
				})
			}

			wg.Wait()
			close(stop)
			users.Wait()
			close(errs)
			for err := range errs {
				assert.NoError(t, err)
			}
			if t.Failed() {
				t.FailNow()
			}

			// Every counter slot equals the goroutine's increments.
			vals := make([]PerCPUK8V8Value, workers)
			total := int64(0)
			for ki := range raceCounters {
				incremented := false
				for w := range workers {
					incremented = incremented || counts[w][ki] != 0
				}
				if !m.Lookup(kpKey(int64(ki)), vals) {
					require.False(t, incremented, "counter %d was incremented but is absent", ki)
					continue
				}
				for w := range workers {
					require.Equal(t, counts[w][ki], kpInt(vals[w][:]), "counter %d on CPU %d", ki, w)
					total += counts[w][ki]
				}
			}
			require.Positive(t, total)
			// The map is consistent at rest: All agrees with Len and Lookup.
			n := 0
			got := make([]PerCPUK8V8Value, workers)
			for k, vs := range m.All() {
				n++
				require.True(t, m.Lookup(k, got))
				require.Equal(t, vs, got)
			}
			require.Equal(t, m.Len(), n)
		})
	}
}

// TestPerCPUConcurrentInsertZeroes: many CPUs race to insert the same fresh
// keys through their own handles (UpdateAny, so the losers update in place);
// each CPU writes only some keys. Whoever inserted first zeroed the others, so
// each slot is exactly its own CPU's value if that CPU wrote the key, else
// zero, even though the elements are reused from the previous round: no
// goroutine's value is lost to another's insert, and nothing stale survives.
func TestPerCPUConcurrentInsertZeroes(t *testing.T) {
	const workers, keys = 4, 512
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			o.MaxEntries, o.CPUs = keys, workers
			m, err := NewPerCPUK8V8(o)
			require.NoError(t, err)
			for round := range 4 {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for i := range keys {
							if !raceWrites(round, w, i) {
								continue
							}
							k := kpKey(int64(i))
							assert.NoError(t, m.CPU(w).Update(k, kpVal(int64(round*100+w+1)), htab.UpdateAny))
						}
					})
				}
				wg.Wait()
				vals := make([]PerCPUK8V8Value, workers)
				for i := range keys {
					require.True(t, m.Lookup(kpKey(int64(i)), vals))
					for w := range workers {
						want := int64(0)
						if raceWrites(round, w, i) {
							want = int64(round*100 + w + 1)
						}
						require.Equal(t, want, kpInt(vals[w][:]), "round %d, key %d, CPU %d", round, i, w)
					}
				}
				// Empty the map for the next round, half from each side.
				for i := range keys {
					if i%2 == 0 {
						require.NoError(t, m.Delete(kpKey(int64(i))))
					} else {
						require.NoError(t, m.CPU(i%workers).Delete(kpKey(int64(i))))
					}
				}
				require.Zero(t, m.Len())
			}
		})
	}
}

// raceWrites reports whether CPU w writes key i in the given round: at least
// one CPU writes every key, and never all of them.
func raceWrites(round, w, i int) bool { return (i*7+round+w)%3 != 0 }

// TestPerCPUStressUpdateDeleteReuse: CPUs update present keys of a tiny map
// through their handles (EXIST, the lock-free path) while userspace goroutines
// delete keys and insert others, so that freed elements are reused at once.
// A program's write that lands after its key's element was freed and reused
// would show up under another key (every value names its key and CPU); a
// torn read shows as unequal halves.
func TestPerCPUStressUpdateDeleteReuse(t *testing.T) {
	const workers, keys = 2, 8
	ops := 200000
	if testing.Short() || raceEnabled {
		ops = 20000
	}
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			// Two spare elements: each userspace deleter may hold one between
			// unlinking and freeing it, when an insert would find none free.
			o.MaxEntries, o.CPUs = keys+2, workers
			m, err := NewPerCPUK8V8(o)
			require.NoError(t, err)
			key := func(i int) PerCPUK8V8Key { return kpKey(raceVolatileBase + int64(i)) }
			errs := make(chan error, 16)
			report := func(err error) {
				select {
				case errs <- err:
				default:
				}
			}
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), 4))
					for n := range ops {
						k := key(rng.IntN(keys))
						err := m.CPU(w).Update(k, raceTagged(w, k, n), htab.UpdateExist)
						if err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
							report(fmt.Errorf("CPU %d: %w", w, err))
							return
						}
					}
				})
			}
			stop := make(chan struct{})
			var users sync.WaitGroup
			for u := range 2 {
				users.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(u), 5))
					vals := make([]PerCPUK8V8Value, workers)
					zero := make([]PerCPUK8V8Value, workers)
					for {
						select {
						case <-stop:
							return
						default:
						}
						k := key(rng.IntN(keys))
						if err := m.LookupAndDelete(k, vals); err == nil {
							if err := raceCheckTagged(k, vals); err != nil {
								report(fmt.Errorf("LookupAndDelete: %w", err))
								return
							}
						}
						k2 := key(rng.IntN(keys))
						if err := m.Update(k2, zero, htab.UpdateNoExist); err != nil && !errors.Is(err, htab.ErrKeyExist) {
							report(fmt.Errorf("insert: %w", err))
							return
						}
						if m.Lookup(k2, vals) {
							if err := raceCheckTagged(k2, vals); err != nil {
								report(fmt.Errorf("Lookup: %w", err))
								return
							}
						}
						for k, vs := range m.All() {
							if err := raceCheckTagged(k, vs); err != nil {
								report(fmt.Errorf("All: %w", err))
								return
							}
						}
					}
				})
			}
			wg.Wait()
			close(stop)
			users.Wait()
			close(errs)
			for err := range errs {
				assert.NoError(t, err)
			}
			vals := make([]PerCPUK8V8Value, workers)
			for k := range m.All() {
				require.True(t, m.Lookup(k, vals))
				require.NoError(t, raceCheckTagged(k, vals))
			}
		})
	}
}
