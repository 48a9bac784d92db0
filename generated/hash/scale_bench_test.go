package hash

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/cockroachdb/swiss"
	"github.com/puzpuzpuz/xsync/v4"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/stats"
)

var (
	scaleMin    = flag.Int("scale.min", 16, "BenchmarkScale: the smallest map, log2 of its MaxEntries")
	scaleMax    = flag.Int("scale.max", 20, "BenchmarkScale: the largest map, log2 of its MaxEntries (up to 26; 28 needs about 40 GiB)")
	scaleProbes = flag.Int("scale.probes", 20, "BenchmarkScale: log2 of the number of keys each pass looks up")
)

// evictBuf is read before every timed pass of BenchmarkScale: 64 MiB, twice
// this machine's last-level cache, so that no pass finds the lines (or the
// TLB entries) of the one before it, which would favour whatever runs second
// on the same map.
var evictBuf []byte

// evictSink keeps the reads of evictCaches from being optimized away.
var evictSink byte

// evictCaches reads evictBuf a cache line at a time (making it on first use).
func evictCaches() {
	if evictBuf == nil {
		evictBuf = make([]byte, 64<<20)
		for i := range evictBuf {
			evictBuf[i] = byte(i)
		}
	}
	var x byte
	for i := 0; i < len(evictBuf); i += 64 {
		x += evictBuf[i]
	}
	evictSink = x
}

// scaleImpl is one map under BenchmarkScale: how to make one for n entries;
// loop looks up a slice of keys one at a time, as a user's loop over the
// map's single-key lookup would, and bulk, if the map has one, with its
// LookupBulk. Both store every value and found flag.
type scaleImpl struct {
	name string
	make func(n int) (loop lookups, store func(k, v [8]byte), bulk func(keys, vals [][8]byte, found []bool) int)
}

// lookups looks up every key of keys into vals and found.
type lookups func(keys, vals [][8]byte, found []bool)

var scaleImpls = []scaleImpl{
	{"home", func(n int) (lookups, func(k, v [8]byte), func([][8]byte, [][8]byte, []bool) int) {
		m, err := NewHomeK8V8(htab.Options{MaxEntries: n})
		if err != nil {
			panic(err)
		}
		return func(keys, vals [][8]byte, found []bool) {
				ks, vs := as[HomeK8V8Key](keys), as[HomeK8V8Value](vals)
				for i, k := range ks {
					vs[i], found[i] = m.Lookup(k)
				}
			},
			func(k, v [8]byte) { _ = m.Update(k, v, htab.UpdateAny) },
			func(keys, vals [][8]byte, found []bool) int {
				return m.LookupBulk(as[HomeK8V8Key](keys), as[HomeK8V8Value](vals), found)
			}
	}},
	{"classic", func(n int) (lookups, func(k, v [8]byte), func([][8]byte, [][8]byte, []bool) int) {
		m, err := NewHashK8V8(htab.Options{MaxEntries: n})
		if err != nil {
			panic(err)
		}
		return func(keys, vals [][8]byte, found []bool) {
				ks, vs := as[HashK8V8Key](keys), as[HashK8V8Value](vals)
				for i, k := range ks {
					vs[i], found[i] = m.Lookup(k)
				}
			},
			func(k, v [8]byte) { _ = m.Update(k, v, htab.UpdateAny) },
			func(keys, vals [][8]byte, found []bool) int {
				return m.LookupBulk(as[HashK8V8Key](keys), as[HashK8V8Value](vals), found)
			}
	}},
	{"builtin", func(n int) (lookups, func(k, v [8]byte), func([][8]byte, [][8]byte, []bool) int) {
		m := make(map[[8]byte][8]byte, n)
		return func(keys, vals [][8]byte, found []bool) {
			for i, k := range keys {
				vals[i], found[i] = m[k]
			}
		}, func(k, v [8]byte) { m[k] = v }, nil
	}},
	{"xsync", func(n int) (lookups, func(k, v [8]byte), func([][8]byte, [][8]byte, []bool) int) {
		m := xsync.NewMap[[8]byte, [8]byte](xsync.WithPresize(n))
		return func(keys, vals [][8]byte, found []bool) {
			for i, k := range keys {
				vals[i], found[i] = m.Load(k)
			}
		}, m.Store, nil
	}},
	{"swiss", func(n int) (lookups, func(k, v [8]byte), func([][8]byte, [][8]byte, []bool) int) {
		m := swiss.New[[8]byte, [8]byte](n)
		return func(keys, vals [][8]byte, found []bool) {
			for i, k := range keys {
				vals[i], found[i] = m.Get(k)
			}
		}, m.Put, nil
	}},
}

// as is the memory of keys and values as the generated maps' own [8]byte
// types, which it is.
func as[T ~[8]byte](b [][8]byte) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// BenchmarkScale measures lookups from 2^16 to 2^-scale.max entries (default
// 2^20; -scale.max 26 for the full sweep), 25, 50 and 100 % full, of hits (keys
// present, in random order) and misses (keys absent), for the home and
// classic layouts (Lookup and LookupBulk), the builtin map, xsync.Map and
// cockroachdb/swiss, in paired rounds: each round (one b.N) every map looks
// up the same 2^-scale.probes probes (default 2^20, more than fit in the
// cache), in rotating order, each pass after a read of 64 MiB that empties
// the cache of the pass before (evictCaches), in a plain loop over its
// single-key lookup (the call a user's loop makes, no call through a
// function value for each key) and, if it has one, with LookupBulk, both
// storing each value and found flag in slices; the figures are medians over
// rounds, the ratios medians of each round's ratio. Run it with
// -benchtime Nx (N rounds, e.g. 10x) and -timeout 0 for big maps.
//
// Per map it also reports the fill (ns per insert, into a map sized for the
// entries), the bytes per entry it added to the heap, and the time of one
// runtime.GC() with it live (and nothing else big): what a map with pointers
// costs every collection.
func BenchmarkScale(b *testing.B) {
	for logN := *scaleMin; logN <= *scaleMax; logN += 2 {
		for _, full := range []int{25, 50, 100} {
			b.Run(fmt.Sprintf("entries=2^%d/full=%d", logN, full), func(b *testing.B) { scaleRun(b, 1<<logN, full) })
		}
	}
}

func scaleRun(b *testing.B, n, full int) {
	keys := scaleKeys(n*full/100, 1)
	nProbes := 1 << *scaleProbes
	absent := scaleKeys(nProbes, 2) // a distinct stream: no key of it is in keys
	hits := make([][8]byte, nProbes)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range hits {
		hits[i] = keys[rng.IntN(len(keys))]
	}
	// Fill, memory and GC, one map at a time; reported after the rounds,
	// since b.Loop's first call resets the metrics reported before it.
	once := map[string]float64{}
	for _, impl := range scaleImpls {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, store, _ := impl.make(n)
		start := time.Now()
		for i, k := range keys {
			store(k, value(i))
		}
		fill := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		start = time.Now()
		runtime.GC()
		gc := time.Since(start)
		runtime.KeepAlive(store)
		once[impl.name+"-fill-ns/insert"] = float64(fill.Nanoseconds()) / float64(len(keys))
		once[impl.name+"-B/entry"] = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(len(keys))
		once[impl.name+"-gc-µs"] = float64(gc.Microseconds())
	}
	type live struct {
		loop lookups
		bulk func(keys, vals [][8]byte, found []bool) int
	}
	maps := make([]live, len(scaleImpls))
	for i, impl := range scaleImpls {
		loop, store, bulk := impl.make(n)
		for j, k := range keys {
			store(k, value(j))
		}
		maps[i] = live{loop, bulk}
	}
	type cell struct{ impl, kind string }
	ns := map[cell][]float64{}
	vals, found := make([][8]byte, len(hits)), make([]bool, len(hits))
	round := 0
	for b.Loop() {
		for j := range scaleImpls {
			i := (j + round) % len(scaleImpls)
			m := maps[i]
			for _, kind := range []string{"hit", "miss"} {
				probes, want := hits, true
				if kind == "miss" {
					probes, want = absent, false
				}
				// The loop does LookupBulk's job: every value and found flag
				// stored, checked afterwards.
				evictCaches()
				start := time.Now()
				m.loop(probes, vals, found)
				ns[cell{scaleImpls[i].name, kind}] = append(ns[cell{scaleImpls[i].name, kind}], float64(time.Since(start).Nanoseconds())/float64(len(probes)))
				for j, ok := range found {
					if ok != want {
						b.Fatalf("%s: %v found %v", scaleImpls[i].name, probes[j], ok)
					}
				}
				if m.bulk == nil {
					continue
				}
				evictCaches()
				start = time.Now()
				if got := m.bulk(probes, vals, found); (got == len(probes)) != want {
					b.Fatalf("%s: LookupBulk found %d of %d", scaleImpls[i].name, got, len(probes))
				}
				ns[cell{scaleImpls[i].name + "-bulk", kind}] = append(ns[cell{scaleImpls[i].name + "-bulk", kind}], float64(time.Since(start).Nanoseconds())/float64(len(probes)))
			}
		}
		round++
	}
	ratio := func(a, base []float64) float64 {
		r := make([]float64, len(a))
		for i := range r {
			r[i] = base[i] / a[i] // throughput of a over base's
		}
		return stats.Median(r)
	}
	for c, v := range ns {
		b.ReportMetric(stats.Median(v), c.impl+"-"+c.kind+"-ns")
		if c.impl != "builtin" {
			b.ReportMetric(ratio(v, ns[cell{"builtin", c.kind}]), c.impl+"/builtin-"+c.kind)
		}
		if c.impl != "swiss" {
			b.ReportMetric(ratio(v, ns[cell{"swiss", c.kind}]), c.impl+"/swiss-"+c.kind)
		}
	}
	for _, impl := range []string{"home", "classic"} {
		for _, kind := range []string{"hit", "miss"} {
			b.ReportMetric(ratio(ns[cell{impl + "-bulk", kind}], ns[cell{impl, kind}]), impl+"-bulk/single-"+kind)
		}
	}
	for unit, v := range once {
		b.ReportMetric(v, unit)
	}
	b.ReportMetric(0, "ns/op") // the round's time is not a figure of any map
	runtime.KeepAlive(maps)
}

// scaleKeys are n distinct keys of stream s: the same for the same (n, s),
// and no key of one stream is in another (the stream is in the top byte).
func scaleKeys(n int, s byte) [][8]byte {
	keys := make([][8]byte, n)
	for i := range keys {
		binary.LittleEndian.PutUint64(keys[i][:], uint64(i)|uint64(s)<<56)
	}
	rng := rand.New(rand.NewPCG(uint64(s), 99))
	rng.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

func value(i int) (v [8]byte) {
	binary.LittleEndian.PutUint64(v[:], uint64(i))
	return v
}
