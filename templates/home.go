package templates

import (
	"fmt"
	"math/bits"

	"github.com/dave/jennifer/jen"
)

// homeStorage is -layout home (-type hash only, its default): the buckets are
// also the elements. One array of roundup_pow_of_two(MaxEntries) slots; slot
// b is bucket b's sequence lock and the storage of one element, bucket b's
// newest while b is non-empty. Older elements of a chain live in slots whose
// own bucket is empty ("overflow" slots). A lookup of a bucket's newest key
// touches one slot.
//
//	slot i | seq htab.SeqLock | next uint32 | [hash uint32] | key [KW]uint32 | val [VW]uint32 |
//	next: bit 31 (<prefix>HomeBit) = slot i holds bucket i's newest element;
//	      bits 0-30 (<prefix>IndexMask) = index+1 of the next older element of that chain (0 ends it).
//
// Invariant: bucket b is non-empty iff slot b has the home bit. What is this
// layout's own: the insert of a new key (which seizes the slot of an empty
// bucket, first moving out the overflow element there, or pushes a bucket's
// old head to a free slot), a replace that moves the key to the head by
// copying, and Lookup's fast path over the bucket's summary, the home slot
// and the next one. Its free slots are a bitmap, htab.FreeSlots, and each
// bucket has a summary byte of its chain's hashes, htab.Summaries, which
// answers most misses without reading a slot. (The design was prototyped by
// hand for k8v8 and generalised to every size, hash and batch mode.)
type homeStorage struct{ *generator }

func (h *homeStorage) design() (terms, concurrency []string) {
	l := h.l
	elemRow, offRow := elemDiagram(l)
	terms = []string{
		"  slot     one entry of the single array of roundup_pow_of_two(MaxEntries)",
		"           slots. Slot b is at once bucket b (its sequence lock) and the",
		"           storage of one element. All slots are made at creation, also",
		"           with NoPrealloc: in this layout the slots are the bucket table.",
		"  bucket   a chain of elements, newest first; a key's bucket is hash & mask.",
		"           Bucket b is non-empty iff slot b holds b's newest element (the",
		"           home bit of its next word). Older elements of the chain live in",
		"           slots whose own bucket is empty (overflow slots).",
		"  index+1  how elements link; 0 is nil. Nothing holds a pointer.",
		"  summary  one byte per bucket (htab.Summaries): bit htab.SummaryBit(h) set",
		"           for each key h in the bucket's chain. A clear bit: not in it.",
		"",
		"Layout, in bytes",
		"  slot " + elemRow + "|",
		"       " + offRow + fmt.Sprint(l.ElemSize),
		"  next: bit 31 = home (this slot is its bucket's head), bits 0-30 = index+1",
		"  of the next older element.",
		"",
		"  slots[hash & mask] (newest) --> overflow slot --> overflow slot --> 0",
	}
	concurrency = []string{
		"  Readers take no lock: they load slot b's sequence, read the head in slot b",
		"  (and the chain), and keep what they read only if the sequence is unchanged",
		"  and even. A lookup of a bucket's newest key touches one slot. A lookup",
		"  first asks the bucket's summary byte, and a key whose bit is clear is",
		"  absent without a slot read: writers add a key's bit before they reserve",
		"  its room, and recompute the byte from the chain once a delete has freed",
		"  its element, under the lock.",
		"  Writers lock slot b's sequence and store with htab.StoreRelease (release",
		"  order, a plain store on amd64). A new key in a non-empty bucket moves the",
		"  old head to a free slot near b; in an empty bucket it takes slot b, first",
		"  moving the overflow element there (if any) under its own bucket's lock (a",
		"  higher bucket is waited for, a lower one only tried). A replace of an",
		"  older element moves the key to the head, as the kernel does.",
		"  Capacity: an insert reserves its element in count once it holds every",
		"  lock it needs, and keeps b's lock until the key is in; past MaxEntries",
		"  it is htab.ErrFull. A free bitmap (htab.FreeSlots, one bit per slot) finds",
		"  free slots. A delete frees its slot and count before it unlocks, so",
		"  whoever sees the key gone through a single-key operation can insert",
		"  another (the kernel frees after unlocking).",
	}
	return terms, concurrency
}

// declarations emits the next word's bits:
//
//	const ( <prefix>HomeBit = 1 << 31; <prefix>IndexMask = <prefix>HomeBit - 1; <prefix>MaxSlots = 1 << 30 )
func (h *homeStorage) declarations(f *jen.File) {
	f.Add(h.code(fmt.Sprintf(`
const (
	$HomeBit   = 1 << 31       // next: the slot holds its bucket's newest element
	$IndexMask = $HomeBit - 1  // next: index+1 of the next older element
	$MaxSlots  = 1 << %d     // most slots: index+1 must stay clear of the home bit
)
`, bits.Len(uint(h.l.Home.MaxSlots))-1)))
}

func (h *homeStorage) mapFields() (first, owned, counters string) {
	first = "slots []$Elem // roundup_pow_of_two(maxEntries) slots: slot b is bucket b and one element\n" +
		"\tsummary htab.Summaries // one byte per bucket: a bit per key of its chain, from the key's hash\n"
	owned = "\ttouchAhead bool // LookupBulk touches a group's slots before it reads them: the slots take htab.BulkTouchBytes or more\n"
	counters = "\tfreeSlots htab.FreeSlots // one bit per slot, set: the slot is free\n"
	return first, owned, counters
}

func (h *homeStorage) newFields() string {
	return "slots: make([]$Elem, n),\n\t\ttouchAhead: uint64(n)*uint64(unsafe.Sizeof($Elem{})) >= htab.BulkTouchBytes,\n"
}

func (h *homeStorage) newChecks() jen.Code {
	return h.code(`if n > $MaxSlots {
		return nil, fmt.Errorf("%w: hash map: MaxEntries %d (allowed in the home layout: 1..%d)", htab.ErrInvalid, opts.MaxEntries, $MaxSlots)
	}
`)
}

func (h *homeStorage) newAlloc() jen.Code { return h.code("m.freeSlots.Init(n)\nm.summary.Init(n)\n") }

// length emits Len, which counts the inserts that have reserved their room
// (reserve never counts past MaxEntries, so the cap is only a guard):
//
//	func (m *<Map>) Len() int
func (h *homeStorage) length(f *jen.File) {
	f.Add(h.code(`
// Len is the number of keys in the map, counting inserts that have reserved
// their room and are about to link their key.
func (m *$Map) Len() int {
	return int(min(m.count.Load(), int64(m.maxEntries)))
}
`))
}

// primitives emits the home layout's primitives (see storage) and its own
// helpers:
//
//	func (e *<Elem>) copyFrom(src *<Elem>, next uint32)
//	func (m *<Map>) slotBucket(e *<Elem>) uint32
//	func (m *<Map>) reserve() bool
//	func (m *<Map>) seize(bi uint32) (c, prev uint32, ok bool)
//	func (m *<Map>) moveOut(bi, c, prev uint32)
//	func (m *<Map>) summarize(bi uint32)
func (h *homeStorage) primitives(f *jen.File) {
	l := h.l
	copyHash := ""
	if l.CachedHash {
		copyHash = "\thtab.StoreRelease(&e.hash, atomic.LoadUint32(&src.hash))\n"
	}
	f.Add(h.code(`
// lock is bucket bi's sequence lock, in its home slot.
func (m *$Map) lock(bi uint32) *htab.SeqLock { return &m.slots[bi].seq }

// head is index+1 of bucket bi's newest element, 0 if the bucket is empty:
// slot bi, if it has the home bit.
func (m *$Map) head(bi uint32) uint32 {
	if atomic.LoadUint32(&m.slots[bi].next)&$HomeBit != 0 {
		return bi + 1
	}
	return 0
}

// elem is slot i (an index, not index+1).
func (m *$Map) elem(i uint32) *$Elem { return &m.slots[i] }

// nextIndex is index+1 of the element after e in its chain, 0 at its end.
func (e *$Elem) nextIndex() uint32 { return atomic.LoadUint32(&e.next) & $IndexMask }

// copyFrom copies src's element into e, with e's next word set to next. Only
// under the lock of the bucket whose chain e is (or is about to be) in.
func (e *$Elem) copyFrom(src *$Elem, next uint32) {
`+copyHash+`	for i := range src.key {
		htab.StoreRelease(&e.key[i], atomic.LoadUint32(&src.key[i]))
	}
	for i := range src.val {
		htab.StoreRelease(&e.val[i], atomic.LoadUint32(&src.val[i]))
	}
	htab.StoreRelease(&e.next, next)
}

// slotBucket is the bucket of the key slot e holds (only meaningful while the
// caller's lock keeps it still, or as a guess to be checked).
func (m *$Map) slotBucket(e *$Elem) uint32 { return m.elemHash(e) & m.mask }

// reserve takes room for one more key in count, false if the map is full.
// It never counts past MaxEntries, not even for a moment: an insert that
// added itself and then took itself off again would make a concurrent
// insert find the map full while a delete had just made room.
func (m *$Map) reserve() bool {
	for {
		n := m.count.Load()
		if n >= int64(m.maxEntries) {
			return false
		}
		if m.count.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// free frees slot i, already out of every chain, and its element's count.
// Callers free before they unlock, so that whoever sees the key gone can
// insert another into a full map (the kernel frees after unlocking, a window
// in which such an insert is E2BIG although the delete took effect). It only
// sets bits and counts, and waits for nothing.
func (m *$Map) free(i uint32) {
	m.freeSlots.Release(i)
	m.count.Add(-1)
}

// unlink takes the element in slot i (index+1) out of bucket bi, whose
// element before it is prev (0: i is the head), and returns the slot that is
// no longer used, for free. Only under bucket bi's lock.
func (m *$Map) unlink(bi, prev, i uint32) uint32 {
	hs, e := &m.slots[bi], &m.slots[i-1]
	next := e.nextIndex()
	switch {
	case prev != 0: // an overflow element: unlink it
		p := &m.slots[prev-1]
		htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$HomeBit|next)
		return i - 1
	case next != 0: // the head of a chain: the second element moves home
		x := &m.slots[next-1]
		hs.copyFrom(x, $HomeBit|x.nextIndex())
		return next - 1
	default: // the only element
		htab.StoreRelease(&hs.next, 0)
$(occClear)		return bi
	}
}

// summarize sets bucket bi's summary from the keys in its chain: after a
// delete has freed its element (see afterDelete), or an insert that failed.
// Only under bucket bi's lock, which keeps the chain still.
func (m *$Map) summarize(bi uint32) {
	var b uint8
	for i, n := m.head(bi), 0; i != 0 && n < len(m.slots); n++ {
		e := m.elem(i - 1)
		b |= htab.SummaryBit(m.elemHash(e))
		i = e.nextIndex()
	}
	m.summary.Set(bi, b)
}

// freeBucket frees every slot of bucket bi's chain, which it empties. Only
// under the bucket's lock. The chain is unreachable once slot bi loses its
// home bit, so nothing else writes its next links before free lets a slot go.
func (m *$Map) freeBucket(bi uint32) {
	hs := &m.slots[bi]
	i := hs.nextIndex()
	htab.StoreRelease(&hs.next, 0)
$(occClear)	for i != 0 {
		next := m.slots[i-1].nextIndex()
		m.free(i - 1)
		i = next
	}
	m.free(bi)
	m.summary.Set(bi, 0) // after the frees, as afterDelete
}

// seize readies slot bi, whose bucket bi is empty and locked by the caller,
// to become the caller's. If bi is free it claims it (prev 0). Else bi holds
// an overflow element of bucket c: it locks c and returns c and prev,
// index+1 of the slot before bi in c's chain, for moveOut to move the
// element away (or the caller to unlock c). False: the caller must drop its
// lock and start over (lock order: a higher bucket is waited for, a lower
// one only tried).
func (m *$Map) seize(bi uint32) (c, prev uint32, ok bool) {
	s := &m.slots[bi]
	for n := 0; ; n++ {
		if m.freeSlots.Claim(bi) {
			return 0, 0, true
		}
		c = m.slotBucket(s)
		if c == bi {
			// Being written by bi's own past owner right now (a delete frees
			// the slot before it unlocks, so not being freed).
			if n >= htab.SpinsBeforeYield {
				runtime.Gosched()
			}
			continue
		}
		if c > bi {
			m.lock(c).Lock()
		} else if !m.lock(c).TryLock() {
			return 0, 0, false
		}
		// Is slot bi in c's chain? Find the slot before it.
		prev = 0
		for i, k := m.head(c), 0; i != 0 && k < len(m.slots); k++ {
			next := m.slots[i-1].nextIndex()
			if next == bi+1 {
				prev = i
				break
			}
			i = next
		}
		if prev == 0 {
			// The element left c's chain meanwhile (its slot already freed,
			// maybe reused), or the key was stale: look again.
			m.lock(c).Unlock()
			if n >= htab.SpinsBeforeYield {
				runtime.Gosched()
			}
			continue
		}
		return c, prev, true
	}
}

// moveOut moves the overflow element in slot bi, after slot prev (index+1)
// in bucket c's chain, to a free slot near c, and unlocks c, which seize
// locked. The caller holds bi's lock and a reservation in count, which
// guarantees a free slot.
func (m *$Map) moveOut(bi, c, prev uint32) {
	s := &m.slots[bi]
	to := m.freeSlots.Alloc(c)
	m.slots[to].copyFrom(s, s.nextIndex())
	p := &m.slots[prev-1]
	htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$HomeBit|(to+1))
	m.lock(c).Unlock()
}
`, fill("occClear", when(l.Batch.Occupancy, h.code("\tm.occ.Clear(bi)\n")))))
}

// hashReplace: the head in place; an older element is unlinked, its slot
// takes the old head, and the key goes to the head slot: the kernel's move
// to the head, without an allocation.
func (h *homeStorage) hashReplace() jen.Code {
	return h.code(`hs := &m.slots[bi]
		if prev != 0 {
			e, p := &m.slots[i-1], &m.slots[prev-1]
			htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$HomeBit|e.nextIndex())
			e.copyFrom(hs, hs.nextIndex())
			hs.setKey(&w, h)
			hs.setValue(v)
			htab.StoreRelease(&hs.next, $HomeBit|i)
		} else {
			hs.setValue(v)
		}
`)
}

// hashInsert: into a non-empty bucket, the old head moves to a free slot
// near bi; into an empty one, the key takes slot bi, once seize has it. Its
// room in count is reserved only where the insert can no longer fail or let
// go of bi's lock: a reservation never outlives the lock, so whoever finds
// the map full while k is not yet in it (ErrFull) finds it during k's
// insert, which can take effect first.
func (h *homeStorage) hashInsert() jen.Code {
	return h.code(`hs := &m.slots[bi]
		if m.head(bi) != 0 {
			// The key's summary bit goes in before the reservation: whoever
			// finds the map full because of it (htab.ErrFull) and then looks
			// it up reads the slot, and waits for the insert.
			m.summary.Add(bi, h)
			if !m.reserve() {
				m.summarize(bi)
				b.Unlock()
				return htab.ErrFull
			}
			// Push the old head to an overflow slot near bi.
			to := m.freeSlots.Alloc(bi)
			m.slots[to].copyFrom(hs, hs.nextIndex())
			hs.setKey(&w, h)
			hs.setValue(v)
			htab.StoreRelease(&hs.next, $HomeBit|(to+1))
			b.Unlock()
			return nil
		}
		// Empty bucket: slot bi is free, or holds another bucket's overflow
		// element, which must move out first.
		c, prev, ok := m.seize(bi)
		if !ok {
			b.Unlock()
			runtime.Gosched()
			continue
		}
		m.summary.Add(bi, h) // before the reservation, as above
		if !m.reserve() {
			m.summary.Set(bi, 0)
			if prev == 0 {
				m.freeSlots.Release(bi)
			} else {
				m.lock(c).Unlock()
			}
			b.Unlock()
			return htab.ErrFull
		}
		if prev != 0 {
			m.moveOut(bi, c, prev)
		}
		hs.setKey(&w, h)
		hs.setValue(v)
		htab.StoreRelease(&hs.next, $HomeBit)
$(occSet)		b.Unlock()
		return nil
`, fill("occSet", when(h.l.Batch.Occupancy, h.code("\t\tm.occ.Set(bi)\n"))))
}

func (h *homeStorage) insertRetries() bool { return true }

// afterDelete recomputes the bucket's summary once the deleted key's element
// is freed: a lookup that finds the key gone through the summary can then
// insert another into a full map, as one that read the slot can.
func (h *homeStorage) afterDelete() jen.Code { return h.code("m.summarize(bi)\n") }

// lookupFast is the home layout's fast path: a key whose bit is clear in its
// bucket's summary is absent without a slot read (most misses, at any
// fullness); the bucket's newest or second newest key is found between two
// loads of the slot's sequence, inline, and so is the absence of a key from
// an empty bucket or a chain of one or two (without them, every such miss
// took the whole read of lookupChain).
// An 8-byte key at an 8-byte offset (no cached hash) is compared with one
// 64-bit load, and an 8-byte value there is copied with one:
//
//	kw := binary.LittleEndian.Uint64(k[:])   (rotated on big-endian hosts)
//	atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.key))) == kw
//
// The fast path itself:
//
//	if !m.summary.MayHold(bi, h) { return <zero>, false }
//	s := &m.slots[bi]
//	seq := s.seq.Load()
//	nx := atomic.LoadUint32(&s.next)
//	if seq&1 == 0 {
//		if nx&<HomeBit> == 0 { if valid { return <zero>, false } } // empty bucket
//		<s, else the slot after it, if it matches>; if valid { return v, true }
//		<else, if the chain ended there>; if valid { return <zero>, false }
//	}
func (h *homeStorage) lookupFast() *fastPath {
	home := h.l.Home
	match, miss := "x.matches(&w, h)", "!e.matches(&w, h)"
	loadv := "\t\t\tv := e.loadValue()\n"
	fp := &fastPath{}
	if home.KeyWord64 || home.ValWord64 {
		fp.doc = `// An 8-byte key or value is loaded as one uint64 (htab.NativeLittleEndian:
// its two little-endian words, swapped on big-endian hosts); the load is
// aligned: the 8 bytes are at an 8-byte offset of a slot whose size is a
// multiple of 8, in an array that Go allocates 8-aligned.
`
	}
	if home.KeyWord64 {
		match = "atomic.LoadUint64((*uint64)(unsafe.Pointer(&x.key))) == kw"
		miss = "atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.key))) != kw"
		fp.keyWord = true
		// After the hash, which takes the little-endian words: the slot's two
		// words, loaded as one native uint64, are swapped on big-endian hosts.
		fp.afterHash = h.code("if !htab.NativeLittleEndian {\n\tkw = bits.RotateLeft64(kw, 32)\n}\n")
	}
	if home.ValWord64 {
		loadv = `			var v $Value
			x := atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.val)))
			if !htab.NativeLittleEndian {
				x = bits.RotateLeft64(x, 32)
			}
			binary.LittleEndian.PutUint64(v[:], x)
`
	}
	fp.ruledOut = h.code(`if !m.summary.MayHold(bi, h) {
		return $Value{}, false
	}
`)
	fp.body = h.code(`s := &m.slots[bi]
	seq := s.seq.Load()
	nx := atomic.LoadUint32(&s.next)
	if seq&1 == 0 {
		if nx&$HomeBit == 0 {
			// An empty bucket: absent, if no writer came in between.
			if s.seq.ReadValid(seq) {
				return $Value{}, false
			}
		} else {
			e, end := s, false // end: the chain ended before k
			if ` + miss + ` {
				e = nil
				if i := nx & $IndexMask; i == 0 {
					end = true
				} else if x := &m.slots[i-1]; ` + match + ` {
					e = x
				} else {
					end = atomic.LoadUint32(&x.next)&$IndexMask == 0
				}
			}
			if e != nil {
` + loadv + `				if s.seq.ReadValid(seq) {
					return v, true
				}
			} else if end && s.seq.ReadValid(seq) {
				return $Value{}, false
			}
		}
	}
`)
	return fp
}
