package hash

import (
	"encoding/binary"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// k8v8Map is what the differential test needs of a k8v8 hash map; both
// layouts (HashK8V8, HomeK8V8) have it.
type k8v8Map[K ~[8]byte, V ~[8]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	LookupAndDelete(K) (V, error)
	Lookup(K) (V, bool)
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
	Len() int
}

// TestKernelDifferential runs the same random operations on HashK8V8 (and on
// HomeK8V8, the home layout) and on the kernel's BPF_MAP_TYPE_HASH (both with
// a zero seed) and compares every result; every so often it compares the
// whole NextKey order, which must be identical.
func TestKernelDifferential(t *testing.T) {
	kernel.Require(t)
	t.Run("layout=classic", func(t *testing.T) { kernelDifferential(t, NewHashK8V8) })
	t.Run("layout=home", func(t *testing.T) { kernelDifferential(t, NewHomeK8V8) })
}

func kernelDifferential[K ~[8]byte, V ~[8]byte, M k8v8Map[K, V]](t *testing.T, newMap func(htab.Options) (M, error)) {
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
				keySpace := 2*max + 2
				steps := min(20000, 40*max+200)
				for step := range steps {
					var k K
					binary.LittleEndian.PutUint64(k[:], uint64(rng.IntN(keySpace)))
					var v V
					binary.LittleEndian.PutUint64(v[:], uint64(step))
					switch op := rng.IntN(10); {
					case op < 5: // updates, with a few invalid flags
						flags := uint64(rng.IntN(3))
						if rng.IntN(20) == 0 {
							flags = []uint64{3, 4, ^uint64(0)}[rng.IntN(3)]
						}
						got := m.Update(k, v, htab.UpdateFlags(flags))
						want := km.Update(k[:], v[:], flags)
						kernel.RequireSameErr(t, want, got, "step %d: Update(%x, flags %#x)", step, k, flags)
					case op < 7:
						kernel.RequireSameErr(t, km.Delete(k[:]), m.Delete(k), "step %d: Delete(%x)", step, k)
					case op < 8:
						got, gerr := m.LookupAndDelete(k)
						want, werr := km.LookupAndDelete(k[:])
						kernel.RequireSameErr(t, werr, gerr, "step %d: LookupAndDelete(%x)", step, k)
						if werr == nil {
							require.Equal(t, want, got[:], "step %d: LookupAndDelete(%x)", step, k)
						}
					case op < 9:
						got, ok := m.Lookup(k)
						want, werr := km.Lookup(k[:])
						require.Equal(t, werr == nil, ok, "step %d: Lookup(%x): kernel %v", step, k, werr)
						if ok {
							require.Equal(t, want, got[:], "step %d: Lookup(%x)", step, k)
						}
					default:
						var kp *K
						if rng.IntN(2) == 0 {
							kp = &k
						}
						got, gerr := m.NextKey(kp)
						var kb []byte
						if kp != nil {
							kb = (*kp)[:]
						}
						want, werr := km.NextKey(kb)
						kernel.RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, kb)
						if werr == nil {
							require.Equal(t, want, got[:], "step %d: NextKey(%x)", step, kb)
						}
					}
					if step%(steps/4) == steps/4-1 {
						requireSameOrder[K](t, km, m)
					}
				}
				requireSameOrder[K](t, km, m)
			})
		}
	}
}

// requireSameOrder walks both maps with NextKey and requires the same keys in
// the same order, and the same values.
func requireSameOrder[K ~[8]byte, V ~[8]byte, M k8v8Map[K, V]](t *testing.T, km *kernel.Map, m M) {
	t.Helper()
	var kernelKeys, ourKeys [][]byte
	for k, err := km.NextKey(nil); err == nil; k, err = km.NextKey(k) {
		kernelKeys = append(kernelKeys, k)
	}
	for k := range m.All() {
		ourKeys = append(ourKeys, k[:])
	}
	require.Equal(t, kernelKeys, ourKeys, "iteration order differs from the kernel's")
	require.Equal(t, len(kernelKeys), m.Len())
	for _, k := range kernelKeys {
		want, err := km.Lookup(k)
		require.NoError(t, err)
		got, ok := m.Lookup(K(k))
		require.True(t, ok)
		require.Equal(t, want, got[:])
	}
}
