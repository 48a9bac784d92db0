package batchbench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/htabgen/htabgen/htab"
)

// benchMap is what the benchmarks need of the three maps.
type benchMap[K ~[8]byte, V ~[8]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	Lookup(K) (V, bool)
	Len() int
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
}

// dumpMaxEntries and dumpEntries are BM_DumpHashMap's map size and fills.
const dumpMaxEntries = 50000

var dumpEntries = []struct {
	name string
	n    int
}{{"1", 1}, {"10", 10}, {"200", 200}, {"500", 500}, {"1k", 1000}, {"5k", 5000}, {"20k", 20000}, {"39k", 39000}}

// dumpBuffer is the elements per LookupBatch call.
const dumpBuffer = 1024

// fill puts n random keys into m.
func fill[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](tb testing.TB, m M, n int, seed uint64) []K {
	rng := rand.New(rand.NewPCG(seed, 3))
	keys := make([]K, 0, n)
	for m.Len() < n {
		var k K
		binary.LittleEndian.PutUint64(k[:], rng.Uint64())
		if err := m.Update(k, V(k), htab.UpdateNoExist); err == nil {
			keys = append(keys, k)
		} else if !errors.Is(err, htab.ErrKeyExist) {
			tb.Fatal(err)
		}
	}
	return keys
}

// dump reads the whole map with LookupBatch and returns how many elements it got.
func dump[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](m M, keys []K, vals []V) (int, error) {
	var c htab.Cursor
	total := 0
	for {
		n, err := m.LookupBatch(&c, keys, vals)
		total += n
		if errors.Is(err, htab.ErrKeyNotExist) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func benchDump[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](b *testing.B, newMap func(htab.Options) (M, error), n int) {
	m, err := newMap(htab.Options{MaxEntries: dumpMaxEntries})
	if err != nil {
		b.Fatal(err)
	}
	fill[K, V](b, m, n, 1)
	keys, vals := make([]K, dumpBuffer), make([]V, dumpBuffer)
	for b.Loop() {
		got, err := dump[K, V](m, keys, vals)
		if err != nil || got != n {
			b.Fatalf("dumped %d of %d: %v", got, n, err)
		}
	}
	b.ReportMetric(float64(n), "entries")
}

// BenchmarkDumpHashMap is BM_DumpHashMap, the benchmark in the commit message
// of the kernel change "bpf: Do not grab the bucket spinlock by default on
// htab batch ops", per -batch-lock mode. `go run ./cmd/htabbench -suites
// batch-dump` turns it into a table beside the kernel's figures, and a chart.
func BenchmarkDumpHashMap(b *testing.B) {
	for _, e := range dumpEntries {
		b.Run(fmt.Sprintf("entries=%s/lock=always", e.name), func(b *testing.B) { benchDump[AlwaysKey, AlwaysValue](b, NewAlways, e.n) })
		b.Run(fmt.Sprintf("entries=%s/lock=nonempty", e.name), func(b *testing.B) { benchDump[NonEmptyKey, NonEmptyValue](b, NewNonEmpty, e.n) })
		b.Run(fmt.Sprintf("entries=%s/lock=sparse", e.name), func(b *testing.B) { benchDump[SparseKey, SparseValue](b, NewSparse, e.n) })
	}
}

// benchOps measures the single-key operations the occupancy bitmap could
// slow, on a map of 65536 entries at fullness pct:
//
//	lookup   Lookup of present keys, random order
//	replace  Update of present keys (no bucket changes emptiness)
//	churn    Delete of a present key and Update to put it back: with few keys
//	         per bucket, most of them empty a bucket and fill it again, the
//	         case that sets and clears bits
func benchOps[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](b *testing.B, newMap func(htab.Options) (M, error), op string, pct int) {
	f := newOpsFixture(b, newMap, pct)
	for b.Loop() {
		if err := f.step(op); err != nil {
			b.Fatal(err)
		}
	}
}

// opsFixture runs single-key operations on a map filled to a fullness.
type opsFixture[K ~[8]byte, V ~[8]byte, M benchMap[K, V]] struct {
	m    M
	keys []K
	i    int
}

func newOpsFixture[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](b *testing.B, newMap func(htab.Options) (M, error), pct int) *opsFixture[K, V, M] {
	const max = 65536
	m, err := newMap(htab.Options{MaxEntries: max})
	if err != nil {
		b.Fatal(err)
	}
	keys := fill[K, V](b, m, max*pct/100, 2)
	rand.New(rand.NewPCG(4, 5)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return &opsFixture[K, V, M]{m: m, keys: keys}
}

// step does one operation op on the next key (see benchOps).
func (f *opsFixture[K, V, M]) step(op string) error {
	k := f.keys[f.i]
	if f.i++; f.i == len(f.keys) {
		f.i = 0
	}
	switch op {
	case "lookup":
		if _, ok := f.m.Lookup(k); !ok {
			return htab.ErrKeyNotExist
		}
	case "replace":
		return f.m.Update(k, V(k), htab.UpdateExist)
	case "churn":
		if err := f.m.Delete(k); err != nil {
			return err
		}
		return f.m.Update(k, V(k), htab.UpdateNoExist)
	}
	return nil
}

// run does n operations op and returns how long they took.
func (f *opsFixture[K, V, M]) run(b *testing.B, op string, n int) time.Duration {
	start := time.Now()
	for range n {
		if err := f.step(op); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// BenchmarkBatchLockPaired measures sparse against nonempty side by side:
// each iteration runs a block of 512 operations on each map, in alternating
// order, so that both see the same load on a noisy machine. It reports each
// map's ns per operation and their ratio (sparse/nonempty; 1 is no cost).
func BenchmarkBatchLockPaired(b *testing.B) {
	const block = 512
	for _, op := range []string{"lookup", "replace", "churn"} {
		for _, pct := range []int{25, 75} {
			b.Run(fmt.Sprintf("op=%s/fullness=%d", op, pct), func(b *testing.B) {
				ne := newOpsFixture[NonEmptyKey, NonEmptyValue](b, NewNonEmpty, pct)
				sp := newOpsFixture[SparseKey, SparseValue](b, NewSparse, pct)
				var tNE, tSP time.Duration
				iter := 0
				for b.Loop() {
					if iter%2 == 0 {
						tNE += ne.run(b, op, block)
						tSP += sp.run(b, op, block)
					} else {
						tSP += sp.run(b, op, block)
						tNE += ne.run(b, op, block)
					}
					iter++
				}
				ops := float64(iter * block)
				b.ReportMetric(float64(tNE.Nanoseconds())/ops, "nonempty-ns/op")
				b.ReportMetric(float64(tSP.Nanoseconds())/ops, "sparse-ns/op")
				b.ReportMetric(float64(tSP)/float64(tNE), "sparse/nonempty")
			})
		}
	}
}

// BenchmarkBatchLockOps compares the single-key operations of a sparse map
// (which keeps the occupancy bitmap) with a nonempty one (which does not):
// `benchstat -col /lock` gives the ratio.
func BenchmarkBatchLockOps(b *testing.B) {
	for _, op := range []string{"lookup", "replace", "churn"} {
		for _, pct := range []int{25, 75} {
			b.Run(fmt.Sprintf("op=%s/fullness=%d/lock=nonempty", op, pct), func(b *testing.B) { benchOps[NonEmptyKey, NonEmptyValue](b, NewNonEmpty, op, pct) })
			b.Run(fmt.Sprintf("op=%s/fullness=%d/lock=sparse", op, pct), func(b *testing.B) { benchOps[SparseKey, SparseValue](b, NewSparse, op, pct) })
		}
	}
}

// BenchmarkBatchLockChurnParallel is churn from every P at once: the bitmap's
// words are shared between buckets, so this is where its atomic updates
// would contend.
func BenchmarkBatchLockChurnParallel(b *testing.B) {
	b.Run("lock=nonempty", func(b *testing.B) { benchChurnParallel[NonEmptyKey, NonEmptyValue](b, NewNonEmpty) })
	b.Run("lock=sparse", func(b *testing.B) { benchChurnParallel[SparseKey, SparseValue](b, NewSparse) })
}

func benchChurnParallel[K ~[8]byte, V ~[8]byte, M benchMap[K, V]](b *testing.B, newMap func(htab.Options) (M, error)) {
	const maxEntries = 65536
	m, err := newMap(htab.Options{MaxEntries: maxEntries})
	if err != nil {
		b.Fatal(err)
	}
	keys := fill[K, V](b, m, maxEntries/4, 2)
	// Each goroutine churns its own stripe of keys: key i belongs to stripe
	// i % stride, and no two goroutines share one.
	stride := max(8, runtime.GOMAXPROCS(0))
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		stripe := int(next.Add(1) - 1)
		i := stripe
		for pb.Next() {
			k := keys[i]
			if err := m.Delete(k); err != nil {
				b.Error(err)
				return
			}
			if err := m.Update(k, V(k), htab.UpdateNoExist); err != nil {
				b.Error(err)
				return
			}
			if i += stride; i >= len(keys) {
				i = stripe
			}
		}
	})
}

// TestDumpMatchesAcrossModes: the three maps, filled alike under ZeroSeed,
// dump the same elements in the same order (the benchmark compares like
// with like), with nothing missing.
func TestDumpMatchesAcrossModes(t *testing.T) {
	opts := htab.Options{MaxEntries: dumpMaxEntries, ZeroSeed: true}
	a, _ := NewAlways(opts)
	ne, _ := NewNonEmpty(opts)
	sp, _ := NewSparse(opts)
	for _, n := range []int{0, 1, 10, 1000, 39000} {
		fill[AlwaysKey, AlwaysValue](t, a, n, uint64(n))
		fill[NonEmptyKey, NonEmptyValue](t, ne, n, uint64(n))
		fill[SparseKey, SparseValue](t, sp, n, uint64(n))
		ak, av := make([]AlwaysKey, n+1), make([]AlwaysValue, n+1)
		nk, nv := make([]NonEmptyKey, n+1), make([]NonEmptyValue, n+1)
		sk, sv := make([]SparseKey, n+1), make([]SparseValue, n+1)
		an, aerr := a.LookupBatch(nil, ak, av)
		nn, nerr := ne.LookupBatch(nil, nk, nv)
		sn, serr := sp.LookupBatch(nil, sk, sv)
		if an != n || nn != n || sn != n || !errors.Is(aerr, htab.ErrKeyNotExist) || !errors.Is(nerr, htab.ErrKeyNotExist) || !errors.Is(serr, htab.ErrKeyNotExist) {
			t.Fatalf("n=%d: got %d %v, %d %v, %d %v", n, an, aerr, nn, nerr, sn, serr)
		}
		for i := range n {
			if ak[i] != AlwaysKey(nk[i]) || ak[i] != AlwaysKey(sk[i]) || av[i] != AlwaysValue(sv[i]) {
				t.Fatalf("n=%d: element %d differs: %x %x %x", n, i, ak[i], nk[i], sk[i])
			}
		}
		for i := range n {
			for _, err := range []error{a.Delete(ak[i]), ne.Delete(NonEmptyKey(ak[i])), sp.Delete(SparseKey(ak[i]))} {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
