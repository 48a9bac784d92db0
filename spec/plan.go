package spec

import (
	"fmt"

	"github.com/htabgen/htabgen/htab"
)

// UnrollWords is the largest key or value, in 32-bit words, whose hashing,
// comparing and copying are emitted as straight-line code. Larger ones get
// loops: past 64 bytes the loop overhead is noise next to the memory traffic,
// and a 4112-byte key must not turn into thousands of statements.
const UnrollWords = 16

// LRUNodeSize is the size of htab.LRUNode (ref, cpu|type, prev, next as
// element indexes): the per-element cost of the LRU lists, which an LRU
// map's element carries as its last field.
const LRUNodeSize = 16

// NoCacheHashMaxKey is the largest key for which a lean element keeps no
// cached hash, as the kernel's since "bpf: htab: Reduce memory use of hash
// maps": two word compares cost no more than a hash compare.
const NoCacheHashMaxKey = 8

// Layout is every decision about the generated code, made before any code is
// emitted. Templates read it and nothing else. Each optional part of a map is
// a sub-layout that is nil when the map does not have it, so that a feature
// adds one field here and one hook in the templates.
type Layout struct {
	Spec  Spec
	Names Names // every package-level identifier of the map

	KeyWords    int  // key size in 32-bit words, rounded up; padding bytes are zero
	ValueWords  int  // value size in 32-bit words, rounded up
	KeyUnrolled bool // key loads and compares are straight-line code (up to UnrollWords)
	ValUnrolled bool // value loads and stores are straight-line code

	Hash HashLayout

	// CachedHash: the element stores its key's hash and compares it first.
	// Lean elements of keys up to NoCacheHashMaxKey bytes do not: comparing
	// the key costs no more than comparing a hash.
	CachedHash bool
	Elem       []Field // the element struct, in order
	ElemSize   int     // bytes, as unsafe.Sizeof reports it

	// The storage layout: exactly one of Classic and Home is set.
	Classic *ClassicLayout
	Home    *HomeLayout

	PerCPU *PerCPULayout // per-CPU types: one value per CPU per key
	LRU    *LRULayout    // LRU types: elements come from the kernel's LRU

	Batch BatchLayout

	// Filter: -bloom K, a bloom filter in front of the map's lookups.
	Filter *FilterLayout
	// BloomMap: -type bloom, the kernel's bloom filter map. Such a layout
	// has no key, element, buckets or storage: only Names, the value's
	// words and Hash, which hashes the value.
	BloomMap *BloomMapLayout

	// CounterPad is the padding, in bytes, between the map's fields that
	// every lookup reads and the counters that inserts and deletes write: a
	// cache line, so that writers do not take the readers' line.
	CounterPad int
}

// HashLayout is how the map hashes a key: always the kernel's jhash value,
// emitted in the form Kind names.
type HashLayout struct {
	Kind HashKind
	// Unrolled: the static hash is straight-line code; otherwise it loops
	// over 12-byte blocks (keys longer than UnrollWords words).
	Unrolled bool
	// Inline: lookups compute the hash written out in their own body (the
	// unrolled static hash of a key up to InlineHashMaxKey bytes); a call of
	// m.hash is too big for the compiler to inline.
	Inline bool
}

// ClassicLayout is the kernel's storage: an array of buckets (a sequence
// lock and the index+1 of the newest element each) and an array of elements.
type ClassicLayout struct {
	BucketSize int // bytes per bucket: the sequence lock and the head index
	// ChunkShift: with NoPrealloc, elements are allocated on first use in
	// chunks of 1<<ChunkShift (the most, by powers of two, within
	// ChunkMaxBytes). Zero for the LRU types, which are always preallocated.
	ChunkShift int
}

// ChunkMaxBytes bounds a NoPrealloc chunk of elements: big enough that
// allocation is rare, small enough that a map with few keys stays small.
const ChunkMaxBytes = 16 << 10

// HomeLayout is the home storage (-layout home, hash only): one array of
// roundup_pow_of_two(MaxEntries) slots, slot b being bucket b's sequence lock
// and the storage of one element, bucket b's newest while b is non-empty.
type HomeLayout struct {
	// KeyWord64, ValWord64: the slot's key or value is 8 bytes (not padded
	// to 8) at an 8-byte offset of a slot whose size is a multiple of 8, so
	// the lookup loads it as one uint64. The key only without a cached hash
	// (compared first otherwise) and with the unrolled static hash, which
	// reads the key's bytes and not its words.
	KeyWord64, ValWord64 bool
	// MaxSlots: HomeMaxSlots, so MaxEntries is at most 2^30.
	MaxSlots int
	// SummaryBytes per bucket: the summary of its chain's hashes that
	// lookups ask before they read the slot (htab.Summaries).
	SummaryBytes int
}

// PerCPULayout is how a per-CPU type keeps one value per CPU: one array of
// slots per CPU, indexed by the element's index, so that the element needs no
// pointer to its values and different CPUs' values never share a cache line.
type PerCPULayout struct {
	SlotSize int // bytes of one CPU's value of one element: whole words
	// ArrayPad is how many spare slots follow each CPU's array, one cache
	// line's worth, so that the next allocation is not on its last line.
	ArrayPad int
	// SlotLocks: a program's update of a present key writes its CPU's slot
	// under one of SlotLocks per-CPU slot locks instead of the bucket lock,
	// so that CPUs counting on shared keys do not bounce the bucket's cache
	// line. Zero for lru_pcpu, which takes an LRU element first, as the
	// kernel does, and so keeps the bucket lock.
	SlotLocks int
	// SlotLocksPad is how many spare locks follow each CPU's lock array (8
	// of 8 bytes: a cache line).
	SlotLocksPad int
	// LookupStack is how many CPUs' values the userspace Lookup copies
	// through a buffer on the stack (at most 1 KiB); more are allocated.
	LookupStack int
}

// LRULayout is how an LRU type's elements come from htab.LRU, the port of
// the kernel's bpf_lru: each element carries its LRU node as its last field.
type LRULayout struct {
	NodeSize int // bytes of htab.LRUNode
}

// FilterLayout is the bloom filter in front of a map's lookups (htab.Filter):
// a lookup, a delete, a lookup-and-delete, and an update that needs the key
// present, ask it first and answer "absent" from it when they can. Inserts
// set a key's bits under its bucket lock, before the key is linked.
type FilterLayout struct {
	Hashes int // bits a key sets, K
	// UpdateExist: an update with htab.UpdateExist of a key the filter says
	// is absent fails without locking. Not for lru, whose update takes an
	// element from the LRU (which may evict) before it looks the key up, as
	// the kernel's does: an answer from the filter would skip that eviction.
	UpdateExist bool
}

// BloomMapLayout is -type bloom: BPF_MAP_TYPE_BLOOM_FILTER, bit for bit
// (kernel/bpf/bloom_filter.c). Hash i of a value is the kernel's jhash of the
// value with the seed plus i, in the form Hash names (jhash2 where the value
// size is a multiple of 4 is the same value), masked to the bit array.
type BloomMapLayout struct {
	DefaultHashes int // the hashes of Options.BloomHashes 0: -hashes
}

// BatchLayout is how the batch operations walk the buckets.
type BatchLayout struct {
	// Lock is how a batch walk finds non-empty buckets: always locks every
	// bucket (the kernel before "bpf: Do not grab the bucket spinlock by
	// default on htab batch ops"); nonempty reads a bucket's head without
	// its lock and skips it if empty (that change); sparse jumps through an
	// occupancy bitmap (htab.Occupancy) that the writers keep.
	Lock BatchLock
	// Occupancy: the map keeps the bitmap (Lock sparse). Every path that
	// makes a bucket non-empty or empty sets or clears its bit under the
	// bucket's lock.
	Occupancy bool
}

// Field is one field of the element struct.
type Field struct {
	Name   string // Go field name
	GoType string // Go type
	Offset int    // bytes from the start of the element
	Size   int    // bytes
	Doc    string // why the field exists
}

// Plan validates s and makes every layout decision for it.
func Plan(s Spec) (*Layout, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	l := &Layout{
		Spec:       s,
		Names:      NamesFor(s.TypeName()),
		KeyWords:   words(s.Key),
		ValueWords: words(s.Val),
		CounterPad: 64,
	}
	l.KeyUnrolled = l.KeyWords <= UnrollWords
	l.ValUnrolled = l.ValueWords <= UnrollWords
	if s.Type == Bloom {
		l.Hash = HashLayout{Kind: s.Hash, Unrolled: s.Hash == HashStatic && l.ValUnrolled}
		l.BloomMap = &BloomMapLayout{DefaultHashes: s.Hashes}
		return l, nil
	}
	l.Hash = HashLayout{Kind: s.Hash, Unrolled: s.Hash == HashStatic && l.KeyUnrolled}
	l.Hash.Inline = l.Hash.Unrolled && s.Key <= InlineHashMaxKey
	l.CachedHash = !s.Lean || s.Key > NoCacheHashMaxKey
	if s.Type.IsLRU() {
		l.LRU = &LRULayout{NodeSize: LRUNodeSize}
	}
	if s.StorageLayout() == LayoutHome {
		l.Home = &HomeLayout{MaxSlots: HomeMaxSlots, SummaryBytes: 1}
		// Default options the map could not be created with.
		if s.MaxEntries > 0 && roundUpPow2(s.MaxEntries) > l.Home.MaxSlots {
			return nil, &Error{Option: "max-entries", Value: s.MaxEntries, Allowed: fmt.Sprintf("1..%d in the home layout, whose slots are its buckets (-layout classic: up to %d)", l.Home.MaxSlots, int64(htab.MaxMaxEntries))}
		}
	} else {
		l.Classic = &ClassicLayout{BucketSize: 8}
	}
	l.Batch = BatchLayout{Lock: s.BatchLock, Occupancy: s.BatchLock == BatchLockSparse}
	if s.Bloom > 0 {
		l.Filter = &FilterLayout{Hashes: s.Bloom, UpdateExist: s.Type != LRU}
	}
	if s.Type.IsPerCPU() {
		slot := 4 * l.ValueWords
		l.PerCPU = &PerCPULayout{
			SlotSize:    slot,
			ArrayPad:    (64 + slot - 1) / slot,
			LookupStack: min(16, 1024/slot),
		}
		if l.LRU == nil {
			l.PerCPU.SlotLocks, l.PerCPU.SlotLocksPad = 64, 8
		}
	}
	l.Elem = planElem(s, l)
	for _, f := range l.Elem {
		l.ElemSize = f.Offset + f.Size
	}
	if l.Classic != nil && l.LRU == nil {
		l.Classic.ChunkShift = chunkShift(l.ElemSize)
	}
	if l.Home != nil {
		l.Home.KeyWord64 = s.Key == 8 && !l.CachedHash && l.Hash.Unrolled && l.word64("key")
		l.Home.ValWord64 = s.Val == 8 && l.word64("val")
	}
	return l, nil
}

// chunkShift is log2 of the most elements, by powers of two, that a chunk
// of ChunkMaxBytes holds: at least one element.
func chunkShift(elemSize int) int {
	shift := 0
	for (2<<shift)*elemSize <= ChunkMaxBytes {
		shift++
	}
	return shift
}

// InlineHashMaxKey is the longest key whose unrolled hash lookups write out
// in their own body (HashLayout.Inline).
const InlineHashMaxKey = 16

// word64 reports whether the element's field name is 8 bytes at an 8-byte
// offset, in an element whose size is a multiple of 8 (else element i+1
// would start 4 bytes off).
func (l *Layout) word64(name string) bool {
	if l.ElemSize%8 != 0 {
		return false
	}
	for _, f := range l.Elem {
		if f.Name == name {
			return f.Size == 8 && f.Offset%8 == 0
		}
	}
	return false
}

// planElem lists the element's fields. Every field is a uint32 or an array of
// them, so the element is 4-byte aligned, holds no pointers (the garbage
// collector never scans the element array) and every field can be read with
// sync/atomic by lock-free readers.
func planElem(s Spec, l *Layout) []Field {
	var fs []Field
	add := func(name, typ string, size int, doc string) {
		off := 0
		if n := len(fs); n > 0 {
			off = fs[n-1].Offset + fs[n-1].Size
		}
		fs = append(fs, Field{name, typ, off, size, doc})
	}
	if l.Home != nil {
		add("seq", "htab.SeqLock", 4, "the sequence lock of the bucket whose home this slot is: odd while a writer holds it")
		add("next", "uint32", 4, "bit 31: this slot holds its bucket's newest element; bits 0-30: index+1 of the next older element, 0 ends the chain")
	} else {
		add("next", "uint32", 4, "index+1 of the next older element in the bucket; 0 ends the chain")
	}
	if l.CachedHash {
		add("hash", "uint32", 4, "the key's hash, compared before the key")
	}
	if !s.Lean {
		// The all-fields element: what every type needs, in every type, as the
		// kernel's htab_elem had before it was made lean.
		add("lru", "[3]uint32", 12, "room for an LRU node (prev, next, state), as every element had before the lean element; unused (an LRU element carries its node as its last field)")
		add("pcpu", "uint32", 4, "room for a per-CPU value reference, as every element had before the lean element; unused (values are indexed by element)")
	}
	add("key", fmt.Sprintf("[%d]uint32", l.KeyWords), 4*l.KeyWords, "the "+Plural(s.Key, "key byte")+", little-endian words, zero-padded")
	if l.ValuesInline() {
		add("val", fmt.Sprintf("[%d]uint32", l.ValueWords), 4*l.ValueWords, "the "+Plural(s.Val, "value byte")+", little-endian words, zero-padded")
	}
	if l.LRU != nil {
		// Last, ref first: a program-side lookup sets the ref bit next to the
		// value it has just read.
		add("node", "htab.LRUNode", l.LRU.NodeSize, "the LRU node: ref bit, cpu|type, prev and next as element indexes (bpf_lru_node)")
	}
	return fs
}

// ValuesInline reports whether the value lives in the element: every type
// but the per-CPU ones.
func (l *Layout) ValuesInline() bool { return l.PerCPU == nil }

// EntryBytes is the memory per entry of a full map with maxEntries
// preallocated entries: elements, buckets, per-CPU values and LRU nodes.
// The sums are float64: in int they overflow where int is 32 bits (65536
// slots of a 1 MiB value are 2^36 bytes).
func (l *Layout) EntryBytes(maxEntries, cpus int) float64 {
	nb := float64(roundUpPow2(maxEntries))
	bitmap := float64(bitmapWords(roundUpPow2(maxEntries)) * 8) // one bit per bucket, in uint64 words
	filter := 0.0
	if l.Filter != nil {
		filter = float64(htab.FilterBits(maxEntries, l.Filter.Hashes)) / 8 / float64(maxEntries)
	}
	if l.Home != nil {
		// The slots are the buckets; plus the summaries, and the free bitmap,
		// one bit per slot.
		return (nb*float64(l.ElemSize+l.Home.SummaryBytes)+bitmap*float64(1+b2i(l.Batch.Occupancy)))/float64(maxEntries) + filter
	}
	per := float64(l.ElemSize)
	if !l.ValuesInline() {
		per += 4 * float64(l.ValueWords) * float64(cpus)
	}
	buckets := nb * float64(l.Classic.BucketSize)
	if l.Batch.Occupancy {
		buckets += bitmap // the occupancy bitmap
	}
	return per + buckets/float64(maxEntries) + filter
}

// bitmapWords is the number of uint64 words of a bitmap of n bits.
func bitmapWords(n int) int { return (n + 63) / 64 }

// HashDescription says in words which hash the map uses.
func (l *Layout) HashDescription() string {
	n, what := l.HashedBytes(), "key"
	if l.BloomMap != nil {
		what = "value"
	}
	switch l.Hash.Kind {
	case HashJhash2:
		return fmt.Sprintf("jhash2: the kernel's word loop over %s", Plural(words(n), "word"))
	case HashJhash:
		return fmt.Sprintf("jhash: the kernel's byte loop over %s", Plural(n, "byte"))
	}
	tail := ""
	if n%4 != 0 {
		tail = fmt.Sprintf(", then a %d-byte tail", n%4)
	}
	if l.Hash.Unrolled {
		return fmt.Sprintf("static: jhash unrolled for %s (%s%s)", Plural(n, "byte"), Plural(n/4, "word load"), tail)
	}
	return fmt.Sprintf("static: jhash over %d words in 12-byte blocks (%s longer than %d bytes is not unrolled)", words(n), what, 4*UnrollWords)
}

// HashedBytes is how many bytes the hash reads: the key's, or a bloom
// filter map's value's.
func (l *Layout) HashedBytes() int {
	if l.BloomMap != nil {
		return l.Spec.Val
	}
	return l.Spec.Key
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func words(n int) int { return (n + 3) / 4 }

func roundUpPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Plural is n and what, with an s unless n is 1: "1 byte", "8 bytes".
func Plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
