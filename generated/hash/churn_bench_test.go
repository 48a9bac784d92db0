package hash

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// churnMap is what BenchmarkChurnAtCapacity needs of a layout.
type churnMap interface {
	Update(k HomeK8V8Key, v HomeK8V8Value, flags htab.UpdateFlags) error
	Delete(k HomeK8V8Key) error
}

type classicChurn struct{ m *HashK8V8 }

func (c classicChurn) Update(k HomeK8V8Key, v HomeK8V8Value, flags htab.UpdateFlags) error {
	return c.m.Update(HashK8V8Key(k), HashK8V8Value(v), flags)
}
func (c classicChurn) Delete(k HomeK8V8Key) error { return c.m.Delete(HashK8V8Key(k)) }

// BenchmarkChurnAtCapacity is a flow table at capacity: the map is full, and
// each operation deletes a goroutine's oldest key and inserts a new one, so
// that the map always has at most one free element per goroutine. The home
// layout must find that free slot for every element it moves (its free-slot
// bitmap has summary levels for this); classic takes it from its free list.
// ns/op is per delete-and-insert pair, all goroutines together.
func BenchmarkChurnAtCapacity(b *testing.B) {
	for _, size := range []int{64, 65536, 1 << 20} {
		for _, g := range []int{1, 2} {
			for _, layout := range []string{"home", "classic"} {
				b.Run(fmt.Sprintf("size=%d/g=%d/layout=%s", size, g, layout), func(b *testing.B) {
					var m churnMap
					if layout == "home" {
						hm, err := NewHomeK8V8(htab.Options{MaxEntries: size})
						if err != nil {
							b.Fatal(err)
						}
						m = hm
					} else {
						cm, err := NewHashK8V8(htab.Options{MaxEntries: size})
						if err != nil {
							b.Fatal(err)
						}
						m = classicChurn{cm}
					}
					per := size / g
					key := func(w, i int) (k HomeK8V8Key) {
						binary.LittleEndian.PutUint64(k[:], uint64(w)<<40|uint64(i))
						return k
					}
					for w := range g {
						for i := range per {
							if err := m.Update(key(w, i), HomeK8V8Value{}, htab.UpdateNoExist); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ResetTimer()
					var wg sync.WaitGroup
					for w := range g {
						wg.Go(func() {
							for i := per; i < per+b.N/g; i++ {
								if err := m.Delete(key(w, i-per)); err != nil {
									b.Error(err)
									return
								}
								if err := m.Update(key(w, i), HomeK8V8Value{}, htab.UpdateNoExist); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
				})
			}
		}
	}
}

// BenchmarkLongChainNeighbours: under ZeroSeed, chain keys chosen to
// collide in bucket 0 fill the home layout's slots 1..L with bucket 0's
// overflow elements; inserting (then deleting) keys of buckets 1..L must move
// them out, and finding the element before each one walks bucket 0's chain.
// Classic pays for a long chain only on its own bucket. ns/op is per
// insert-and-delete pair.
func BenchmarkLongChainNeighbours(b *testing.B) {
	const size = 65536
	keysIn := func(n int, lo, hi uint32, from uint64) ([]HomeK8V8Key, uint64) {
		var keys []HomeK8V8Key
		for x := from; len(keys) < n; x++ {
			var k HomeK8V8Key
			binary.LittleEndian.PutUint64(k[:], x)
			if bk := htab.Jhash(k[:], 0) & (size - 1); lo <= bk && bk < hi {
				keys = append(keys, k)
			}
			from = x + 1
		}
		return keys, from
	}
	for _, l := range []int{1, 64, 1024} {
		chain, next := keysIn(l, 0, 1, 0)
		probe, _ := keysIn(4096, 1, uint32(l)+1, next)
		for _, layout := range []string{"home", "classic"} {
			b.Run(fmt.Sprintf("chain=%d/layout=%s", l, layout), func(b *testing.B) {
				var m churnMap
				if layout == "home" {
					hm, err := NewHomeK8V8(htab.Options{MaxEntries: size, ZeroSeed: true})
					if err != nil {
						b.Fatal(err)
					}
					m = hm
				} else {
					cm, err := NewHashK8V8(htab.Options{MaxEntries: size, ZeroSeed: true})
					if err != nil {
						b.Fatal(err)
					}
					m = classicChurn{cm}
				}
				for _, k := range chain {
					if err := m.Update(k, HomeK8V8Value{}, htab.UpdateNoExist); err != nil {
						b.Fatal(err)
					}
				}
				i := 0
				for b.Loop() {
					k := probe[i%len(probe)]
					i++
					if err := m.Update(k, HomeK8V8Value{}, htab.UpdateNoExist); err != nil {
						b.Fatal(err)
					}
					if err := m.Delete(k); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
