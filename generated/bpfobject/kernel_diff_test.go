package bpfobject

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/kernel"
)

// TestKernelDifferential creates each map of the object in the kernel, from
// the object's own attributes with BPF_F_ZERO_SEED added, and its fake from
// the generated default options with the zero seed too (and the kernel's
// possible CPUs), and runs the same random operations on both: updates with
// every flag, deletes, lookups, lookup-and-deletes, NextKey and CPU(0)'s
// program side against a BPF program's calls (kernel.RandomOps). Every
// result must be the kernel's, and so must the contents and their order,
// compared along the way. The bloom filter gets the same pushes and peeks.
func TestKernelDifferential(t *testing.T) {
	kernel.Require(t)
	t.Run("flows", func(t *testing.T) { mapDifferential(t, "flows", flowsTestMap{}, FlowsOptions()) })
	t.Run("flows_dyn", func(t *testing.T) { mapDifferential(t, "flows_dyn", flowsDynTestMap{}, FlowsDynOptions()) })
	t.Run("zero_seeded", func(t *testing.T) { mapDifferential(t, "zero_seeded", zeroSeededTestMap{}, ZeroSeededOptions()) })
	t.Run("counters", func(t *testing.T) { mapDifferential(t, "counters", countersTestMap{}, CountersOptions()) })
	t.Run("conns", func(t *testing.T) { mapDifferential(t, "conns", connsTestMap{}, ConnsOptions()) })
	t.Run("conns_own_lists", func(t *testing.T) {
		mapDifferential(t, "conns_own_lists", connsOwnListsTestMap{}, ConnsOwnListsOptions())
	})
	t.Run("stats", func(t *testing.T) { mapDifferential(t, "stats", statsTestMap{}, StatsOptions()) })
	t.Run("seen", bloomDifferential)
}

// htabTypes are the object's map types, as the harness names them.
var htabTypes = map[ebpf.MapType]htab.MapType{
	ebpf.Hash:        htab.Hash,
	ebpf.PerCPUHash:  htab.PerCPUHash,
	ebpf.LRUHash:     htab.LRUHash,
	ebpf.LRUCPUHash:  htab.LRUPerCPUHash,
	ebpf.BloomFilter: htab.BloomFilter,
}

// twins creates the kernel's map of the object's map name, as the object
// declares it with BPF_F_ZERO_SEED added, and returns it with the options of
// its fake: defaults (the generated <Name>Options()), which must be what the
// object declares, with the zero seed and the kernel's possible CPUs.
func twins(t *testing.T, name string, defaults htab.Options) (*kernel.Map, htab.Options) {
	ms := objectMap(t, name)
	declared := declaredOptions(t, ms)
	want := declared
	want.BloomHashes = 0 // a bloom filter's default hashes are its -hashes
	require.Equal(t, want, defaults, "the generated default options of %s", name)

	declared.ZeroSeed = true
	km, err := kernel.New(htabTypes[ms.Type], int(ms.KeySize), int(ms.ValueSize), declared)
	require.NoError(t, err)
	t.Cleanup(func() { km.Close() })
	opts := defaults
	opts.ZeroSeed, opts.CPUs = true, kernel.PossibleCPUs()
	return km, opts
}

// mapDifferential runs kernel.RandomOps on the object's hash-family map name
// and its fake, made by kind's New.
func mapDifferential[K, V comparable](t *testing.T, name string, kind htabtest.Map[K, V], defaults htab.Options) {
	km, opts := twins(t, name, defaults)
	m, err := kind.New(opts)
	require.NoError(t, err)
	require.Equal(t, km.MaxEntries(), m.MaxEntries(), "max_entries (BPF_F_NO_COMMON_LRU rounds it up to a multiple of the CPUs)")
	if m.Info().LRU() {
		// The kernel's LRU takes an update's element from the lists of the
		// CPU it runs on: every call runs on CPU 0, as the fake's user-space
		// side and CPU(0) do. (RandomOps pins per-CPU maps itself.)
		unpin, err := kernel.PinCPU(0)
		require.NoError(t, err)
		defer unpin()
	}
	max := km.MaxEntries()
	rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 41)))
	ops := kernel.Ops[K, V]{
		Steps:    min(20000, 40*max+200),
		KeySpace: 2*max + 2,
		Key:      htabtest.Key[K],
		Value:    testValue[V],
		Prog:     true,
	}
	if ops.Steps/2 < max {
		ops.Fill = max + 1 // too few updates to fill the map: fill it first
	}
	kernel.RandomOps(t, km, m, rng, ops)
}

// testValue is the value of step: step in the first four bytes, little-endian,
// then bytes that differ from one step to the next.
func testValue[V comparable](step int) (v V) {
	b := kernel.Bytes(&v)
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(step))
	for j := range b {
		if j < len(n) {
			b[j] = n[j]
		} else {
			b[j] = byte(step*7 + j)
		}
	}
	return v
}

// bloomDifferential pushes as many random values as the object's bloom
// filter map, seen, holds into it and into its fake, then requires the same
// Peek of every pushed value and of as many random ones, false positives
// included.
func bloomDifferential(t *testing.T) {
	km, opts := twins(t, "seen", SeenOptions())
	m, err := NewSeen(opts)
	require.NoError(t, err)
	hashes := int(objectMap(t, "seen").MapExtra)
	require.Equal(t, hashes, m.Hashes(), "hash functions: the object's map_extra")
	require.Equal(t, htab.BloomBits(opts.MaxEntries, hashes), m.Bits(), "the bit array's size")

	rng := rand.New(rand.NewPCG(uint64(opts.MaxEntries), kernel.Seed(t, 43)))
	random := func() (v SeenValue) {
		binary.LittleEndian.PutUint32(v[:], rng.Uint32())
		return v
	}
	pushed := make([]SeenValue, opts.MaxEntries)
	for i := range pushed {
		pushed[i] = random()
		require.NoError(t, m.Push(pushed[i]))
		require.NoError(t, km.Push(pushed[i][:]))
	}
	for i, v := range pushed {
		require.True(t, m.Peek(v), "Peek(%x) of pushed value %d", v, i)
	}
	probes := append(pushed[:min(len(pushed), 2000):min(len(pushed), 2000)], make([]SeenValue, 20000)...)
	for i := 2000; i < len(probes); i++ {
		probes[i] = random()
	}
	positives := 0
	for _, v := range probes {
		want, err := km.Peek(v[:])
		require.NoError(t, err)
		require.Equal(t, want, m.Peek(v), "Peek(%x): the kernel says %v", v, want)
		if want {
			positives++
		}
	}
	t.Logf("%d of %d random probes were positive in both", positives-min(len(pushed), 2000), len(probes)-2000)
}
