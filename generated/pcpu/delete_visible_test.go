package pcpu

import (
	"fmt"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/linearize"
)

// TestInsertAfterObservedDelete: a delete frees its element before it
// unlocks (after waiting out the program writes still on it), so an insert by
// whoever saw the key gone finds room in a full map
// (linearize.InsertAfterObservedDelete). The program side inserts and looks
// up, as a BPF program would.
func TestInsertAfterObservedDelete(t *testing.T) {
	rounds := 4000
	if testing.Short() {
		rounds = 1000
	}
	for _, max := range []int{1, 64} {
		for _, noPrealloc := range []bool{false, true} {
			m := programSide(t, htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 2, NoPrealloc: noPrealloc})
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("max=%d NoPrealloc=%v", max, noPrealloc), max, rounds, m)
		}
	}
}

// TestFullOnlyWhenFull: an insert right after a delete finds room unless
// another insert took it, while that other keeps trying to insert into the
// full map (linearize.FullOnlyWhenFull), prealloc and not.
func TestFullOnlyWhenFull(t *testing.T) {
	rounds := 200_000
	if testing.Short() {
		rounds = 20_000
	}
	for _, noPrealloc := range []bool{false, true} {
		m := programSide(t, htab.Options{MaxEntries: 64, CPUs: 2, NoPrealloc: noPrealloc})
		linearize.FullOnlyWhenFull(t, fmt.Sprintf("NoPrealloc=%v", noPrealloc), 64, rounds, m)
	}
}

// TestOneWinner: of goroutines inserting one absent key at once, through
// CPU(1) as programs do, exactly one succeeds, and of goroutines deleting it
// at once, exactly one does (linearize.OneWinner).
func TestOneWinner(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	for _, max := range []int{1, 64} {
		for _, noPrealloc := range []bool{false, true} {
			m := programSide(t, htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 2, NoPrealloc: noPrealloc})
			linearize.OneWinner(t, fmt.Sprintf("max=%d NoPrealloc=%v", max, noPrealloc), rounds, 4, m)
		}
	}
}

// programSide is a new map of opts as the linearize checks drive it, through
// its program side as BPF programs would: CPU(1) inserts, CPU(0) looks up;
// deletes are userspace's.
func programSide(t *testing.T, opts htab.Options) linearize.Map {
	m, err := perCPUK8V8TestMap{}.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return linearize.Of(m, PerCPUK8V8Value{1}, linearize.Doors{Insert: linearize.Prog(1), Has: linearize.Prog(0)})
}
