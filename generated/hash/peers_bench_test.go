package hash

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/swiss"
	"github.com/puzpuzpuz/xsync/v4"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/cpuclock"
)

// The peers: what a Go user would pick instead of a generated k8v8 map
// (impl=htab, the default home layout): Go's builtin map (impl=builtin),
// xsync.Map (impl=xsync), cockroachdb/swiss (impl=swiss), and the builtin map
// and swiss behind a sync.RWMutex (impl=rwmutex, impl=rwmutex-swiss); and the
// same generated map in the classic layout (impl=classic). Each is driven
// through the same small interface so that every benchmark runs the same
// loop; the interface call costs each of them the same.
type peerMap interface {
	Lookup(k [8]byte) ([8]byte, bool)
	Store(k [8]byte, v [8]byte)
}

type htabPeer struct{ m *HomeK8V8 }

func (p htabPeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Lookup(k) }
func (p htabPeer) Store(k, v [8]byte)               { _ = p.m.Update(k, v, htab.UpdateAny) }

type classicPeer struct{ m *HashK8V8 }

func (p classicPeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Lookup(k) }
func (p classicPeer) Store(k, v [8]byte)               { _ = p.m.Update(k, v, htab.UpdateAny) }

type builtinPeer map[[8]byte][8]byte

func (p builtinPeer) Lookup(k [8]byte) ([8]byte, bool) { v, ok := p[k]; return v, ok }
func (p builtinPeer) Store(k, v [8]byte)               { p[k] = v }

type xsyncPeer struct{ m *xsync.Map[[8]byte, [8]byte] }

func (p xsyncPeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Load(k) }
func (p xsyncPeer) Store(k, v [8]byte)               { p.m.Store(k, v) }

type rwMutexPeer struct {
	mu sync.RWMutex
	m  map[[8]byte][8]byte
}

func (p *rwMutexPeer) Lookup(k [8]byte) ([8]byte, bool) {
	p.mu.RLock()
	v, ok := p.m[k]
	p.mu.RUnlock()
	return v, ok
}

func (p *rwMutexPeer) Store(k, v [8]byte) {
	p.mu.Lock()
	p.m[k] = v
	p.mu.Unlock()
}

type swissPeer struct{ m *swiss.Map[[8]byte, [8]byte] }

func (p swissPeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Get(k) }
func (p swissPeer) Store(k, v [8]byte)               { p.m.Put(k, v) }

// rwMutexSwissPeer is swiss made safe for concurrent use as rwMutexPeer
// makes the builtin map: one sync.RWMutex over the whole map.
type rwMutexSwissPeer struct {
	mu sync.RWMutex
	m  *swiss.Map[[8]byte, [8]byte]
}

func (p *rwMutexSwissPeer) Lookup(k [8]byte) ([8]byte, bool) {
	p.mu.RLock()
	v, ok := p.m.Get(k)
	p.mu.RUnlock()
	return v, ok
}

func (p *rwMutexSwissPeer) Store(k, v [8]byte) {
	p.mu.Lock()
	p.m.Put(k, v)
	p.mu.Unlock()
}

const peerMaxEntries = 65536

var peers = []struct {
	name       string
	concurrent bool // safe for concurrent writers
	make       func() peerMap
}{
	{"htab", true, func() peerMap { // the default layout (home)
		m, err := NewHomeK8V8(htab.Options{MaxEntries: peerMaxEntries, ZeroSeed: true})
		if err != nil {
			panic(err)
		}
		return htabPeer{m}
	}},
	{"classic", true, func() peerMap { // -layout classic, the kernel's
		m, err := NewHashK8V8(htab.Options{MaxEntries: peerMaxEntries, ZeroSeed: true})
		if err != nil {
			panic(err)
		}
		return classicPeer{m}
	}},
	{"builtin", false, func() peerMap { return builtinPeer(make(map[[8]byte][8]byte, peerMaxEntries)) }},
	{"xsync", true, func() peerMap {
		return xsyncPeer{xsync.NewMap[[8]byte, [8]byte](xsync.WithPresize(peerMaxEntries))}
	}},
	{"rwmutex", true, func() peerMap { return &rwMutexPeer{m: make(map[[8]byte][8]byte, peerMaxEntries)} }},
	{"swiss", false, func() peerMap { return swissPeer{swiss.New[[8]byte, [8]byte](peerMaxEntries)} }},
	{"rwmutex-swiss", true, func() peerMap {
		return &rwMutexSwissPeer{m: swiss.New[[8]byte, [8]byte](peerMaxEntries)}
	}},
}

// peerKeys are n distinct random keys in random order: the order in which
// the benchmarks fill the maps.
func peerKeys(n int) [][8]byte {
	return randomKeys(rand.New(rand.NewPCG(42, 43)), n, nil)
}

// peerMissKeys are as many distinct random keys as filled, none of them in
// filled, in random order: lookups that miss.
func peerMissKeys(filled [][8]byte) [][8]byte {
	return randomKeys(rand.New(rand.NewPCG(44, 45)), len(filled), filled)
}

// randomKeys draws n distinct keys from rng, none of them in not.
func randomKeys(rng *rand.Rand, n int, not [][8]byte) [][8]byte {
	seen := make(map[uint64]bool, n+len(not))
	for _, k := range not {
		seen[binary.LittleEndian.Uint64(k[:])] = true
	}
	keys := make([][8]byte, 0, n)
	for len(keys) < n {
		x := rng.Uint64()
		if seen[x] {
			continue
		}
		seen[x] = true
		var k [8]byte
		binary.LittleEndian.PutUint64(k[:], x)
		keys = append(keys, k)
	}
	return keys
}

func fill(m peerMap, keys [][8]byte) {
	for i, k := range keys {
		var v [8]byte
		binary.LittleEndian.PutUint64(v[:], uint64(i))
		m.Store(k, v)
	}
}

// lookupOrder is keys shuffled: lookups in an order unrelated to the
// insertion order, since storage allocated in insertion order (xsync's
// entries, the classic layout's elements) would otherwise be walked
// sequentially, which the prefetcher rewards.
func lookupOrder(keys [][8]byte) [][8]byte {
	keys = slices.Clone(keys)
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

// BenchmarkPeersLookup: one goroutine, a map of 65536 max entries filled to
// 25..100 %, every impl: probe=hit looks up the filled keys in random order,
// probe=miss as many distinct random keys that are not in the map
// (peerMissKeys). A hit that misses, or a miss that finds a key, fails the
// benchmark. Sub-benchmarks fullness=F/probe=hit|miss/impl=X; reports
// lookups/s.
func BenchmarkPeersLookup(b *testing.B) {
	for _, full := range []int{25, 50, 75, 100} {
		keys := peerKeys(peerMaxEntries * full / 100)
		for _, probe := range []struct {
			name  string
			found bool // what each lookup must report
			order [][8]byte
		}{
			{"hit", true, lookupOrder(keys)},
			{"miss", false, peerMissKeys(keys)},
		} {
			for _, p := range peers {
				b.Run(fmt.Sprintf("fullness=%d/probe=%s/impl=%s", full, probe.name, p.name), func(b *testing.B) {
					m := p.make()
					fill(m, keys)
					order := probe.order
					i := 0
					for b.Loop() {
						if _, ok := m.Lookup(order[i]); ok != probe.found {
							b.Fatalf("probe=%s: key %x found=%v", probe.name, order[i], ok)
						}
						if i++; i == len(order) {
							i = 0
						}
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
				})
			}
		}
	}
}

// mixedOp is one request of the mixed load: a lookup of key, or an update
// of key to a new value.
type mixedOp struct {
	key    [8]byte
	update bool
}

// mixedStreamLen is the number of requests in a mixed stream, replayed in a
// loop: 590 KB, which the prefetcher streams in alongside the map.
const mixedStreamLen = 1 << 16

// mixedStream is goroutine w's requests: keys drawn at random, updates
// percent of them updates. They are drawn before the timer starts, as the lookup
// benchmarks' orders are, so that the loop times the maps and not the random
// number generator (drawing a request in the loop costs about 12 ns here,
// against 25 to 60 ns for a request to the map).
func mixedStream(w int, keys [][8]byte, updates int) []mixedOp {
	rng := rand.New(rand.NewPCG(uint64(w), 1))
	ops := make([]mixedOp, mixedStreamLen)
	for i := range ops {
		ops[i] = mixedOp{keys[rng.IntN(len(keys))], rng.IntN(100) < updates}
	}
	return ops
}

// runMixed does n requests of the stream ops on m, the update values
// counting up. It panics on a miss: every key is present.
func runMixed(m peerMap, ops []mixedOp, n int) {
	var v [8]byte
	for i := range n {
		op := &ops[i&(mixedStreamLen-1)]
		if op.update {
			binary.LittleEndian.PutUint64(v[:], uint64(i))
			m.Store(op.key, v)
		} else if _, ok := m.Lookup(op.key); !ok {
			panic("miss")
		}
	}
}

// mixedRound has one goroutine per stream do n requests together, n/len
// each, on m and returns the time they took.
func mixedRound(m peerMap, streams [][]mixedOp, n int) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for _, ops := range streams {
		wg.Go(func() { runMixed(m, ops, n/len(streams)) })
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkPeersMixed: goroutines on a 75 % full map, 90 % lookups and 10 %
// updates of present keys (mixedStream); g=2 is the target's load, g=1 the
// cost of one request without a second goroutine, updates=0 (percent) the
// same with lookups only, which shows what the updates cost, and updates=100
// updates only, which shows what an update costs when no lookup precedes it.
// g=1 runs every impl, g=2 only those safe for concurrent writers: not
// builtin and swiss themselves, which rwmutex and rwmutex-swiss put behind a
// lock.
// Sub-benchmarks updates=U/g=G/impl=X. Reports operations/s ("ops/s") and
// "parallelism", the CPU time the process used over the wall time: near 2
// when both goroutines run at once, near 1 when they take turns (a lock that
// puts goroutines to sleep).
func BenchmarkPeersMixed(b *testing.B) {
	keys := peerKeys(peerMaxEntries * 3 / 4)
	for _, updates := range []int{10, 0, 100} {
		streams := [][]mixedOp{mixedStream(0, keys, updates), mixedStream(1, keys, updates)}
		for _, g := range []int{1, 2} {
			for _, p := range peers {
				if g > 1 && !p.concurrent {
					continue
				}
				b.Run(fmt.Sprintf("updates=%d/g=%d/impl=%s", updates, g, p.name), func(b *testing.B) {
					m := p.make()
					fill(m, keys)
					runtime.GC() // no background marking of the fill's garbage during the run
					b.ResetTimer()
					cpu0 := cpuclock.Process()
					mixedRound(m, streams[:g], b.N)
					b.StopTimer()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
					b.ReportMetric(float64(cpuclock.Process()-cpu0)/float64(b.Elapsed()), "parallelism")
				})
			}
		}
	}
}

// BenchmarkPeersMemory: bytes per entry of a full map of 65536 k8v8 entries,
// everything included (for htab: elements, buckets, locks), of every impl
// but rwmutex and rwmutex-swiss (the builtin map and swiss plus one lock).
// Measured as the live heap a full map adds, after garbage collection.
// Sub-benchmarks impl=X; reports bytes/entry.
func BenchmarkPeersMemory(b *testing.B) {
	keys := peerKeys(peerMaxEntries)
	for _, p := range peers {
		if p.name == "rwmutex" || p.name == "rwmutex-swiss" { // a map plus one lock
			continue
		}
		b.Run("impl="+p.name, func(b *testing.B) {
			var perEntry float64
			for b.Loop() {
				before := liveHeap()
				m := p.make()
				fill(m, keys)
				after := liveHeap()
				runtime.KeepAlive(m)
				perEntry = float64(after-before) / float64(len(keys))
			}
			b.ReportMetric(perEntry, "bytes/entry")
		})
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
