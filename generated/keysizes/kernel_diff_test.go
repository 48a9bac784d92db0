package keysizes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/batchdiff"
	"github.com/htabgen/htabgen/internal/kernel"
)

// ksDiffCases are the maps TestKernelDifferentialSizes compares with the
// kernel's BPF_MAP_TYPE_HASH of the same key and value sizes: keys that are
// not a multiple of 4 (the byte tail of the hash and the zero-padded words of
// the element), keys over 64 bytes (the hash's loop, word-aligned or not),
// and odd or large value sizes, in both layouts.
var ksDiffCases = []ksDiffCase{
	ksDiff("K1", k1TestMap{}),
	ksDiff("K2", k2TestMap{}),
	ksDiff("K5", k5TestMap{}),
	ksDiff("K7", k7TestMap{}),
	ksDiff("K31", k31TestMap{}),
	ksDiff("K65", k65TestMap{}),
	ksDiff("K65Jhash", k65JhashTestMap{}),
	ksDiff("K128", k128TestMap{}),
	ksDiff("K257", k257TestMap{}),
	ksDiff("K3V13", k3V13TestMap{}),
	ksDiff("K13V1", k13V1TestMap{}),
	ksDiff("K6V64", k6V64TestMap{}),
	ksDiff("K4V68", k4V68TestMap{}),
	ksDiff("K13V13Classic", k13V13ClassicTestMap{}),
	ksDiff("K1V3Classic", k1V3ClassicTestMap{}),
}

// ksDiffCase is one map of ksDiffCases: run creates it with o and compares
// its single-key operations with the kernel's map, batch its batches.
type ksDiffCase struct {
	name       string
	run, batch func(t *testing.T, o htab.Options, seed uint64)
}

// ksDiff is the case of the maps kind stands for, named name.
func ksDiff[K, V comparable](name string, kind htabtest.Map[K, V]) ksDiffCase {
	return ksDiffCase{
		name: name,
		run: func(t *testing.T, o htab.Options, seed uint64) {
			m, err := kind.New(o)
			require.NoError(t, err)
			ksKernelDiff(t, m, o, seed)
		},
		batch: func(t *testing.T, o htab.Options, seed uint64) {
			m, err := kind.New(o)
			require.NoError(t, err)
			var k K
			var v V
			km, err := kernel.New(htab.Hash, len(kernel.Bytes(&k)), len(kernel.Bytes(&v)), o)
			require.NoError(t, err)
			defer km.Close()
			batchdiff.Differential(t, batchdiff.Kernel(km, 1), batchdiff.Generated(m), o.MaxEntries, seed)
		},
	}
}

// TestKernelDifferentialSizes runs the same random operations (updates with
// every flag, invalid ones too, deletes, lookups, lookup-and-deletes and
// NextKey, and the program side's updates, deletes and lookups where a BPF
// program can hold the key and value) on each map of ksDiffCases and on the
// kernel's map, both with a zero seed, comparing every result and, every so
// often and at the end, the whole iteration order and every value.
func TestKernelDifferentialSizes(t *testing.T) {
	kernel.Require(t)
	for _, c := range ksDiffCases {
		for _, entries := range []int{3, 100, 1000} {
			for _, prealloc := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/max=%d/prealloc=%v", c.name, entries, prealloc), func(t *testing.T) {
					c.run(t, htab.Options{MaxEntries: entries, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: 1}, kernel.Seed(t, 11))
				})
			}
		}
	}
}

// TestBatchKernelDifferentialSizes runs batchdiff.Differential (random fills
// and batch walks of every buffer size, walks that go on after the maps
// changed, calls from random buckets, each call compared with the kernel's)
// on each map of ksDiffCases: the batches copy keys and values of odd and
// large sizes, in both layouts. -short leaves out the 1000-entry maps.
func TestBatchKernelDifferentialSizes(t *testing.T) {
	kernel.Require(t)
	sizes := []int{1, 7, 100, 1000}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, c := range ksDiffCases {
		for _, entries := range sizes {
			t.Run(fmt.Sprintf("%s/max=%d", c.name, entries), func(t *testing.T) {
				c.batch(t, htab.Options{MaxEntries: entries, ZeroSeed: true, CPUs: 1}, kernel.Seed(t, 5))
			})
		}
	}
}

func ksKernelDiff[K, V comparable](t *testing.T, m htabtest.Map[K, V], o htab.Options, seed uint64) {
	var k0 K
	var v0 V
	keySize, valSize := len(kernel.Bytes(&k0)), len(kernel.Bytes(&v0))
	km, err := kernel.New(htab.Hash, keySize, valSize, o)
	require.NoError(t, err)
	defer km.Close()

	rng := rand.New(rand.NewPCG(uint64(o.MaxEntries), seed))
	keySpace := 2*o.MaxEntries + 2
	if keySize == 1 {
		keySpace = min(keySpace, 256)
	}
	kernel.RandomOps(t, km, m, rng, kernel.Ops[K, V]{
		Steps:    min(3000, 30*o.MaxEntries+300),
		KeySpace: keySpace,
		Key: func(n int) (k K) {
			copy(kernel.Bytes(&k), batchdiff.Key(n, keySize))
			return k
		},
		Value: func(int) (v V) {
			b := kernel.Bytes(&v)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			return v
		},
		// The program side, where a BPF program's stack can hold the key
		// and the value.
		Prog: keySize <= kernel.MaxProgKeySize && valSize <= kernel.MaxProgValueSize,
	})
}
