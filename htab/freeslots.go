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
//
// Above the slot bits are summary levels, each with one bit per word of the
// level below, set while that word may have a free bit: Alloc finds the free
// slots of a nearly full map by descending them, in a few loads whatever the
// size, where a scan of the slot bits would read n/64 words (a map at
// capacity that deletes one key and inserts another has one free slot).
type FreeSlots struct {
	// levels[0] holds the slot bits; bit j of levels[l+1] is set when word j
	// of levels[l] may be non-zero, and is clear only while that word is
	// zero (the takers that empty a word clear its bit and look again, see
	// emptied). The last level is one word.
	levels [][]atomic.Uint64
}

// Init makes s the bitmap of n slots, all free. n is a power of two (a
// bucket count).
func (s *FreeSlots) Init(n int) {
	s.levels = nil
	for bitsAt := n; ; bitsAt = (bitsAt + 63) / 64 {
		words := make([]atomic.Uint64, (bitsAt+63)/64)
		for i := range words {
			words[i].Store(^uint64(0))
		}
		if bitsAt%64 != 0 { // fewer than 64 bits: one word, its low bits
			words[0].Store(1<<bitsAt - 1)
		}
		s.levels = append(s.levels, words)
		if len(words) == 1 {
			return
		}
	}
}

// Claim takes slot i if it is free.
func (s *FreeSlots) Claim(i uint32) bool {
	w := &s.levels[0][i>>6]
	bit := uint64(1) << (i & 63)
	for {
		x := w.Load()
		if x&bit == 0 {
			return false
		}
		if w.CompareAndSwap(x, x&^bit) {
			if x == bit {
				s.emptied(0, i>>6)
			}
			return true
		}
	}
}

// Release frees slot i. Only a word that was empty needs its summary bits:
// over a non-empty word they are set, or an emptier is about to re-read it.
func (s *FreeSlots) Release(i uint32) {
	if s.levels[0][i>>6].Or(uint64(1)<<(i&63)) == 0 {
		s.nonEmpty(0, i>>6)
	}
}

// nonEmpty sets the bit of word wi of level l, which is not zero, in every
// level above. It stops at a bit already set: the levels above it are set
// too, or whoever is clearing it looks at the word below afterwards and sets
// it again (emptied). Most releases stop at once, without writing the
// shared summary line.
func (s *FreeSlots) nonEmpty(l int, wi uint32) {
	for l++; l < len(s.levels); l++ {
		w, bit := &s.levels[l][wi>>6], uint64(1)<<(wi&63)
		if w.Load()&bit != 0 {
			return
		}
		w.Or(bit)
		wi >>= 6
	}
}

// emptied is called by whoever made word wi of level l zero, or found it
// zero under a set bit: it clears the word's bit one level up, then looks at
// the word again. If a Release came in between, it sets the bit back, and
// those above it (a clearer of one of them may have seen this level empty
// meanwhile); if it emptied the summary word, it goes on one level up. So no
// bit stays clear above a non-zero word.
func (s *FreeSlots) emptied(l int, wi uint32) {
	for ; l+1 < len(s.levels); l++ {
		up, bit := &s.levels[l+1][wi>>6], uint64(1)<<(wi&63)
		old := up.And(^bit)
		if s.levels[l][wi].Load() != 0 {
			s.nonEmpty(l, wi)
			return
		}
		if old&^bit != 0 {
			return // the summary word still has other bits
		}
		wi >>= 6
	}
}

// Alloc takes a free slot, near hint if it can: the nearest free slot in the
// hint's word (likely the same cache line or page as slot hint), then the
// next word, then any, found through the summary levels. The caller must
// know that a slot is free or being freed (a map reserves one in its count
// first); Alloc waits for it.
func (s *FreeSlots) Alloc(hint uint32) uint32 {
	leaf := s.levels[0]
	nw := uint32(len(leaf))
	if i, ok := s.takeNearest(hint); ok {
		return i
	}
	if nw > 1 {
		if i, ok := s.takeIn((hint>>6 + 1) & (nw - 1)); ok {
			return i
		}
	}
	for tries := 0; ; tries++ {
		if i, ok := s.descend(hint); ok {
			return i
		}
		if tries >= SpinsBeforeYield {
			runtime.Gosched() // a slot is being freed right now
		}
	}
}

// descend walks the summary levels from the top to a word with a free slot,
// taking at each level the first set bit from the hint's position on, and
// takes that word's lowest free slot. False if it met only words that
// emptied meanwhile, whose summary bits it then cleared.
func (s *FreeSlots) descend(hint uint32) (uint32, bool) {
	wi := uint32(0) // word index at the current level
	for l := len(s.levels) - 1; l > 0; l-- {
		x := s.levels[l][wi].Load()
		if x == 0 {
			s.emptied(l, wi) // nothing to clear above the top level
			return 0, false
		}
		// The hint's bit at this level: its word index one level down.
		pos := (hint >> (6 * l)) & 63
		wi = wi<<6 | (pos+uint32(bits.TrailingZeros64(bits.RotateLeft64(x, -int(pos)))))&63
	}
	if i, ok := s.takeIn(wi); ok {
		return i, true
	}
	s.emptied(0, wi) // a stale summary bit: clear it (it is set back if wrong)
	return 0, false
}

// takeNearest takes the free slot nearest to hint within hint's word.
func (s *FreeSlots) takeNearest(hint uint32) (uint32, bool) {
	w := &s.levels[0][hint>>6]
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
			if x == uint64(1)<<bit {
				s.emptied(0, hint>>6)
			}
			return hint&^63 | bit, true
		}
	}
}

// takeIn takes the lowest free slot of word wi.
func (s *FreeSlots) takeIn(wi uint32) (uint32, bool) {
	w := &s.levels[0][wi]
	for {
		x := w.Load()
		if x == 0 {
			return 0, false
		}
		if w.CompareAndSwap(x, x&(x-1)) {
			if x&(x-1) == 0 {
				s.emptied(0, wi)
			}
			return wi<<6 | uint32(bits.TrailingZeros64(x)), true
		}
	}
}
