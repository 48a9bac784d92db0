package bpfobject

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

// objectPath is the BPF object this package's maps were generated from.
const objectPath = "../../testdata/bpf/maps.o"

// objectMap is the object's map name, as ebpf.LoadCollectionSpec reads it.
func objectMap(t testing.TB, name string) *ebpf.MapSpec {
	t.Helper()
	coll, err := ebpf.LoadCollectionSpec(objectPath)
	require.NoError(t, err)
	ms, ok := coll.Maps[name]
	require.True(t, ok, "%s declares no map %s", objectPath, name)
	return ms
}

// declaredOptions are the options ms declares, read here apart from
// htabgen's reading of them: max_entries, the three map flags that have an
// option, and map_extra as BloomHashes. Other flags fail t: the kernel map
// made from these options would not be the object's.
func declaredOptions(t testing.TB, ms *ebpf.MapSpec) htab.Options {
	t.Helper()
	const mirrored = unix.BPF_F_NO_PREALLOC | unix.BPF_F_NO_COMMON_LRU | unix.BPF_F_ZERO_SEED
	require.Zero(t, ms.Flags&^mirrored, "%s: map_flags %#x has flags no option stands for", ms.Name, ms.Flags)
	return htab.Options{
		MaxEntries:  int(ms.MaxEntries),
		ZeroSeed:    ms.Flags&unix.BPF_F_ZERO_SEED != 0,
		NoPrealloc:  ms.Flags&unix.BPF_F_NO_PREALLOC != 0,
		NoCommonLRU: ms.Flags&unix.BPF_F_NO_COMMON_LRU != 0,
		BloomHashes: int(ms.MapExtra),
	}
}

// objectDefaults are the default options each generated map has, by the
// name of the object's map it was made from.
var objectDefaults = map[string]func() htab.Options{
	"conns":           ConnsOptions,
	"conns_own_lists": ConnsOwnListsOptions,
	"counters":        CountersOptions,
	"flows":           FlowsOptions,
	"flows_dyn":       FlowsDynOptions,
	"seen":            SeenOptions,
	"stats":           StatsOptions,
	"zero_seeded":     ZeroSeededOptions,
}

// TestObjectDefaults: each generated map's default options are what the
// object declares for its map (a bloom filter's hashes are its -hashes,
// checked by TestObjectDefaultConstructors), and every hash-family and bloom filter
// map of the object has a generated map.
func TestObjectDefaults(t *testing.T) {
	coll, err := ebpf.LoadCollectionSpec(objectPath)
	require.NoError(t, err)
	for name, ms := range coll.Maps {
		switch ms.Type {
		case ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash, ebpf.BloomFilter:
		default:
			assert.NotContains(t, objectDefaults, name, "a map of type %s is skipped", ms.Type)
			continue
		}
		defaults, ok := objectDefaults[name]
		if !assert.True(t, ok, "map %s has no generated map", name) {
			continue
		}
		want := declaredOptions(t, ms)
		want.BloomHashes = 0 // the generated default hashes instead: TestObjectDefaultConstructors
		assert.Equal(t, want, defaults(), "map %s", name)
	}
	assert.Len(t, objectDefaults, 8)
}

// TestObjectDefaultConstructors: each New<Name>Default makes its map with
// the object's max_entries, and the bloom filter with the hash functions of
// the object's map_extra.
func TestObjectDefaultConstructors(t *testing.T) {
	seen, err := NewSeenDefault()
	require.NoError(t, err)
	assert.Equal(t, int(objectMap(t, "seen").MapExtra), seen.Hashes())
	assert.Equal(t, 10000, seen.MaxEntries())
	assert.Equal(t, htab.BloomBits(10000, seen.Hashes()), seen.Bits())

	for name, maxEntries := range map[string]func() (int, error){
		"conns":       func() (int, error) { m, err := NewConnsDefault(); return m.MaxEntries(), err },
		"counters":    func() (int, error) { m, err := NewCountersDefault(); return m.MaxEntries(), err },
		"flows":       func() (int, error) { m, err := NewFlowsDefault(); return m.MaxEntries(), err },
		"flows_dyn":   func() (int, error) { m, err := NewFlowsDynDefault(); return m.MaxEntries(), err },
		"stats":       func() (int, error) { m, err := NewStatsDefault(); return m.MaxEntries(), err },
		"zero_seeded": func() (int, error) { m, err := NewZeroSeededDefault(); return m.MaxEntries(), err },
	} {
		got, err := maxEntries()
		require.NoError(t, err, name)
		assert.Equal(t, int(objectMap(t, name).MaxEntries), got, name)
	}
	// Per-CPU LRU lists: max_entries rounds up to a multiple of the CPUs.
	own, err := NewConnsOwnListsDefault()
	require.NoError(t, err)
	assert.Equal(t, htab.LRUMaxEntries(int(objectMap(t, "conns_own_lists").MaxEntries), own.CPUs(), true), own.MaxEntries())
}
