package hash

import (
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/linearize"
)

// TestInsertAfterObservedDelete: every delete path (Delete, LookupAndDelete,
// LookupAndDeleteBatch) frees its element (home: its slot) before it unlocks,
// so an insert by whoever saw the key gone finds room in a full map
// (linearize.InsertAfterObservedDelete), in both layouts, prealloc and not.
func TestInsertAfterObservedDelete(t *testing.T) {
	rounds := 1500
	if testing.Short() {
		rounds = 500
	}
	for _, c := range linearizeCases() {
		for _, entries := range []int{1, 64} {
			opts := htab.Options{MaxEntries: entries, ZeroSeed: true, NoPrealloc: c.noPrealloc}
			for _, path := range []linearize.DeletePath{linearize.Delete, linearize.LookupAndDelete, linearize.LookupAndDeleteBatch} {
				if path == linearize.LookupAndDeleteBatch && entries != 1 {
					continue // the batch deletes whole buckets from the start
				}
				name := fmt.Sprintf("%s NoPrealloc=%v max=%d %v", c.layout, c.noPrealloc, entries, path)
				linearize.InsertAfterObservedDelete(t, name, entries, rounds, c.deletingBy(t, opts, path)) // a fresh map for each path
			}
		}
	}
}

// TestFullOnlyWhenFull: an insert right after a delete finds room unless
// another insert took it, even while a third keeps failing to insert into
// the full map (linearize.FullOnlyWhenFull), in both layouts, prealloc and
// not.
func TestFullOnlyWhenFull(t *testing.T) {
	rounds := 300_000
	if testing.Short() {
		rounds = 20_000
	}
	for _, c := range linearizeCases() {
		for _, entries := range []int{48, 64} {
			opts := htab.Options{MaxEntries: entries, NoPrealloc: c.noPrealloc}
			name := fmt.Sprintf("%s NoPrealloc=%v max=%d", c.layout, c.noPrealloc, entries)
			linearize.FullOnlyWhenFull(t, name, entries, rounds, c.deletingBy(t, opts, linearize.Delete))
		}
	}
}

// linearizeCases are the maps the linearize checks run on: both layouts,
// and the classic one also NoPrealloc (home allocates every slot either way).
// (A function, as batchKinds.)
func linearizeCases() []linearizeCase {
	return []linearizeCase{
		linearizeOf("home", false, homeK8V8TestMap{}),
		linearizeOf("classic", false, hashK8V8TestMap{}),
		linearizeOf("classic", true, hashK8V8TestMap{}),
	}
}

type linearizeCase struct {
	layout     string
	noPrealloc bool
	// deletingBy is a new map with o as the checks drive it: inserts (zero
	// values) and lookups through its own Update and Lookup, deletes by
	// path.
	deletingBy func(t *testing.T, o htab.Options, path linearize.DeletePath) linearize.Map
}

// linearizeOf is the case of the maps kind stands for.
func linearizeOf[K, V comparable](layout string, noPrealloc bool, kind htabtest.Map[K, V]) linearizeCase {
	return linearizeCase{layout, noPrealloc, func(t *testing.T, o htab.Options, path linearize.DeletePath) linearize.Map {
		m, err := kind.New(o)
		if err != nil {
			t.Fatal(err)
		}
		var zero V
		return linearize.Of(m, zero, linearize.Doors{Delete: path})
	}}
}

// TestOneWinner: of goroutines inserting one absent key at once, exactly one
// succeeds, and of goroutines deleting it at once (Delete or
// LookupAndDelete), exactly one does (linearize.OneWinner), in both layouts,
// prealloc and not, in a map that is not full and in one with one free
// entry, where the insert that loses the race must get ErrKeyExist, not
// ErrFull.
func TestOneWinner(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	for _, c := range linearizeCases() {
		for _, entries := range []int{1, 64} {
			opts := htab.Options{MaxEntries: entries, ZeroSeed: true, NoPrealloc: c.noPrealloc}
			for _, path := range []linearize.DeletePath{linearize.Delete, linearize.LookupAndDelete} {
				name := fmt.Sprintf("%s NoPrealloc=%v max=%d %v", c.layout, c.noPrealloc, entries, path)
				linearize.OneWinner(t, name, rounds, 4, c.deletingBy(t, opts, path))
			}
		}
	}
}
