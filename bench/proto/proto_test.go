package proto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/htabgen/htabgen/generated/hash"
	"github.com/htabgen/htabgen/htab"
)

// protoMap is what the correctness test drives; each prototype variant has it.
type protoMap interface {
	Lookup(k Key) (Value, bool)
	Update(k Key, v Value, f htab.UpdateFlags) error
	Delete(k Key) error
	LookupAndDelete(k Key) (Value, error)
	Len() int
}

type variant struct {
	name string
	make func(max int) protoMap
	all  func(m protoMap, yield func(Key, Value) bool)
}

var variants = []variant{
	{"home", func(max int) protoMap { return NewHome(max, 0) }, func(m protoMap, y func(Key, Value) bool) {
		m.(*Home).All()(y)
	}},
}

func key(x uint64) (k Key) { binary.LittleEndian.PutUint64(k[:], x); return }

func order(all func(yield func(Key, Value) bool)) (out [][2]uint64) {
	all(func(k Key, v Value) bool {
		out = append(out, [2]uint64{binary.LittleEndian.Uint64(k[:]), binary.LittleEndian.Uint64(v[:])})
		return true
	})
	return
}

// TestAgainstGenerated: random operations, every result equal to the
// generated HashK8V8 (ZeroSeed) and to a builtin map, and the full iteration
// order equal to HashK8V8's after every step.
func TestAgainstGenerated(t *testing.T) {
	for _, vr := range variants {
		for _, max := range []int{1, 2, 3, 5, 8, 13, 64, 100, 1000} {
			t.Run(fmt.Sprintf("%s/max=%d", vr.name, max), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(max), 7))
				p := vr.make(max)
				g, err := hash.NewHashK8V8(htab.Options{MaxEntries: max, ZeroSeed: true})
				if err != nil {
					t.Fatal(err)
				}
				model := map[Key]Value{}
				space := uint64(max*2 + 1)
				steps := 4000
				if max >= 1000 {
					steps = 30000
				}
				if raceEnabled || testing.Short() {
					steps /= 10
				}
				for step := range steps {
					k := key(rng.Uint64N(space))
					v := key(rng.Uint64())
					switch op := rng.IntN(10); {
					case op < 5:
						f := htab.UpdateFlags(rng.IntN(4))
						e1 := p.Update(k, v, f)
						e2 := g.Update(k, v, f)
						if !errors.Is(e1, e2) && !(e1 != nil && e2 != nil && errors.Is(e1, htab.ErrInvalid) && errors.Is(e2, htab.ErrInvalid)) {
							t.Fatalf("step %d: Update(%x, %d) = %v, generated %v", step, k, f, e1, e2)
						}
						if e1 == nil {
							model[k] = v
						}
					case op < 7:
						e1 := p.Delete(k)
						e2 := g.Delete(k)
						if e1 != e2 {
							t.Fatalf("step %d: Delete = %v, generated %v", step, e1, e2)
						}
						delete(model, k)
					case op < 8:
						v1, e1 := p.LookupAndDelete(k)
						v2, e2 := g.LookupAndDelete(k)
						if e1 != e2 || v1 != Value(v2) {
							t.Fatalf("step %d: LookupAndDelete = %x %v, generated %x %v", step, v1, e1, v2, e2)
						}
						delete(model, k)
					default:
						v1, ok1 := p.Lookup(k)
						mv, ok2 := model[k]
						if ok1 != ok2 || v1 != mv {
							t.Fatalf("step %d: Lookup = %x %v, model %x %v", step, v1, ok1, mv, ok2)
						}
					}
					if p.Len() != len(model) {
						t.Fatalf("step %d: Len %d, model %d", step, p.Len(), len(model))
					}
					if max <= 100 || step%500 == 0 {
						o1 := order(func(y func(Key, Value) bool) { vr.all(p, y) })
						o2 := order(func(y func(Key, Value) bool) {
							g.All()(func(k hash.HashK8V8Key, v hash.HashK8V8Value) bool { return y(Key(k), Value(v)) })
						})
						if fmt.Sprint(o1) != fmt.Sprint(o2) {
							t.Fatalf("step %d: order\n%v\ngenerated\n%v", step, o1, o2)
						}
					}
				}
				for k, v := range model {
					if got, ok := p.Lookup(k); !ok || got != v {
						t.Fatalf("final Lookup(%x) = %x %v, want %x", k, got, ok, v)
					}
				}
			})
		}
	}
}

// TestConcurrent: writers on overlapping keys and lock-free readers; run
// with -race. Each key's value is always key*3 or absent, so a reader can
// check what it sees; at the end the contents equal a replay check.
func TestConcurrent(t *testing.T) {
	for _, vr := range variants {
		for _, max := range []int{4, 64, 512} {
			t.Run(fmt.Sprintf("%s/max=%d", vr.name, max), func(t *testing.T) {
				space := uint64(max*3/2 + 1)
				p := vr.make(max)
				var wg sync.WaitGroup
				var stop atomic.Bool
				for w := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(w), 1))
						for i := 0; i < 20000; i++ {
							x := rng.Uint64N(space)
							switch rng.IntN(3) {
							case 0, 1:
								err := p.Update(key(x), key(x*3), htab.UpdateAny)
								if err != nil && err != htab.ErrFull {
									panic(err)
								}
							default:
								_ = p.Delete(key(x))
							}
						}
					}()
				}
				var rg sync.WaitGroup
				for r := range 2 {
					rg.Add(1)
					go func() {
						defer rg.Done()
						rng := rand.New(rand.NewPCG(uint64(r), 2))
						for !stop.Load() {
							x := rng.Uint64N(space)
							if v, ok := p.Lookup(key(x)); ok && v != key(x*3) {
								panic(fmt.Sprintf("Lookup(%d) = %x", x, v))
							}
						}
					}()
				}
				wg.Wait()
				stop.Store(true)
				rg.Wait()
				n := 0
				seen := map[Key]bool{}
				vr.all(p, func(k Key, v Value) bool {
					n++
					if seen[k] || v != key(binary.LittleEndian.Uint64(k[:])*3) {
						t.Fatalf("All: %x %x (dup %v)", k, v, seen[k])
					}
					seen[k] = true
					return true
				})
				if n != p.Len() || n > max {
					t.Fatalf("All saw %d, Len %d", n, p.Len())
				}
			})
		}
	}
}

// ---- side-by-side benchmarks (same loop as generated/hash/peers_bench_test.go) ----

type peerMap interface {
	Lookup(k [8]byte) ([8]byte, bool)
	Store(k [8]byte, v [8]byte)
}

type htabPeer struct{ m *hash.HashK8V8 }

func (p htabPeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Lookup(k) }
func (p htabPeer) Store(k, v [8]byte)               { _ = p.m.Update(k, v, htab.UpdateAny) }

type homePeer struct{ m *Home }

func (p homePeer) Lookup(k [8]byte) ([8]byte, bool) { return p.m.Lookup(k) }
func (p homePeer) Store(k, v [8]byte)               { _ = p.m.Update(k, v, htab.UpdateAny) }

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

const peerMaxEntries = 65536

var peers = []struct {
	name       string
	concurrent bool
	make       func() peerMap
}{
	{"htab", true, func() peerMap {
		m, err := hash.NewHashK8V8(htab.Options{MaxEntries: peerMaxEntries, ZeroSeed: true})
		if err != nil {
			panic(err)
		}
		return htabPeer{m}
	}},
	{"home", true, func() peerMap { return homePeer{NewHome(peerMaxEntries, 0)} }},
	{"builtin", false, func() peerMap { return builtinPeer(make(map[[8]byte][8]byte, peerMaxEntries)) }},
	{"xsync", true, func() peerMap {
		return xsyncPeer{xsync.NewMap[[8]byte, [8]byte](xsync.WithPresize(peerMaxEntries))}
	}},
	{"rwmutex", true, func() peerMap { return &rwMutexPeer{m: make(map[[8]byte][8]byte, peerMaxEntries)} }},
}

func peerKeys(n int) [][8]byte {
	rng := rand.New(rand.NewPCG(42, 43))
	seen := make(map[uint64]bool, n)
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

func BenchmarkPeersLookup(b *testing.B) {
	for _, full := range []int{25, 50, 75, 100} {
		keys := peerKeys(peerMaxEntries * full / 100)
		for _, p := range peers {
			b.Run(fmt.Sprintf("fullness=%d/impl=%s", full, p.name), func(b *testing.B) {
				m := p.make()
				fill(m, keys)
				i := 0
				for b.Loop() {
					if _, ok := m.Lookup(keys[i]); !ok {
						b.Fatal("miss")
					}
					if i++; i == len(keys) {
						i = 0
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
			})
		}
	}
}

func BenchmarkPeersMixed(b *testing.B) {
	keys := peerKeys(peerMaxEntries * 3 / 4)
	for _, p := range peers {
		if !p.concurrent {
			continue
		}
		b.Run("impl="+p.name, func(b *testing.B) {
			m := p.make()
			fill(m, keys)
			var worker atomic.Uint64
			b.SetParallelism(2 / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(worker.Add(1), 1))
				for pb.Next() {
					k := keys[rng.IntN(len(keys))]
					if rng.IntN(10) == 0 {
						m.Store(k, k)
					} else if _, ok := m.Lookup(k); !ok {
						panic("miss")
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

func BenchmarkPeersMemory(b *testing.B) {
	keys := peerKeys(peerMaxEntries)
	for _, p := range peers {
		if p.name == "rwmutex" {
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
