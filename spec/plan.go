package spec

import (
	"fmt"
	"unicode"
	"unicode/utf8"
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
// cached hash (seed 002): two word compares cost no more than a hash compare.
const NoCacheHashMaxKey = 8

// Layout is every decision about the generated code, made before any code is
// emitted. Templates read it and nothing else.
type Layout struct {
	Spec Spec

	// Go names. Exported ones come from the map name; unexported helpers carry
	// the map name as a prefix so that several maps compile in one package.
	Name      string // the map type, e.g. HashK8V8
	KeyType   string // NameKey: [K]byte
	ValueType string // NameValue: [V]byte
	CPUType   string // NameCPU: the program-side handle
	Prefix    string // Name with its first letter lowered: the prefix of unexported identifiers

	KeyWords   int // key size in 32-bit words, rounded up; padding bytes are zero
	ValueWords int // value size in 32-bit words, rounded up

	CachedHash bool // the element stores its key's hash and compares it first
	Hash       HashKind
	// HashUnrolled: the static hash is straight-line code; otherwise it loops
	// over 12-byte blocks (keys longer than UnrollWords words).
	HashUnrolled bool
	KeyUnrolled  bool // key loads and compares are straight-line code
	ValUnrolled  bool // value loads and stores are straight-line code
	// HashInline: lookups compute the hash written out in their own body
	// (the unrolled static hash of a key up to InlineHashMaxKey bytes); a
	// call of m.hash is too big for the compiler to inline.
	HashInline bool
	// KeyWord64, ValWord64: the home slot's key or value is 8 bytes (not
	// padded to 8) at an 8-byte offset of a slot whose size is a multiple
	// of 8, so the lookup loads it as one uint64. The key only without a
	// cached hash (compared first otherwise) and with the unrolled static
	// hash, which reads the key's bytes and not its words.
	KeyWord64, ValWord64 bool

	Elem       []Field // the element struct, in order
	ElemSize   int     // bytes, as unsafe.Sizeof reports it
	BucketSize int     // bytes per bucket: seqlock word + head index

	// PerCPU: every key holds one value per CPU slot (pcpu, lru_pcpu), kept
	// in one array per CPU indexed by the element's index, so that different
	// CPUs' values never share a cache line; see ValuesInline.
	PerCPU bool
	// LRU: elements come from, and are evicted by, the kernel's LRU engine
	// (htab.LRU) instead of a free stack; the map is never full.
	LRU bool
	// SlotLocks: a program's update of a present key writes its CPU's slot
	// without the bucket lock, under a per-CPU slot lock instead, so that
	// CPUs counting on shared keys do not bounce the bucket's cache line
	// (pcpu; lru_pcpu takes an LRU element first, as the kernel does, so it
	// keeps the bucket lock).
	SlotLocks bool

	// Batch operations (issue 4, seed 003); see templates/batch.go.
	//
	// BatchLock is how a batch walk finds non-empty buckets: always locks
	// every bucket (the kernel before seed 003); nonempty reads a bucket's
	// head without its lock and skips it if empty; sparse jumps through an
	// occupancy bitmap (htab.Occupancy) that the writers keep.
	BatchLock BatchLock
	// Occupancy: the map keeps the bitmap (BatchLock sparse). Every path that
	// makes a bucket non-empty or empty (linkHead and unlink, the home
	// layout's insert, the batch delete) sets or clears its bit under the
	// bucket's lock.
	Occupancy bool

	// Home: -layout home (hash only, its default; see templates/home.go).
	// The elements are the buckets: Elem starts with the bucket's sequence
	// lock, there are roundup_pow_of_two(MaxEntries) of them and no separate
	// bucket array.
	Home bool
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
	if err := checkImplemented(s); err != nil {
		return nil, err
	}
	name := s.TypeName()
	l := &Layout{
		Spec:       s,
		Name:       name,
		KeyType:    name + "Key",
		ValueType:  name + "Value",
		CPUType:    name + "CPU",
		Prefix:     lowerFirst(name),
		KeyWords:   words(s.Key),
		ValueWords: words(s.Val),
		Hash:       s.Hash,
		BucketSize: 8,
	}
	l.CachedHash = !s.Lean || s.Key > NoCacheHashMaxKey
	l.KeyUnrolled = l.KeyWords <= UnrollWords
	l.ValUnrolled = l.ValueWords <= UnrollWords
	l.HashUnrolled = s.Hash == HashStatic && l.KeyUnrolled
	l.PerCPU = s.Type.IsPerCPU()
	l.LRU = s.Type.IsLRU()
	l.SlotLocks = l.PerCPU && !l.LRU
	l.BatchLock = s.BatchLock
	l.Occupancy = s.BatchLock == BatchLockSparse
	l.Home = s.StorageLayout() == LayoutHome
	l.Elem = planElem(s, l)
	for _, f := range l.Elem {
		l.ElemSize = f.Offset + f.Size
	}
	l.HashInline = l.HashUnrolled && s.Key <= InlineHashMaxKey
	if l.Home {
		l.KeyWord64 = s.Key == 8 && !l.CachedHash && l.HashUnrolled && l.word64("key")
		l.ValWord64 = s.Val == 8 && l.word64("val")
	}
	return l, nil
}

// InlineHashMaxKey is the longest key whose unrolled hash lookups write out
// in their own body (HashInline).
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
	if l.Home {
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
		// kernel's htab_elem had before seed 002.
		add("lru", "[3]uint32", 12, "room for an LRU node (prev, next, state), as every element had before seed 002; unused (an LRU element carries its node as its last field)")
		add("pcpu", "uint32", 4, "room for a per-CPU value reference, as every element had before seed 002; unused (values are indexed by element)")
	}
	add("key", fmt.Sprintf("[%d]uint32", l.KeyWords), 4*l.KeyWords, "the "+Plural(s.Key, "key byte")+", little-endian words, zero-padded")
	if l.ValuesInline() {
		add("val", fmt.Sprintf("[%d]uint32", l.ValueWords), 4*l.ValueWords, "the "+Plural(s.Val, "value byte")+", little-endian words, zero-padded")
	}
	if l.LRU {
		// Last, ref first: a program-side lookup sets the ref bit next to the
		// value it has just read.
		add("node", "htab.LRUNode", LRUNodeSize, "the LRU node: ref bit, cpu|type, prev and next as element indexes (bpf_lru_node)")
	}
	return fs
}

// NotImplemented lists, as the command line writes them, what
// checkImplemented refuses; -help says so.
var NotImplemented = []string{"-type bloom", "-bloom", "-ebpf-compat"}

// checkImplemented rejects options whose features this version does not have
// yet, so that no one gets a map silently lacking what they asked for.
func checkImplemented(s Spec) error {
	todo := func(opt string, v any) error {
		return &Error{opt, v, "not implemented in this version of htabgen"}
	}
	switch {
	case s.Type == Bloom:
		return todo("type", s.Type)
	case s.Bloom != 0:
		return todo("bloom", s.Bloom)
	case s.EbpfCompat:
		return todo("ebpf-compat", s.EbpfCompat)
	}
	return nil
}

// ValuesInline reports whether the value lives in the element: every type
// but the per-CPU ones.
func (l *Layout) ValuesInline() bool { return !l.PerCPU }

// EntryBytes is the memory per entry of a full map with maxEntries
// preallocated entries: elements, buckets, per-CPU values and LRU nodes.
// The sums are float64: in int they overflow where int is 32 bits (65536
// slots of a 1 MiB value are 2^36 bytes).
func (l *Layout) EntryBytes(maxEntries, cpus int) float64 {
	nb := float64(roundUpPow2(maxEntries))
	bitmap := float64(bitmapWords(roundUpPow2(maxEntries)) * 8) // one bit per bucket, in uint64 words
	if l.Home {
		// The slots are the buckets; plus the free bitmap, one bit per slot.
		return (nb*float64(l.ElemSize) + bitmap*float64(1+b2i(l.Occupancy))) / float64(maxEntries)
	}
	per := float64(l.ElemSize)
	if !l.ValuesInline() {
		per += 4 * float64(l.ValueWords) * float64(cpus)
	}
	buckets := nb * float64(l.BucketSize)
	if l.Occupancy {
		buckets += bitmap // the occupancy bitmap
	}
	return per + buckets/float64(maxEntries)
}

// bitmapWords is the number of uint64 words of a bitmap of n bits.
func bitmapWords(n int) int { return (n + 63) / 64 }

// HashDescription says in words which hash the map uses.
func (l *Layout) HashDescription() string {
	switch l.Hash {
	case HashJhash2:
		return fmt.Sprintf("jhash2: the kernel's word loop over %s", Plural(l.KeyWords, "word"))
	case HashJhash:
		return fmt.Sprintf("jhash: the kernel's byte loop over %s", Plural(l.Spec.Key, "byte"))
	}
	tail := ""
	if l.Spec.Key%4 != 0 {
		tail = fmt.Sprintf(", then a %d-byte tail", l.Spec.Key%4)
	}
	if l.HashUnrolled {
		return fmt.Sprintf("static: jhash unrolled for %s (%s%s)", Plural(l.Spec.Key, "byte"), Plural(l.Spec.Key/4, "word load"), tail)
	}
	return fmt.Sprintf("static: jhash over %d words in 12-byte blocks (key longer than %d bytes is not unrolled)", l.KeyWords, 4*UnrollWords)
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

// lowerFirst is s with its first letter lowered: HashK8V8 → hashK8V8, LRUConns →
// lRUConns. Only the first letter, so that two map names give two prefixes
// (lowering LRU whole would give LRUConns and LruConns one prefix, and two
// maps that compile apart would clash in one package).
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// Plural is n and what, with an s unless n is 1: "1 byte", "8 bytes".
func Plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
