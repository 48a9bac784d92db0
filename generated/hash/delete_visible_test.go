package hash

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
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
	for _, c := range linearizeCases {
		for _, entries := range []int{1, 64} {
			opts := htab.Options{MaxEntries: entries, ZeroSeed: true, NoPrealloc: c.noPrealloc}
			for _, path := range []string{"Delete", "LookupAndDelete", "LookupAndDeleteBatch"} {
				ops, ok := c.paths(t, opts)[path] // a fresh map for each path
				if !ok {
					continue
				}
				name := fmt.Sprintf("%s NoPrealloc=%v max=%d %s", c.layout, c.noPrealloc, entries, path)
				linearize.InsertAfterObservedDelete(t, name, entries, rounds, ops)
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
	for _, c := range linearizeCases {
		for _, entries := range []int{48, 64} {
			opts := htab.Options{MaxEntries: entries, NoPrealloc: c.noPrealloc}
			name := fmt.Sprintf("%s NoPrealloc=%v max=%d", c.layout, c.noPrealloc, entries)
			linearize.FullOnlyWhenFull(t, name, entries, rounds, c.paths(t, opts)["Delete"])
		}
	}
}

// linearizeCases are the maps the linearize checks run on: both layouts,
// and the classic one also NoPrealloc (home allocates every slot either way).
var linearizeCases = []struct {
	layout     string
	noPrealloc bool
	paths      func(*testing.T, htab.Options) map[string]linearize.Map
}{
	{"home", false, func(t *testing.T, o htab.Options) map[string]linearize.Map { return deletePaths(t, NewHomeK8V8, o) }},
	{"classic", false, func(t *testing.T, o htab.Options) map[string]linearize.Map { return deletePaths(t, NewHashK8V8, o) }},
	{"classic", true, func(t *testing.T, o htab.Options) map[string]linearize.Map { return deletePaths(t, NewHashK8V8, o) }},
}

// k8v8Deleter is what deletePaths needs of a k8v8 hash map.
type k8v8Deleter[K ~[8]byte, V ~[8]byte] interface {
	k8v8Map[K, V]
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
}

// deletePaths is a new map of newMap(o) seen through each of its ways of
// deleting a key; the batch deletes whole buckets from the start, so only
// with one entry.
func deletePaths[K ~[8]byte, V ~[8]byte, M k8v8Deleter[K, V]](t *testing.T, newMap func(htab.Options) (M, error), o htab.Options) map[string]linearize.Map {
	m, err := newMap(o)
	if err != nil {
		t.Fatal(err)
	}
	key := func(x uint64) (k K) { binary.LittleEndian.PutUint64(k[:], x); return k }
	base := linearize.Map{
		Insert: func(k uint64) error { var v V; return m.Update(key(k), v, htab.UpdateNoExist) },
		Has:    func(k uint64) bool { _, ok := m.Lookup(key(k)); return ok },
	}
	with := func(del func(k uint64) error) linearize.Map { p := base; p.Delete = del; return p }
	paths := map[string]linearize.Map{
		"Delete":          with(func(k uint64) error { return m.Delete(key(k)) }),
		"LookupAndDelete": with(func(k uint64) error { _, err := m.LookupAndDelete(key(k)); return err }),
	}
	if o.MaxEntries == 1 {
		paths["LookupAndDeleteBatch"] = with(func(k uint64) error {
			ks, vs := make([]K, 1), make([]V, 1)
			n, err := m.LookupAndDeleteBatch(nil, ks, vs)
			if n != 1 || ks[0] != key(k) {
				return fmt.Errorf("LookupAndDeleteBatch: %d keys (%x), %v; want %x", n, ks[:n], err, key(k))
			}
			return nil
		})
	}
	return paths
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
	for _, c := range linearizeCases {
		for _, entries := range []int{1, 64} {
			opts := htab.Options{MaxEntries: entries, ZeroSeed: true, NoPrealloc: c.noPrealloc}
			for _, path := range []string{"Delete", "LookupAndDelete"} {
				name := fmt.Sprintf("%s NoPrealloc=%v max=%d %s", c.layout, c.noPrealloc, entries, path)
				linearize.OneWinner(t, name, rounds, 4, c.paths(t, opts)[path])
			}
		}
	}
}
