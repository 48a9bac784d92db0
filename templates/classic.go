package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// classicStorage is the kernel's layout (-layout classic, and the only one of
// pcpu, lru and lru_pcpu, whose per-CPU values are indexed by, and whose LRU
// nodes live in, an element that must not move): a bucket array of
// htab.Bucket (a sequence lock and the index+1 of the newest element) and an
// element array. A lookup takes two dependent cache misses. NoPrealloc maps
// make their elements on first use, in chunks; freed elements go on a
// lock-free stack and are reused before never-used ones, so a map holds
// exactly MaxEntries keys either way. LRU maps take their elements from
// htab.LRU instead.
type classicStorage struct{ *generator }

func (c *classicStorage) design() (terms, concurrency []string) {
	l := c.l
	element := []string{
		"  element  one key and its value. All MaxEntries elements are one array, made",
		"           at creation (with NoPrealloc: chunks made on first use).",
	}
	switch {
	case l.PerCPU != nil && l.LRU != nil:
		element = []string{
			"  element  one key and its LRU node; its values, one per CPU, are slots",
			"           (below). All MaxEntries elements are one array, made at creation.",
		}
	case l.PerCPU != nil:
		element = []string{
			"  element  one key; its values, one per CPU, are slots (below). All MaxEntries",
			"           elements are one array, made at creation (with NoPrealloc: chunks",
			"           made on first use, elements and slots alike).",
		}
	case l.LRU != nil:
		element = []string{
			"  element  one key, its value and its LRU node. All MaxEntries elements are",
			"           one array, made at creation.",
		}
	}
	elemRow, offRow := elemDiagram(l)
	terms = append(element,
		"  bucket   a sequence lock and the head of a chain of elements, newest first.",
		"           There are roundup_pow_of_two(MaxEntries) buckets; a key's bucket",
		"           is hash & mask.",
		"  index+1  how buckets and elements link elements; 0 is nil. Nothing holds a",
		"           pointer, so the garbage collector never scans the map.",
		"",
		"Layout, in bytes",
		"  bucket  | seq uint32 | head uint32 |",
		fmt.Sprintf("          0            4             %d", l.Classic.BucketSize),
		"  element "+elemRow+"|",
		"          "+offRow+fmt.Sprint(l.ElemSize),
	)
	if l.PerCPU != nil {
		cell := fmt.Sprintf("val [%d]uint32", l.ValueWords)
		terms = append(terms,
			"  slot    | "+cell+" |   slots[cpu][i]: CPU cpu's value of element i",
			fmt.Sprintf("          %-*d%d", len(cell)+3, 0, l.PerCPU.SlotSize),
		)
	}
	if l.LRU != nil {
		terms = append(terms,
			"  node: htab.LRUNode, the LRU's ref bit, cpu|type, prev and next (element",
			"  indexes); the array ends with htab.LRUHeads elements whose nodes are the",
			"  LRU lists' heads",
		)
	}
	terms = append(terms, "", "  buckets[hash & mask] --> element --> element --> 0")

	if l.PerCPU != nil && l.PerCPU.SlotLocks > 0 {
		concurrency = []string{
			"  Readers (Lookup, NextKey, All) take no bucket lock (for the values, see",
			"  Per-CPU values). They load the bucket's sequence, walk the chain with",
			"  atomic loads, and keep what they read only if the sequence is unchanged",
			"  and even; else they read the bucket again.",
		}
	} else {
		concurrency = []string{
			"  Readers (Lookup, NextKey, All) take no lock. They load the bucket's sequence,",
			"  walk the chain with atomic loads, and keep what they read only if the",
			"  sequence is unchanged and even; else they read the bucket again.",
		}
	}
	concurrency = append(concurrency,
		"  Writers (Update, Delete, LookupAndDelete) lock the key's bucket (the",
		"  sequence is odd while they hold it) and store with htab.StoreRelease (the",
		"  kernel's WRITE_ONCE: release order, a plain store on amd64). A freed",
		"  element is reused at once; a reader that reached it through its old bucket",
		"  sees that bucket's sequence change and retries.",
	)
	if l.LRU != nil {
		concurrency = append(concurrency,
			"  Capacity: elements come from htab.LRU, the kernel's bpf_lru: per-CPU free",
			"  lists refilled in batches, active and inactive lists aged by a ref bit",
			"  (set by CPU(i).Lookup), eviction from the inactive tail. An update takes",
			"  its element before it locks the bucket, and inside a bucket lock a writer",
			"  only gives elements back (htab.LRU.Push, which never waits for a lock),",
			"  so evict (which locks the victim's bucket) cannot deadlock with writers.",
			"  An element given back is free before the bucket unlocks, so whoever sees",
			"  a key gone can insert another without an eviction the delete made",
			"  needless (the kernel frees after unlocking). The map is never full: an",
			"  update evicts instead (htab.ErrNoMem only if the LRU finds nothing to",
			"  evict).",
		)
		if l.PerCPU != nil {
			concurrency = append(concurrency, "  (With UpdateExist an update takes no element: a present key is updated",
				"  in place, as the kernel's per-CPU LRU map does.)")
		}
	} else {
		concurrency = append(concurrency,
			"  Capacity: a new key takes a freed element, else a never-used one; when all",
			"  MaxEntries are in use it is htab.ErrFull. A replace never needs one. A",
			"  delete frees its element before it unlocks, so whoever sees the key gone",
			"  through a single-key operation can insert another (the kernel frees",
			"  after unlocking).",
		)
	}
	return terms, concurrency
}

// declarations emits, for the types with NoPrealloc (not LRU, which the
// kernel always preallocates), the chunk of elements:
//
//	const <prefix>ChunkShift = <shift>
//	type <prefix>ElemChunk [1 << <prefix>ChunkShift]<Elem>
func (c *classicStorage) declarations(f *jen.File) {
	l := c.l
	if l.LRU != nil {
		return
	}
	shift := l.Classic.ChunkShift
	f.Add(c.code(fmt.Sprintf(`
// With NoPrealloc elements are allocated on first use, in chunks of 1<<$ChunkShift:
// %d elements of %d bytes, %d KiB (the most, by powers of two, within %d KiB).
const $ChunkShift = %d

// $ElemChunk is one NoPrealloc chunk of elements.
type $ElemChunk [1 << $ChunkShift]$Elem
`, 1<<shift, l.ElemSize, (1<<shift)*l.ElemSize>>10, spec.ChunkMaxBytes>>10, shift)))
}

func (c *classicStorage) mapFields() (first, owned, counters string) {
	first = "buckets []htab.Bucket // roundup_pow_of_two(maxEntries) buckets: a sequence lock and a head each\n"
	if c.l.LRU != nil {
		owned = `
	// Element storage: element i is elems[i]; a bucket links index+1 so that 0 is nil.
	elems []$Elem                // all maxEntries elements, then htab.LRUHeads whose nodes are the LRU's list heads
	lru   *htab.LRU              // hands out free elements, evicting when none is left (bpf_lru)
`
		return first, owned, ""
	}
	owned = `
	// Element storage. Element i is elems[i] when preallocated, else
	// chunks[i>>shift][i&mask]; a bucket links index+1 so that 0 is nil.
	elems   []$Elem                         // all maxEntries elements; nil with NoPrealloc
	chunks  []atomic.Pointer[$ElemChunk]    // NoPrealloc: allocated on first use
	chunkMu sync.Mutex                      // serialises chunk allocation
`
	counters = `	fresh    atomic.Uint32 // elements fresh..maxEntries-1 were never used
	freeHead atomic.Uint64 // freed elements: a Treiber stack, ABA tag<<32 | index+1, linked through next
`
	return first, owned, counters
}

func (c *classicStorage) newFields() string { return "buckets: make([]htab.Bucket, n),\n" }

func (c *classicStorage) newChecks() jen.Code { return jen.Null() }

// newAlloc makes the elements, or with NoPrealloc the table of chunks; an
// LRU map's elements end with the LRU lists' heads (Options.Check has
// refused NoPrealloc for it).
func (c *classicStorage) newAlloc() jen.Code {
	if c.l.LRU != nil {
		return c.code("m.elems = make([]$Elem, opts.MaxEntries+htab.LRUHeads(opts.CPUs, opts.NoCommonLRU))\n")
	}
	return c.code(`if opts.NoPrealloc {
		m.chunks = make([]atomic.Pointer[$ElemChunk], (opts.MaxEntries-1)>>$ChunkShift+1)
	} else {
		m.elems = make([]$Elem, opts.MaxEntries)
	}
`)
}

// length emits Len: count is exact, since an insert counts its key under
// the bucket lock once it is linked.
//
//	func (m *<Map>) Len() int
func (c *classicStorage) length(f *jen.File) {
	f.Add(c.code(`
// Len is the number of keys in the map.
func (m *$Map) Len() int {
	return int(m.count.Load())
}
`))
}

// primitives emits the classic layout's primitives (see storage) and its
// own helpers: linkHead, and for the types without LRU the element
// allocator (alloc, ensureChunk). free is the kernel's free stack, or for
// the LRU types the LRU's Push (bpf_lru_push_free).
func (c *classicStorage) primitives(f *jen.File) {
	l := c.l
	elem := `	if m.elems != nil {
		return &m.elems[i]
	}
	return &m.chunks[i>>$ChunkShift].Load()[i&(1<<$ChunkShift-1)]
`
	if l.LRU != nil {
		elem = "\treturn &m.elems[i]\n"
	}
	f.Add(c.code(`
// lock is bucket bi's sequence lock.
func (m *$Map) lock(bi uint32) *htab.SeqLock { return &m.buckets[bi].SeqLock }

// head is index+1 of bucket bi's newest element, 0 if the bucket is empty.
func (m *$Map) head(bi uint32) uint32 { return m.buckets[bi].Head() }

// elem is element i (an index, not index+1).
func (m *$Map) elem(i uint32) *$Elem {
`+elem+`}

// nextIndex is index+1 of the element after e in its chain, 0 at its end.
func (e *$Elem) nextIndex() uint32 { return atomic.LoadUint32(&e.next) }

// linkHead makes element i (index+1) the head of bucket bi. Only under the
// bucket's lock.
func (m *$Map) linkHead(bi, i uint32) {
	b := &m.buckets[bi]
	head := b.Head()
$(occSet)	htab.StoreRelease(&m.elem(i-1).next, head)
	b.SetHead(i)
}

// unlink takes element i (index+1) out of bucket bi, whose element before it
// is prev (0: i is the head), and returns i's index, for free. Only under the
// bucket's lock.
func (m *$Map) unlink(bi, prev, i uint32) uint32 {
	next := m.elem(i - 1).nextIndex()
	if prev == 0 {
		m.buckets[bi].SetHead(next)
$(occClear)	} else {
		htab.StoreRelease(&m.elem(prev-1).next, next)
	}
	return i - 1
}

// freeBucket frees every element of bucket bi, which it empties. Only under
// the bucket's lock. The chain is unreachable once the head is cleared; a
// freed element may be reused at once, so its next link is read before it is
// freed.
func (m *$Map) freeBucket(bi uint32) {
	i := m.head(bi)
	m.buckets[bi].SetHead(0)
$(occClear0)	for i != 0 {
		next := m.elem(i - 1).nextIndex()
		m.free(i - 1)
		i = next
	}
}
`,
		fill("occSet", when(l.Batch.Occupancy, c.code("\t// The bucket's bit is set before its first element (-batch-lock sparse).\n\tif head == 0 {\n\t\tm.occ.Set(bi)\n\t}\n"))),
		fill("occClear", when(l.Batch.Occupancy, c.code("\t\t// The bucket's bit goes after its last element (-batch-lock sparse).\n\t\tif next == 0 {\n\t\t\tm.occ.Clear(bi)\n\t\t}\n"))),
		fill("occClear0", when(l.Batch.Occupancy, c.code("\tm.occ.Clear(bi)\n"))),
	))
	if l.LRU != nil {
		f.Add(c.code(`
// free gives element i, already unlinked from its bucket, back to the LRU
// (bpf_lru_push_free), which never waits for a lock: callers may hold the
// element's bucket lock, and free before they unlock.
func (m *$Map) free(i uint32) {
	m.count.Add(-1)
	m.lru.Push(i)
}
`))
		return
	}
	f.Add(c.code(`
// alloc takes a free element: a freed one, else a never-used one.
// It reports false when all maxEntries elements are in use.
func (m *$Map) alloc() (uint32, bool) {
	for {
		h := m.freeHead.Load()
		top := uint32(h)
		if top == 0 {
			break
		}
		next := m.elem(top - 1).nextIndex()
		// The tag in the high half makes a stale CAS fail (ABA).
		if m.freeHead.CompareAndSwap(h, (h>>32+1)<<32|uint64(next)) {
			return top - 1, true
		}
	}
	for {
		i := m.fresh.Load()
		if i >= m.maxEntries {
			return 0, false
		}
		if m.fresh.CompareAndSwap(i, i+1) {
			if m.elems == nil {
				m.ensureChunk(i >> $ChunkShift)
			}
			return i, true
		}
	}
}

// ensureChunk allocates chunk c of a NoPrealloc map if it is not there yet.
func (m *$Map) ensureChunk(c uint32) {
	if m.chunks[c].Load() != nil {
		return
	}
	m.chunkMu.Lock()
	if m.chunks[c].Load() == nil {
$(perCPUChunk)		m.chunks[c].Store(new($ElemChunk))
	}
	m.chunkMu.Unlock()
}

// free puts element i, already unlinked from its bucket, back for reuse.
// Callers free before they unlock the bucket, so that whoever sees the key
// gone can insert another into a full map (the kernel frees after
// unlocking, a window in which such an insert is E2BIG).
func (m *$Map) free(i uint32) {
$(quiesce)	m.count.Add(-1)
	e := m.elem(i)
	for {
		h := m.freeHead.Load()
		htab.StoreRelease(&e.next, uint32(h))
		if m.freeHead.CompareAndSwap(h, (h>>32+1)<<32|uint64(i+1)) {
			return
		}
	}
}
`,
		fill("perCPUChunk", c.perCPUChunk()),
		fill("quiesce", when(l.PerCPU != nil && l.PerCPU.SlotLocks > 0, c.code("\t// Program writes still in flight on the element must not land after its reuse.\n\tm.quiesce(i)\n"))),
	))
}

// hashReplace: the value in place, then a move to the head.
func (c *classicStorage) hashReplace() jen.Code {
	return c.code(`m.elem(i - 1).setValue(v)
		if prev != 0 {
			// The kernel links a new copy at the head and unlinks the old one;
			// in place plus a move to the head is the same to every observer.
			m.unlink(bi, prev, i)
			m.linkHead(bi, i)
		}
`)
}

// afterDelete: nothing; the classic layout has no summaries.
func (c *classicStorage) afterDelete() jen.Code { return nil }

// hashInsert: a free element, filled, then linked at the head.
func (c *classicStorage) hashInsert() jen.Code {
	return c.code(`n, ok := m.alloc()
	if !ok {
		b.Unlock()
		return htab.ErrFull
	}
` + linkNew("e.setValue(v)"))
}

func (c *classicStorage) insertRetries() bool { return false }

func (c *classicStorage) lookupFast() *fastPath { return nil }
