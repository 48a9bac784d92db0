package hash

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/linearize"
)

// TestInsertAfterObservedDelete: a delete frees its element (home: its slot)
// before it unlocks, so an insert by whoever saw the key gone finds room in
// a full map (linearize.InsertAfterObservedDelete).
func TestInsertAfterObservedDelete(t *testing.T) {
	rounds := 4000
	if testing.Short() {
		rounds = 1000
	}
	key := func(x uint64) (k [8]byte) { binary.LittleEndian.PutUint64(k[:], x); return k }
	for _, max := range []int{1, 64} {
		opts := htab.Options{MaxEntries: max, ZeroSeed: true}
		home, err := NewHomeK8V8(opts)
		if err != nil {
			t.Fatal(err)
		}
		linearize.InsertAfterObservedDelete(t, fmt.Sprintf("home max=%d", max), max, rounds, linearize.Map{
			Insert: func(k uint64) error { return home.Update(key(k), HomeK8V8Value{}, htab.UpdateNoExist) },
			Has:    func(k uint64) bool { _, ok := home.Lookup(key(k)); return ok },
			Delete: func(k uint64) error { return home.Delete(key(k)) },
		})
		classic, err := NewHashK8V8(opts)
		if err != nil {
			t.Fatal(err)
		}
		linearize.InsertAfterObservedDelete(t, fmt.Sprintf("classic max=%d", max), max, rounds, linearize.Map{
			Insert: func(k uint64) error { return classic.Update(key(k), HashK8V8Value{}, htab.UpdateNoExist) },
			Has:    func(k uint64) bool { _, ok := classic.Lookup(key(k)); return ok },
			Delete: func(k uint64) error { return classic.Delete(key(k)) },
		})
	}
}
