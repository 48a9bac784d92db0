package htab

import (
	"math/bits"
	"runtime"
	"sync/atomic"
)

// Bucket is one bucket of a generated hash map: a sequence lock and the head
// of the bucket's chain of elements. It is 8 bytes and holds no pointer.
//
// Writers take the bucket with Lock, which makes the sequence odd, and Unlock
// makes it even again. Readers take no lock: they note the sequence with
// ReadBegin, walk the chain with atomic loads, and keep what they read only if
// ReadValid says no writer held the bucket meanwhile; else they read again.
// Every element a reader can reach is validated this way, including elements
// that a concurrent delete moved to another bucket (the kernel's nulls
// markers solve the same problem).
type Bucket struct {
	seq  atomic.Uint32 // even: stable; odd: a writer holds the bucket
	head atomic.Uint32 // index+1 of the newest element; 0: the bucket is empty
}

// Head is index+1 of the bucket's newest element, 0 if it is empty.
func (b *Bucket) Head() uint32 { return b.head.Load() }

// SetHead links element index+1 (0: none) at the head. Only under Lock.
func (b *Bucket) SetHead(i uint32) { b.head.Store(i) }

// Lock takes the bucket for writing.
func (b *Bucket) Lock() {
	s := b.seq.Load()
	if s&1 != 0 || !b.seq.CompareAndSwap(s, s+1) {
		b.lockSlow()
	}
}

// Unlock releases the bucket and lets readers validate again.
func (b *Bucket) Unlock() { b.seq.Add(1) }

// ReadBegin waits until no writer holds the bucket and returns the sequence
// to pass to ReadValid.
func (b *Bucket) ReadBegin() uint32 {
	s := b.seq.Load()
	if s&1 != 0 {
		s = b.waitStable()
	}
	return s
}

// ReadValid reports whether nothing changed the bucket since ReadBegin
// returned s: what was read in between is a consistent snapshot.
func (b *Bucket) ReadValid(s uint32) bool { return b.seq.Load() == s }

// spinsBeforeYield bounds busy-waiting: a writer holds a bucket for tens of
// nanoseconds, but if it was descheduled, spinning only burns its CPU.
const spinsBeforeYield = 64

func (b *Bucket) lockSlow() {
	for n := 0; ; n++ {
		s := b.seq.Load()
		if s&1 == 0 && b.seq.CompareAndSwap(s, s+1) {
			return
		}
		if n >= spinsBeforeYield {
			runtime.Gosched()
		}
	}
}

func (b *Bucket) waitStable() uint32 {
	for n := 0; ; n++ {
		if s := b.seq.Load(); s&1 == 0 {
			return s
		}
		if n >= spinsBeforeYield {
			runtime.Gosched()
		}
	}
}

// BucketCount is the number of buckets of a map of maxEntries:
// roundup_pow_of_two(maxEntries), as the kernel sizes it.
func BucketCount(maxEntries int) int {
	if maxEntries <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(maxEntries-1))
}
