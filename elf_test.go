// -elf: the specs of a compiled BPF object's maps (testdata/bpf/maps.o), the
// maps skipped and why, the errors, and that the object is its source's.

package htabgen

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/internal/kernel"
	"github.com/htabgen/htabgen/spec"
)

// testObject is the checked-in BPF object of testdata/bpf/maps.c.
const testObject = "testdata/bpf/maps.o"

// objectMap is the spec ELFSpecs should give a map of testObject: the
// defaults but for what the object declares.
func objectMap(t spec.MapType, key, val int, name, out string, maxEntries int, set func(*spec.Spec)) spec.Spec {
	s := spec.Default()
	s.Type, s.Key, s.Val, s.Name, s.Out, s.MaxEntries = t, key, val, name, out, maxEntries
	if set != nil {
		set(&s)
	}
	return s
}

// TestELFSpecs: every hash-family and bloom filter map of the test object
// gives its spec, in the order of the maps' names, with the object's sizes,
// max_entries and flags as default options and a bloom filter's hashes from
// map_extra; the array and the ring buffer are skipped, saying why.
func TestELFSpecs(t *testing.T) {
	specs, skipped, err := ELFSpecs(testObject, nil)
	require.NoError(t, err)
	want := []spec.Spec{
		objectMap(spec.LRU, 16, 8, "Conns", "conns_htab.go", 4096, nil),
		objectMap(spec.LRU, 16, 8, "ConnsOwnLists", "conns_own_lists_htab.go", 512, func(s *spec.Spec) { s.NoCommonLRU = true }),
		objectMap(spec.PerCPU, 4, 8, "Counters", "counters_htab.go", 256, nil),
		objectMap(spec.Hash, 16, 16, "Flows", "flows_htab.go", 1024, nil),
		objectMap(spec.Hash, 8, 8, "FlowsDyn", "flows_dyn_htab.go", 256, func(s *spec.Spec) { s.NoPrealloc = true }),
		objectMap(spec.Bloom, 0, 4, "Seen", "seen_htab.go", 10000, func(s *spec.Spec) { s.Hashes = 3 }),
		objectMap(spec.LRUPerCPU, 4, 12, "Stats", "stats_htab.go", 128, nil),
		objectMap(spec.Hash, 8, 4, "ZeroSeeded", "zero_seeded_htab.go", 64, func(s *spec.Spec) { s.ZeroSeed = true }),
	}
	require.Len(t, specs, len(want))
	for i := range want {
		assert.Equal(t, want[i], specs[i], "map %s", want[i].Name)
		assert.NoError(t, specs[i].Validate(), "map %s", want[i].Name)
	}
	types := "htabgen generates hash, percpu_hash, lru_hash, lru_percpu_hash and bloom_filter maps"
	assert.Equal(t, []SkippedMap{
		{Name: "config", Type: "array", Reason: types},
		{Name: "events", Type: "ringbuf", Reason: types},
	}, skipped)
	assert.Equal(t, "skipping map events (ringbuf): "+types, skipped[1].String())
}

// TestELFSpecsOnly: only keeps the maps it names, skipped ones included,
// and a name the object does not declare is an error listing those it does.
func TestELFSpecsOnly(t *testing.T) {
	specs, skipped, err := ELFSpecs(testObject, []string{"seen", "events", "conns"})
	require.NoError(t, err)
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"Conns", "Seen"}, names, "in the order of the maps' names")
	require.Len(t, skipped, 1)
	assert.Equal(t, "events", skipped[0].Name)

	all := "config, conns, conns_own_lists, counters, events, flows, flows_dyn, seen, stats, zero_seeded"
	for _, tt := range []struct {
		only []string
		want string
	}{
		{[]string{"conns", "nope"}, testObject + " declares no map nope: its maps are " + all},
		{[]string{"Conns"}, testObject + " declares no map Conns: its maps are " + all},
		{[]string{"conns", ""}, testObject + ": an empty map name: name maps of the object, separated by commas (its maps are " + all + ")"},
		{[]string{"conns", "seen", "conns"}, testObject + ": map conns is named twice: name each map once"},
	} {
		specs, skipped, err := ELFSpecs(testObject, tt.only)
		assert.EqualError(t, err, tt.want, "only %q", tt.only)
		assert.Nil(t, specs)
		assert.Nil(t, skipped)
	}
}

// TestELFSpecsFileErrors: a file that cannot be read is its *fs.PathError
// (the command's I/O error); one that is not a BPF object, an *ObjectError
// naming the file and saying what it is instead.
func TestELFSpecsFileErrors(t *testing.T) {
	dir := t.TempDir()
	_, _, err := ELFSpecs(filepath.Join(dir, "missing.o"), nil)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	_, _, err = ELFSpecs(dir, nil)
	require.ErrorAs(t, err, &pe, "a directory is a read error")

	text := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(text, []byte("not an object\n"), 0o644))
	_, _, err = ELFSpecs(text, nil)
	var oe *ObjectError
	require.ErrorAs(t, err, &oe)
	assert.False(t, errors.As(err, &pe), "not an I/O error")
	assert.Equal(t, text, oe.Path)
	assert.Regexp(t, `^`+regexp.QuoteMeta(text)+`: not a BPF object: not an ELF file \(.*\); compile one with clang -target bpf$`, err.Error())

	empty := filepath.Join(dir, "empty.o")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	_, _, err = ELFSpecs(empty, nil)
	require.ErrorAs(t, err, &oe, "an empty file is no ELF file")
	assert.Contains(t, err.Error(), "not an ELF file")

	// A BPF object cut short (a copy that failed) says so.
	obj, err := os.ReadFile(testObject)
	require.NoError(t, err)
	truncated := filepath.Join(dir, "truncated.o")
	require.NoError(t, os.WriteFile(truncated, obj[:40], 0o644))
	_, _, err = ELFSpecs(truncated, nil)
	require.ErrorAs(t, err, &oe)
	assert.Regexp(t, `: not a BPF object: a truncated or corrupt ELF file \(.*\); compile it again with clang -target bpf$`, err.Error())

	if runtime.GOOS == "linux" {
		// The test binary: an ELF file, for this machine rather than BPF.
		exe, err := os.Executable()
		require.NoError(t, err)
		_, _, err = ELFSpecs(exe, nil)
		require.ErrorAs(t, err, &oe)
		assert.Regexp(t, `: not a BPF object: an ELF file for EM_[A-Z0-9_]+; compile one with clang -target bpf$`, err.Error())
	}
}

// objectOf is a BPF object in memory with the maps given.
func objectOf(maps map[string]*ebpf.MapSpec) *ebpf.CollectionSpec {
	return &ebpf.CollectionSpec{Maps: maps}
}

// An attributeCase is a map of a BPF object and what htabgen makes of it.
type attributeCase struct {
	name string
	ms   *ebpf.MapSpec
	want func(*spec.Spec) // the spec's changes from a plain hash map's
	skip string           // or the reason it is skipped
}

// attributeCases are maps with each map flag and attribute an object may
// declare.
func attributeCases() []attributeCase {
	u32 := &btf.Int{Name: "u32", Size: 4}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	withLock := &btf.Struct{Name: "val", Size: 8, Members: []btf.Member{{Name: "lock", Type: lock}, {Name: "x", Type: u32, Offset: 32}}}
	locks := &btf.Struct{Name: "val", Size: 8, Members: []btf.Member{{Name: "locks", Type: &btf.Array{Type: lock, Nelems: 2}}}}
	task := &btf.Struct{Name: "task_struct"}
	withKptr := &btf.Struct{Name: "val", Size: 8, Members: []btf.Member{{Name: "task", Type: &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: task}}}}}
	// A plain pointer to a lock is plain bytes.
	plain := &btf.Struct{Name: "val", Size: 8, Members: []btf.Member{{Name: "p", Type: &btf.Pointer{Target: lock}}}}
	hash := func(flags uint32) *ebpf.MapSpec {
		return &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: flags}
	}
	return []attributeCase{
		{"plain", hash(0), func(*spec.Spec) {}, ""},
		{"numa node ignored", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1 << 2}, func(*spec.Spec) {}, ""},
		{"numa node on an lru map", &ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1 << 2},
			func(s *spec.Spec) { s.Type = spec.LRU }, ""},
		{"numa node on a bloom filter", &ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 100, Flags: 1 << 2},
			func(s *spec.Spec) { s.Type, s.Key = spec.Bloom, 0 }, ""},
		{"no prealloc", hash(1), func(s *spec.Spec) { s.NoPrealloc = true }, ""},
		{"zero seed", hash(1 << 6), func(s *spec.Spec) { s.ZeroSeed = true }, ""},
		{"every flag of a hash map", hash(1 | 1<<2 | 1<<6), func(s *spec.Spec) { s.NoPrealloc, s.ZeroSeed = true, true }, ""},
		{"percpu no prealloc", &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1},
			func(s *spec.Spec) { s.Type, s.NoPrealloc = spec.PerCPU, true }, ""},
		{"lru no common lru, zero seed", &ebpf.MapSpec{Type: ebpf.LRUCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 2 | 1<<6},
			func(s *spec.Spec) { s.Type, s.NoCommonLRU, s.ZeroSeed = spec.LRUPerCPU, true, true }, ""},
		{"bloom default hashes", &ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 100, Flags: 1 << 6},
			func(s *spec.Spec) { s.Type, s.Key, s.ZeroSeed = spec.Bloom, 0, true }, ""},
		{"max_entries 2^27, the kernel's most", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 1 << 27},
			func(s *spec.Spec) { s.MaxEntries = 1 << 27 }, ""},
		{"bloom max_entries 2^31", &ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 1 << 31},
			func(s *spec.Spec) { s.Type, s.Key, s.MaxEntries = spec.Bloom, 0, 1<<31 }, ""},
		{"a value with a plain pointer", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Value: plain}, func(*spec.Spec) {}, ""},
		{"bloom 15 hashes", &ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 100, MapExtra: 15},
			func(s *spec.Spec) { s.Type, s.Key, s.Hashes = spec.Bloom, 0, 15 }, ""},

		{"read-only for programs", hash(1 << 7), nil, "map_flags BPF_F_RDONLY_PROG: htabgen's maps have only BPF_F_NO_PREALLOC, BPF_F_NO_COMMON_LRU and BPF_F_ZERO_SEED"},
		{"several other flags", hash(1<<3 | 1<<10 | 1<<6 | 1<<31), nil, "map_flags BPF_F_RDONLY|BPF_F_MMAPABLE|0x80000000: htabgen's maps have only BPF_F_NO_PREALLOC, BPF_F_NO_COMMON_LRU and BPF_F_ZERO_SEED"},
		{"lru no prealloc", &ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1}, nil, "map_flags BPF_F_NO_PREALLOC, which the kernel refuses for a lru_hash map"},
		{"percpu numa node", &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1 << 2}, nil,
			"map_flags BPF_F_NUMA_NODE, which the kernel refuses for a percpu_hash map (a NUMA node with per-CPU values or LRU lists)"},
		{"lru percpu numa node", &ebpf.MapSpec{Type: ebpf.LRUCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1 << 2}, nil,
			"map_flags BPF_F_NUMA_NODE, which the kernel refuses for a lru_percpu_hash map (a NUMA node with per-CPU values or LRU lists)"},
		{"lru no common lru numa node", &ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 2 | 1<<2}, nil,
			"map_flags BPF_F_NO_COMMON_LRU|BPF_F_NUMA_NODE, which the kernel refuses for a lru_hash map (a NUMA node with per-CPU values or LRU lists)"},
		{"hash no common lru", hash(2), nil, "map_flags BPF_F_NO_COMMON_LRU, which the kernel refuses for a hash map (it is for LRU maps)"},
		{"bloom with a key", &ebpf.MapSpec{Type: ebpf.BloomFilter, KeySize: 4, ValueSize: 8, MaxEntries: 100}, nil, "key_size 4, which the kernel refuses: a bloom filter has no key"},
		{"bloom map_extra past 4 bits", &ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 100, MapExtra: 0x13}, nil, "map_extra 0x13, which the kernel refuses: only its low 4 bits, the number of hash functions, may be set"},
		{"hash map_extra", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, MapExtra: 1}, nil, "map_extra 0x1, which the kernel refuses for a hash map"},
		{"max_entries 0", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8}, nil, "max_entries 0, which the kernel refuses: declare the map's max_entries"},
		{"max_entries 2^27+1, 2^28 buckets", &ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 1<<27 + 1}, nil,
			"max_entries 134217729, which the kernel refuses (E2BIG): its 268435456 buckets of 16 bytes overflow the u32 size of the bucket array; a hash-family map of a BPF object holds at most 2^27 entries"},
		{"max_entries 2^31", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 1 << 31}, nil,
			"max_entries 2147483648, which the kernel refuses (E2BIG): its 2147483648 buckets of 16 bytes overflow the u32 size of the bucket array; a hash-family map of a BPF object holds at most 2^27 entries"},
		{"max_entries past 2^31", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 1<<31 + 1}, nil, "max_entries 2147483649, past the limit of 2147483648"},
		{"a value htabgen cannot hold", &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 40000, MaxEntries: 100}, nil, "value_size 40000: htabgen cannot generate it: value size in bytes, 1..32768 for percpu_hash"},
		{"a value with a spin lock", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Value: withLock}, nil,
			"its value holds struct bpf_spin_lock, which the kernel manages itself (it zeroes such fields in every value it copies out, and BPF_F_LOCK works on a bpf_spin_lock); htabgen's values are plain bytes"},
		{"a per-CPU value with a spin lock", &ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Value: withLock}, nil,
			"its value holds struct bpf_spin_lock, which the kernel refuses in a percpu_hash map (EOPNOTSUPP)"},
		{"a value with an array of spin locks", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Value: locks}, nil,
			"its value holds struct bpf_spin_lock in an array, which the kernel's parser of special fields refuses (btf_parse_fields, kernel/bpf/btf.c): it then refuses the object's BTF or takes the value as plain bytes, depending on the rest of the object"},
		{"a value with a kptr", &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100, Value: withKptr}, nil,
			"its value holds a kptr pointer, which the kernel manages itself (it zeroes such fields in every value it copies out, and BPF_F_LOCK works on a bpf_spin_lock); htabgen's values are plain bytes"},
		{"lpm trie", &ebpf.MapSpec{Type: ebpf.LPMTrie, KeySize: 8, ValueSize: 8, MaxEntries: 100, Flags: 1}, nil, "htabgen generates hash, percpu_hash, lru_hash, lru_percpu_hash and bloom_filter maps"},
	}
}

// TestELFSpecsAttributes: each map flag and attribute an object may declare
// is taken as a default option, ignored (BPF_F_NUMA_NODE) or makes the map
// skipped with a reason naming it.
func TestELFSpecsAttributes(t *testing.T) {
	tests := attributeCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, skipped, err := objectSpecs("x.o", objectOf(map[string]*ebpf.MapSpec{"m": tt.ms}), nil)
			require.NoError(t, err)
			if tt.skip != "" {
				assert.Empty(t, specs)
				require.Len(t, skipped, 1)
				assert.Equal(t, tt.skip, skipped[0].Reason)
				assert.Equal(t, kernelTypeName(tt.ms.Type), skipped[0].Type)
				return
			}
			assert.Empty(t, skipped)
			require.Len(t, specs, 1)
			want := objectMap(spec.Hash, 8, 8, "M", "m_htab.go", 100, tt.want)
			assert.Equal(t, want, specs[0])
			_, err = spec.Plan(specs[0])
			assert.NoError(t, err, "a map that is not skipped is generated")
		})
	}
}

// TestELFSpecsAttributesAreTheKernels: the running kernel creates the maps
// of TestELFSpecsAttributes that htabgen generates, and those whose values it
// manages, and refuses those htabgen skips as the kernel refusing them.
// Maps skipped for htabgen's own limits, and maps too big to create here,
// are left out.
func TestELFSpecsAttributesAreTheKernels(t *testing.T) {
	kernel.Require(t)
	for _, tt := range attributeCases() {
		refused := strings.Contains(tt.skip, "which the kernel refuses")
		created := tt.skip == "" && tt.ms.MaxEntries <= 1<<16 || strings.Contains(tt.skip, "manages itself")
		if !refused && !created {
			continue
		}
		ms := tt.ms.Copy()
		if ms.Value != nil {
			ms.Key = &btf.Int{Name: "u64", Size: 8, Encoding: btf.Unsigned}
		}
		km, err := kernel.NewFromSpec(ms)
		if err == nil {
			require.NoError(t, km.Close())
		}
		if refused {
			assert.Error(t, err, "%s: the kernel refuses it", tt.name)
		} else {
			assert.NoError(t, err, "%s: the kernel creates it", tt.name)
		}
	}
}

// TestELFSpecsNames: map names become CamelCase Go names and lower-case
// files; a name that makes no exported Go identifier, and two maps that make
// one Go name or one file, are errors naming the maps.
func TestELFSpecsNames(t *testing.T) {
	for name, want := range map[string]string{
		"conns_own_lists": "ConnsOwnLists",
		"flows":           "Flows",
		"flows_v4":        "FlowsV4",
		"ipv6Flows":       "Ipv6Flows",
		"_private":        "Private",
		"a__b_":           "AB",
		"LRU_conns":       "LRUConns",
		"über_map":        "ÜberMap",
	} {
		assert.Equal(t, want, goName(name), "goName(%q)", name)
	}

	hash := &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 100}
	ring := &ebpf.MapSpec{Type: ebpf.RingBuf, MaxEntries: 4096}
	specs, _, err := objectSpecs("x.o", objectOf(map[string]*ebpf.MapSpec{"Conns_Big": hash, "conns_big_x": hash}), nil)
	require.NoError(t, err)
	assert.Equal(t, "ConnsBig", specs[0].Name)
	assert.Equal(t, "conns_big_htab.go", specs[0].Out, "the file's name is in lower case")
	specs, _, err = objectSpecs("x.o", objectOf(map[string]*ebpf.MapSpec{"__private": hash}), nil)
	require.NoError(t, err)
	assert.Equal(t, "private_htab.go", specs[0].Out, "no leading underscore, which would make Go ignore the file")

	for _, tt := range []struct {
		maps map[string]*ebpf.MapSpec
		want string
	}{
		{map[string]*ebpf.MapSpec{"9lives": hash}, `x.o: map 9lives: its name makes no exported Go identifier ("9lives"): rename the map, or leave it out (-maps)`},
		{map[string]*ebpf.MapSpec{"_": hash}, `x.o: map _: its name makes no exported Go identifier (""): rename the map, or leave it out (-maps)`},
		{map[string]*ebpf.MapSpec{"a.b": hash}, `x.o: map a.b: its name makes no exported Go identifier ("A.b"): rename the map, or leave it out (-maps)`},
		{map[string]*ebpf.MapSpec{"conns_own": hash, "connsOwn": hash}, "x.o: maps connsOwn and conns_own give one Go name, ConnsOwn: leave one out (-maps), or rename one in the object"},
		{map[string]*ebpf.MapSpec{"ab": hash, "aB": hash}, "x.o: maps aB and ab give one file, ab_htab.go: leave one out (-maps), or rename one in the object"},
		{map[string]*ebpf.MapSpec{"_ab": hash, "ab": hash}, "x.o: maps _ab and ab give one Go name, Ab: leave one out (-maps), or rename one in the object"},
	} {
		_, _, err := objectSpecs("x.o", objectOf(tt.maps), nil)
		assert.EqualError(t, err, tt.want)
	}
	// Skipped maps and maps left out need no Go name.
	specs, skipped, err := objectSpecs("x.o", objectOf(map[string]*ebpf.MapSpec{".rodata": ring, "9lives": hash, "ok": hash}), []string{"ok", ".rodata"})
	require.NoError(t, err)
	require.Len(t, specs, 1)
	assert.Equal(t, "Ok", specs[0].Name)
	assert.Equal(t, []SkippedMap{{".rodata", "ringbuf", "htabgen generates hash, percpu_hash, lru_hash, lru_percpu_hash and bloom_filter maps"}}, skipped)
}

// TestELFObjectIsFresh rebuilds testdata/bpf/maps.o from maps.c with the
// command written at the top of maps.c and requires the same maps (name,
// type, sizes, max_entries, flags, map_extra) and programs as the
// checked-in object: the object is its source's. Without clang it skips,
// unless HTAB_REQUIRE_CLANG is true, which makes it fail.
func TestELFObjectIsFresh(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		if on, _ := strconv.ParseBool(os.Getenv("HTAB_REQUIRE_CLANG")); on {
			t.Fatalf("HTAB_REQUIRE_CLANG is set, and clang is not on PATH: %v", err)
		}
		t.Skipf("clang is not on PATH (%v): cannot rebuild %s (set HTAB_REQUIRE_CLANG=1 to fail instead)", err, testObject)
	}
	src, err := os.ReadFile("testdata/bpf/maps.c")
	require.NoError(t, err)
	const command = "clang -O2 -g -target bpf -c testdata/bpf/maps.c -o testdata/bpf/maps.o"
	require.Contains(t, string(src), command, "maps.c says how to rebuild the object")

	rebuilt := filepath.Join(t.TempDir(), "maps.o")
	out, err := exec.Command(clang, "-O2", "-g", "-target", "bpf", "-c", "testdata/bpf/maps.c", "-o", rebuilt).CombinedOutput()
	require.NoError(t, err, "%s\n%s", command, out)

	// What the object declares, as ebpf.LoadCollectionSpec reads it.
	type declared struct {
		Type                           ebpf.MapType
		KeySize, ValueSize, MaxEntries uint32
		Flags                          uint32
		MapExtra                       uint64
	}
	declares := func(path string) (map[string]declared, []string) {
		coll, err := ebpf.LoadCollectionSpec(path)
		require.NoError(t, err)
		maps := map[string]declared{}
		for name, m := range coll.Maps {
			maps[name] = declared{m.Type, m.KeySize, m.ValueSize, m.MaxEntries, m.Flags, m.MapExtra}
		}
		var progs []string
		for name := range coll.Programs {
			progs = append(progs, name)
		}
		slices.Sort(progs)
		return maps, progs
	}
	wantMaps, wantProgs := declares(rebuilt)
	gotMaps, gotProgs := declares(testObject)
	assert.Equal(t, wantMaps, gotMaps, "%s is stale: run %s from the repository's root", testObject, command)
	assert.Equal(t, wantProgs, gotProgs, "%s is stale: run %s from the repository's root", testObject, command)
}
