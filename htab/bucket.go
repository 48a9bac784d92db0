package htab

import (
	"math/bits"
	"runtime"
	"sync/atomic"
)

// SeqLock is a sequence lock, 4 bytes with no pointer: a bucket's (Bucket),
// or a slot's in the home layout, where slot b is also bucket b.
//
// Writers take it with Lock, which makes the sequence odd, and Unlock makes
// it even again. Readers take no lock: they note the sequence with
// ReadBegin, read with atomic loads, and keep what they read only if
// ReadValid says no writer held the lock meanwhile; else they read again.
type SeqLock struct {
	seq uint32 // even: stable; odd: a writer holds the lock; only sync/atomic and StoreRelease
}

// Lock takes the lock for writing.
func (l *SeqLock) Lock() {
	s := atomic.LoadUint32(&l.seq)
	if s&1 != 0 || !atomic.CompareAndSwapUint32(&l.seq, s, s+1) {
		l.lockSlow()
	}
}

// TryLock takes the lock if no writer holds it.
func (l *SeqLock) TryLock() bool {
	s := atomic.LoadUint32(&l.seq)
	return s&1 == 0 && atomic.CompareAndSwapUint32(&l.seq, s, s+1)
}

// Unlock releases the lock and lets readers validate again. Only the holder
// writes the sequence while it is odd, so a release store of the next value
// is enough (as the kernel's spin_unlock and write_seqcount_end are).
func (l *SeqLock) Unlock() { StoreRelease(&l.seq, atomic.LoadUint32(&l.seq)+1) }

// Load is the sequence now, for a reader's fast path that checks itself that
// it is even (no writer) before it reads.
func (l *SeqLock) Load() uint32 { return atomic.LoadUint32(&l.seq) }

// ReadBegin waits until no writer holds the lock and returns the sequence to
// pass to ReadValid.
func (l *SeqLock) ReadBegin() uint32 {
	s := atomic.LoadUint32(&l.seq)
	if s&1 != 0 {
		s = l.waitStable()
	}
	return s
}

// ReadValid reports whether no writer took the lock since ReadBegin (or an
// even Load) returned s: what was read in between is a consistent snapshot.
func (l *SeqLock) ReadValid(s uint32) bool { return atomic.LoadUint32(&l.seq) == s }

// SpinsBeforeYield bounds busy-waiting, on a sequence lock or anything else a
// writer holds for tens of nanoseconds: if the holder was descheduled,
// spinning only burns its CPU, so a waiter yields (runtime.Gosched) after
// this many tries.
const SpinsBeforeYield = 64

func (l *SeqLock) lockSlow() {
	for n := 0; ; n++ {
		s := atomic.LoadUint32(&l.seq)
		if s&1 == 0 && atomic.CompareAndSwapUint32(&l.seq, s, s+1) {
			return
		}
		if n >= SpinsBeforeYield {
			runtime.Gosched()
		}
	}
}

func (l *SeqLock) waitStable() uint32 {
	for n := 0; ; n++ {
		if s := atomic.LoadUint32(&l.seq); s&1 == 0 {
			return s
		}
		if n >= SpinsBeforeYield {
			runtime.Gosched()
		}
	}
}

// Bucket is one bucket of a generated hash map: a sequence lock and the head
// of the bucket's chain of elements. It is 8 bytes and holds no pointer.
//
// Writers lock the bucket (SeqLock) to change its chain; readers walk the
// chain between ReadBegin and ReadValid. Every element a reader can reach is
// validated this way, including elements that a concurrent delete moved to
// another bucket (the kernel's nulls markers solve the same problem).
type Bucket struct {
	SeqLock
	head uint32 // index+1 of the newest element; 0: the bucket is empty; only sync/atomic and StoreRelease
}

// Head is index+1 of the bucket's newest element, 0 if it is empty.
func (b *Bucket) Head() uint32 { return atomic.LoadUint32(&b.head) }

// SetHead links element index+1 (0: none) at the head. Only under Lock.
func (b *Bucket) SetHead(i uint32) { StoreRelease(&b.head, i) }

// BucketCount is the number of buckets of a map of maxEntries:
// roundup_pow_of_two(maxEntries), as the kernel sizes it.
func BucketCount(maxEntries int) int {
	if maxEntries <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(maxEntries-1))
}
