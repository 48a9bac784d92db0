package hash

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// k8v8Map is what the differential test needs of a k8v8 hash map; both
// layouts (HashK8V8, HomeK8V8) have it.
type k8v8Map[K ~[8]byte, V ~[8]byte] interface {
	kernel.HashMap[K, V]
}

// TestKernelDifferential runs the same random operations on HashK8V8 (and on
// HomeK8V8, the home layout) and on the kernel's BPF_MAP_TYPE_HASH (both with
// a zero seed) and compares every result; every so often it compares the
// whole NextKey order, which must be identical (kernel.RandomOps). CPU(0)'s
// Update, Delete and Lookup are compared with a BPF program's calls.
func TestKernelDifferential(t *testing.T) {
	kernel.Require(t)
	t.Run("layout=classic", func(t *testing.T) {
		kernelDifferential(t, NewHashK8V8, func(m *HashK8V8) kernel.ProgSide[HashK8V8Key, HashK8V8Value] { return m.CPU(0) })
	})
	t.Run("layout=home", func(t *testing.T) {
		kernelDifferential(t, NewHomeK8V8, func(m *HomeK8V8) kernel.ProgSide[HomeK8V8Key, HomeK8V8Value] { return m.CPU(0) })
	})
}

func kernelDifferential[K ~[8]byte, V ~[8]byte, M k8v8Map[K, V]](t *testing.T, newMap func(htab.Options) (M, error), prog func(M) kernel.ProgSide[K, V]) {
	for _, max := range []int{2, 3, 16, 100, 1000, 65536} {
		for _, prealloc := range []bool{true, false} {
			t.Run(fmt.Sprintf("max=%d/prealloc=%v", max, prealloc), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: 1}
				km, err := kernel.New(htab.Hash, 8, 8, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := newMap(opts)
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 7)))
				ops := kernel.Ops[K, V]{
					Steps:    min(20000, 40*max+200),
					KeySpace: 2*max + 2,
					Key:      func(n int) (k K) { binary.LittleEndian.PutUint64(k[:], uint64(n)); return k },
					Value:    func(step int) (v V) { binary.LittleEndian.PutUint64(v[:], uint64(step)); return v },
					Prog:     prog(m),
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
