package pcpu

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

// TestKernelDifferentialPerCPU runs the same random operations on PerCPUK8V8
// and on the kernel's BPF_MAP_TYPE_PERCPU_HASH (both with a zero seed, the
// generated map with CPUs = the kernel's possible CPUs) and compares every
// result, every CPU's value included. The program side is there too:
// CPU(c)'s Update, Delete and Lookup against a BPF program's calls on CPU c
// (kernel.PinCPU and BPF_PROG_TEST_RUN). Every so often, and at the end, it
// compares the whole NextKey order, which must be identical. A per-CPU
// replace is in place (no move to the bucket head), so the order differs from
// a hash map's after the same operations: the kernel is the truth.
func TestKernelDifferentialPerCPU(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	onCPUs := kernel.PinnableCPUs() // where programs can run (possible CPUs may be offline)
	require.NotEmpty(t, onCPUs)
	for _, max := range []int{2, 3, 16, 100, 1000, 65536} {
		for _, prealloc := range []bool{true, false} {
			t.Run(fmt.Sprintf("max=%d/prealloc=%v", max, prealloc), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: ncpu}
				km, err := kernel.New(htab.PerCPUHash, 8, 8, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := NewPerCPUK8V8(opts)
				require.NoError(t, err)
				require.Equal(t, ncpu, m.CPUs())

				rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 11)))
				keySpace := 2*max + 2
				steps := min(20000, 40*max+200)
				got := make([]PerCPUK8V8Value, ncpu)
				for step := range steps {
					var k PerCPUK8V8Key
					binary.LittleEndian.PutUint64(k[:], uint64(rng.IntN(keySpace)))
					vals := make([]PerCPUK8V8Value, ncpu)
					for c := range vals {
						binary.LittleEndian.PutUint64(vals[c][:], rng.Uint64())
					}
					switch op := rng.IntN(13); {
					case op < 5: // updates, with a few invalid flags
						flags := uint64(rng.IntN(3))
						if rng.IntN(20) == 0 {
							flags = []uint64{3, 4, 8, 16, 1 << 32, ^uint64(0)}[rng.IntN(6)]
						}
						gerr := m.Update(k, vals, htab.UpdateFlags(flags))
						werr := km.Update(k[:], kdBytes(vals), flags)
						kernel.RequireSameErr(t, werr, gerr, "step %d: Update(%x, flags %#x)", step, k, flags)
					case op < 7:
						kernel.RequireSameErr(t, km.Delete(k[:]), m.Delete(k), "step %d: Delete(%x)", step, k)
					case op < 8:
						clear(got)
						gerr := m.LookupAndDelete(k, got)
						want, werr := km.LookupAndDelete(k[:])
						kernel.RequireSameErr(t, werr, gerr, "step %d: LookupAndDelete(%x)", step, k)
						if werr == nil {
							require.Equal(t, want, kdBytes(got), "step %d: LookupAndDelete(%x): every CPU's value", step, k)
						}
					case op == 9 || op == 10: // program side: update or delete on a random CPU
						cpu := onCPUs[rng.IntN(len(onCPUs))]
						unpin, err := kernel.PinCPU(cpu)
						require.NoError(t, err)
						if op == 9 {
							flags := uint64(rng.IntN(3))
							if rng.IntN(20) == 0 {
								flags = 8
							}
							werr := km.ProgUpdate(k[:], vals[0][:], flags)
							gerr := m.CPU(cpu).Update(k, vals[0], htab.UpdateFlags(flags))
							kernel.RequireSameErr(t, werr, gerr, "step %d: CPU(%d).Update(%x, flags %#x)", step, cpu, k, flags)
						} else {
							kernel.RequireSameErr(t, km.ProgDelete(k[:]), m.CPU(cpu).Delete(k), "step %d: CPU(%d).Delete(%x)", step, cpu, k)
						}
						unpin()
					case op == 11: // program side: CPU c's value
						cpu := onCPUs[rng.IntN(len(onCPUs))]
						unpin, err := kernel.PinCPU(cpu)
						require.NoError(t, err)
						want, werr := km.ProgLookupValue(k[:])
						unpin()
						v, ok := m.CPU(cpu).Lookup(k)
						require.Equal(t, werr == nil, ok, "step %d: CPU(%d).Lookup(%x): kernel %v", step, cpu, k, werr)
						if ok {
							require.Equal(t, want, v[:], "step %d: CPU(%d).Lookup(%x)", step, cpu, k)
						}
					case op < 9:
						clear(got)
						ok := m.Lookup(k, got)
						want, werr := km.Lookup(k[:])
						require.Equal(t, werr == nil, ok, "step %d: Lookup(%x): kernel %v", step, k, werr)
						if ok {
							require.Equal(t, want, kdBytes(got), "step %d: Lookup(%x): every CPU's value", step, k)
						} else {
							require.ErrorIs(t, werr, htab.ErrKeyNotExist)
						}
					default:
						var kp *PerCPUK8V8Key
						if rng.IntN(2) == 0 {
							kp = &k
						}
						gk, gerr := m.NextKey(kp)
						var kb []byte
						if kp != nil {
							kb = kp[:]
						}
						want, werr := km.NextKey(kb)
						kernel.RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, kb)
						if werr == nil {
							require.Equal(t, want, gk[:], "step %d: NextKey(%x)", step, kb)
						}
					}
					if step%(steps/4) == steps/4-1 {
						kdRequireSameOrder(t, km, m)
					}
				}
				kdRequireSameOrder(t, km, m)
			})
		}
	}
}

// TestKernelRandomOpsPerCPU runs the hash maps' differential, kernel.RandomOps,
// on PerCPUK8V8 and the kernel's BPF_MAP_TYPE_PERCPU_HASH (both with a zero
// seed, the generated map with CPUs = the kernel's possible CPUs): every
// update writes every CPU's value, every lookup compares them all, and the
// program side runs on CPU 0. TestKernelDifferentialPerCPU spreads the
// program side over every CPU; this one holds the per-CPU map to the same
// sequences as the hash maps.
func TestKernelRandomOpsPerCPU(t *testing.T) {
	kernel.Require(t)
	t.Run("bloom=0", func(t *testing.T) { kernelRandomOpsPerCPU(t, perCPUK8V8TestMap{}) })
	t.Run("bloom=3", func(t *testing.T) { kernelRandomOpsPerCPU(t, perCPUK8V8BloomTestMap{}) })
}

// kernelRandomOpsPerCPU is TestKernelRandomOpsPerCPU on maps of kind's type.
func kernelRandomOpsPerCPU[K ~[8]byte, V ~[8]byte](t *testing.T, kind htabtest.Map[K, V]) {
	ncpu := kernel.PossibleCPUs()
	for _, max := range []int{2, 16, 1000} {
		for _, prealloc := range []bool{true, false} {
			t.Run(fmt.Sprintf("max=%d/prealloc=%v", max, prealloc), func(t *testing.T) {
				opts := htab.Options{MaxEntries: max, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: ncpu}
				km, err := kernel.New(htab.PerCPUHash, 8, 8, opts)
				require.NoError(t, err)
				defer km.Close()
				m, err := kind.New(opts)
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(uint64(max), kernel.Seed(t, 13)))
				kernel.RandomOps(t, km, m, rng, kernel.Ops[K, V]{
					Steps:    min(20000, 40*max+200),
					KeySpace: 2*max + 2,
					Key:      func(n int) K { return K(kpKey(int64(n))) },
					Value:    func(step int) V { return V(kpVal(int64(step))) },
					Prog:     true,
				})
			})
		}
	}
}

// TestKernelDifferentialPerCPUReplaceInPlace pins down the difference from a
// hash map: a replace of a key that is not its bucket's head leaves it where
// it is, in the kernel and here (a hash map would move it to the head). Three
// keys share one bucket of a 64-entry map.
func TestKernelDifferentialPerCPUReplaceInPlace(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	for _, prealloc := range []bool{true, false} {
		t.Run(fmt.Sprintf("prealloc=%v", prealloc), func(t *testing.T) {
			opts := htab.Options{MaxEntries: 64, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: ncpu}
			km, err := kernel.New(htab.PerCPUHash, 8, 8, opts)
			require.NoError(t, err)
			defer km.Close()
			m, err := NewPerCPUK8V8(opts)
			require.NoError(t, err)

			// Three keys of one bucket.
			mask := uint32(htab.BucketCount(64) - 1)
			var same []PerCPUK8V8Key
			var b0 uint32
			for i := uint64(0); len(same) < 3; i++ {
				k := kpKey(int64(i))
				b := htab.Jhash(k[:], 0) & mask
				if len(same) == 0 {
					b0 = b
				}
				if b == b0 {
					same = append(same, k)
				}
			}
			vals := kdVals(ncpu, 1)
			for _, k := range same {
				require.NoError(t, km.Update(k[:], kdBytes(vals), 0))
				require.NoError(t, m.Update(k, vals, htab.UpdateAny))
			}
			kdRequireSameOrder(t, km, m)
			// Replace the oldest (the bucket's tail), with EXIST and ANY.
			for i, f := range []htab.UpdateFlags{htab.UpdateExist, htab.UpdateAny} {
				vals := kdVals(ncpu, int64(10*(i+2)))
				require.NoError(t, km.Update(same[0][:], kdBytes(vals), uint64(f)))
				require.NoError(t, m.Update(same[0], vals, f))
				kdRequireSameOrder(t, km, m)
			}
			var order []PerCPUK8V8Key
			for k := range m.All() {
				order = append(order, k)
			}
			require.Equal(t, []PerCPUK8V8Key{same[2], same[1], same[0]}, order, "newest first; the replaced tail stays the tail")
		})
	}
}

// kdVals is CPU c's value base+c for each of ncpu CPUs.
func kdVals(ncpu int, base int64) []PerCPUK8V8Value {
	vals := make([]PerCPUK8V8Value, ncpu)
	for c := range vals {
		vals[c] = kpVal(base + int64(c))
	}
	return vals
}

// kdBytes is vals as the harness takes and gives per-CPU values: every CPU's
// value, concatenated.
func kdBytes(vals []PerCPUK8V8Value) []byte {
	b := make([]byte, 0, len(vals)*len(PerCPUK8V8Value{}))
	for _, v := range vals {
		b = append(b, v[:]...)
	}
	return b
}

// kdRequireSameOrder walks both maps (the kernel's with NextKey, ours with
// All and with NextKey) and requires the same keys in the same order, and the
// same values on every CPU.
func kdRequireSameOrder(t *testing.T, km *kernel.Map, m *PerCPUK8V8) {
	t.Helper()
	var kernelKeys, allKeys, nextKeys [][]byte
	var kernelVals, allVals [][]byte
	for k, err := km.NextKey(nil); err == nil; k, err = km.NextKey(k) {
		kernelKeys = append(kernelKeys, k)
		v, err := km.Lookup(k)
		require.NoError(t, err)
		kernelVals = append(kernelVals, v)
	}
	for k, vs := range m.All() {
		allKeys = append(allKeys, k[:])
		allVals = append(allVals, kdBytes(vs))
	}
	var kp *PerCPUK8V8Key
	for {
		k, err := m.NextKey(kp)
		if err != nil {
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
			break
		}
		nextKeys = append(nextKeys, k[:])
		kp = &k
		require.LessOrEqual(t, len(nextKeys), m.MaxEntries(), "NextKey does not end")
	}
	require.Equal(t, kernelKeys, allKeys, "All's order differs from the kernel's")
	require.Equal(t, kernelKeys, nextKeys, "NextKey's order differs from the kernel's")
	require.Equal(t, kernelVals, allVals, "All's values differ from the kernel's")
	require.Equal(t, len(kernelKeys), m.Len())
	got := make([]PerCPUK8V8Value, m.CPUs())
	for i, k := range kernelKeys {
		require.True(t, m.Lookup(PerCPUK8V8Key(k), got))
		require.Equal(t, kernelVals[i], kdBytes(got))
	}
}
