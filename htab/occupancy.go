package htab

import (
	"math/bits"
	"sync/atomic"
)

// Occupancy is a bitmap with one bit per bucket of a map: set while the
// bucket holds at least one element. Maps generated with -batch-lock sparse
// keep it so that a batch walk jumps from one non-empty bucket to the next
// with bits.TrailingZeros64 instead of visiting every bucket: dumping a sparse
// map costs in proportion to its entries, not to its buckets.
//
// Writers set a bucket's bit when they link its first element and clear it
// when they unlink its last one (the classic layout sets it just before the
// link, the home layout just after), always while holding the bucket's
// lock. So, whenever no writer holds the bucket, its bit says exactly
// whether it is empty, and a bucket that stays non-empty keeps its bit set
// throughout: a walk never misses a key that is present for the whole walk.
// Bits of different buckets share a word, so Set and Clear are atomic
// read-modify-writes.
//
// The zero value is an empty bitmap of no buckets; use NewOccupancy.
type Occupancy struct {
	words []atomic.Uint64
	n     uint32 // number of bits (buckets)
}

// NewOccupancy returns a bitmap of n bits, all clear.
func NewOccupancy(n int) Occupancy {
	return Occupancy{words: make([]atomic.Uint64, (n+63)/64), n: uint32(n)}
}

// Len is the number of bits.
func (o *Occupancy) Len() int { return int(o.n) }

// Set marks bucket i as non-empty.
func (o *Occupancy) Set(i uint32) { o.words[i/64].Or(1 << (i % 64)) }

// Clear marks bucket i as empty.
func (o *Occupancy) Clear(i uint32) { o.words[i/64].And(^(1 << (i % 64))) }

// Has reports whether bucket i is marked non-empty.
func (o *Occupancy) Has(i uint32) bool { return o.words[i/64].Load()&(1<<(i%64)) != 0 }

// Next returns the first marked bucket at or after i, or Len() if there is
// none. It reads one word per 64 buckets and skips empty stretches with
// bits.TrailingZeros64.
func (o *Occupancy) Next(i uint32) uint32 {
	if i >= o.n {
		return o.n
	}
	w := i / 64
	word := o.words[w].Load() &^ (1<<(i%64) - 1) // drop the bits before i
	for word == 0 {
		w++
		if int(w) >= len(o.words) {
			return o.n
		}
		word = o.words[w].Load()
	}
	return min(w*64+uint32(bits.TrailingZeros64(word)), o.n)
}
