// Package linearize holds concurrency checks that generated maps of several
// packages share: each drives a map, through the doors of its htabtest.Map
// adapter that Of picks, and fails the test when a single-key operation is
// seen out of order.
package linearize

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
)

// Map is a map as the checks drive it, with keys reduced to integers: an
// insert of key k, a lookup of it and a delete, each through the door Of
// picked.
type Map struct {
	insert func(k uint64) error // an update with htab.UpdateNoExist
	has    func(k uint64) bool
	delete func(k uint64) error // may run on several goroutines at once
}

// Door is a way into a map for inserts and lookups: Syscall, the map's own
// Update and Lookup (the bpf(2) side), or Prog(cpu), the handle CPU(cpu), as
// a BPF program on that CPU makes them.
type Door int

// Syscall is the door of the map's own Update and Lookup; it is the zero
// Door.
const Syscall Door = 0

// Prog is the door of the map's CPU(cpu).
func Prog(cpu int) Door { return Door(cpu + 1) }

// DeletePath is a way of deleting a key.
type DeletePath int

const (
	// Delete is the map's Delete.
	Delete DeletePath = iota
	// LookupAndDelete is its LookupAndDelete.
	LookupAndDelete
	// LookupAndDeleteBatch is one LookupAndDeleteBatch call from the start,
	// which must return the key alone: for maps of one entry only.
	LookupAndDeleteBatch
)

func (p DeletePath) String() string {
	switch p {
	case Delete:
		return "Delete"
	case LookupAndDelete:
		return "LookupAndDelete"
	case LookupAndDeleteBatch:
		return "LookupAndDeleteBatch"
	}
	return fmt.Sprintf("DeletePath(%d)", int(p))
}

// Doors picks the doors of a map the checks go through; the zero Doors
// inserts with Update, looks up with Lookup and deletes with Delete.
type Doors struct {
	Insert, Has Door
	Delete      DeletePath
}

// Of is m as the checks drive it through doors d: key k is htabtest.Key(k)
// (K needs 8 bytes, for the checks' keys up to 2^40), and an insert gives it
// the value v (through Syscall, v for every CPU of a per-CPU map). Has is
// called from one goroutine at a time.
func Of[K, V comparable](m htabtest.Map[K, V], v V, d Doors) Map {
	if n := unsafe.Sizeof(*new(K)); n < 8 {
		panic(fmt.Sprintf("linearize: keys of %d bytes; the checks' keys need 8", n))
	}
	key := func(k uint64) K { return htabtest.Key[K](int(k)) }
	slots := htabtest.Slots(m)
	var lm Map
	if d.Insert == Syscall {
		vals := slices.Repeat([]V{v}, slots)
		lm.insert = func(k uint64) error { return m.Update(key(k), vals, htab.UpdateNoExist) }
	} else {
		c := m.CPU(int(d.Insert) - 1)
		lm.insert = func(k uint64) error { return c.Update(key(k), v, htab.UpdateNoExist) }
	}
	if d.Has == Syscall {
		vals := make([]V, slots)
		lm.has = func(k uint64) bool { return m.Lookup(key(k), vals) }
	} else {
		c := m.CPU(int(d.Has) - 1)
		lm.has = func(k uint64) bool { _, ok := c.Lookup(key(k)); return ok }
	}
	switch d.Delete {
	case Delete:
		lm.delete = func(k uint64) error { return m.Delete(key(k)) }
	case LookupAndDelete:
		lm.delete = func(k uint64) error { return m.LookupAndDelete(key(k), make([]V, slots)) }
	case LookupAndDeleteBatch:
		lm.delete = func(k uint64) error {
			ks, vs := make([]K, 1), make([]V, slots)
			n, err := m.LookupAndDeleteBatch(nil, ks, vs)
			if want := key(k); n != 1 || ks[0] != want {
				return fmt.Errorf("LookupAndDeleteBatch: %d keys (%x), %v; want %x", n, any(ks[:n]), err, any(want))
			}
			return nil
		}
	default:
		panic(fmt.Sprintf("linearize: %v", d.Delete))
	}
	return lm
}

// InsertAfterObservedDelete fills a map to its MaxEntries, entries, then for
// rounds rounds deletes a key on one goroutine while another waits until the
// key is no longer found and inserts a new one. Having seen the delete take effect,
// the inserter must find room: an htab.ErrFull there (htab.ErrNoMem, in an
// LRU map where nothing else can be evicted) means the delete became
// visible before the element it freed did (the kernel frees after unlocking,
// so its maps show this). The window is a few instructions wide, so the check
// runs with more Ps than CPUs (GOMAXPROCS 8, for the whole process while it
// runs), to let the scheduler preempt the deleter in it.
func InsertAfterObservedDelete(t *testing.T, name string, entries, rounds int, m Map) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	live := make([]uint64, entries)
	next := uint64(0)
	for i := range live {
		if err := m.insert(next); err != nil {
			t.Fatalf("%s: filling: %v", name, err)
		}
		live[i] = next
		next++
	}
	full := 0
	for r := range rounds {
		x := r % entries
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := m.delete(live[x]); err != nil {
				t.Errorf("%s: Delete: %v", name, err)
			}
		})
		var err error
		wg.Go(func() {
			for m.has(live[x]) {
			}
			err = m.insert(next)
		})
		wg.Wait()
		var noRoom error
		if errors.Is(err, htab.ErrFull) || errors.Is(err, htab.ErrNoMem) {
			full++
			noRoom = err
			err = m.insert(next) // the delete has returned now
		}
		if err != nil {
			t.Fatalf("%s: round %d: insert: %v (after %v)", name, r, err, noRoom)
		}
		live[x] = next
		next++
	}
	if full != 0 {
		t.Errorf("%s: %d of %d inserts after an observed delete found no room (htab.ErrFull or ErrNoMem)", name, full, rounds)
	}
}

// OneWinner races goroutines (at least 2) on one key, rounds times, each
// round with a new key: all insert it at once, and exactly one may succeed,
// the others getting htab.ErrKeyExist; then all delete it at once, and
// exactly one may succeed, the others getting htab.ErrKeyNotExist. Two
// winners mean an insert or delete that did not see another one before it;
// none, a lost operation. The map must not evict (an LRU map needs room for
// every key the check inserts). It runs with more Ps than CPUs (GOMAXPROCS
// 8) so that the goroutines also interleave by preemption.
func OneWinner(t *testing.T, name string, rounds, goroutines int, m Map) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	race := func(op func(k uint64) error, k uint64) []error {
		errs := make([]error, goroutines)
		var ready, wg sync.WaitGroup
		start := make(chan struct{})
		ready.Add(goroutines)
		for g := range goroutines {
			wg.Go(func() {
				ready.Done()
				<-start
				errs[g] = op(k)
			})
		}
		ready.Wait()
		close(start)
		wg.Wait()
		return errs
	}
	check := func(what string, r int, errs []error, loser error) {
		t.Helper()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, loser):
				t.Fatalf("%s: round %d: %s: %v, want nil or %v", name, r, what, err, loser)
			}
		}
		if wins != 1 {
			t.Fatalf("%s: round %d: %d of %d concurrent %ss of one key succeeded, want 1", name, r, wins, goroutines, what)
		}
	}
	for r := range rounds {
		k := uint64(r)
		check("insert", r, race(m.insert, k), htab.ErrKeyExist)
		if !m.has(k) {
			t.Fatalf("%s: round %d: the inserted key is not found", name, r)
		}
		check("delete", r, race(m.delete, k), htab.ErrKeyNotExist)
		if m.has(k) {
			t.Fatalf("%s: round %d: the deleted key is still found", name, r)
		}
	}
}

// FullOnlyWhenFull fills a map to its MaxEntries, entries, and has one
// goroutine keep inserting a new key of its own, which finds the map full
// nearly always. For rounds rounds the test goroutine deletes a key and at
// once inserts it again. That insert may be htab.ErrFull only if the other
// goroutine's key got in meanwhile (it then stays in until this goroutine
// deletes it): an ErrFull with that key absent and no success counted means
// the map held entries-1 keys for the whole insert, as when a failing insert
// counts itself for a moment before it takes itself off again.
func FullOnlyWhenFull(t *testing.T, name string, entries, rounds int, m Map) {
	t.Helper()
	for k := range uint64(entries) {
		if err := m.insert(k); err != nil {
			t.Fatalf("%s: filling: %v", name, err)
		}
	}
	const other = 1 << 40 // the other goroutine's key
	var otherIn atomic.Bool
	var otherWins atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if otherIn.Load() {
				runtime.Gosched()
			} else if m.insert(other) == nil {
				otherWins.Add(1)
				otherIn.Store(true)
			}
		}
	})
	violations, fulls := 0, 0
	for r := range rounds {
		k := uint64(r % entries)
		wins := otherWins.Load()
		if err := m.delete(k); err != nil {
			t.Fatalf("%s: round %d: Delete: %v", name, r, err)
		}
		err := m.insert(k)
		if !errors.Is(err, htab.ErrFull) {
			if err != nil {
				t.Fatalf("%s: round %d: insert: %v", name, r, err)
			}
			continue
		}
		fulls++
		if !m.has(other) && otherWins.Load() == wins {
			violations++
		}
		for m.insert(k) != nil { // make room: take the other key out
			if otherIn.Load() {
				if err := m.delete(other); err != nil {
					t.Fatalf("%s: round %d: Delete(other): %v", name, r, err)
				}
				otherIn.Store(false)
				// Insert again before yielding: on one processor, a yield
				// here let the other goroutine take the room back every
				// time, until a preemption broke the rhythm (minutes).
				continue
			}
			runtime.Gosched()
		}
	}
	stop.Store(true)
	wg.Wait()
	if violations != 0 {
		t.Errorf("%s: %d of %d inserts right after a delete were htab.ErrFull with no other key inserted (%d ErrFull in all)", name, violations, rounds, fulls)
	}
}
