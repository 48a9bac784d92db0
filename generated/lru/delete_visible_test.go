package lru

import (
	"encoding/binary"
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
// LRU types, common and per-CPU lists.
func TestInsertAfterObservedDelete(t *testing.T) {
	rounds := 1500
	if testing.Short() {
		rounds = 500
	}
	for _, noCommon := range []bool{false, true} {
		opts := htab.Options{MaxEntries: 1, ZeroSeed: true, CPUs: 1, NoCommonLRU: noCommon}
		for _, path := range []string{"Delete", "LookupAndDelete", "LookupAndDeleteBatch"} {
			m, err := NewLRUK8V8(opts) // a fresh map for each path
			if err != nil {
				t.Fatal(err)
			}
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("lru NoCommonLRU=%v %s", noCommon, path), 1, rounds, lruDeletePath(m, path))
			p, err := NewLRUPerCPUK8V8(opts)
			if err != nil {
				t.Fatal(err)
			}
			linearize.InsertAfterObservedDelete(t, fmt.Sprintf("lru_pcpu NoCommonLRU=%v %s", noCommon, path), 1, rounds, lruPcpuDeletePath(p, path))
		}
	}
}

// lruDeletePath is an LRU map seen through one of its ways of deleting a
// key; inserts go through CPU 0's handle, the userspace side's CPU.
func lruDeletePath(m *LRUK8V8, path string) linearize.Map {
	key := func(x uint64) (k LRUK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
	return linearize.Map{
		Insert: func(k uint64) error { return m.CPU(0).Update(key(k), LRUK8V8Value{}, htab.UpdateNoExist) },
		Has:    func(k uint64) bool { _, ok := m.Lookup(key(k)); return ok },
		Delete: map[string]func(uint64) error{
			"Delete":               func(k uint64) error { return m.Delete(key(k)) },
			"LookupAndDelete":      func(k uint64) error { _, err := m.LookupAndDelete(key(k)); return err },
			"LookupAndDeleteBatch": func(k uint64) error { return batchDeleteOne(m.LookupAndDeleteBatch, key(k), 1) },
		}[path],
	}
}

// lruPcpuDeletePath is lruDeletePath for the per-CPU LRU map.
func lruPcpuDeletePath(m *LRUPerCPUK8V8, path string) linearize.Map {
	key := func(x uint64) (k LRUPerCPUK8V8Key) { binary.LittleEndian.PutUint64(k[:], x); return k }
	vals := make([]LRUPerCPUK8V8Value, m.CPUs())
	return linearize.Map{
		Insert: func(k uint64) error { return m.CPU(0).Update(key(k), LRUPerCPUK8V8Value{}, htab.UpdateNoExist) },
		Has:    func(k uint64) bool { _, ok := m.CPU(0).Lookup(key(k)); return ok },
		Delete: map[string]func(uint64) error{
			"Delete":               func(k uint64) error { return m.Delete(key(k)) },
			"LookupAndDelete":      func(k uint64) error { return m.LookupAndDelete(key(k), vals) },
			"LookupAndDeleteBatch": func(k uint64) error { return batchDeleteOne(m.LookupAndDeleteBatch, key(k), m.CPUs()) },
		}[path],
	}
}

// batchDeleteOne deletes the one key of a map of one element with its
// LookupAndDeleteBatch (vals values per key), which must return want.
func batchDeleteOne[K comparable, V any](batch func(*htab.Cursor, []K, []V) (int, error), want K, vals int) error {
	ks, vs := make([]K, 1), make([]V, vals)
	n, err := batch(nil, ks, vs)
	if n != 1 || ks[0] != want {
		return fmt.Errorf("LookupAndDeleteBatch: %d keys (%v), %v; want %v", n, ks[:n], err, want)
	}
	return nil
}
