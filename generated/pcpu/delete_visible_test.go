package pcpu

import (
	"encoding/binary"
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
	key := func(x uint64) (k PcpuK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
	for _, max := range []int{1, 64} {
		for _, noPrealloc := range []bool{false, true} {
			m, err := NewPcpuK8V8(htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 2, NoPrealloc: noPrealloc})
			if err != nil {
				t.Fatal(err)
			}
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("max=%d NoPrealloc=%v", max, noPrealloc), max, rounds, linearize.Map{
				Insert: func(k uint64) error { return m.CPU(1).Update(key(k), PcpuK8V8Value{1}, htab.UpdateNoExist) },
				Has:    func(k uint64) bool { _, ok := m.CPU(0).Lookup(key(k)); return ok },
				Delete: func(k uint64) error { return m.Delete(key(k)) },
			})
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
	key := func(x uint64) (k PcpuK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
	for _, noPrealloc := range []bool{false, true} {
		m, err := NewPcpuK8V8(htab.Options{MaxEntries: 64, CPUs: 2, NoPrealloc: noPrealloc})
		if err != nil {
			t.Fatal(err)
		}
		linearize.FullOnlyWhenFull(t, fmt.Sprintf("NoPrealloc=%v", noPrealloc), 64, rounds, linearize.Map{
			Insert: func(k uint64) error { return m.CPU(1).Update(key(k), PcpuK8V8Value{1}, htab.UpdateNoExist) },
			Has:    func(k uint64) bool { _, ok := m.CPU(0).Lookup(key(k)); return ok },
			Delete: func(k uint64) error { return m.Delete(key(k)) },
		})
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
	key := func(x uint64) (k PcpuK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
	for _, max := range []int{1, 64} {
		for _, noPrealloc := range []bool{false, true} {
			m, err := NewPcpuK8V8(htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 2, NoPrealloc: noPrealloc})
			if err != nil {
				t.Fatal(err)
			}
			linearize.OneWinner(t, fmt.Sprintf("max=%d NoPrealloc=%v", max, noPrealloc), rounds, 4, linearize.Map{
				Insert: func(k uint64) error { return m.CPU(1).Update(key(k), PcpuK8V8Value{1}, htab.UpdateNoExist) },
				Has:    func(k uint64) bool { _, ok := m.CPU(0).Lookup(key(k)); return ok },
				Delete: func(k uint64) error { return m.Delete(key(k)) },
			})
		}
	}
}
