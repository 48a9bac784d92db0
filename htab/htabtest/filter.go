package htabtest

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// FilterMap is a Map with a bloom filter in front of its lookups (-bloom K):
// its adapter also gives the filter.
type FilterMap[K, V comparable] interface {
	Map[K, V]
	Filter() *htab.Filter
}

// FilterChurn checks the bloom filter in front of a map's lookups (m's kind
// must be a FilterMap). Under random churn (new keys, replaces, deletes,
// lookup-and-deletes, delete and lookup-and-delete batches, and an LRU map's
// evictions) every key the map holds is found by Lookup and by every CPU's
// Lookup: no false negative, also while other goroutines write (run it with
// -race), and across the rebuilds the churn causes. After the churn, the
// filter's false-positive rate over absent keys is at most twice the rate of
// a fresh filter holding MaxEntries keys (htab.FilterFalsePositive), plus
// five standard deviations of the measurement.
func FilterChurn[K, V comparable](t *testing.T, m Map[K, V]) {
	t.Run("churn", func(t *testing.T) { filterChurn(t, m) })
	t.Run("concurrent", func(t *testing.T) { filterConcurrent(t, m) })
}

func filterOf[K, V comparable](t testing.TB, m Map[K, V]) *htab.Filter {
	t.Helper()
	fm, ok := m.(FilterMap[K, V])
	if !ok {
		t.Fatalf("the map has no bloom filter in front of its lookups (no Filter method)")
	}
	return fm.Filter()
}

// foundEverywhere fails t unless every key All yields is found by Lookup and
// by each CPU's Lookup.
func foundEverywhere[K, V comparable](t testing.TB, m Map[K, V], step int) {
	t.Helper()
	keys, _ := all(m)
	for _, k := range keys {
		if _, ok := lookup(m, k); !ok {
			t.Fatalf("step %d: key %x is in the map (All) but Lookup misses it: a false negative", step, hex(k))
		}
		for c := range m.CPUs() {
			if _, ok := m.CPU(c).Lookup(k); !ok {
				t.Fatalf("step %d: key %x is in the map (All) but CPU(%d).Lookup misses it: a false negative", step, hex(k), c)
			}
		}
	}
}

func filterChurn[K, V comparable](t *testing.T, kind Map[K, V]) {
	const max = 2048
	m := newMap(t, kind, htab.Options{MaxEntries: max, CPUs: 2})
	f := filterOf(t, m)
	rng := rand.New(rand.NewPCG(5, 6))
	steps := 60 * max
	if testing.Short() {
		steps = 12 * max
	}
	next := 0 // keys next-2*max..next-1 are the ones churned
	for step := range steps {
		k := Key[K](next - rng.IntN(2*max) - 1)
		switch op := rng.IntN(16); {
		case op < 6: // a new key
			k = Key[K](next)
			next++
			// (A key of under 4 bytes may come round again: ErrKeyExist.)
			if err := put(m, k, Value[V](step), htab.UpdateNoExist); err != nil && !errors.Is(err, htab.ErrFull) && !errors.Is(err, htab.ErrKeyExist) {
				t.Fatalf("step %d: Update(new key) = %v", step, err)
			}
		case op < 8:
			put(m, k, Value[V](step), htab.UpdateExist)
		case op < 11:
			m.Delete(k)
		case op < 13:
			lookupAndDelete(m, k)
		case op < 14:
			m.DeleteBatch([]K{k, Key[K](next - rng.IntN(2*max) - 1)})
		case op < 15:
			keys, vals := make([]K, 4), make([]V, 4*Slots(m))
			m.LookupAndDeleteBatch(nil, keys, vals)
		default:
			if _, ok := lookup(m, k); ok {
				if _, ok := m.CPU(rng.IntN(m.CPUs())).Lookup(k); !ok {
					t.Fatalf("step %d: Lookup finds %x, CPU.Lookup does not", step, hex(k))
				}
			}
		}
		if step%1024 == 1023 {
			foundEverywhere(t, m, step)
		}
	}
	foundEverywhere(t, m, steps)
	f.Wait()
	var probe K
	if len(bytesOf(&probe)) < 4 {
		// Too few keys (2^8 or 2^16) to leave stale bits enough for a
		// rebuild, or to tell absent ones apart.
		return
	}
	if f.Rebuilds() == 0 {
		t.Errorf("%d steps of churn, %d keys inserted into a map of %d, and the filter was never rebuilt", steps, next, max)
	}
	// The false-positive rate over keys never inserted.
	const probes = 100000
	fp := 0
	for i := range probes {
		if f.MayContain(m.Hash(Key[K](next + 1 + i))) {
			fp++
		}
	}
	p := htab.FilterFalsePositive(f.Bits(), f.Hashes(), max)
	bound := 2*p + 5*math.Sqrt(2*p*(1-2*p)/probes)
	if rate := float64(fp) / probes; rate > bound {
		t.Errorf("after churn (%d keys inserted, %d rebuilds): false positives %.4f, a fresh filter of %d keys %.4f (bound %.4f)", next, f.Rebuilds(), rate, max, p, bound)
	}
}

// filterConcurrent: writers insert keys and hand them to a reader on the
// other CPU, which must find each before the writer deletes it; the keys
// alive stay few, so that an LRU map evicts none of them.
func filterConcurrent[K, V comparable](t *testing.T, kind Map[K, V]) {
	const max = 4096
	m := newMap(t, kind, htab.Options{MaxEntries: max, CPUs: 2})
	per := 20000
	if testing.Short() {
		per = 4000
	}
	var wg sync.WaitGroup
	for w := range 2 {
		handoff, ack := make(chan K), make(chan bool)
		wg.Go(func() { // the reader
			for k := range handoff {
				_, ok := m.CPU(1 - w).Lookup(k)
				_, ok2 := lookup(m, k)
				ack <- ok && ok2
			}
		})
		wg.Go(func() { // the writer
			defer close(handoff)
			for i := range per {
				// Writers' keys differ by parity (also where a short key wraps,
				// after far more keys than the 64 each keeps alive).
				k := Key[K](2*i + w)
				if err := m.CPU(w).Update(k, Value[V](i), htab.UpdateNoExist); err != nil {
					t.Errorf("writer %d: Update(%x) = %v", w, hex(k), err)
					return
				}
				handoff <- k
				if !<-ack {
					t.Errorf("writer %d: key %x, whose insert had returned, not found by the other CPU's lookups: a false negative", w, hex(k))
					return
				}
				if i >= 64 {
					if err := m.Delete(Key[K](2*(i-64) + w)); err != nil {
						t.Errorf("writer %d: Delete: %v", w, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
