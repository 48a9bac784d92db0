package htab

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newRecordingLock is a listLock whose apply records the nodes it frees.
func newRecordingLock() (*listLock, *[]uint32) {
	var applied []uint32
	k := &listLock{}
	k.apply = func(x uint32) { applied = append(applied, x) }
	return k, &applied
}

func TestListLockPushFree(t *testing.T) {
	k, applied := newRecordingLock()
	k.push(7)
	assert.Equal(t, []uint32{7}, *applied, "a free with the lock free is applied at once")
	assert.True(t, k.mu.TryLock(), "push released the lock")
	k.mu.Unlock()
}

func TestListLockPushWhileHeld(t *testing.T) {
	k, applied := newRecordingLock()
	k.lock()
	k.push(1) // must not wait for the lock we hold
	k.push(2)
	k.push(3)
	assert.Empty(t, *applied, "frees queued while the lock is held are applied by the holder, not before")
	assert.EqualValues(t, 3, k.queued.Load())
	k.unlock()
	assert.Equal(t, []uint32{1, 2, 3}, *applied, "the holder applies queued frees in order when it unlocks")
	assert.Zero(t, k.queued.Load())

	// A free queued before lock is applied by lock, before the holder looks.
	k.mu.Lock()
	k.push(4)
	k.mu.Unlock() // a bare Unlock: the queue keeps node 4
	k.lock()
	assert.Equal(t, []uint32{1, 2, 3, 4}, *applied, "lock applies the frees queued before it")
	k.push(5)
	k.unlock()
	assert.Equal(t, []uint32{1, 2, 3, 4, 5}, *applied)
}

// TestListLockConcurrent: pushers and lock holders race; by the next look at
// the lists every free is applied exactly once, in each pusher's order, none
// is left in the queue, and apply always runs under the lock (-race).
func TestListLockConcurrent(t *testing.T) {
	const pushers, perPusher, holders = 4, 5000, 2
	k, applied := newRecordingLock()
	var wg sync.WaitGroup
	for p := range pushers {
		wg.Go(func() {
			for i := range perPusher {
				k.push(uint32(p*perPusher + i))
			}
		})
	}
	stop := make(chan struct{})
	var hw sync.WaitGroup
	for range holders {
		hw.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				k.lock()
				_ = len(*applied) // look at the lists, as a refill would
				k.unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	hw.Wait()
	// The next look at the lists, as the next refill's: every free must be
	// applied by then (a free queued after the last holder's check may wait
	// for it).
	k.lock()
	k.unlock()

	assert.Zero(t, k.queued.Load(), "a free was left in the queue")
	require.Len(t, *applied, pushers*perPusher)
	seen := make([]bool, pushers*perPusher)
	last := make([]int, pushers)
	for i := range last {
		last[i] = -1
	}
	for _, x := range *applied {
		require.False(t, seen[x], "node %d freed twice", x)
		seen[x] = true
		p, i := int(x)/perPusher, int(x)%perPusher
		require.Greater(t, i, last[p], "pusher %d's frees applied out of order", p)
		last[p] = i
	}
}

// TestLRUPushWhileRefilling: a free that finds the global lists locked (by a
// refill on another CPU) does not wait; the node stays where it is until the
// holder lets go, and then it is on the global free list, as if the free had
// waited for the lock as the kernel's does.
func TestLRUPushWhileRefilling(t *testing.T) {
	m := newLRUTestMap(64, 2, false, false)
	for k := range uint64(40) {
		require.NoError(t, m.update(int(k%2), k, k, 0))
	}
	// Flush both CPUs' pending nodes into the global lists: a refill flushes.
	for c := range 2 {
		loc := &m.lru.local[c]
		loc.lock.lock()
		m.lru.popFreeToLocal(loc)
		loc.lock.unlock()
	}
	m.mu.Lock()
	node := m.byKey[5]
	m.mu.Unlock()
	typ := m.lru.nodeType(node)
	require.Contains(t, []uint32{lruActive, lruInactive}, typ, "node of key 5 should be in the global lists")

	g := &m.lru.global.lock
	g.lock() // another CPU's refill
	m.mu.Lock()
	m.unlink(node)
	m.mu.Unlock()
	m.lru.Push(node) // returns without the lock
	assert.Equal(t, typ, m.lru.nodeType(node), "the free waits for the holder")
	g.unlock()
	assert.EqualValues(t, lruFree, m.lru.nodeType(node), "the holder applied the free")
	m.checkTable(t)
}

// TestLRUPushPendingWhileLocked: the free of a node pending on CPU 1, while
// CPU 1's local lists are locked, is applied when CPU 1 lets go: to its local
// free list if the node is still pending, else (CPU 1 flushed it meanwhile, as
// its refill does) to the global free list, as the kernel's re-check does.
func TestLRUPushPendingWhileLocked(t *testing.T) {
	for _, flushed := range []bool{false, true} {
		l := NewLRU(16, 2, false, func(uint32) bool { return false })
		n, ok := l.Pop(1)
		require.True(t, ok)
		loc := &l.local[1]
		loc.lock.lock()
		l.Push(n)
		assert.EqualValues(t, lruLocalPending, l.nodeType(n), "the free waits for CPU 1")
		if flushed {
			l.global.lock.lock()
			l.localFlush(loc)
			l.global.lock.unlock()
		}
		loc.lock.unlock()
		if flushed {
			assert.EqualValues(t, lruFree, l.nodeType(n), "flushed: freed to the global list")
			assert.Equal(t, n, l.order(l.global.heads[lruFree])[0])
		} else {
			assert.EqualValues(t, lruLocalFree, l.nodeType(n), "still pending: freed to CPU 1's local list")
			assert.Equal(t, n, l.order(loc.free)[0])
		}
		_, err := l.check()
		require.NoError(t, err)
	}
}
