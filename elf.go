package htabgen

import (
	"debug/elf"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"maps"
	"math"
	"math/bits"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/spec"
)

// SkippedMap is a map of a BPF object that ELFSpecs does not generate.
type SkippedMap struct {
	Name   string // the map's name in the object
	Type   string // its kernel type as bpftool names it: ringbuf, array, hash, ...
	Reason string // why it is skipped
}

func (m SkippedMap) String() string {
	return fmt.Sprintf("skipping map %s (%s): %s", m.Name, m.Type, m.Reason)
}

// ObjectError is a file that ELFSpecs cannot read as a BPF object: not an
// ELF file, an ELF file for another machine, or a BPF object that
// cilium/ebpf cannot parse. Failures to read the file are not ObjectErrors:
// they are the *fs.PathError of the read.
type ObjectError struct {
	Path string
	Err  error
}

func (e *ObjectError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *ObjectError) Unwrap() error { return e.Err }

// ELFSpecs reads the compiled BPF object at path and returns a spec for each
// of its hash-family and bloom filter maps, in the order of their names, and
// the maps it skips, with why: maps of other types, maps with flags or
// attributes htabgen's maps do not have, and maps whose values hold fields
// the kernel manages itself (kernelField). Each spec has the map's type, key
// and value sizes, a Go name made from the map's name (conns_own_lists:
// ConnsOwnLists), Out <name in lower case>_htab.go, and the map's
// max_entries and flags as its default options (spec.Spec.MaxEntries); a
// bloom filter's Hashes are map_extra's. Every spec is valid; Pkg, Tests and
// the other options are left for the caller.
//
// only, if not nil, keeps the maps it names: naming a map the object does
// not declare is an error that lists those it does. Two maps whose names
// give one Go name or one file, or a name that gives no exported Go
// identifier, are errors naming them. A file that cannot be read is its
// *fs.PathError; one that is not a BPF object, an *ObjectError.
func ELFSpecs(path string, only []string) ([]spec.Spec, []SkippedMap, error) {
	coll, err := loadObject(path)
	if err != nil {
		return nil, nil, err
	}
	return objectSpecs(path, coll, only)
}

// objectSpecs is ELFSpecs of coll, read from path.
func objectSpecs(path string, coll *ebpf.CollectionSpec, only []string) ([]spec.Spec, []SkippedMap, error) {
	names := slices.Sorted(maps.Keys(coll.Maps))
	if only != nil {
		if err := checkOnly(path, only, names); err != nil {
			return nil, nil, err
		}
		names = slices.DeleteFunc(names, func(name string) bool { return !slices.Contains(only, name) })
	}
	var specs []spec.Spec
	var skipped []SkippedMap
	byName := map[string]string{} // Go name or file in lower case → map
	for _, name := range names {
		ms := coll.Maps[name]
		s, reason, err := mapSpec(name, ms)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if reason != "" {
			skipped = append(skipped, SkippedMap{name, kernelTypeName(ms.Type), reason})
			continue
		}
		for _, key := range []string{"name " + s.Name, "file " + strings.ToLower(s.Out)} {
			if other, dup := byName[key]; dup {
				what, value, _ := strings.Cut(key, " ")
				if what == "name" {
					what = "Go name"
				}
				return nil, nil, fmt.Errorf("%s: maps %s and %s give one %s, %s: leave one out (-maps), or rename one in the object", path, other, name, what, value)
			}
			byName[key] = name
		}
		specs = append(specs, s)
	}
	return specs, skipped, nil
}

// loadObject reads path as a BPF object.
func loadObject(path string) (*ebpf.CollectionSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// debug/elf first, to say which of "not ELF" and "not BPF" the file is.
	ef, err := elf.NewFile(f)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, pe
	case err != nil && hasELFMagic(f):
		return nil, &ObjectError{path, fmt.Errorf("not a BPF object: a truncated or corrupt ELF file (%v); compile it again with clang -target bpf", err)}
	case err != nil:
		return nil, &ObjectError{path, fmt.Errorf("not a BPF object: not an ELF file (%v); compile one with clang -target bpf", err)}
	case ef.Machine != elf.EM_BPF && ef.Machine != elf.EM_NONE: // old LLVMs wrote EM_NONE
		return nil, &ObjectError{path, fmt.Errorf("not a BPF object: an ELF file for %s; compile one with clang -target bpf", ef.Machine)}
	}
	coll, err := ebpf.LoadCollectionSpecFromReader(f)
	if errors.As(err, &pe) {
		return nil, pe
	}
	if err != nil {
		return nil, &ObjectError{path, fmt.Errorf("reading the BPF object: %w", err)}
	}
	return coll, nil
}

// hasELFMagic reports whether f starts as an ELF file does.
func hasELFMagic(f *os.File) bool {
	var magic [len(elf.ELFMAG)]byte
	_, err := f.ReadAt(magic[:], 0)
	return err == nil && string(magic[:]) == elf.ELFMAG
}

// checkOnly reports the first name of only that is empty, given twice or
// not among the object's maps.
func checkOnly(path string, only, names []string) error {
	for i, name := range only {
		switch {
		case name == "":
			return fmt.Errorf("%s: an empty map name: name maps of the object, separated by commas (its maps are %s)", path, strings.Join(names, ", "))
		case slices.Contains(only[:i], name):
			return fmt.Errorf("%s: map %s is named twice: name each map once", path, name)
		case !slices.Contains(names, name):
			if len(names) == 0 {
				return fmt.Errorf("%s declares no map %s: it declares no map at all", path, name)
			}
			return fmt.Errorf("%s declares no map %s: its maps are %s", path, name, strings.Join(names, ", "))
		}
	}
	return nil
}

// The kernel's map flags (include/uapi/linux/bpf.h) that the maps mirror.
const (
	flagNoPrealloc  = 1 << 0
	flagNoCommonLRU = 1 << 1
	flagNUMANode    = 1 << 2
	flagZeroSeed    = 1 << 6
)

// flagNames are the kernel's map flags by bit, to name in reasons.
var flagNames = []string{
	"BPF_F_NO_PREALLOC", "BPF_F_NO_COMMON_LRU", "BPF_F_NUMA_NODE", "BPF_F_RDONLY",
	"BPF_F_WRONLY", "BPF_F_STACK_BUILD_ID", "BPF_F_ZERO_SEED", "BPF_F_RDONLY_PROG",
	"BPF_F_WRONLY_PROG", "BPF_F_CLONE", "BPF_F_MMAPABLE", "BPF_F_PRESERVE_ELEMS",
	"BPF_F_INNER_MAP", "BPF_F_LINK", "BPF_F_PATH_FD", "BPF_F_VTYPE_BTF_OBJ_FD",
	"BPF_F_TOKEN_FD", "BPF_F_SEGV_ON_FAULT", "BPF_F_NO_USER_CONV",
}

// flagList names the flags set in f: BPF_F_RDONLY|BPF_F_MMAPABLE.
func flagList(f uint32) string {
	var names []string
	for f != 0 {
		bit := bits.TrailingZeros32(f)
		f &^= 1 << bit
		if bit < len(flagNames) {
			names = append(names, flagNames[bit])
		} else {
			names = append(names, fmt.Sprintf("%#x", uint32(1)<<bit))
		}
	}
	return strings.Join(names, "|")
}

// maxEntriesLimit is the most max_entries a spec takes: the kernel's limit,
// or less where an int is 32 bits.
const maxEntriesLimit = min(htab.MaxMaxEntries, math.MaxInt)

// kernelMaxBuckets is the most buckets the kernel gives a hash-family map:
// htab_map_alloc (kernel/bpf/hashtab.c) refuses, with E2BIG, a bucket array
// whose size in bytes, 16 a bucket on 64-bit kernels without lock
// debugging, overflows a u32. So max_entries past 2^27 is refused there.
const kernelMaxBuckets = math.MaxUint32 / 16

// objectAttrs are the map attributes of a BPF object that give the spec's
// options, by the option's name.
var objectAttrs = map[string]string{"key": "key_size", "val": "value_size", "hashes": "map_extra", "max-entries": "max_entries"}

// mapTypes are the object's map types that htabgen generates.
var mapTypes = map[ebpf.MapType]spec.MapType{
	ebpf.Hash:        spec.Hash,
	ebpf.PerCPUHash:  spec.PerCPU,
	ebpf.LRUHash:     spec.LRU,
	ebpf.LRUCPUHash:  spec.LRUPerCPU,
	ebpf.BloomFilter: spec.Bloom,
}

// mapSpec is the spec of the object's map name, or why it is skipped, or
// the error of a name that makes no Go name.
func mapSpec(name string, ms *ebpf.MapSpec) (spec.Spec, string, error) {
	t, ok := mapTypes[ms.Type]
	if !ok {
		return spec.Spec{}, "htabgen generates hash, percpu_hash, lru_hash, lru_percpu_hash and bloom_filter maps", nil
	}
	kernelType := kernelTypeName(ms.Type)
	// NUMA placement means nothing in a process's memory: ignored, where
	// the kernel takes it.
	if other := ms.Flags &^ (flagNoPrealloc | flagNoCommonLRU | flagZeroSeed | flagNUMANode); other != 0 {
		return spec.Spec{}, fmt.Sprintf("map_flags %s: htabgen's maps have only BPF_F_NO_PREALLOC, BPF_F_NO_COMMON_LRU and BPF_F_ZERO_SEED", flagList(other)), nil
	}
	// Flags and attributes the kernel refuses for the type: the object's map
	// could not be created either.
	switch {
	case ms.Flags&flagNoPrealloc != 0 && (t.IsLRU() || t == spec.Bloom):
		return spec.Spec{}, fmt.Sprintf("map_flags BPF_F_NO_PREALLOC, which the kernel refuses for a %s map", kernelType), nil
	case ms.Flags&flagNoCommonLRU != 0 && !t.IsLRU():
		return spec.Spec{}, fmt.Sprintf("map_flags BPF_F_NO_COMMON_LRU, which the kernel refuses for a %s map (it is for LRU maps)", kernelType), nil
	case ms.Flags&flagNUMANode != 0 && (t.IsPerCPU() || ms.Flags&flagNoCommonLRU != 0):
		return spec.Spec{}, fmt.Sprintf("map_flags %s, which the kernel refuses for a %s map (a NUMA node with per-CPU values or LRU lists)", flagList(ms.Flags&(flagNUMANode|flagNoCommonLRU)), kernelType), nil
	case t == spec.Bloom && ms.KeySize != 0:
		return spec.Spec{}, fmt.Sprintf("key_size %d, which the kernel refuses: a bloom filter has no key", ms.KeySize), nil
	case t == spec.Bloom && ms.MapExtra&^0xf != 0:
		return spec.Spec{}, fmt.Sprintf("map_extra %#x, which the kernel refuses: only its low 4 bits, the number of hash functions, may be set", ms.MapExtra), nil
	case t != spec.Bloom && ms.MapExtra != 0:
		return spec.Spec{}, fmt.Sprintf("map_extra %#x, which the kernel refuses for a %s map", ms.MapExtra, kernelType), nil
	case ms.MaxEntries == 0:
		return spec.Spec{}, "max_entries 0, which the kernel refuses: declare the map's max_entries", nil
	case uint64(ms.MaxEntries) > maxEntriesLimit:
		return spec.Spec{}, fmt.Sprintf("max_entries %d, past the limit of %d", ms.MaxEntries, maxEntriesLimit), nil
	case t != spec.Bloom && htab.BucketCount(int(ms.MaxEntries)) > kernelMaxBuckets:
		return spec.Spec{}, fmt.Sprintf("max_entries %d, which the kernel refuses (E2BIG): its %d buckets of 16 bytes overflow the u32 size of the bucket array; a hash-family map of a BPF object holds at most 2^27 entries", ms.MaxEntries, htab.BucketCount(int(ms.MaxEntries))), nil
	}
	if _, reason := valueVerdict(ms); reason != "" {
		return spec.Spec{}, reason, nil
	}
	s := spec.Default()
	s.Type = t
	s.Key, s.Val = int(ms.KeySize), int(ms.ValueSize)
	// The file without the name's leading underscores: Go ignores files
	// whose names start with one.
	s.Name, s.Out = goName(name), strings.ToLower(strings.TrimLeft(name, "_"))+"_htab.go"
	if !token.IsIdentifier(s.Name) || !token.IsExported(s.Name) {
		return spec.Spec{}, "", fmt.Errorf("map %s: its name makes no exported Go identifier (%q): rename the map, or leave it out (-maps)", name, s.Name)
	}
	s.MaxEntries = int(ms.MaxEntries)
	s.NoPrealloc = ms.Flags&flagNoPrealloc != 0
	s.NoCommonLRU = ms.Flags&flagNoCommonLRU != 0
	s.ZeroSeed = ms.Flags&flagZeroSeed != 0
	if t == spec.Bloom && ms.MapExtra != 0 { // 0: the kernel's default, 5 (kernel/bpf/bloom_filter.c)
		s.Hashes = int(ms.MapExtra)
	}
	if err := s.Validate(); err != nil {
		var se *spec.Error
		if errors.As(err, &se) {
			if se.Option == "name" {
				return spec.Spec{}, "", fmt.Errorf("map %s: Go name %s: %s: rename the map, or leave it out (-maps)", name, s.Name, se.Allowed)
			}
			if attr, ok := objectAttrs[se.Option]; ok {
				// Said in the object's words: the user gave no flag.
				allowed := strings.ReplaceAll(se.Allowed, "-type "+t.String(), kernelType)
				return spec.Spec{}, fmt.Sprintf("%s %v: htabgen cannot generate it: %s", attr, se.Value, allowed), nil
			}
		}
		return spec.Spec{}, "htabgen cannot generate it: " + err.Error(), nil
	}
	if _, err := spec.Plan(s); err != nil {
		return spec.Spec{}, "htabgen cannot generate it: " + err.Error(), nil
	}
	return s, "", nil
}

// goName is the Go name of the map name: snake_case to CamelCase, each word's
// first letter raised (conns_own_lists: ConnsOwnLists, flows_v4: FlowsV4).
func goName(name string) string {
	var b strings.Builder
	for word := range strings.SplitSeq(name, "_") {
		r, n := utf8.DecodeRuneInString(word)
		if n == 0 {
			continue
		}
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(word[n:])
	}
	return b.String()
}

// kernelTypeNames are the kernel's map types as bpftool and libbpf name
// them (libbpf's map_type_name), by BPF_MAP_TYPE_* value.
var kernelTypeNames = []string{
	"unspec", "hash", "array", "prog_array", "perf_event_array", "percpu_hash",
	"percpu_array", "stack_trace", "cgroup_array", "lru_hash", "lru_percpu_hash",
	"lpm_trie", "array_of_maps", "hash_of_maps", "devmap", "sockmap", "cpumap",
	"xskmap", "sockhash", "cgroup_storage", "reuseport_sockarray",
	"percpu_cgroup_storage", "queue", "stack", "sk_storage", "devmap_hash",
	"struct_ops", "ringbuf", "inode_storage", "task_storage", "bloom_filter",
	"user_ringbuf", "cgrp_storage", "arena",
}

func kernelTypeName(t ebpf.MapType) string {
	if int(t) < len(kernelTypeNames) {
		return kernelTypeNames[t]
	}
	return fmt.Sprintf("map type %d", uint32(t))
}
