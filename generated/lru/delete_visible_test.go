package lru

import (
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/linearize"
)

// TestInsertAfterObservedDelete: every delete path (Delete, LookupAndDelete,
// LookupAndDeleteBatch) gives its element back to the LRU before it unlocks,
// so an insert by whoever saw the key gone finds that element free
// (linearize.InsertAfterObservedDelete): in a map of one element on one CPU,
// where nothing else could be evicted, it must not be htab.ErrNoMem. Both
// LRU types, common and per-CPU lists; inserts go through CPU 0's handle,
// the userspace side's CPU, and the per-CPU map's lookups too.
func TestInsertAfterObservedDelete(t *testing.T) {
	rounds := 1500
	if testing.Short() {
		rounds = 500
	}
	for _, noCommon := range []bool{false, true} {
		opts := htab.Options{MaxEntries: 1, ZeroSeed: true, CPUs: 1, NoCommonLRU: noCommon}
		for _, path := range []linearize.DeletePath{linearize.Delete, linearize.LookupAndDelete, linearize.LookupAndDeleteBatch} {
			m, err := lRUK8V8TestMap{}.New(opts) // a fresh map for each path
			if err != nil {
				t.Fatal(err)
			}
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("lru NoCommonLRU=%v %v", noCommon, path), 1, rounds,
				linearize.Of(m, LRUK8V8Value{}, linearize.Doors{Insert: linearize.Prog(0), Delete: path}))
			p, err := lRUPerCPUK8V8TestMap{}.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("lru_pcpu NoCommonLRU=%v %v", noCommon, path), 1, rounds,
				linearize.Of(p, LRUPerCPUK8V8Value{}, linearize.Doors{Insert: linearize.Prog(0), Has: linearize.Prog(0), Delete: path}))
		}
	}
}
