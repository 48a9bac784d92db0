package htab

import (
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"
)

// Filter is the bloom filter that a map generated with -bloom K keeps in
// front of its lookups: a lookup (and a delete, or an update that needs the
// key present) asks it first and stops at "absent" when it can. It is the
// map's own, not the kernel's bloom filter map: a cache-blocked filter (Putze,
// Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom Filters"),
// whose K bits for a key all lie in one 64-byte block, so a probe costs one
// cache miss. The block and the K positions in it come from the map's 32-bit
// hash of the key: the block from its product with a 64-bit odd constant, the
// positions by double hashing in the block.
//
// The rules that keep it invisible (no false negative, ever):
//
//   - A writer adds a key's hash while it holds the key's bucket lock, before
//     the key is linked: whoever can see the key can see its bits.
//   - Bits are never cleared in a filter that lookups ask. Deletes leave
//     stale bits, which raise the false-positive rate. When the bits set
//     pass the point where the rate would be RebuildRatio times the rate of
//     a fresh filter holding MaxEntries keys, Add starts a rebuild in a
//     goroutine of its own: a new filter of the keys the map holds, built
//     online (lookups go on asking the old filter, and every key added
//     meanwhile goes into both), which then replaces the old one.
type Filter struct {
	cur  atomic.Pointer[filterBits] // the filter lookups ask
	next atomic.Pointer[filterBits] // during a rebuild, the one being built
	// hashes is K; blocks is the number of 512-bit blocks, and blockShift
	// the shift that takes a mixed hash to its block (64 for one block).
	hashes, blockShift uint32
	blocks             uint64
	limit              uint64 // set bits past which Add starts a rebuild
	// keys gives add the hash of every key in the map: the rebuild's walk
	// (see NewFilter for what it must do).
	keys       func(add func(h uint32))
	rebuilding atomic.Bool
	rebuilds   atomic.Uint64
}

// filterBits is one filter's bit array and how many of its bits are set.
type filterBits struct {
	words []uint64 // 8 words a block
	set   atomic.Uint64
	limit atomic.Uint64 // the Filter's limit, or higher if a rebuild left more set
}

// RebuildRatio is how much higher than a fresh filter's, holding MaxEntries
// keys, a filter's false-positive rate may rise from stale bits before Add
// asks for a rebuild (the contract's bound is 2; blocking adds a little).
const RebuildRatio = 1.6

// FilterBits is the size in bits of the filter in front of a map of
// maxEntries keys with hashes hash functions: maxEntries*hashes/ln 2 (the
// size that minimizes false positives for that many hashes), rounded up to a
// power of two of 512-bit blocks.
func FilterBits(maxEntries, hashes int) uint64 {
	n := uint64(math.Ceil(float64(maxEntries) * float64(hashes) / math.Ln2))
	blocks := (n + 511) / 512
	return 512 << bits.Len64(blocks-1)
}

// NewFilter makes the filter for a map of maxEntries keys with hashes (1..15)
// hash functions. keys is the map's walk for a rebuild: it must call add with
// the hash of every key the map holds, reading each bucket between two
// validated loads of its sequence (or under its lock), so that a key that an
// insert links while the walk runs is either seen by the walk or added by the
// insert, which finds the rebuild running (see Add).
func NewFilter(maxEntries, hashes int, keys func(add func(h uint32))) *Filter {
	m := FilterBits(maxEntries, hashes)
	f := &Filter{hashes: uint32(hashes), blocks: m / 512, keys: keys}
	f.blockShift = uint32(64 - bits.Len64(f.blocks-1))
	// A fresh filter of maxEntries keys has 1-e^(-kn/m) of its bits set;
	// the rate is that fraction to the k-th power, so RebuildRatio times it
	// is reached at RebuildRatio^(1/k) times that fraction.
	k := float64(hashes)
	fill := (1 - math.Exp(-k*float64(maxEntries)/float64(m))) * math.Pow(RebuildRatio, 1/k)
	f.limit = uint64(min(fill, 1) * float64(m))
	f.cur.Store(f.newBits())
	return f
}

func (f *Filter) newBits() *filterBits {
	fb := &filterBits{words: make([]uint64, 8*f.blocks)}
	fb.limit.Store(f.limit)
	return fb
}

// Bits is the size of the filter in bits.
func (f *Filter) Bits() uint64 { return 512 * f.blocks }

// Hashes is the number of bits a key sets.
func (f *Filter) Hashes() int { return int(f.hashes) }

// Rebuilds is how many times the filter was rebuilt.
func (f *Filter) Rebuilds() uint64 { return f.rebuilds.Load() }

// place is the first word of h's block and the first two positions of the
// double hashing, a and b (b odd), in it.
func (f *Filter) place(h uint32) (block uint64, a, b uint32) {
	x := uint64(h)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	block = 0
	if f.blockShift < 64 {
		block = (x >> f.blockShift) * 8
	}
	return block, uint32(x>>7) & 511, uint32(x>>16)&511 | 1
}

// MayContain reports whether a key of hash h may be in the map: false means
// it certainly is not.
func (f *Filter) MayContain(h uint32) bool {
	w := f.cur.Load().words
	block, a, b := f.place(h)
	blk := w[block : block+8 : block+8]
	for range f.hashes {
		if atomic.LoadUint64(&blk[a>>6])&(1<<(a&63)) == 0 {
			return false
		}
		a = (a + b) & 511
	}
	return true
}

// Add sets the bits of a key of hash h, in the filter being built too if a
// rebuild is running, and starts a rebuild if the filter is due for one.
// Call it under the key's bucket lock, before the key is linked (see
// Filter).
func (f *Filter) Add(h uint32) {
	// next before cur. A writer that finds no rebuild running locked its
	// bucket before the rebuild began (so before its walk reached the
	// bucket), and the walk, which cannot read the bucket while the writer
	// holds it, sees the key; one that finds it running adds to both.
	if n := f.next.Load(); n != nil {
		f.add(n, h)
	}
	c := f.cur.Load()
	f.add(c, h)
	if c.set.Load() > c.limit.Load() && f.rebuilding.CompareAndSwap(false, true) {
		go f.rebuild()
	}
}

func (f *Filter) add(fb *filterBits, h uint32) {
	block, a, b := f.place(h)
	blk := fb.words[block : block+8 : block+8]
	added := uint64(0)
	for range f.hashes {
		bit := uint64(1) << (a & 63)
		if atomic.OrUint64(&blk[a>>6], bit)&bit == 0 {
			added++
		}
		a = (a + b) & 511
	}
	if added != 0 {
		fb.set.Add(added)
	}
}

// Rebuild makes a new filter of the keys the map holds (NewFilter's keys)
// and makes it the filter lookups ask, now, in the caller's goroutine; if a
// rebuild is running, it waits for that one to end instead. Lookups are never
// blocked; keys added meanwhile go into both filters. Maps rebuild on their
// own (see Add); tests call Rebuild to know when one has ended.
func (f *Filter) Rebuild() {
	for !f.rebuilding.CompareAndSwap(false, true) {
		runtime.Gosched()
	}
	f.rebuild()
}

// Wait returns once no rebuild is running (for tests).
func (f *Filter) Wait() {
	for f.rebuilding.Load() {
		runtime.Gosched()
	}
}

// rebuild is Rebuild once the caller has set rebuilding. Keys added while
// the walk runs go into the new filter too, so a new filter can come out
// over its limit already, full of keys deleted meanwhile (on a busy machine
// a walk can take a long time): it then rebuilds again, a few times at most.
// A filter still over its limit after that (live keys that set more bits
// than the theory says, or an endless stream of inserts) waits for a
// sixty-fourth of its bits to be set before it asks for another, so that
// inserts do not each start a rebuild.
func (f *Filter) rebuild() {
	var fresh *filterBits
	for range 3 {
		fresh = f.newBits()
		f.next.Store(fresh)
		f.keys(func(h uint32) { f.add(fresh, h) })
		f.cur.Store(fresh)
		f.next.Store(nil)
		f.rebuilds.Add(1)
		if fresh.set.Load() <= fresh.limit.Load() {
			break
		}
	}
	if set := fresh.set.Load(); set > fresh.limit.Load() {
		fresh.limit.Store(set + (f.Bits()-set)/64)
	}
	f.rebuilding.Store(false)
}

// FilterFalsePositive is the expected false-positive rate of the filter of
// bits bits (a Filter's: 512-bit blocks) and hashes hash functions holding n
// keys: a block holds a Poisson number of keys, of mean 512n/bits, and a
// probe's rate is that of a 512-bit bloom filter holding that many (Putze et
// al.). It is a little above BloomFalsePositive of the same size, the price
// of one cache line a probe.
func FilterFalsePositive(bits uint64, hashes, n int) float64 {
	lambda := 512 * float64(n) / float64(bits)
	if lambda == 0 {
		return 0
	}
	fp, p := 0.0, math.Exp(-lambda) // p: Poisson(i; lambda)
	for i := 0; i < 2000 && (i < int(lambda) || p > 1e-16); i++ {
		if i > 0 {
			p *= lambda / float64(i)
		}
		// Double hashing in the block may probe one bit twice; the
		// difference is well under the rate's own spread.
		fp += p * math.Pow(1-math.Pow(1-1.0/512, float64(hashes*i)), float64(hashes))
	}
	return fp
}
