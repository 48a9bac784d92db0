// Package linearize holds concurrency checks that generated maps of several
// packages share: each drives a map through a small set of closures and fails
// the test when a single-key operation is seen out of order.
package linearize

import (
	"errors"
	"runtime"
	"sync"
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
// the inserter must find room: an htab.ErrFull there means the delete became
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
		if errors.Is(err, htab.ErrFull) {
			full++
			err = m.Insert(next) // the delete has returned now
		}
		if err != nil {
			t.Fatalf("%s: round %d: insert: %v", name, r, err)
		}
		live[x] = next
		next++
	}
	if full != 0 {
		t.Errorf("%s: %d of %d inserts after an observed delete were htab.ErrFull", name, full, rounds)
	}
}
