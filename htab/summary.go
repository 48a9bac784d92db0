package htab

import (
	"sync/atomic"
	"unsafe"
)

// Summaries holds one byte per bucket of a map in the home layout: a summary
// of the hashes of the keys in the bucket's chain, one bit per key (a bloom
// filter of one byte and one hash). A lookup asks it before it reads the
// bucket: a key whose bit is clear is not in the chain, and the lookup stops
// there without touching the bucket's slot. At one byte a bucket the
// summaries are a 25th of a k8v8 map's slots, so they stay in the cache when
// the slots do not; most absent keys, which a flow table sees for every new
// flow, then cost no cache miss at all (one, if the summaries are out of the
// cache too), where a chain walk costs one for every element it follows.
//
// The rules that make the summary's "absent" true (a linearizable lookup):
//
//   - A writer adds a key's bit while it holds the key's bucket lock, before
//     the key is linked: whoever can see the key can see its bit.
//   - A writer that unlinks a key recomputes the bucket's byte from the keys
//     left in the chain (Set), after the unlink and before it unlocks; one
//     that empties the bucket sets it to zero. A bit is cleared only once no
//     key of the chain has it.
//
// So a reader that finds the bit clear saw a moment at which the key was not
// in the chain. Between a delete's unlink and its Set the byte has bits no key
// needs, which only costs a lookup its chain read.
//
// Four buckets share a 32-bit word, so Add and Set are atomic
// read-modify-writes. The zero value has no buckets; use Init.
type Summaries struct {
	words []atomic.Uint32
}

// Init makes s the summaries of n buckets, all empty.
func (s *Summaries) Init(n int) { s.words = make([]atomic.Uint32, (n+3)/4) }

// SummaryBit is the bit of a key of hash h in its bucket's summary: 1<<0 to
// 1<<7. It comes from the top bits of h times an odd constant, which depend
// on every bit of h: the low bits, which choose the bucket, are the same for
// all the keys of a chain.
func SummaryBit(h uint32) uint8 { return 1 << (h * 0x9e3779b1 >> 29) }

// MayHold reports whether bucket bi's chain may hold a key of hash h: false
// means it does not.
func (s *Summaries) MayHold(bi, h uint32) bool {
	return s.words[bi>>2].Load()>>(bi&3*8)&uint32(SummaryBit(h)) != 0
}

// Add adds a key of hash h to bucket bi's summary. Only under the bucket's
// lock, before the key is linked.
func (s *Summaries) Add(bi, h uint32) {
	s.words[bi>>2].Or(uint32(SummaryBit(h)) << (bi & 3 * 8))
}

// Set makes bucket bi's summary b, the bits of the keys left in its chain.
// Only under the bucket's lock, after the unlink that made it stale.
func (s *Summaries) Set(bi uint32, b uint8) {
	w, shift := &s.words[bi>>2], bi&3*8
	for {
		x := w.Load()
		y := x&^(0xff<<shift) | uint32(b)<<shift
		if x == y || w.CompareAndSwap(x, y) {
			return
		}
	}
}

// BulkTouchBytes is the size of a home-layout map's slots from which its
// LookupBulk touches each group's slots before it reads them. A map smaller
// than that is mostly in the cache, where a core overlaps the misses of a
// loop of Lookup by itself and touching ahead only adds work: measured on a
// 2-core EPYC (1 MiB of L2 a core, 32 MiB of L3), touching ahead was 0.64–
// 1.03x the loop on hits at 2^16 and 2^17 entries (1.5 and 3 MiB of slots),
// 0.77–1.04x at 2^18 (6 MiB), 0.87–1.53x at 2^19 (12 MiB) and 1.5–1.8x from
// 2^20 (24 MiB).
const BulkTouchBytes = 8 << 20

// SummaryPrefetchBuckets is the bucket count from which LookupBulk
// prefetches a group's summaries before it reads them, in a loop of their
// own: 2^20 buckets, 1 MiB of summaries, more than most cores' L2. Below
// it the summaries are mostly in the cache and the extra loop costs more
// than it saves (measured on 2^16-entry maps: misses 7 % slower than a loop
// of Lookup; at 2^22 and 2^24 entries, hits 1.2–1.6x faster than without).
const SummaryPrefetchBuckets = 1 << 20

// Prefetch asks the CPU to bring bucket bi's summary into the cache, as
// Prefetch does.
func (s *Summaries) Prefetch(bi uint32) { Prefetch(unsafe.Pointer(&s.words[bi>>2])) }

// Get is bucket bi's summary byte.
func (s *Summaries) Get(bi uint32) uint8 { return uint8(s.words[bi>>2].Load() >> (bi & 3 * 8)) }
