package spec

import "fmt"

// Feature is one row of the feature table: an option of the generator, its
// help line, and the map types it combines with. Validation and the command's
// help read this table.
type Feature struct {
	Name  string    // flag name (without the dash) and JSON field
	Usage string    // one line for -help
	Types []MapType // the types it applies to
	// IsSet reports whether s sets the option away from its default.
	IsSet func(s Spec) bool
	// Value is the option's value in s, for error messages.
	Value func(s Spec) any
	// ValueDecides: given for a type it does not apply to, the option is
	// refused only when IsSet, not whenever given, since its default is
	// also what the other types have (-layout classic).
	ValueDecides bool
}

var hashFamily = []MapType{Hash, PerCPU, LRU, LRUPerCPU}

// Features is the table of the options that do not apply to every type.
// (-type, -val, -name, -pkg, -out, -tests and -explain apply to all.)
var Features = []Feature{
	{
		Name: "key", Usage: fmt.Sprintf("key size in bytes (1..%d)", MaxKeySize), Types: hashFamily,
		IsSet: func(s Spec) bool { return s.Key != 0 }, Value: func(s Spec) any { return s.Key },
	},
	{
		Name: "hash", Usage: "static (unrolled for the key size), jhash2 (the kernel's word loop; the key size must be a multiple of 4), jhash (the kernel's byte loop)",
		Types: MapTypes,
		IsSet: func(s Spec) bool { return s.Hash != HashStatic }, Value: func(s Spec) any { return s.Hash },
	},
	{
		Name: "lean", Usage: "true: per-type lean element; false: the all-fields element, for comparison",
		Types: hashFamily,
		IsSet: func(s Spec) bool { return !s.Lean }, Value: func(s Spec) any { return s.Lean },
	},
	{
		Name: "batch-lock", Usage: "nonempty: batches skip empty buckets without locking; always: lock every bucket (the kernel before the fix); sparse: nonempty plus an occupancy bitmap, so that a dump costs in proportion to the entries",
		Types: hashFamily,
		IsSet: func(s Spec) bool { return s.BatchLock != BatchLockNonEmpty }, Value: func(s Spec) any { return s.BatchLock },
	},
	{
		Name: "layout", Usage: "home (-type hash only, its default): each bucket's newest element in the bucket, one cache miss to find it; every slot made at creation, MaxEntries at most 2^30. classic (every type; the only layout of pcpu, lru and lru_pcpu): buckets and elements apart, as the kernel; memory follows the entries with NoPrealloc",
		Types: []MapType{Hash},
		// Set means other than the type's default: classic is the only
		// layout of the other types, and they accept it.
		IsSet: func(s Spec) bool { return s.Layout != "" && s.Layout != Spec{Type: s.Type}.StorageLayout() }, Value: func(s Spec) any { return s.Layout },
		ValueDecides: true,
	},
	{
		Name: "bloom", Usage: fmt.Sprintf("K > 0: a bloom filter with K hash functions (1..%d) in front of lookups", MaxBloomHashes),
		Types: hashFamily,
		IsSet: func(s Spec) bool { return s.Bloom != 0 }, Value: func(s Spec) any { return s.Bloom },
	},
	{
		Name: "hashes", Usage: fmt.Sprintf("default number of hash functions (1..%d)", MaxBloomHashes),
		Types: []MapType{Bloom},
		IsSet: func(s Spec) bool { return s.Hashes != 5 }, Value: func(s Spec) any { return s.Hashes },
	},
	{
		Name: "ebpf-compat", Usage: "also write <out>_ebpf.go, an adapter with the methods of cilium/ebpf's *ebpf.Map",
		Types: MapTypes,
		IsSet: func(s Spec) bool { return s.EbpfCompat }, Value: func(s Spec) any { return s.EbpfCompat },
	},
	{
		Name: "no-prealloc", Usage: "with -max-entries: NOptions() allocates elements on demand (BPF_F_NO_PREALLOC)",
		Types: []MapType{Hash, PerCPU},
		IsSet: func(s Spec) bool { return s.NoPrealloc }, Value: func(s Spec) any { return s.NoPrealloc },
	},
	{
		Name: "no-common-lru", Usage: "with -max-entries: NOptions() gives each CPU its own LRU lists (BPF_F_NO_COMMON_LRU)",
		Types: []MapType{LRU, LRUPerCPU},
		IsSet: func(s Spec) bool { return s.NoCommonLRU }, Value: func(s Spec) any { return s.NoCommonLRU },
	},
}
