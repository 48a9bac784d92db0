package lru

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// Values written by the stress tests: the key in the high bits and the
// writer's tag in the low byte, so that any value read can be traced to a
// write of that very key. A per-CPU slot may also be 0 (a program's insert
// zeroes the other CPUs' slots).
const lruStressUserTag = 0xff

func lruStressVal(key uint64, tag int) uint64 { return key<<8 | uint64(tag) }

func lruStressValOK(key, v uint64, zeroOK bool) bool {
	if v == 0 {
		return zeroOK
	}
	return v>>8 == key && (v&0xff == lruStressUserTag || v&0xff < 0x80)
}

func lruStressErrOK(err error) bool {
	// LRU maps never return ErrFull. ErrNoMem (the kernel's ENOMEM) is
	// possible under concurrency, as in the kernel: an element taken by an
	// update in flight, or unlinked by a delete that has not given it back
	// yet, cannot be evicted, and a force shrink walks only the inactive list
	// (when it is not empty). With 4 elements per CPU and several writers on
	// CPU 0 all of CPU 0's inactive elements can be such. lruStressCheck
	// requires that no update fails for room once the map is quiescent.
	return err == nil || errors.Is(err, htab.ErrKeyExist) || errors.Is(err, htab.ErrKeyNotExist) || errors.Is(err, htab.ErrNoMem)
}

type lruStressCfg struct {
	cpus, maxEntries, keys, ops int
	noCommon                    bool
}

func lruStressCfgs() []lruStressCfg {
	ops := 6000
	if testing.Short() {
		ops = 1500
	}
	var out []lruStressCfg
	for _, noCommon := range []bool{false, true} {
		out = append(out,
			lruStressCfg{cpus: 4, maxEntries: 64, keys: 256, ops: ops, noCommon: noCommon},
			lruStressCfg{cpus: 2, maxEntries: 7, keys: 24, ops: ops, noCommon: noCommon},
		)
	}
	return out
}

func (c lruStressCfg) name() string {
	lists := "common"
	if c.noCommon {
		lists = "no_common_lru"
	}
	return fmt.Sprintf("%s/cpus=%d/max=%d", lists, c.cpus, c.maxEntries)
}

// lruStressHandle is what the stress tests' program-side workers use of a
// CPU handle of either LRU type.
type lruStressHandle[K, V ~[8]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Lookup(K) (V, bool)
	Delete(K) error
}

// lruStressProgram is program-side worker g: cfg.ops random updates (every
// flag), lookups and deletes through handle h over overlapping keys, the
// random stream its own (seeded g, stream); zeroOK accepts the zero value a
// per-CPU slot has until its CPU writes it.
func lruStressProgram[K, V ~[8]byte](t *testing.T, h lruStressHandle[K, V], g int, cfg lruStressCfg, stream uint64, zeroOK bool) {
	cpu := g % cfg.cpus
	r := rand.New(rand.NewPCG(uint64(g), stream))
	for range cfg.ops {
		kn := r.Uint64N(uint64(cfg.keys)) + 1
		k := K(lruKey(kn))
		switch op := r.IntN(10); {
		case op < 4:
			if err := h.Update(k, V(lruKey(lruStressVal(kn, g))), htab.UpdateFlags(r.IntN(3))); !lruStressErrOK(err) {
				t.Errorf("cpu %d: Update(%d): %v", cpu, kn, err)
				return
			}
		case op < 8:
			if v, ok := h.Lookup(k); ok && !lruStressValOK(kn, lruU64(v), zeroOK) {
				t.Errorf("cpu %d: Lookup(%d) = %#x", cpu, kn, lruU64(v))
				return
			}
		default:
			if err := h.Delete(k); err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
				t.Errorf("cpu %d: Delete(%d): %v", cpu, kn, err)
				return
			}
		}
	}
}

// TestLRUK8V8StressRace: one goroutine per CPU handle (two on CPU 0) doing
// program-side lookups, updates and deletes over overlapping keys, and a
// userspace goroutine doing Update, Lookup, LookupAndDelete, All and NextKey;
// then the invariants at quiescence.
func TestLRUK8V8StressRace(t *testing.T) {
	for _, cfg := range lruStressCfgs() {
		t.Run(cfg.name(), func(t *testing.T) {
			m, err := NewLRUK8V8(htab.Options{MaxEntries: cfg.maxEntries, CPUs: cfg.cpus, NoCommonLRU: cfg.noCommon})
			require.NoError(t, err)
			var wg sync.WaitGroup
			for g := range cfg.cpus + 1 {
				wg.Go(func() { lruStressProgram(t, m.CPU(g%cfg.cpus), g, cfg, 1, false) })
			}
			wg.Go(func() {
				r := rand.New(rand.NewPCG(99, 1))
				for i := range cfg.ops {
					kn := r.Uint64N(uint64(cfg.keys)) + 1
					k := lruKey(kn)
					switch op := r.IntN(10); {
					case op < 3:
						if err := m.Update(k, lruKey(lruStressVal(kn, lruStressUserTag)), htab.UpdateFlags(r.IntN(3))); !lruStressErrOK(err) {
							t.Errorf("Update(%d): %v", kn, err)
							return
						}
					case op < 5:
						if v, ok := m.Lookup(k); ok && !lruStressValOK(kn, lruU64(v), false) {
							t.Errorf("Lookup(%d) = %#x", kn, lruU64(v))
							return
						}
					case op < 7:
						v, err := m.LookupAndDelete(k)
						if err == nil && !lruStressValOK(kn, lruU64(v), false) {
							t.Errorf("LookupAndDelete(%d) = %#x", kn, lruU64(v))
							return
						}
						if err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
							t.Errorf("LookupAndDelete(%d): %v", kn, err)
							return
						}
					case op < 8:
						if i%8 != 0 { // All is the expensive one
							continue
						}
						seen := map[uint64]bool{}
						for k, v := range m.All() {
							kn := lruU64(k)
							if seen[kn] {
								t.Errorf("All yielded key %d twice", kn)
								return
							}
							seen[kn] = true
							if !lruStressValOK(kn, lruU64(v), false) {
								t.Errorf("All: key %d value %#x", kn, lruU64(v))
								return
							}
						}
						// No bound on len(seen): while writers run, a key yielded
						// early may be replaced by one in a later bucket.
					default:
						var kp *LRUK8V8Key
						if r.IntN(2) == 0 {
							kk := LRUK8V8Key(k)
							kp = &kk
						}
						if _, err := m.NextKey(kp); err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
							t.Errorf("NextKey: %v", err)
							return
						}
					}
				}
			})
			wg.Wait()
			if t.Failed() {
				return
			}
			lruStressCheck(t, lruGenTwin[LRUK8V8Key, LRUK8V8Value]{lRUK8V8TestMap{m}}, false, cfg.noCommon)
		})
	}
}

// TestLRUPerCPUK8V8StressRace is TestLRUK8V8StressRace for LRU_PERCPU_HASH:
// each CPU handle writes its own slot, the userspace side every slot.
func TestLRUPerCPUK8V8StressRace(t *testing.T) {
	for _, cfg := range lruStressCfgs() {
		t.Run(cfg.name(), func(t *testing.T) {
			m, err := NewLRUPerCPUK8V8(htab.Options{MaxEntries: cfg.maxEntries, CPUs: cfg.cpus, NoCommonLRU: cfg.noCommon})
			require.NoError(t, err)
			checkVals := func(kn uint64, vals []LRUPerCPUK8V8Value) error {
				for c, v := range vals {
					if !lruStressValOK(kn, lruU64(v), true) {
						return fmt.Errorf("key %d: CPU %d's value %#x", kn, c, lruU64(v))
					}
				}
				return nil
			}
			var wg sync.WaitGroup
			for g := range cfg.cpus + 1 {
				wg.Go(func() { lruStressProgram(t, m.CPU(g%cfg.cpus), g, cfg, 2, true) })
			}
			wg.Go(func() {
				r := rand.New(rand.NewPCG(99, 2))
				vals := make([]LRUPerCPUK8V8Value, cfg.cpus)
				for i := range cfg.ops {
					kn := r.Uint64N(uint64(cfg.keys)) + 1
					k := lruKey(kn)
					switch op := r.IntN(10); {
					case op < 3:
						for c := range vals {
							vals[c] = lruKey(lruStressVal(kn, lruStressUserTag))
						}
						if err := m.Update(k, vals, htab.UpdateFlags(r.IntN(3))); !lruStressErrOK(err) {
							t.Errorf("Update(%d): %v", kn, err)
							return
						}
					case op < 5:
						if m.Lookup(k, vals) {
							if err := checkVals(kn, vals); err != nil {
								t.Errorf("Lookup: %v", err)
								return
							}
						}
					case op < 7:
						err := m.LookupAndDelete(k, vals)
						if err == nil {
							if err := checkVals(kn, vals); err != nil {
								t.Errorf("LookupAndDelete: %v", err)
								return
							}
						} else if !errors.Is(err, htab.ErrKeyNotExist) {
							t.Errorf("LookupAndDelete(%d): %v", kn, err)
							return
						}
					case op < 8:
						if i%8 != 0 {
							continue
						}
						seen := map[uint64]bool{}
						for k, vs := range m.All() {
							kn := lruU64(k)
							if seen[kn] {
								t.Errorf("All yielded key %d twice", kn)
								return
							}
							seen[kn] = true
							if err := checkVals(kn, vs); err != nil {
								t.Errorf("All: %v", err)
								return
							}
						}
						// No bound on len(seen): while writers run, a key yielded
						// early may be replaced by one in a later bucket.
					default:
						var kp *LRUPerCPUK8V8Key
						if r.IntN(2) == 0 {
							kk := LRUPerCPUK8V8Key(k)
							kp = &kk
						}
						if _, err := m.NextKey(kp); err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
							t.Errorf("NextKey: %v", err)
							return
						}
					}
				}
			})
			wg.Wait()
			if t.Failed() {
				return
			}
			lruStressCheck(t, lruGenTwin[LRUPerCPUK8V8Key, LRUPerCPUK8V8Value]{lRUPerCPUK8V8TestMap{m}}, true, cfg.noCommon)
			// Every CPU's slot of every key left is 0 or a value written for it.
			vals := make([]LRUPerCPUK8V8Value, cfg.cpus)
			for k, vs := range m.All() {
				require.NoError(t, checkVals(lruU64(k), vs))
				require.True(t, m.Lookup(k, vals))
				require.Equal(t, vs, vals, "Lookup and All agree on key %d", lruU64(k))
			}
		})
	}
}

// lruStressCheck checks the invariants of a quiescent map after a stress
// run: Len is the number of keys All yields, each once, at most MaxEntries;
// values trace back to writes of their key; NextKey walks All's order;
// Lookup agrees with All. Then it deletes every key (Len 0, All empty) and
// refills the map from every CPU in turn, which must still work (no element
// lost or left unusable; with per-CPU lists, exactly MaxEntries/CPUs new keys
// per CPU fit before the first eviction).
func lruStressCheck(t *testing.T, m lruTwin, percpu, noCommon bool) {
	t.Helper()
	keys := m.allKeys()
	got := m.contents()
	require.Len(t, got, len(keys), "All yielded a key twice")
	require.Equal(t, len(keys), m.length(), "Len vs All")
	require.LessOrEqual(t, m.length(), m.maxEntries())
	for k, v := range got {
		require.True(t, lruStressValOK(k, v, percpu), "key %d value %#x", k, v)
		lv, ok := m.lookup(k)
		require.True(t, ok, "key %d yielded by All but Lookup misses it", k)
		require.Equal(t, v, lv, "key %d", k)
	}
	walk, err := m.nextKeys()
	require.NoError(t, err)
	require.Equal(t, keys, walk, "NextKey walk vs All")

	for _, k := range keys {
		require.NoError(t, m.delete(k))
	}
	require.Zero(t, m.length())
	require.Empty(t, m.allKeys())

	base := uint64(1 << 20)
	if noCommon {
		// Per-CPU lists: every element went back to its CPU's free list, so
		// each CPU takes exactly MaxEntries/CPUs new keys before it evicts.
		// One element lost (on no list, or left unusable) shows here.
		per := m.maxEntries() / m.cpus()
		for cpu := range m.cpus() {
			for i := range per {
				k := base + uint64(cpu*per+i)
				require.NoError(t, m.update(cpu, k, lruStressVal(k, cpu), htab.UpdateNoExist), "key %d on cpu %d", k, cpu)
			}
			require.Equal(t, (cpu+1)*per, m.length(), "after filling cpu %d's %d elements", cpu, per)
			require.Len(t, m.allKeys(), (cpu+1)*per)
		}
		for _, k := range m.allKeys() {
			require.NoError(t, m.delete(k))
		}
		require.Zero(t, m.length())
		base += 1 << 16
	}

	// Refill: every insert of a new key must succeed (an LRU map evicts, it
	// never fails for room), and what is left must be consistent again.
	for i := range 4 * m.maxEntries() {
		cpu := i % m.cpus()
		k := base + uint64(i)
		require.NoError(t, m.update(cpu, k, lruStressVal(k, cpu), htab.UpdateNoExist), "refill key %d on cpu %d", k, cpu)
		v, ok := m.lookupRefOn(cpu, k)
		require.True(t, ok, "refill key %d on cpu %d: absent right after its insert", k, cpu)
		require.Equal(t, lruStressVal(k, cpu), v)
	}
	got = m.contents()
	require.NotEmpty(t, got)
	require.Equal(t, len(got), m.length())
	require.LessOrEqual(t, len(got), m.maxEntries())
	for k := range got {
		require.GreaterOrEqual(t, k, base, "a key of the stress run survived its delete")
	}
}
