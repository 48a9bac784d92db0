package bloombench

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernelfigures"
)

// lookups is a map's lookup and insert of 8-byte keys, through closures so
// that every arm of the comparison pays the same call.
type lookups struct {
	lookup func(k [8]byte) bool
	insert func(k [8]byte)
}

func plain(entries int) lookups {
	m, err := NewPlain(htab.Options{MaxEntries: entries})
	if err != nil {
		panic(err)
	}
	return lookups{
		func(k [8]byte) bool { _, ok := m.Lookup(k); return ok },
		func(k [8]byte) { m.Update(k, PlainValue{}, htab.UpdateAny) },
	}
}

// kernelPattern is the kernel's benchmark program: a bloom filter map asked
// before a plain hash map, each insert pushed into both.
func kernelPattern(entries, hashes int) lookups {
	m, err := NewPlain(htab.Options{MaxEntries: entries})
	if err != nil {
		panic(err)
	}
	f, err := NewFilter(htab.Options{MaxEntries: entries, BloomHashes: hashes})
	if err != nil {
		panic(err)
	}
	return lookups{
		func(k [8]byte) bool {
			if !f.Peek(k) {
				return false
			}
			_, ok := m.Lookup(k)
			return ok
		},
		func(k [8]byte) { f.Push(k); m.Update(k, PlainValue{}, htab.UpdateAny) },
	}
}

// front is the map's own filter, -bloom hashes. Each case is written out so
// that its closures call the map's methods directly, as plain's do (a
// generic helper would call them through a dictionary, in one arm only).
func front(entries, hashes int) lookups {
	o := htab.Options{MaxEntries: entries}
	mk := func(lookup func(k [8]byte) bool, insert func(k [8]byte), err error) lookups {
		if err != nil {
			panic(err)
		}
		return lookups{lookup, insert}
	}
	switch hashes {
	case 1:
		m, err := NewFront1(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front1Value{}, htab.UpdateAny) }, err)
	case 2:
		m, err := NewFront2(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front2Value{}, htab.UpdateAny) }, err)
	case 3:
		m, err := NewFront3(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front3Value{}, htab.UpdateAny) }, err)
	case 4:
		m, err := NewFront4(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front4Value{}, htab.UpdateAny) }, err)
	case 5:
		m, err := NewFront5(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front5Value{}, htab.UpdateAny) }, err)
	case 6:
		m, err := NewFront6(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front6Value{}, htab.UpdateAny) }, err)
	case 7:
		m, err := NewFront7(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front7Value{}, htab.UpdateAny) }, err)
	case 8:
		m, err := NewFront8(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front8Value{}, htab.UpdateAny) }, err)
	case 9:
		m, err := NewFront9(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front9Value{}, htab.UpdateAny) }, err)
	default:
		m, err := NewFront10(o)
		return mk(func(k [8]byte) bool { _, ok := m.Lookup(k); return ok }, func(k [8]byte) { m.Update(k, Front10Value{}, htab.UpdateAny) }, err)
	}
}

// randomKeys are n keys from a seeded generator.
func randomKeys(n int, seed uint64) [][8]byte {
	rng := rand.New(rand.NewPCG(seed, 9))
	keys := make([][8]byte, n)
	for i := range keys {
		binary.LittleEndian.PutUint64(keys[i][:], rng.Uint64())
	}
	return keys
}

// timeLookups runs n lookups of probes on 2 goroutines, each from its own
// place in probes, and returns the time taken.
func timeLookups(l lookups, probes [][8]byte, n, from int) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for g := range 2 {
		wg.Go(func() {
			j := (from + g*len(probes)/2) % len(probes)
			for range n / 2 {
				l.lookup(probes[j])
				if j++; j == len(probes) {
					j = 0
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// paired runs rounds of n lookups of probes on each arm, in rotating order,
// and returns each arm's lookups per second per round.
func paired(arms []lookups, probes [][8]byte, n, rounds int) [][]float64 {
	rate := make([][]float64, len(arms))
	for r := range rounds {
		for j := range arms {
			i := (j + r) % len(arms)
			from := r * 7919
			timeLookups(arms[i], probes, n/4, from) // warm the caches, untimed
			d := timeLookups(arms[i], probes, n, from)
			rate[i] = append(rate[i], float64(n)/d.Seconds())
		}
	}
	return rate
}

func median(x []float64) float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y[len(y)/2]
}

// ratios is the median over rounds of a[r]/b[r].
func ratio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return median(r)
}

// gain is a ratio in the kernel's words: "N % faster" or "N % slower".
func gain(r float64) string {
	if r >= 1 {
		return fmt.Sprintf("%.0f %% faster", 100*(r-1))
	}
	return fmt.Sprintf("%.0f %% slower", 100*(1-r))
}

// BenchmarkBloomLookups reproduces the kernel's table: total lookups per
// second of random keys (almost all absent) on 2 goroutines, in a hash map
// holding as many random keys as its MaxEntries, with no filter, with a bloom
// filter map asked first (the kernel's pattern), and with the map's own
// filter (-bloom K); the three are measured in alternating rounds of one run
// (-benchtime 1x runs it once). It reports each arm's lookups/s (medians)
// and the gains over no filter, and logs the table beside the kernel's
// figures. By default 3 hash functions and 10k..1M entries;
// HTAB_BLOOM_BENCH=full runs 1..10 hash functions and 5M entries too.
func BenchmarkBloomLookups(b *testing.B) {
	hashes, sizes := []int{3}, []int{10000, 50000, 100000, 500000, 1000000}
	if os.Getenv("HTAB_BLOOM_BENCH") == "full" {
		hashes, sizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, append(sizes, 5000000)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-9s %-16s %-16s %-16s\n", "hashes", "entries", "kernel pattern", "-bloom K front", "the kernel's")
	for _, k := range hashes {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("hashes=%d/entries=%d", k, n), func(b *testing.B) {
				arms := []lookups{plain(n), kernelPattern(n, k), front(n, k)}
				for _, key := range randomKeys(n, uint64(n)) {
					for _, a := range arms {
						a.insert(key)
					}
				}
				probes := randomKeys(1<<20, 77)
				per := min(max(n, 1<<18), 1<<20)
				var rate [][]float64
				for b.Loop() {
					rate = paired(arms, probes, per, 9)
				}
				kr, fr := ratio(rate[1], rate[0]), ratio(rate[2], rate[0])
				b.ReportMetric(median(rate[0]), "none-lookups/s")
				b.ReportMetric(median(rate[1]), "kernel-lookups/s")
				b.ReportMetric(median(rate[2]), "front-lookups/s")
				b.ReportMetric(kr, "kernel/none")
				b.ReportMetric(fr, "front/none")
				fmt.Fprintf(&table, "%-8d %-9d %-16s %-16s %-16s\n", k, n, gain(kr), gain(fr), gain(1+kernelfigures.BloomGain[k][n]/100))
			})
		}
	}
	b.Logf("lookups of random keys with a bloom filter against without, 2 goroutines:\n%s", table.String())
}

// BenchmarkBloomHitCost is what the filter costs lookups that find their key:
// streams of half present and half absent keys, and of present keys only, on
// a full map of 1M entries, with and without the map's filter (-bloom 3),
// paired in one run. It reports front/none, the ratio of lookups per second.
func BenchmarkBloomHitCost(b *testing.B) {
	const n = 1000000
	arms := []lookups{plain(n), front(n, 3)}
	keys := randomKeys(n, 5)
	for _, k := range keys {
		for _, a := range arms {
			a.insert(k)
		}
	}
	absent := randomKeys(1<<20, 6)
	for _, present := range []int{50, 100} {
		b.Run(fmt.Sprintf("present=%d%%", present), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			probes := make([][8]byte, 1<<20)
			for i := range probes {
				if rng.IntN(100) < present {
					probes[i] = keys[rng.IntN(n)]
				} else {
					probes[i] = absent[i]
				}
			}
			var rate [][]float64
			for b.Loop() {
				rate = paired(arms, probes, 1<<20, 9)
			}
			b.ReportMetric(median(rate[0]), "none-lookups/s")
			b.ReportMetric(median(rate[1]), "front-lookups/s")
			b.ReportMetric(ratio(rate[1], rate[0]), "front/none")
		})
	}
}

// BenchmarkBloomInsertCost is what the filter costs inserts: filling a map
// of 1M entries, with and without -bloom 3, in alternating rounds; it
// reports ns per insert of each and their ratio.
func BenchmarkBloomInsertCost(b *testing.B) {
	const n = 1000000
	keys := randomKeys(n, 8)
	var none, withFilter []float64
	for b.Loop() {
		for r := range 5 {
			for j := range 2 {
				var l lookups
				if (j+r)%2 == 0 {
					l = plain(n)
				} else {
					l = front(n, 3)
				}
				start := time.Now()
				for _, k := range keys {
					l.insert(k)
				}
				ns := float64(time.Since(start).Nanoseconds()) / n
				if (j+r)%2 == 0 {
					none = append(none, ns)
				} else {
					withFilter = append(withFilter, ns)
				}
			}
		}
	}
	b.ReportMetric(median(none), "none-ns/insert")
	b.ReportMetric(median(withFilter), "front-ns/insert")
	b.ReportMetric(ratio(withFilter, none), "front/none")
}

// BenchmarkBloomVsBitsAndBlooms compares the bloom filter map (-type bloom)
// with github.com/bits-and-blooms/bloom/v3 at equal bits and hashes: a
// filter of 1M entries and 3 hashes (the kernel's sizing: 2^23 bits), 500k
// values pushed, then Push and Peek (Add and Test) of 8-byte values, one
// goroutine.
func BenchmarkBloomVsBitsAndBlooms(b *testing.B) {
	const n, k = 1000000, 3
	f, err := NewFilter(htab.Options{MaxEntries: n, BloomHashes: k})
	if err != nil {
		b.Fatal(err)
	}
	bb := bloom.New(uint(f.Bits()), k)
	vals := randomKeys(1<<20, 10)
	for _, v := range vals[:n/2] {
		f.Push(v)
		bb.Add(v[:])
	}
	b.Run("impl=htab/op=push", func(b *testing.B) {
		i := 0
		for b.Loop() {
			f.Push(vals[i&(1<<20-1)])
			i++
		}
	})
	b.Run("impl=bitsandblooms/op=push", func(b *testing.B) {
		i := 0
		for b.Loop() {
			bb.Add(vals[i&(1<<20-1)][:])
			i++
		}
	})
	b.Run("impl=htab/op=peek", func(b *testing.B) {
		i := 0
		for b.Loop() {
			f.Peek(vals[i&(1<<20-1)])
			i++
		}
	})
	b.Run("impl=bitsandblooms/op=peek", func(b *testing.B) {
		i := 0
		for b.Loop() {
			bb.Test(vals[i&(1<<20-1)][:])
			i++
		}
	})
	b.Logf("bytes: htab %d, bits-and-blooms %d (%d bits, %d hashes)", f.Bytes(), bb.Cap()/8, f.Bits(), bb.K())
}

// BenchmarkFilterFalsePositives measures the false-positive rate of the
// filter in front of a map of 1M entries (-bloom 3) over 1M keys never
// inserted: full and fresh, then after churn that inserts 5M more keys and
// deletes as many (stale bits, rebuilds). It reports both rates, the
// theory's for the blocked filter (htab.FilterFalsePositive) and for a
// standard bloom filter of the same size (htab.BloomFalsePositive) at
// MaxEntries keys, and the rebuilds.
func BenchmarkFilterFalsePositives(b *testing.B) {
	const n = 1 << 20
	for b.Loop() {
		m, err := NewFront3(htab.Options{MaxEntries: n})
		if err != nil {
			b.Fatal(err)
		}
		key := func(i int) (k Front3Key) {
			binary.LittleEndian.PutUint64(k[:], uint64(i)*0x9e3779b97f4a7c15)
			return k
		}
		for i := range n {
			m.Update(key(i), Front3Value{}, htab.UpdateNoExist)
		}
		rate := func() float64 {
			m.filter.Wait()
			fp := 0
			for i := range n {
				k := key(1<<40 + i)
				w := k.words()
				if m.filter.MayContain(m.hash(&k, &w)) {
					fp++
				}
			}
			return float64(fp) / n
		}
		fresh := rate()
		for i := n; i < 6*n; i++ {
			m.Delete(key(i - n))
			m.Update(key(i), Front3Value{}, htab.UpdateNoExist)
		}
		churned := rate()
		bits := m.filter.Bits()
		b.ReportMetric(100*fresh, "fresh-fp%")
		b.ReportMetric(100*churned, "churned-fp%")
		b.ReportMetric(100*htab.FilterFalsePositive(bits, 3, n), "theory-blocked-fp%")
		b.ReportMetric(100*htab.BloomFalsePositive(bits, 3, n), "theory-standard-fp%")
		b.ReportMetric(float64(m.filter.Rebuilds()), "rebuilds")
		b.ReportMetric(float64(bits)/8/n, "filter-B/entry")
	}
}
