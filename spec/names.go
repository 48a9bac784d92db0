package spec

import (
	"unicode"
	"unicode/utf8"
)

// Names are the package-level identifiers of one generated map, all decided
// here. Several maps compile together in one package because of two rules:
//
//   - The exported names are the map's name N, N+"Key", N+"Value", N+"CPU"
//     and "New"+N; with default options N+"Options" and "New"+N+"Default";
//     with -ebpf-compat N+"EBPF" and "New"+N+"EBPF". Two maps whose exported names collide (Conns and ConnsKey)
//     are refused before anything is written (htabgen.CheckTogether).
//   - Every unexported name is the map's Prefix, N with its first letter
//     lowered (Validate takes only names whose first letter lowers and raises
//     back, so distinct names give distinct prefixes), followed by a suffix,
//     and no suffix ends with another. Prefixes p and p+x then never give one
//     name: p+x+s = p+s' would need s' = x+s, a suffix ending with another.
//     The suffixes are Suffixes; TestNamesCompose checks the rule on
//     generated files too.
type Names struct {
	Map   string // the map type, e.g. HashK8V8
	Key   string // N+"Key": [K]byte
	Value string // N+"Value": [V]byte
	CPU   string // N+"CPU": the program-side handle
	New   string // "New"+N: the constructor

	Options    string // N+"Options": the spec's default options (-max-entries)
	NewDefault string // "New"+N+"Default": the constructor with them
	EBPF       string // N+"EBPF": the -ebpf-compat adapter
	NewEBPF    string // "New"+N+"EBPF": its constructor

	Prefix string // N with its first letter lowered

	// The unexported identifiers, Prefix+suffix each: the map file's.
	Elem       string // the element (the slot, in the home layout)
	KeyWords   string // a key as the element stores it: [KeyWords]uint32
	HashInit   string // the static hash's initial state
	ElemChunk  string // NoPrealloc: a chunk of elements
	ChunkShift string // NoPrealloc: log2 of a chunk's elements
	Slot       string // per-CPU types: one CPU's value of one element
	SlotChunk  string // per-CPU NoPrealloc: a chunk of one CPU's slots
	SlotLocks  string // pcpu: how many slot locks each CPU has
	HomeBit    string // home layout: the next word's bit "this slot is its bucket's head"
	IndexMask  string // home layout: the next word's bits of index+1
	MaxSlots   string // home layout: the most slots index+1 can address
	ValueWords string // bloom filter map: a value as words, for jhash2
	BulkGroup  string // LookupBulk: how many keys it hashes and touches at once

	// The -tests file's adapters (htabtest.Map, htabtest.BloomMap).
	TestMap   string
	TestBloom string
	UnderTest string // an alias of the map, which the adapters embed
}

// Suffixes are the suffixes of the unexported identifiers, in the order of
// Names' fields. No suffix ends with another.
var Suffixes = []string{"Elem", "KeyWords", "HashInit", "ElemChunk", "ChunkShift", "Slot", "SlotChunk", "SlotLocks", "HomeBit", "IndexMask", "MaxSlots", "ValueWords", "BulkGroup", "TestMap", "TestBloom", "UnderTest"}

// NamesFor is the names of a map named name (an exported Go identifier).
func NamesFor(name string) Names {
	p := lowerFirst(name)
	return Names{
		Map: name, Key: name + "Key", Value: name + "Value", CPU: name + "CPU", New: "New" + name,
		Options: name + "Options", NewDefault: "New" + name + "Default",
		EBPF: name + "EBPF", NewEBPF: "New" + name + "EBPF",
		Prefix:     p,
		Elem:       p + "Elem",
		KeyWords:   p + "KeyWords",
		HashInit:   p + "HashInit",
		ElemChunk:  p + "ElemChunk",
		ChunkShift: p + "ChunkShift",
		Slot:       p + "Slot",
		SlotChunk:  p + "SlotChunk",
		SlotLocks:  p + "SlotLocks",
		HomeBit:    p + "HomeBit",
		IndexMask:  p + "IndexMask",
		MaxSlots:   p + "MaxSlots",
		ValueWords: p + "ValueWords",
		BulkGroup:  p + "BulkGroup",
		TestMap:    p + "TestMap",
		TestBloom:  p + "TestBloom",
		UnderTest:  p + "UnderTest",
	}
}

// lowerFirst is s with its first letter lowered: HashK8V8 → hashK8V8, LRUConns →
// lRUConns. Only the first letter, so that two map names give two prefixes
// (lowering LRU whole would give LRUConns and LruConns one prefix, and two
// maps that compile apart would clash in one package).
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
