package lru

import (
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/linearize"
)

// TestOneWinner: of goroutines inserting one absent key at once (each update
// takes an element from the LRU first, and the losers give theirs back),
// exactly one succeeds, and of goroutines deleting it at once, exactly one
// does (linearize.OneWinner). The map has room for every key, so nothing is
// evicted; common and per-CPU lists, both LRU types.
func TestOneWinner(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	for _, noCommon := range []bool{false, true} {
		opts := htab.Options{MaxEntries: 4 * rounds, ZeroSeed: true, CPUs: 2, NoCommonLRU: noCommon}
		m, err := lRUK8V8TestMap{}.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		linearize.OneWinner(t, fmt.Sprintf("lru NoCommonLRU=%v", noCommon), rounds, 4,
			linearize.Of(m, LRUK8V8Value{1}, linearize.Doors{Insert: linearize.Prog(1), Delete: linearize.LookupAndDelete}))
		p, err := lRUPerCPUK8V8TestMap{}.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		linearize.OneWinner(t, fmt.Sprintf("lru_pcpu NoCommonLRU=%v", noCommon), rounds, 4,
			linearize.Of(p, LRUPerCPUK8V8Value{1}, linearize.Doors{Insert: linearize.Prog(0), Has: linearize.Prog(1)}))
	}
}
