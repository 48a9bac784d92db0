// Line: "bucket-pair lines". One 64-byte cache line holds two buckets (2p and
// 2p+1, "sides" A and B), their common sequence lock and three element slots.
// Element slots are numbered globally g = line*3 + j. Invariant: a non-empty
// bucket's newest element is in its own line; older ones are anywhere (in the
// line if there is room, else in a nearby line's free slot, "foreign" there).
//
//	line | seq u32 | meta u32 | links u64 | key0 val0 | key1 val1 | key2 val2 |  64 B
//	     0         4          8           16          32          48          64
//	meta: bits 2j..2j+1 = owner of slot j in this line (0 none/foreign, 1 A, 2 B);
//	      bit 6+j = slot j free; bits 9..10 = head of A (in-line slot+1, 0 empty);
//	      bits 11..12 = head of B.
//	links: bits 21j..21j+20 = next of slot j (global index+1, 0 ends the chain).
//
// The line's lock guards its buckets' chains, wherever their elements are.
// meta and links are also changed (by CAS, only other fields) by the lock
// holders of other lines whose elements are foreign here, so every change to
// them is a CAS; a reader of this line's buckets only trusts what its own
// lock holders write, and validates with this line's sequence.

package proto

import (
	"encoding/binary"
	"iter"
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/htabgen/htabgen/htab"
)

const (
	linkBits  = 21
	linkMask  = 1<<linkBits - 1
	freeShift = 6
	headShift = 9
)

type lineElem struct {
	key atomic.Uint64
	val atomic.Uint64
}

type line struct {
	seq   atomic.Uint32
	meta  atomic.Uint32
	links atomic.Uint64
	e     [3]lineElem
}

// Line is the prototype map with bucket-pair lines.
type Line struct {
	lines  []line
	mask   uint32 // bucket mask
	seed   uint32
	max    int64
	count  atomic.Int64
	cursor atomic.Uint32
}

// NewLine makes an empty map of maxEntries; seed is the jhash initval.
func NewLine(maxEntries int, seed uint32) *Line {
	n := htab.BucketCount(maxEntries)
	nl := (n + 1) / 2
	if nl*3 > linkMask {
		panic("proto: too many slots for 21-bit links")
	}
	m := &Line{lines: make([]line, nl), mask: uint32(n - 1), seed: seed, max: int64(maxEntries)}
	for i := range m.lines {
		m.lines[i].meta.Store(7 << freeShift)
	}
	return m
}

// Len is the number of keys (including inserts in progress).
func (m *Line) Len() int { return int(m.count.Load()) }

func headOf(meta uint32, side uint32) uint32 { return meta >> (headShift + 2*(side-1)) & 3 }

// Lookup returns the value of k. The fast path compares the three keys of
// the bucket's line and keeps a match owned by the bucket.
func (m *Line) Lookup(k Key) (Value, bool) {
	kw := binary.LittleEndian.Uint64(k[:])
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
	bk := c & m.mask
	l := &m.lines[bk>>1]
	side := 1 + bk&1
	seq := l.seq.Load()
	meta := l.meta.Load()
	// Branch-free match of the three slots (the slot that matches is random,
	// so a branch per slot would mispredict): hit_j is 1 if slot j holds kw
	// and belongs to the bucket.
	h0 := isZero64(l.e[0].key.Load()^kw) & isZero32((meta^side)&3)
	h1 := isZero64(l.e[1].key.Load()^kw) & isZero32((meta>>2^side)&3)
	h2 := isZero64(l.e[2].key.Load()^kw) & isZero32((meta>>4^side)&3)
	v := l.e[0].val.Load()&-h0 | l.e[1].val.Load()&-h1 | l.e[2].val.Load()&-h2
	found := h0|h1|h2 != 0
	if l.seq.Load() == seq && seq&1 == 0 && (found || headOf(meta, side) == 0) {
		var out Value
		binary.LittleEndian.PutUint64(out[:], v)
		return out, found
	}
	return m.lookupChain(l, bk, kw)
}

// isZero64 is 1 if x == 0, else 0, without a branch.
func isZero64(x uint64) uint64 { return ((x | -x) >> 63) ^ 1 }

// isZero32 is 1 if x == 0, else 0 (as a uint64), without a branch.
func isZero32(x uint32) uint64 { return isZero64(uint64(x)) }

func (m *Line) elem(g uint32) *lineElem { return &m.lines[g/3].e[g%3] }

func (m *Line) link(g uint32) uint32 {
	return uint32(m.lines[g/3].links.Load()>>(linkBits*(g%3))) & linkMask
}

func (m *Line) setLink(g, next uint32) {
	l := &m.lines[g/3]
	sh := linkBits * (g % 3)
	for {
		o := l.links.Load()
		n := o&^(linkMask<<sh) | uint64(next)<<sh
		if l.links.CompareAndSwap(o, n) {
			return
		}
	}
}

func casMeta(l *line, clear, set uint32) {
	for {
		o := l.meta.Load()
		if l.meta.CompareAndSwap(o, o&^clear|set) {
			return
		}
	}
}

// lookupChain walks the bucket's whole chain under the seqlock.
func (m *Line) lookupChain(l *line, bk uint32, kw uint64) (Value, bool) {
	side := 1 + bk&1
	base := bk >> 1 * 3
	for {
		seq := l.seq.Load()
		for seq&1 != 0 {
			runtime.Gosched()
			seq = l.seq.Load()
		}
		var v uint64
		found := false
		h := headOf(l.meta.Load(), side)
		if h != 0 {
			g := base + h - 1
			for n := 0; n <= len(m.lines)*3; n++ {
				e := m.elem(g)
				if e.key.Load() == kw {
					v, found = e.val.Load(), true
					break
				}
				nx := m.link(g)
				if nx == 0 || nx > uint32(len(m.lines)*3) {
					break
				}
				g = nx - 1
			}
		}
		if l.seq.Load() == seq {
			var out Value
			binary.LittleEndian.PutUint64(out[:], v)
			return out, found
		}
	}
}

func lockLine(l *line) {
	for n := 0; ; n++ {
		q := l.seq.Load()
		if q&1 == 0 && l.seq.CompareAndSwap(q, q+1) {
			return
		}
		if n >= spins {
			runtime.Gosched()
		}
	}
}

func tryLockLine(l *line) bool {
	q := l.seq.Load()
	return q&1 == 0 && l.seq.CompareAndSwap(q, q+1)
}

func unlockLine(l *line) { l.seq.Add(1) }

// find walks bucket bk (its line locked) for kw: global index+1 of the
// element before it (0: it is the head) and of it (0: absent).
func (m *Line) find(bk uint32, kw uint64) (prev, i uint32) {
	l := &m.lines[bk>>1]
	h := headOf(l.meta.Load(), 1+bk&1)
	if h == 0 {
		return 0, 0
	}
	for i = bk>>1*3 + h; i != 0; {
		if m.elem(i-1).key.Load() == kw {
			return prev, i
		}
		prev, i = i, m.link(i-1)
	}
	return 0, 0
}

// pred is global index+1 of the element before g in bucket bk's chain (0: g is
// the head or not in the chain; found tells which).
func (m *Line) pred(bk, g uint32) (p uint32, found bool) {
	l := &m.lines[bk>>1]
	h := headOf(l.meta.Load(), 1+bk&1)
	if h == 0 {
		return 0, false
	}
	for i := bk>>1*3 + h; i != 0; i = m.link(i - 1) {
		if i == g+1 {
			return p, true
		}
		p = i
	}
	return 0, false
}

func (m *Line) bucketOf(kw uint64) uint32 {
	return jhash8(uint32(kw), uint32(kw>>32), m.seed) & m.mask
}

// claimIn takes a free slot of line li, nearest to slot 0; -1 if none.
func (m *Line) claimIn(li uint32) int {
	l := &m.lines[li]
	for {
		o := l.meta.Load()
		f := o >> freeShift & 7
		if f == 0 {
			return -1
		}
		j := bits.TrailingZeros32(f)
		if l.meta.CompareAndSwap(o, o&^(1<<(freeShift+j))) {
			return j
		}
	}
}

const (
	evictDone = iota
	evictRetry
	evictAgain
)

// lineWindow is how many lines on each side of the hint alloc tries first.
const lineWindow = 4

// alloc takes a free slot anywhere, in the hint's line or near it if it can.
func (m *Line) alloc(hint uint32) uint32 {
	nl := uint32(len(m.lines))
	for d := uint32(0); d <= lineWindow && d < nl; d++ {
		for _, li := range [2]uint32{(hint + d) % nl, (hint + nl - d) % nl} {
			if j := m.claimIn(li); j >= 0 {
				return li*3 + uint32(j)
			}
		}
	}
	for {
		c := m.cursor.Load()
		for d := uint32(0); d < nl; d++ {
			li := (c + d) % nl
			if j := m.claimIn(li); j >= 0 {
				m.cursor.Store(li)
				return li*3 + uint32(j)
			}
		}
		runtime.Gosched()
	}
}

// release frees global slot g, owned by nobody in its line.
func (m *Line) release(g uint32) {
	casMeta(&m.lines[g/3], 0, 1<<(freeShift+g%3))
}

// makeRoom finds an in-line slot of line li (locked) for a new head: a free
// one, a foreign one (moved away), or an older element of A or B (moved
// out). Returns -1 if the caller must unlock and start over (lock order).
func (m *Line) makeRoom(li uint32) int {
	l := &m.lines[li]
outer:
	for {
		if j := m.claimIn(li); j >= 0 {
			return j
		}
		meta := l.meta.Load()
		for j := uint32(0); j < 3; j++ {
			if meta>>(2*j)&3 == 0 && meta>>(freeShift+j)&1 == 0 {
				switch m.evict(li, j) {
				case evictDone:
					return int(j)
				case evictRetry:
					return -1
				}
				continue outer // changed: look again
			}
		}
		// All three are A's or B's: move a non-head one out.
		for j := uint32(0); j < 3; j++ {
			side := meta >> (2 * j) & 3
			if headOf(meta, side) == j+1 {
				continue
			}
			g := li*3 + j
			bk := li*2 + side - 1
			p, ok := m.pred(bk, g)
			if !ok || p == 0 {
				panic("proto: line invariant")
			}
			f := m.alloc(li)
			fe, e := m.elem(f), &l.e[j]
			fe.key.Store(e.key.Load())
			fe.val.Store(e.val.Load())
			m.setLink(f, m.link(g))
			m.setLink(p-1, f+1)
			if f/3 == li { // a slot of the line came free meanwhile: still in-line
				casMeta(l, 0, side<<(2*(f%3)))
			}
			casMeta(l, 3<<(2*j), 0)
			return int(j)
		}
		panic("proto: no room")
	}
}

// evict moves the foreign element in slot j of line li (locked) to another
// slot, under its owner line's lock.
func (m *Line) evict(li, j uint32) int {
	g := li*3 + j
	e := &m.lines[li].e[j]
	ob := m.bucketOf(e.key.Load())
	oli := ob >> 1
	if oli == li {
		runtime.Gosched() // being written right now
		return evictAgain
	}
	ol := &m.lines[oli]
	if oli > li {
		lockLine(ol)
	} else if !tryLockLine(ol) {
		return evictRetry
	}
	p, ok := m.pred(ob, g)
	if !ok || p == 0 {
		unlockLine(ol)
		return evictAgain
	}
	f := m.alloc(oli)
	fe := m.elem(f)
	fe.key.Store(e.key.Load())
	fe.val.Store(e.val.Load())
	m.setLink(f, m.link(g))
	m.setLink(p-1, f+1)
	if f/3 == oli { // it came home: now an in-line element of its owner
		casMeta(ol, 0, (ob&1+1)<<(2*(f%3)))
	}
	unlockLine(ol)
	return evictDone
}

// pushHead writes kw/vw as the new head of bucket bk (line locked) in
// in-line slot j.
func (m *Line) pushHead(bk uint32, j uint32, kw, vw uint64) {
	li, side := bk>>1, 1+bk&1
	l := &m.lines[li]
	h := headOf(l.meta.Load(), side)
	next := uint32(0)
	if h != 0 {
		next = li*3 + h
	}
	l.e[j].key.Store(kw)
	l.e[j].val.Store(vw)
	m.setLink(li*3+j, next)
	hs := headShift + 2*(side-1)
	casMeta(l, 3<<(2*j)|3<<hs, side<<(2*j)|(j+1)<<hs)
}

// Update sets the value of k with the kernel's flags and errors.
func (m *Line) Update(k Key, v Value, flags htab.UpdateFlags) error {
	if err := flags.Check(); err != nil {
		return err
	}
	kw := binary.LittleEndian.Uint64(k[:])
	vw := binary.LittleEndian.Uint64(v[:])
	bk := m.bucketOf(kw)
	li, side := bk>>1, 1+bk&1
	l := &m.lines[li]
retry:
	lockLine(l)
	prev, i := m.find(bk, kw)
	if i != 0 && flags == htab.UpdateNoExist {
		unlockLine(l)
		return htab.ErrKeyExist
	}
	if i == 0 && flags == htab.UpdateExist {
		unlockLine(l)
		return htab.ErrKeyNotExist
	}
	if i != 0 {
		g := i - 1
		if prev == 0 { // the head: in place
			m.elem(g).val.Store(vw)
			unlockLine(l)
			return nil
		}
		if g/3 == li { // in the line: relink at the head
			h := headOf(l.meta.Load(), side)
			m.setLink(prev-1, m.link(g))
			m.elem(g).val.Store(vw)
			m.setLink(g, li*3+h)
			hs := headShift + 2*(side-1)
			casMeta(l, 3<<hs, (g%3+1)<<hs)
			unlockLine(l)
			return nil
		}
		// Out of the line: a new head in the line, then unlink and free g.
		j := m.makeRoom(li)
		if j < 0 {
			unlockLine(l)
			runtime.Gosched()
			goto retry
		}
		// makeRoom may have moved elements: find g's predecessor again.
		p, _ := m.pred(bk, g)
		m.setLink(p-1, m.link(g))
		m.pushHead(bk, uint32(j), kw, vw)
		unlockLine(l)
		m.release(g)
		return nil
	}
	if m.count.Add(1) > m.max {
		m.count.Add(-1)
		unlockLine(l)
		return htab.ErrFull
	}
	j := m.makeRoom(li)
	if j < 0 {
		m.count.Add(-1)
		unlockLine(l)
		runtime.Gosched()
		goto retry
	}
	m.pushHead(bk, uint32(j), kw, vw)
	unlockLine(l)
	return nil
}

// Delete removes k: htab.ErrKeyNotExist if absent.
func (m *Line) Delete(k Key) error {
	_, err := m.LookupAndDelete(k)
	return err
}

// LookupAndDelete removes k and returns its value.
func (m *Line) LookupAndDelete(k Key) (Value, error) {
	kw := binary.LittleEndian.Uint64(k[:])
	bk := m.bucketOf(kw)
	li, side := bk>>1, 1+bk&1
	l := &m.lines[li]
	lockLine(l)
	prev, i := m.find(bk, kw)
	if i == 0 {
		unlockLine(l)
		return Value{}, htab.ErrKeyNotExist
	}
	g := i - 1
	var v Value
	binary.LittleEndian.PutUint64(v[:], m.elem(g).val.Load())
	next := m.link(g)
	hs := headShift + 2*(side-1)
	freed := g
	switch {
	case prev != 0:
		m.setLink(prev-1, next)
	case next == 0: // the only element
		casMeta(l, 3<<hs, 0)
	case (next-1)/3 == li: // the next is in the line: it becomes the head
		casMeta(l, 3<<hs, ((next-1)%3+1)<<hs)
	default: // the next is out of the line: copy it into g's slot
		x := m.elem(next - 1)
		e := m.elem(g)
		e.key.Store(x.key.Load())
		e.val.Store(x.val.Load())
		m.setLink(g, m.link(next-1))
		freed = next - 1
	}
	if freed/3 == li {
		casMeta(l, 3<<(2*(freed%3)), 1<<(freeShift+freed%3))
	}
	unlockLine(l)
	if freed/3 != li {
		m.release(freed)
	}
	m.count.Add(-1)
	return v, nil
}

// All yields every key and value: buckets ascending, each newest first.
func (m *Line) All() iter.Seq2[Key, Value] {
	return func(yield func(Key, Value) bool) {
		var keys []Key
		var vals []Value
		for bk := uint32(0); bk <= m.mask; bk++ {
			l := &m.lines[bk>>1]
			side := 1 + bk&1
			for {
				seq := l.seq.Load()
				if seq&1 != 0 {
					runtime.Gosched()
					continue
				}
				keys, vals = keys[:0], vals[:0]
				if h := headOf(l.meta.Load(), side); h != 0 {
					g := bk>>1*3 + h - 1
					for n := 0; n <= len(m.lines)*3; n++ {
						var k Key
						var v Value
						e := m.elem(g)
						binary.LittleEndian.PutUint64(k[:], e.key.Load())
						binary.LittleEndian.PutUint64(v[:], e.val.Load())
						keys, vals = append(keys, k), append(vals, v)
						nx := m.link(g)
						if nx == 0 || nx > uint32(len(m.lines)*3) {
							break
						}
						g = nx - 1
					}
				}
				if l.seq.Load() == seq {
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
