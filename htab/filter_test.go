package htab

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// filterKeys is a map's keys as a filter's rebuild walks them: the hashes
// live holds; each walk first waits for the channel's go-ahead if there is
// one (a walk that the scheduler keeps waiting).
type filterKeys struct {
	mu    sync.Mutex
	live  map[uint32]bool
	hold  chan struct{} // closed: walks go on at once
	walks int
}

func (k *filterKeys) walk(add func(h uint32)) {
	<-k.hold
	k.mu.Lock()
	defer k.mu.Unlock()
	k.walks++
	for h := range k.live {
		add(h)
	}
}

func hashOf(i int) uint32 { return uint32(i) * 0x9e3779b1 }

func TestFilterNoFalseNegatives(t *testing.T) {
	keys := &filterKeys{live: map[uint32]bool{}, hold: make(chan struct{})}
	close(keys.hold)
	f := NewFilter(1000, 3, keys.walk)
	for i := range 1000 {
		keys.mu.Lock()
		keys.live[hashOf(i)] = true
		keys.mu.Unlock()
		f.Add(hashOf(i))
	}
	for i := range 1000 {
		require.True(t, f.MayContain(hashOf(i)), "key %d added, then MayContain says no", i)
	}
	f.Rebuild()
	for i := range 1000 {
		require.True(t, f.MayContain(hashOf(i)), "key %d live through a rebuild, then MayContain says no", i)
	}
}

// TestFilterRebuildsAgainAfterASlowWalk: a rebuild whose walk is kept
// waiting while a stream of keys is added and deleted comes out full of the
// deleted ones; the filter must rebuild again rather than keep them.
func TestFilterRebuildsAgainAfterASlowWalk(t *testing.T) {
	const max = 2048
	keys := &filterKeys{live: map[uint32]bool{}, hold: make(chan struct{})}
	f := NewFilter(max, 3, keys.walk)
	for i := range max {
		keys.live[hashOf(i)] = true
		f.Add(hashOf(i))
	}
	// Churn until a rebuild starts, and more while its walk waits: every
	// key added then goes into the new filter too.
	next := max
	for f.Rebuilds() == 0 && next < 100*max {
		keys.mu.Lock()
		delete(keys.live, hashOf(next-max))
		keys.live[hashOf(next)] = true
		keys.mu.Unlock()
		f.Add(hashOf(next))
		next++
		if next == 20*max {
			close(keys.hold) // let the walk go on
		}
	}
	f.Wait()
	assert.GreaterOrEqual(t, keys.walks, 2, "a walk that came out over the limit was not followed by another")
	fresh := FilterFalsePositive(f.Bits(), 3, max)
	fp := 0
	for i := range 100000 {
		if f.MayContain(hashOf(1<<30 + i)) {
			fp++
		}
	}
	assert.Less(t, float64(fp)/100000, 2*fresh, "false positives after the rebuilds (fresh filter: %.4f)", fresh)
}
