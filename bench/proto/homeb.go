// Code made from home.go by hand: HomeB is Home with a branch-free check of
// the head and the second element in Lookup (measured: not better).

package proto

import (
	"encoding/binary"
	"iter"
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/htabgen/htabgen/htab"
)

type slotB struct {
	seq  atomic.Uint32 // bucket's sequence lock: odd while a writer holds it
	next uint32        // homeBit | index+1 of the next older element
	key  atomic.Uint64 // the 8 key bytes, little-endian
	val  atomic.Uint64 // the 8 value bytes, little-endian
}

// HomeB is the prototype map. Every method is safe for concurrent use.
type HomeB struct {
	slots []slotB
	mask  uint32
	seed  uint32
	max   int64
	count atomic.Int64    // live elements plus reservations of inserts in progress
	free  []atomic.Uint64 // bit set: slotB is free
	// cursor is where the global free-slotB search resumes.
	cursor atomic.Uint32
}

// NewHomeB makes an empty map of maxEntries; seed is the jhash initval.
func NewHomeB(maxEntries int, seed uint32) *HomeB {
	n := htab.BucketCount(maxEntries)
	m := &HomeB{
		slots: make([]slotB, n),
		mask:  uint32(n - 1),
		seed:  seed,
		max:   int64(maxEntries),
		free:  make([]atomic.Uint64, (n+63)/64),
	}
	for i := range m.free {
		m.free[i].Store(^uint64(0))
	}
	if n%64 != 0 {
		m.free[0].Store(1<<n - 1)
	}
	return m
}

// Len is the number of keys (including inserts in progress).
func (m *HomeB) Len() int { return int(m.count.Load()) }

// Lookup returns the value of k. No lockB: the slotB is read between two loads
// of the bucket's sequence, and read again if a writer came in between. The
// fast path (k is its bucket's newest element) reads one slotB; the rest is in
// lookupChain so that Lookup stays small.
func (m *HomeB) Lookup(k Key) (Value, bool) {
	kw := binary.LittleEndian.Uint64(k[:])
	// jhash of the two little-endian words, inlined by hand (cost 87 > 80).
	a := uint32(0xdeadbeef) + 8 + m.seed
	b, c := a+uint32(kw>>32), a
	a += uint32(kw)
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	s := &m.slots[c&m.mask]
	seq := s.seq.Load()
	nx := atomic.LoadUint32(&s.next)
	if nx&homeBit != 0 {
		// The head and the second element without branches (HomeB).
		i := nx & idxMask
		e := &m.slots[(i-1)&m.mask] // i == 0: any slotB, ignored
		h0 := isZero64(s.key.Load() ^ kw)
		h1 := isZero64(e.key.Load()^kw) & (1 ^ isZero64(uint64(i))) &^ h0
		v := s.val.Load()&-h0 | e.val.Load()&-h1
		hit := h0|h1 != 0
		if hit && s.seq.Load() == seq && seq&1 == 0 {
			var out Value
			binary.LittleEndian.PutUint64(out[:], v)
			return out, true
		}
	}
	return m.lookupChain(s, kw)
}

// lookupChain is Lookup past the head: the whole seqlock read of the chain.
func (m *HomeB) lookupChain(s *slotB, kw uint64) (Value, bool) {
	slots := m.slots
	for {
		seq := s.seq.Load()
		if seq&1 != 0 {
			seq = waitStableB(s)
		}
		nx := atomic.LoadUint32(&s.next)
		found := false
		var v uint64
		if nx&homeBit != 0 {
			e := s
			for n := 0; n <= len(slots); n++ {
				if e.key.Load() == kw {
					v = e.val.Load()
					found = true
					break
				}
				i := nx & idxMask
				if i == 0 {
					break
				}
				e = &slots[i-1]
				nx = atomic.LoadUint32(&e.next)
			}
		}
		if s.seq.Load() == seq {
			var out Value
			binary.LittleEndian.PutUint64(out[:], v)
			return out, found
		}
	}
}

func waitStableB(s *slotB) uint32 {
	for n := 0; ; n++ {
		if q := s.seq.Load(); q&1 == 0 {
			return q
		}
		if n >= spins {
			runtime.Gosched()
		}
	}
}

func lockB(s *slotB) {
	for n := 0; ; n++ {
		q := s.seq.Load()
		if q&1 == 0 && s.seq.CompareAndSwap(q, q+1) {
			return
		}
		if n >= spins {
			runtime.Gosched()
		}
	}
}

func tryLockB(s *slotB) bool {
	q := s.seq.Load()
	return q&1 == 0 && s.seq.CompareAndSwap(q, q+1)
}

func unlockB(s *slotB) { s.seq.Add(1) }

// find walks bucket b (locked by the caller) for the key and returns
// index+1 of the element before it (0: it is the head) and index+1 of it (0: absent).
func (m *HomeB) find(b uint32, kw uint64) (prev, i uint32) {
	s := &m.slots[b]
	nx := atomic.LoadUint32(&s.next)
	if nx&homeBit == 0 {
		return 0, 0
	}
	i = b + 1
	for i != 0 {
		e := &m.slots[i-1]
		if e.key.Load() == kw {
			return prev, i
		}
		prev, i = i, atomic.LoadUint32(&e.next)&idxMask
	}
	return 0, 0
}

// claim takes slotB i if it is free.
func (m *HomeB) claim(i uint32) bool {
	w := &m.free[i>>6]
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

func (m *HomeB) release(i uint32) {
	m.free[i>>6].Or(uint64(1) << (i & 63))
}

// localWordsB is how many bitmap words around the hint alloc searches before
// the global cursor: overflow elements near their bucket share its page.
const localWordsB = 2

// groupSlotsB: alloc first looks for a free slotB among the groupSlotsB aligned
// slots around the hint (8 x 24 B = 3 cache lines), so that the second element
// of a chain is likely in a line next to its head's.
const groupSlotsB = 8

// alloc takes a free slotB for an overflow element, near hint if it can. The
// caller holds a reservation in count, so one exists.
func (m *HomeB) alloc(hint uint32) uint32 {
	nw := uint32(len(m.free))
	if nearestB {
		if i, ok := m.takeNearest(hint); ok {
			return i
		}
	} else if groupSlotsB > 1 {
		gm := uint64(1)<<groupSlotsB - 1
		if i, ok := m.takeMasked(hint>>6, gm<<(hint&63&^(groupSlotsB-1))); ok {
			return i
		}
	}
	for j := uint32(0); j < localWordsB && j < nw; j++ {
		wi := (hint>>6 + j) & (nw - 1)
		if i, ok := m.takeIn(wi); ok {
			return i
		}
	}
	for {
		wi := m.cursor.Load() % nw
		for j := uint32(0); j < nw; j++ {
			if i, ok := m.takeIn((wi + j) % nw); ok {
				m.cursor.Store((wi + j) % nw)
				return i
			}
		}
		runtime.Gosched() // a slotB is being freed right now
	}
}

// nearestB: alloc first takes the free slotB nearestB to the hint within the
// hint's bitmap word (64 slots), so that the element is likely in the same
// cache line or line pair as its bucket's home slotB.
const nearestB = true

func (m *HomeB) takeNearest(hint uint32) (uint32, bool) {
	w := &m.free[hint>>6]
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

func (m *HomeB) takeMasked(wi uint32, mask uint64) (uint32, bool) {
	w := &m.free[wi]
	for {
		x := w.Load()
		if x&mask == 0 {
			return 0, false
		}
		bit := x & mask & -(x & mask)
		if w.CompareAndSwap(x, x&^bit) {
			return wi<<6 | uint32(bits.TrailingZeros64(bit)), true
		}
	}
}

func (m *HomeB) takeIn(wi uint32) (uint32, bool) {
	w := &m.free[wi]
	for {
		x := w.Load()
		if x == 0 {
			return 0, false
		}
		bit := x & -x
		if w.CompareAndSwap(x, x&^bit) {
			return wi<<6 | uint32(bits.TrailingZeros64(x)), true
		}
	}
}

func copyElemB(dst, src *slotB, next uint32) {
	dst.key.Store(src.key.Load())
	dst.val.Store(src.val.Load())
	atomic.StoreUint32(&dst.next, next)
}

func setElemB(dst *slotB, kw, vw uint64, next uint32) {
	dst.key.Store(kw)
	dst.val.Store(vw)
	atomic.StoreUint32(&dst.next, next)
}

// Update sets the value of k with the kernel's flags and errors.
func (m *HomeB) Update(k Key, v Value, flags htab.UpdateFlags) error {
	if err := flags.Check(); err != nil {
		return err
	}
	kw := binary.LittleEndian.Uint64(k[:])
	vw := binary.LittleEndian.Uint64(v[:])
	b := jhash8(uint32(kw), uint32(kw>>32), m.seed) & m.mask
	hs := &m.slots[b]
retry:
	lockB(hs)
	prev, i := m.find(b, kw)
	if i != 0 && flags == htab.UpdateNoExist {
		unlockB(hs)
		return htab.ErrKeyExist
	}
	if i == 0 && flags == htab.UpdateExist {
		unlockB(hs)
		return htab.ErrKeyNotExist
	}
	if i != 0 {
		e := &m.slots[i-1]
		if prev == 0 { // the head: in place
			e.val.Store(vw)
			unlockB(hs)
			return nil
		}
		// Unlink e, reuse it for the old head, put k at the head.
		p := &m.slots[prev-1]
		enx := atomic.LoadUint32(&e.next) & idxMask
		atomic.StoreUint32(&p.next, atomic.LoadUint32(&p.next)&homeBit|enx)
		copyElemB(e, hs, atomic.LoadUint32(&hs.next)&idxMask)
		setElemB(hs, kw, vw, homeBit|i)
		unlockB(hs)
		return nil
	}
	if m.count.Add(1) > m.max {
		m.count.Add(-1)
		unlockB(hs)
		return htab.ErrFull
	}
	if atomic.LoadUint32(&hs.next)&homeBit != 0 {
		// Push the old head to an overflow slotB.
		f := m.alloc(b)
		copyElemB(&m.slots[f], hs, atomic.LoadUint32(&hs.next)&idxMask)
		setElemB(hs, kw, vw, homeBit|(f+1))
		unlockB(hs)
		return nil
	}
	// Empty bucket: its slotB is free or another bucket's overflow element.
	if !m.claim(b) && !m.evict(b) {
		m.count.Add(-1)
		unlockB(hs)
		runtime.Gosched()
		goto retry
	}
	setElemB(hs, kw, vw, homeBit)
	unlockB(hs)
	return nil
}

// evict makes slotB b (whose bucket b is empty and locked by the caller) the
// caller's: it claims it if it became free, else moves the overflow element
// in it to another slotB under the lockB of that element's bucket. False: the
// caller must drop its lockB and start over (lockB order: a lower bucket is
// only tried, never waited for).
func (m *HomeB) evict(b uint32) bool {
	s := &m.slots[b]
	for {
		if m.claim(b) {
			return true
		}
		ok := s.key.Load()
		c := jhash8(uint32(ok), uint32(ok>>32), m.seed) & m.mask
		if c == b {
			runtime.Gosched() // being written by its owner right now
			continue
		}
		cs := &m.slots[c]
		if c > b {
			lockB(cs)
		} else if !tryLockB(cs) {
			return false
		}
		// Is slotB b in c's chain? Find its predecessor.
		var prev uint32
		if atomic.LoadUint32(&cs.next)&homeBit != 0 {
			for i := c + 1; i != 0; {
				nx := atomic.LoadUint32(&m.slots[i-1].next) & idxMask
				if nx == b+1 {
					prev = i
					break
				}
				i = nx
			}
		}
		if prev == 0 {
			unlockB(cs)
			continue
		}
		f := m.alloc(c)
		copyElemB(&m.slots[f], s, atomic.LoadUint32(&s.next)&idxMask)
		p := &m.slots[prev-1]
		atomic.StoreUint32(&p.next, atomic.LoadUint32(&p.next)&homeBit|(f+1))
		unlockB(cs)
		return true
	}
}

// Delete removes k: htab.ErrKeyNotExist if absent.
func (m *HomeB) Delete(k Key) error {
	_, err := m.LookupAndDelete(k)
	return err
}

// LookupAndDelete removes k and returns its value.
func (m *HomeB) LookupAndDelete(k Key) (Value, error) {
	kw := binary.LittleEndian.Uint64(k[:])
	b := jhash8(uint32(kw), uint32(kw>>32), m.seed) & m.mask
	hs := &m.slots[b]
	lockB(hs)
	prev, i := m.find(b, kw)
	if i == 0 {
		unlockB(hs)
		return Value{}, htab.ErrKeyNotExist
	}
	e := &m.slots[i-1]
	var v Value
	binary.LittleEndian.PutUint64(v[:], e.val.Load())
	enx := atomic.LoadUint32(&e.next) & idxMask
	var freed uint32
	switch {
	case prev != 0: // overflow element: unlink
		p := &m.slots[prev-1]
		atomic.StoreUint32(&p.next, atomic.LoadUint32(&p.next)&homeBit|enx)
		freed = i - 1
	case enx != 0: // head with a chain: the second element moves home
		x := &m.slots[enx-1]
		copyElemB(hs, x, homeBit|atomic.LoadUint32(&x.next)&idxMask)
		freed = enx - 1
	default: // the only element
		atomic.StoreUint32(&hs.next, 0)
		freed = b
	}
	unlockB(hs)
	m.release(freed)
	m.count.Add(-1)
	return v, nil
}

// All yields every key and value: buckets ascending, each newest first.
func (m *HomeB) All() iter.Seq2[Key, Value] {
	return func(yield func(Key, Value) bool) {
		var keys []Key
		var vals []Value
		for b := range m.slots {
			s := &m.slots[b]
			if atomic.LoadUint32(&s.next)&homeBit == 0 {
				continue
			}
			for {
				seq := waitStableB(s)
				keys, vals = keys[:0], vals[:0]
				nx := atomic.LoadUint32(&s.next)
				if nx&homeBit != 0 {
					e := s
					for n := 0; n <= len(m.slots); n++ {
						var k Key
						var v Value
						binary.LittleEndian.PutUint64(k[:], e.key.Load())
						binary.LittleEndian.PutUint64(v[:], e.val.Load())
						keys, vals = append(keys, k), append(vals, v)
						i := nx & idxMask
						if i == 0 {
							break
						}
						e = &m.slots[i-1]
						nx = atomic.LoadUint32(&e.next)
					}
				}
				if s.seq.Load() == seq {
					break
				}
			}
			for j := range keys {
				if !yield(keys[j], vals[j]) {
					return
				}
			}
		}
	}
}
