package hash

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/kernel"
)

// TestKernelDifferential runs the same random operations on HashK8V8 (and on
// HomeK8V8, the home layout, and on both with a bloom filter in front of
// their lookups) and on the kernel's BPF_MAP_TYPE_HASH (both with
// a zero seed) and compares every result; every so often it compares the
// whole NextKey order, which must be identical (kernel.RandomOps). CPU(0)'s
// Update, Delete and Lookup are compared with a BPF program's calls.
func TestKernelDifferential(t *testing.T) {
	kernel.Require(t)
	t.Run("layout=classic", func(t *testing.T) { kernelDifferential(t, hashK8V8TestMap{}) })
	t.Run("layout=home", func(t *testing.T) { kernelDifferential(t, homeK8V8TestMap{}) })
	t.Run("layout=classic/bloom=3", func(t *testing.T) { kernelDifferential(t, hashK8V8BloomTestMap{}) })
	t.Run("layout=home/bloom=3", func(t *testing.T) { kernelDifferential(t, homeK8V8BloomTestMap{}) })
}

// kernelDifferential runs kernel.RandomOps on maps of kind's type.
func kernelDifferential[K ~[8]byte, V ~[8]byte](t *testing.T, kind htabtest.Map[K, V]) {
	for _, max := range []int{2, 3, 16, 100, 1000, 65536} {
		for _, prealloc := range []bool{true, false} {
			t.Run(fmt.Sprintf("max=%d/prealloc=%v", max, prealloc), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: 1}
				km, err := kernel.New(htab.Hash, 8, 8, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := kind.New(opts)
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 7)))
				ops := kernel.Ops[K, V]{
					Steps:    min(20000, 40*max+200),
					KeySpace: 2*max + 2,
					Key:      func(n int) (k K) { binary.LittleEndian.PutUint64(k[:], uint64(n)); return k },
					Value:    func(step int) (v V) { binary.LittleEndian.PutUint64(v[:], uint64(step)); return v },
					Prog:     true,
				}
				if ops.Steps/2 < max && !testing.Short() {
					// Half the steps are updates: too few to fill the map, so fill
					// it first, one key past its capacity (not with -short: under
					// -race that takes half a minute).
					ops.Fill = max + 1
				}
				kernel.RandomOps(t, km, m, rng, ops)
			})
		}
	}
}
