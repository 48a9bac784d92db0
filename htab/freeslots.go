package htab

import (
	"math/bits"
	"runtime"
	"sync/atomic"
)

// FreeSlots is the free-slot bitmap of a map in the home layout: one bit per
// slot, set while the slot is free. Claim takes a given slot, Alloc a free
// one near a hint, and Release gives one back. Every method is safe for
// concurrent use; the bitmap holds no pointer to the map.
type FreeSlots struct {
	words  []atomic.Uint64
	cursor atomic.Uint32 // where Alloc's global search resumes, in words
}

// Init makes s the bitmap of n slots, all free. n is a power of two (a
// bucket count).
func (s *FreeSlots) Init(n int) {
	s.words = make([]atomic.Uint64, (n+63)/64)
	for i := range s.words {
		s.words[i].Store(^uint64(0))
	}
	if n%64 != 0 { // fewer than 64 slots: one word, its low n bits
		s.words[0].Store(1<<n - 1)
	}
}

// Claim takes slot i if it is free.
func (s *FreeSlots) Claim(i uint32) bool {
	w := &s.words[i>>6]
	bit := uint64(1) << (i & 63)
	for {
		x := w.Load()
		if x&bit == 0 {
			return false
		}
		if w.CompareAndSwap(x, x&^bit) {
			return true
		}
	}
}

// Release frees slot i.
func (s *FreeSlots) Release(i uint32) {
	s.words[i>>6].Or(uint64(1) << (i & 63))
}

// Alloc takes a free slot, near hint if it can: the nearest free slot in the
// hint's word (likely the same cache line or page as slot hint), then the
// next word, then a search from the cursor. The caller must know that a slot
// is free or being freed (a map reserves one in its count first); Alloc
// waits for it.
func (s *FreeSlots) Alloc(hint uint32) uint32 {
	nw := uint32(len(s.words))
	if i, ok := s.takeNearest(hint); ok {
		return i
	}
	if nw > 1 {
		if i, ok := s.takeIn((hint>>6 + 1) & (nw - 1)); ok {
			return i
		}
	}
	for {
		wi := s.cursor.Load() % nw
		for j := uint32(0); j < nw; j++ {
			if i, ok := s.takeIn((wi + j) % nw); ok {
				s.cursor.Store((wi + j) % nw)
				return i
			}
		}
		runtime.Gosched() // a slot is being freed right now
	}
}

// takeNearest takes the free slot nearest to hint within hint's word.
func (s *FreeSlots) takeNearest(hint uint32) (uint32, bool) {
	w := &s.words[hint>>6]
	pos := hint & 63
	for {
		x := w.Load()
		if x == 0 {
			return 0, false
		}
		up := x >> pos // free slots at or above pos
		below := x & (uint64(1)<<pos - 1)
		var bit uint32
		switch {
		case up == 0:
			bit = uint32(63 - bits.LeadingZeros64(below))
		case below == 0:
			bit = pos + uint32(bits.TrailingZeros64(up))
		default:
			a := uint32(bits.TrailingZeros64(up))
			if hi := uint32(63 - bits.LeadingZeros64(below)); a <= pos-hi {
				bit = pos + a
			} else {
				bit = hi
			}
		}
		if w.CompareAndSwap(x, x&^(uint64(1)<<bit)) {
			return hint&^63 | bit, true
		}
	}
}

// takeIn takes the lowest free slot of word wi.
func (s *FreeSlots) takeIn(wi uint32) (uint32, bool) {
	w := &s.words[wi]
	for {
		x := w.Load()
		if x == 0 {
			return 0, false
		}
		if w.CompareAndSwap(x, x&(x-1)) {
			return wi<<6 | uint32(bits.TrailingZeros64(x)), true
		}
	}
}
