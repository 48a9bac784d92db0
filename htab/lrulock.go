package htab

import (
	"sync"
	"sync/atomic"
)

// listLock is the lock of a set of LRU lists (the global lists, a CPU's local
// lists, or a per-CPU LRU's lists), with a queue for the frees that find it
// taken.
//
// The kernel's bpf_lru_push_free spins on a raw spinlock while another CPU
// holds the lists' lock, which a refill holds for microseconds (it flushes,
// rotates and evicts up to 128 elements). A sync.Mutex waiter sleeps instead,
// and on a virtual machine waking it costs tens of microseconds: with two
// goroutines on a hot LRU, most of the sleeping was frees waiting out a
// refill, and half the CPU time went idle. So a free (push) that finds the lock
// taken leaves its node in the queue and goes on, and whoever holds the lock
// applies the queued frees, in order, when it takes the lock and before it
// lets go of it.
//
// This keeps the kernel's semantics: a free is not observable until the lists
// are looked at, which only happens under the lock, and every acquisition
// (lock, and push's own TryLock) applies the queue before anything else, so
// a queued free takes effect no later than the kernel's waiting free would.
// With no contention (one goroutine, the kernel differential tests) TryLock
// always succeeds and nothing is ever queued.
type listLock struct {
	mu sync.Mutex

	qmu    sync.Mutex    // guards queue
	queued atomic.Uint32 // len(queue), read without qmu
	queue  []uint32      // nodes freed while mu was held, oldest first
	spare  []uint32      // the array the queue had before the last drain (mu held)
	// apply frees one node; it runs with mu held.
	apply func(node uint32)
}

// lock takes the lists, with every free queued so far applied.
func (k *listLock) lock() {
	k.mu.Lock()
	k.drain()
}

// unlock applies the queued frees and releases the lists. The check after
// Unlock, and the second TryLock in push, keep frees from waiting in the
// queue for long: a free queued after the last drain is applied by this
// check or by its pusher. Both are best effort (a failed TryLock promises
// nothing, not even that the lock is held); what the semantics rest on is
// that every acquisition drains first.
func (k *listLock) unlock() {
	for {
		k.drain()
		k.mu.Unlock()
		if k.queued.Load() == 0 || !k.mu.TryLock() {
			return
		}
	}
}

// push frees node: at once if the lock is free, else through the queue. It
// never waits for the lock, so it may be called with any LRU lock held,
// including k's own.
func (k *listLock) push(node uint32) {
	if k.mu.TryLock() {
		k.drain() // frees queued before this one go first
		k.apply(node)
		k.unlock()
		return
	}
	k.qmu.Lock()
	k.queue = append(k.queue, node)
	k.queued.Add(1)
	k.qmu.Unlock()
	// The holder may have drained for the last time before the append.
	if k.mu.TryLock() {
		k.unlock()
	}
}

// drain applies the queued frees, oldest first (mu held). The queue and
// spare swap arrays, so that a steady stream of frees allocates nothing.
func (k *listLock) drain() {
	for k.queued.Load() != 0 {
		k.qmu.Lock()
		q := k.queue
		k.queue = k.spare[:0]
		k.queued.Store(0)
		k.qmu.Unlock()
		for _, x := range q {
			k.apply(x)
		}
		k.spare = q
	}
}
