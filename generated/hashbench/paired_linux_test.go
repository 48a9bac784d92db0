package hashbench

// BenchmarkPairedGain is the kernel's lookup benchmark measured so that a noisy
// shared machine biases it less: the three maps of one key size and fullness
// (jhash, jhash2, static) and three peers holding the same keys (Go's builtin
// map, xsync.Map and cockroachdb/swiss, keyed by the generated key type) run
// in alternation, each round timing a pass over all keys by the thread's CPU
// time (time spent descheduled is not counted), and the gains reported are
// medians of the per-round ratios. Reports, per key=K/fullness=F, the median
// ns per lookup of each arm (jhash-ns/lookup, jhash2-ns/lookup,
// static-ns/lookup, builtin-ns/lookup, xsync-ns/lookup, swiss-ns/lookup) and
// the median gains of jhash2 and static over jhash (jhash2-gain-%,
// static-gain-%).
//
//	go test -run '^$' -bench PairedGain -benchtime 40x ./generated/hashbench/

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/cockroachdb/swiss"
	"github.com/puzpuzpuz/xsync/v4"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/cpuclock"
	"github.com/htabgen/htabgen/internal/stats"
)

// pairedMap is what the paired benchmark needs of a map. It looks up through
// lookup(*K), which is what a direct call of Lookup(K) becomes once the
// compiler inlines Lookup: through an interface, Lookup(K) would copy the key
// into the arguments, a copy that stalls for 20- to 28-byte keys and that no
// direct caller pays.
type pairedMap[K, V any] interface {
	lookup(*K) (V, bool)
	Update(K, V, htab.UpdateFlags) error
}

// pairedLookups fills m with the first n keys of the benchmark and returns a
// pass: one lookup of each key, in order, all hits.
func pairedLookups[K, V any](m pairedMap[K, V], n int, view func(*K) []byte) func() {
	keys := make([]K, n)
	var v V
	for i := range keys {
		lookupBenchKey(view(&keys[i]), i)
		if err := m.Update(keys[i], v, htab.UpdateAny); err != nil {
			panic(err)
		}
	}
	return func() {
		for i := range keys {
			if _, ok := m.lookup(&keys[i]); !ok {
				panic("miss")
			}
		}
	}
}

// The peers, given pairedMap's methods. lookup takes the key by pointer for
// them too, so that the interface call does not copy it into the arguments
// (see pairedMap), and passes it on to the peer's own lookup as a direct
// caller would.

// builtinPaired is Go's builtin map.
type builtinPaired[K comparable, V any] map[K]V

func (m builtinPaired[K, V]) lookup(k *K) (V, bool) { v, ok := m[*k]; return v, ok }

func (m builtinPaired[K, V]) Update(k K, v V, _ htab.UpdateFlags) error { m[k] = v; return nil }

// xsyncPaired is xsync.Map.
type xsyncPaired[K comparable, V any] struct{ m *xsync.Map[K, V] }

func (p xsyncPaired[K, V]) lookup(k *K) (V, bool) { return p.m.Load(*k) }

func (p xsyncPaired[K, V]) Update(k K, v V, _ htab.UpdateFlags) error { p.m.Store(k, v); return nil }

// swissPaired is cockroachdb/swiss's Map.
type swissPaired[K comparable, V any] struct{ m *swiss.Map[K, V] }

func (p swissPaired[K, V]) lookup(k *K) (V, bool) { return p.m.Get(*k) }

func (p swissPaired[K, V]) Update(k K, v V, _ htab.UpdateFlags) error { p.m.Put(k, v); return nil }

// peerPasses makes the peers of one key type, each presized to the n keys
// it will hold, fills them with the same keys as the generated maps and
// returns their passes (builtin, xsync, swiss).
func peerPasses[K comparable, V any](n int, view func(*K) []byte) [3]func() {
	return [3]func(){
		pairedLookups[K, V](builtinPaired[K, V](make(map[K]V, n)), n, view),
		pairedLookups[K, V](xsyncPaired[K, V]{xsync.NewMap[K, V](xsync.WithPresize(n))}, n, view),
		pairedLookups[K, V](swissPaired[K, V]{swiss.New[K, V](n)}, n, view),
	}
}

// pairedArms names the passes of a round, in the order pairedGain takes
// them: the metrics are "<name>-ns/lookup".
var pairedArms = [...]string{"jhash", "jhash2", "static", "builtin", "xsync", "swiss"}

// pairedGain runs b.N rounds of the passes (jhash, jhash2, static, then the
// peers builtin, xsync, swiss), in a rotating order, and reports the median
// gain of jhash2 and static over jhash in the same round, and the median ns
// per lookup of each.
func pairedGain(b *testing.B, n int, maps, peers [3]func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const arms = len(pairedArms)
	passes := [arms]func(){maps[0], maps[1], maps[2], peers[0], peers[1], peers[2]}
	reps := max(1, 65536/n) // a few ms of CPU time per timing
	var ns [arms][]float64
	var gain [2][]float64
	for r := 0; b.Loop(); r++ {
		var t [arms]float64
		for o := range arms {
			j := (o + r) % arms
			start := int64(cpuclock.Thread())
			for range reps {
				passes[j]()
			}
			t[j] = float64(int64(cpuclock.Thread())-start) / float64(reps*n)
		}
		for j := range arms {
			ns[j] = append(ns[j], t[j])
		}
		gain[0] = append(gain[0], 100*(t[0]/t[1]-1))
		gain[1] = append(gain[1], 100*(t[0]/t[2]-1))
	}
	b.ReportMetric(0, "ns/op")
	for j, name := range pairedArms {
		b.ReportMetric(stats.Median(ns[j]), name+"-ns/lookup")
	}
	b.ReportMetric(stats.Median(gain[0]), "jhash2-gain-%")
	b.ReportMetric(stats.Median(gain[1]), "static-gain-%")
}

func BenchmarkPairedGain(b *testing.B) {
	opts := htab.Options{MaxEntries: 65536, ZeroSeed: true}
	// For each key size, the lookups of n keys on the jhash, jhash2 and
	// static maps, and on the peers keyed by the jhash map's key type.
	sizes := []struct {
		key     int
		lookups func(n int) [3]func()
		peers   func(n int) [3]func()
	}{
		{4, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K4JhashKey, K4JhashValue](must(NewK4Jhash(opts))), n, func(k *K4JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K4Jhash2Key, K4Jhash2Value](must(NewK4Jhash2(opts))), n, func(k *K4Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K4StaticKey, K4StaticValue](must(NewK4Static(opts))), n, func(k *K4StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K4JhashKey, K4JhashValue](n, func(k *K4JhashKey) []byte { return k[:] })
		}},
		{8, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K8JhashKey, K8JhashValue](must(NewK8Jhash(opts))), n, func(k *K8JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K8Jhash2Key, K8Jhash2Value](must(NewK8Jhash2(opts))), n, func(k *K8Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K8StaticKey, K8StaticValue](must(NewK8Static(opts))), n, func(k *K8StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K8JhashKey, K8JhashValue](n, func(k *K8JhashKey) []byte { return k[:] })
		}},
		{12, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K12JhashKey, K12JhashValue](must(NewK12Jhash(opts))), n, func(k *K12JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K12Jhash2Key, K12Jhash2Value](must(NewK12Jhash2(opts))), n, func(k *K12Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K12StaticKey, K12StaticValue](must(NewK12Static(opts))), n, func(k *K12StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K12JhashKey, K12JhashValue](n, func(k *K12JhashKey) []byte { return k[:] })
		}},
		{16, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K16JhashKey, K16JhashValue](must(NewK16Jhash(opts))), n, func(k *K16JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K16Jhash2Key, K16Jhash2Value](must(NewK16Jhash2(opts))), n, func(k *K16Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K16StaticKey, K16StaticValue](must(NewK16Static(opts))), n, func(k *K16StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K16JhashKey, K16JhashValue](n, func(k *K16JhashKey) []byte { return k[:] })
		}},
		{20, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K20JhashKey, K20JhashValue](must(NewK20Jhash(opts))), n, func(k *K20JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K20Jhash2Key, K20Jhash2Value](must(NewK20Jhash2(opts))), n, func(k *K20Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K20StaticKey, K20StaticValue](must(NewK20Static(opts))), n, func(k *K20StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K20JhashKey, K20JhashValue](n, func(k *K20JhashKey) []byte { return k[:] })
		}},
		{24, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K24JhashKey, K24JhashValue](must(NewK24Jhash(opts))), n, func(k *K24JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K24Jhash2Key, K24Jhash2Value](must(NewK24Jhash2(opts))), n, func(k *K24Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K24StaticKey, K24StaticValue](must(NewK24Static(opts))), n, func(k *K24StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K24JhashKey, K24JhashValue](n, func(k *K24JhashKey) []byte { return k[:] })
		}},
		{28, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K28JhashKey, K28JhashValue](must(NewK28Jhash(opts))), n, func(k *K28JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K28Jhash2Key, K28Jhash2Value](must(NewK28Jhash2(opts))), n, func(k *K28Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K28StaticKey, K28StaticValue](must(NewK28Static(opts))), n, func(k *K28StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K28JhashKey, K28JhashValue](n, func(k *K28JhashKey) []byte { return k[:] })
		}},
		{32, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K32JhashKey, K32JhashValue](must(NewK32Jhash(opts))), n, func(k *K32JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K32Jhash2Key, K32Jhash2Value](must(NewK32Jhash2(opts))), n, func(k *K32Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K32StaticKey, K32StaticValue](must(NewK32Static(opts))), n, func(k *K32StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K32JhashKey, K32JhashValue](n, func(k *K32JhashKey) []byte { return k[:] })
		}},
		{64, func(n int) [3]func() {
			return [3]func(){
				pairedLookups(pairedMap[K64JhashKey, K64JhashValue](must(NewK64Jhash(opts))), n, func(k *K64JhashKey) []byte { return k[:] }),
				pairedLookups(pairedMap[K64Jhash2Key, K64Jhash2Value](must(NewK64Jhash2(opts))), n, func(k *K64Jhash2Key) []byte { return k[:] }),
				pairedLookups(pairedMap[K64StaticKey, K64StaticValue](must(NewK64Static(opts))), n, func(k *K64StaticKey) []byte { return k[:] }),
			}
		}, func(n int) [3]func() {
			return peerPasses[K64JhashKey, K64JhashValue](n, func(k *K64JhashKey) []byte { return k[:] })
		}},
	}
	for _, sz := range sizes {
		for _, full := range []int{25, 50, 75, 100} {
			b.Run(fmt.Sprintf("key=%d/fullness=%d", sz.key, full), func(b *testing.B) {
				n := 65536 * full / 100
				pairedGain(b, n, sz.lookups(n), sz.peers(n))
			})
		}
	}
}
