// Package linearize holds concurrency checks that generated maps of several
// packages share: each drives a map through a small set of closures and fails
// the test when a single-key operation is seen out of order.
package linearize

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// Map is what the checks need of a map, with keys and values reduced to
// integers: Insert is Update(k, v, htab.UpdateNoExist).
type Map struct {
	Insert func(k uint64) error
	Has    func(k uint64) bool
	Delete func(k uint64) error // any way of deleting k: Delete, LookupAndDelete, a batch
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
		if err := m.Insert(next); err != nil {
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
			if err := m.Delete(live[x]); err != nil {
				t.Errorf("%s: Delete: %v", name, err)
			}
		})
		var err error
		wg.Go(func() {
			for m.Has(live[x]) {
			}
			err = m.Insert(next)
		})
		wg.Wait()
		var noRoom error
		if errors.Is(err, htab.ErrFull) || errors.Is(err, htab.ErrNoMem) {
			full++
			noRoom = err
			err = m.Insert(next) // the delete has returned now
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
		check("insert", r, race(m.Insert, k), htab.ErrKeyExist)
		if !m.Has(k) {
			t.Fatalf("%s: round %d: the inserted key is not found", name, r)
		}
		check("delete", r, race(m.Delete, k), htab.ErrKeyNotExist)
		if m.Has(k) {
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
		if err := m.Insert(k); err != nil {
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
			} else if m.Insert(other) == nil {
				otherWins.Add(1)
				otherIn.Store(true)
			}
		}
	})
	violations, fulls := 0, 0
	for r := range rounds {
		k := uint64(r % entries)
		wins := otherWins.Load()
		if err := m.Delete(k); err != nil {
			t.Fatalf("%s: round %d: Delete: %v", name, r, err)
		}
		err := m.Insert(k)
		if !errors.Is(err, htab.ErrFull) {
			if err != nil {
				t.Fatalf("%s: round %d: insert: %v", name, r, err)
			}
			continue
		}
		fulls++
		if !m.Has(other) && otherWins.Load() == wins {
			violations++
		}
		for m.Insert(k) != nil { // make room: take the other key out
			if otherIn.Load() {
				if err := m.Delete(other); err != nil {
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
