package lru

import (
	"encoding/binary"
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
		m, err := NewLRUK8V8(opts)
		if err != nil {
			t.Fatal(err)
		}
		key := func(x uint64) (k LRUK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
		linearize.OneWinner(t, fmt.Sprintf("lru NoCommonLRU=%v", noCommon), rounds, 4, linearize.Map{
			Insert: func(k uint64) error { return m.CPU(1).Update(key(k), LRUK8V8Value{1}, htab.UpdateNoExist) },
			Has:    func(k uint64) bool { _, ok := m.Lookup(key(k)); return ok },
			Delete: func(k uint64) error { _, err := m.LookupAndDelete(key(k)); return err },
		})
		p, err := NewLRUPerCPUK8V8(opts)
		if err != nil {
			t.Fatal(err)
		}
		pkey := func(x uint64) (k LRUPerCPUK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
		linearize.OneWinner(t, fmt.Sprintf("lru_pcpu NoCommonLRU=%v", noCommon), rounds, 4, linearize.Map{
			Insert: func(k uint64) error { return p.CPU(0).Update(pkey(k), LRUPerCPUK8V8Value{1}, htab.UpdateNoExist) },
			Has:    func(k uint64) bool { _, ok := p.CPU(1).Lookup(pkey(k)); return ok },
			Delete: func(k uint64) error { return p.Delete(pkey(k)) },
		})
	}
}
