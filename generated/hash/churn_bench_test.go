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
