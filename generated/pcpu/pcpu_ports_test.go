package pcpu

// Port of the kernel's test_hashmap_percpu
// (tools/testing/selftests/bpf/test_maps.c; the per-CPU value semantics are
// kernel/bpf/hashtab.c's), run twice as in the kernel (map_flags=0 and BPF_F_NO_PREALLOC) and for
// several CPU counts, plus tests of the program side, CPU(i), which the kernel
// test cannot reach from user space.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// kpFlags are the kernel's two runs: map_flags=0 and BPF_F_NO_PREALLOC.
var kpFlags = []struct {
	name string
	opts htab.Options
}{
	{"prealloc", htab.Options{}},
	{"NoPrealloc", htab.Options{NoPrealloc: true}},
}

// kpCPUs are the numbers of possible CPUs the port runs with.
var kpCPUs = []int{1, 2, 4, 7}

// kpKey is a long long key as the kernel test stores it (native, little-endian).
func kpKey(i int64) (k PerCPUK8V8Key) {
	binary.LittleEndian.PutUint64(k[:], uint64(i))
	return
}

func kpVal(i int64) (v PerCPUK8V8Value) {
	binary.LittleEndian.PutUint64(v[:], uint64(i))
	return
}

func kpInt(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }

// kpPercpu is the kernel test's value: bpf_percpu(value, i) = i + 100.
func kpPercpu(ncpu int) []PerCPUK8V8Value {
	vals := make([]PerCPUK8V8Value, ncpu)
	for i := range vals {
		vals[i] = kpVal(int64(i + 100))
	}
	return vals
}

// TestKernelPortHashmapPercpu is test_hashmap_percpu: 8-byte key, a long per
// CPU, max_entries 2.
func TestKernelPortHashmapPercpu(t *testing.T) {
	for _, f := range kpFlags {
		for _, ncpu := range kpCPUs {
			t.Run(fmt.Sprintf("%s/cpus=%d", f.name, ncpu), func(t *testing.T) {
				o := f.opts
				o.MaxEntries = 2
				o.CPUs = ncpu
				m, err := NewPerCPUK8V8(o)
				require.NoError(t, err)
				require.Equal(t, ncpu, m.CPUs())
				expectedKeyMask := int64(0)
				value := kpPercpu(ncpu)

				// Insert key=1 element.
				key := int64(1)
				require.Zero(t, expectedKeyMask&key)
				require.NoError(t, m.Update(kpKey(key), value, htab.UpdateAny))

				// Lookup and delete elem key=1 and check value.
				require.NoError(t, m.LookupAndDelete(kpKey(key), value))
				require.Equal(t, int64(100), kpInt(value[0][:]))
				require.Equal(t, kpPercpu(ncpu), value, "every CPU's value")

				value = kpPercpu(ncpu)
				// Insert key=1 element which should not exist.
				require.NoError(t, m.Update(kpKey(key), value, htab.UpdateNoExist))
				expectedKeyMask |= key

				// BPF_NOEXIST means add new element if it doesn't exist.
				err = m.Update(kpKey(key), value, htab.UpdateNoExist)
				require.True(t, errors.Is(err, htab.ErrKeyExist), "EEXIST, got %v", err)

				// -1 is an invalid flag (and so is NOEXIST|EXIST).
				err = m.Update(kpKey(key), value, ^htab.UpdateFlags(0))
				require.True(t, errors.Is(err, htab.ErrInvalid), "EINVAL for -1, got %v", err)
				err = m.Update(kpKey(key), value, 3)
				require.True(t, errors.Is(err, htab.ErrInvalid), "EINVAL for 3, got %v", err)

				// Check that key=1 can be found.
				value[0] = kpVal(1)
				require.True(t, m.Lookup(kpKey(key), value))
				require.Equal(t, int64(100), kpInt(value[0][:]))

				key = 2
				// Check that key=2 is not found.
				require.False(t, m.Lookup(kpKey(key), value), "ENOENT")

				// BPF_EXIST means update existing element: key=2 is not there.
				err = m.Update(kpKey(key), value, htab.UpdateExist)
				require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)

				// Insert key=2 element.
				require.Zero(t, expectedKeyMask&key)
				require.NoError(t, m.Update(kpKey(key), value, htab.UpdateNoExist))
				expectedKeyMask |= key

				// key=1 and key=2 were inserted, check that key=0 cannot be
				// inserted due to max_entries limit.
				key = 0
				err = m.Update(kpKey(key), value, htab.UpdateNoExist)
				require.True(t, errors.Is(err, htab.ErrFull), "E2BIG, got %v", err)

				// Check that key = 0 doesn't exist.
				err = m.Delete(kpKey(key))
				require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)

				// Iterate over two elements.
				firstKey, err := m.NextKey(nil)
				require.NoError(t, err)
				first := kpInt(firstKey[:])
				require.Equal(t, first, expectedKeyMask&first)
				k := kpKey(key) // key=0, absent: the walk starts at the first key
				steps := 0
				for {
					next, err := m.NextKey(&k)
					if err != nil {
						require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
						break
					}
					nk := kpInt(next[:])
					if first != 0 {
						require.Equal(t, first, nk)
						first = 0
					}
					require.Equal(t, nk, expectedKeyMask&nk)
					expectedKeyMask &^= nk

					require.True(t, m.Lookup(next, value))
					for i := range ncpu {
						require.Equal(t, int64(i+100), kpInt(value[i][:]), "key %d, CPU %d", nk, i)
					}
					k = next
					steps++
					require.LessOrEqual(t, steps, 2, "the walk does not end")
				}
				require.Zero(t, expectedKeyMask, "every key visited")

				// Update with BPF_EXIST.
				require.NoError(t, m.Update(kpKey(1), value, htab.UpdateExist))

				// Delete both elements.
				require.NoError(t, m.Delete(kpKey(1)))
				require.NoError(t, m.Delete(kpKey(2)))
				err = m.Delete(kpKey(2))
				require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
				require.Zero(t, m.Len())

				// Check that map is empty.
				_, err = m.NextKey(nil)
				require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
				k0 := kpKey(0)
				_, err = m.NextKey(&k0)
				require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
			})
		}
	}
}

// TestPerCPUValueSliceLengths: the userspace side carries exactly CPUs()
// values; a wrong length is ErrInvalid and changes nothing.
func TestPerCPUValueSliceLengths(t *testing.T) {
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			o.MaxEntries, o.CPUs = 4, 3
			m, err := NewPerCPUK8V8(o)
			require.NoError(t, err)
			for _, n := range []int{0, 2, 4} {
				err := m.Update(kpKey(1), make([]PerCPUK8V8Value, n), htab.UpdateAny)
				require.ErrorIs(t, err, htab.ErrInvalid, "Update with %d values", n)
			}
			require.Zero(t, m.Len())
			require.NoError(t, m.Update(kpKey(1), kpPercpu(3), htab.UpdateAny))
			require.ErrorIs(t, m.LookupAndDelete(kpKey(1), make([]PerCPUK8V8Value, 2)), htab.ErrInvalid)
			require.Equal(t, 1, m.Len(), "a refused LookupAndDelete deletes nothing")

			// A longer slice is filled up to CPUs() only.
			long := make([]PerCPUK8V8Value, 5)
			long[3], long[4] = kpVal(-3), kpVal(-4)
			require.True(t, m.Lookup(kpKey(1), long))
			require.Equal(t, append(kpPercpu(3), kpVal(-3), kpVal(-4)), long)

			// An absent key leaves vals alone.
			vals := []PerCPUK8V8Value{kpVal(7), kpVal(8), kpVal(9)}
			require.False(t, m.Lookup(kpKey(2), vals))
			require.Equal(t, []PerCPUK8V8Value{kpVal(7), kpVal(8), kpVal(9)}, vals)
		})
	}
}

// kpAllCPUs is every CPU's value of k, read from the userspace side.
func kpAllCPUs(t *testing.T, m *PerCPUK8V8, k PerCPUK8V8Key) []PerCPUK8V8Value {
	t.Helper()
	vals := make([]PerCPUK8V8Value, m.CPUs())
	require.True(t, m.Lookup(k, vals), "key %d", kpInt(k[:]))
	return vals
}

// TestPerCPUProgramSide checks the program side, "as on CPU i": a new key
// stored through CPU(i) has value v on CPU i and zero on every other CPU
// (pcpu_init_value), even when it reuses a freed element whose slots held
// other values; an existing key's update changes only slot i, in place;
// CPU(i).Lookup returns slot i; the flags and capacity rules are the map's.
func TestPerCPUProgramSide(t *testing.T) {
	for _, f := range kpFlags {
		for _, ncpu := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/cpus=%d", f.name, ncpu), func(t *testing.T) {
				o := f.opts
				o.MaxEntries, o.CPUs, o.ZeroSeed = 4, ncpu, true
				m, err := NewPerCPUK8V8(o)
				require.NoError(t, err)
				zero := make([]PerCPUK8V8Value, ncpu)

				for i := range ncpu {
					k := kpKey(int64(10 + i))
					// A new key through CPU(i): CPU i has v, every other CPU zero.
					require.NoError(t, m.CPU(i).Update(k, kpVal(int64(1000+i)), htab.UpdateNoExist))
					want := make([]PerCPUK8V8Value, ncpu)
					want[i] = kpVal(int64(1000 + i))
					require.Equal(t, want, kpAllCPUs(t, m, k), "new key through CPU(%d)", i)
					for c := range ncpu {
						v, ok := m.CPU(c).Lookup(k)
						require.True(t, ok)
						require.Equal(t, want[c], v, "CPU(%d).Lookup", c)
					}
					// Every other CPU updates the existing key: only its own slot changes.
					for c := range ncpu {
						if c == i {
							continue
						}
						require.NoError(t, m.CPU(c).Update(k, kpVal(int64(2000+c)), htab.UpdateExist))
						want[c] = kpVal(int64(2000 + c))
						require.Equal(t, want, kpAllCPUs(t, m, k), "CPU(%d).Update of an existing key", c)
					}
					// And CPU i again, with UpdateAny.
					require.NoError(t, m.CPU(i).Update(k, kpVal(int64(3000+i)), htab.UpdateAny))
					want[i] = kpVal(int64(3000 + i))
					require.Equal(t, want, kpAllCPUs(t, m, k))
					for c := range ncpu {
						v, ok := m.CPU(c).Lookup(k)
						require.True(t, ok)
						require.Equal(t, want[c], v, "CPU(%d).Lookup returns slot %d", c, c)
					}
				}

				// The userspace side sets every slot; CPU(c).Lookup sees slot c.
				k := kpKey(10)
				require.NoError(t, m.Update(k, kpPercpu(ncpu), htab.UpdateExist))
				for c := range ncpu {
					v, ok := m.CPU(c).Lookup(k)
					require.True(t, ok)
					require.Equal(t, kpVal(int64(c+100)), v)
				}

				// Flags through CPU(i).
				last := ncpu - 1
				require.ErrorIs(t, m.CPU(last).Update(k, kpVal(1), htab.UpdateNoExist), htab.ErrKeyExist)
				require.ErrorIs(t, m.CPU(last).Update(kpKey(99), kpVal(1), htab.UpdateExist), htab.ErrKeyNotExist)
				for _, bad := range []htab.UpdateFlags{3, 4, 8, ^htab.UpdateFlags(0)} {
					require.ErrorIs(t, m.CPU(last).Update(k, kpVal(1), bad), htab.ErrInvalid, "flags %#x", uint64(bad))
				}
				require.Equal(t, kpPercpu(ncpu), kpAllCPUs(t, m, k), "failed updates change nothing")
				_, ok := m.CPU(last).Lookup(kpKey(99))
				require.False(t, ok)

				// Reuse of a freed element: it held non-zero values on every CPU;
				// a program's insert must zero the other CPUs.
				require.NoError(t, m.Delete(k))
				require.NoError(t, m.CPU(last).Update(kpKey(50), kpVal(5), htab.UpdateNoExist))
				want := make([]PerCPUK8V8Value, ncpu)
				want[last] = kpVal(5)
				require.Equal(t, want, kpAllCPUs(t, m, kpKey(50)), "a reused element's other CPUs are zeroed")

				// Fill the map through the program side; then the capacity rules hold.
				for i := int64(60); m.Len() < m.MaxEntries(); i++ {
					require.NoError(t, m.CPU(0).Update(kpKey(i), kpVal(i), htab.UpdateNoExist))
				}
				require.ErrorIs(t, m.CPU(0).Update(kpKey(98), kpVal(1), htab.UpdateAny), htab.ErrFull)
				require.ErrorIs(t, m.CPU(0).Update(kpKey(98), kpVal(1), htab.UpdateNoExist), htab.ErrFull)
				require.ErrorIs(t, m.CPU(0).Update(kpKey(98), kpVal(1), htab.UpdateExist), htab.ErrKeyNotExist, "flag errors win over fullness")

				// A replace through CPU(i) on a full map works and is in place: the order is unchanged.
				var before, after []PerCPUK8V8Key
				for k := range m.All() {
					before = append(before, k)
				}
				for _, k := range before {
					require.NoError(t, m.CPU(last).Update(k, kpVal(-1), htab.UpdateAny))
				}
				for k, vs := range m.All() {
					after = append(after, k)
					require.Equal(t, kpVal(-1), vs[last])
				}
				require.Equal(t, before, after, "a per-CPU replace is in place")

				// CPU(i).Delete.
				require.NoError(t, m.CPU(last).Delete(kpKey(50)))
				require.ErrorIs(t, m.CPU(last).Delete(kpKey(50)), htab.ErrKeyNotExist)
				_, ok = m.CPU(0).Lookup(kpKey(50))
				require.False(t, ok)
				require.False(t, m.Lookup(kpKey(50), zero))
				require.Equal(t, m.MaxEntries()-1, m.Len())
			})
		}
	}
}

// TestPerCPULookupVals: Lookup fills exactly vals[:CPUs()] and panics,
// naming the requirement, on a slice shorter than CPUs(), also one whose
// capacity would have room.
func TestPerCPULookupVals(t *testing.T) {
	m, err := NewPerCPUK8V8(htab.Options{MaxEntries: 4, CPUs: 2})
	require.NoError(t, err)
	require.NoError(t, m.Update(kpKey(1), []PerCPUK8V8Value{kpVal(10), kpVal(11)}, htab.UpdateAny))

	long := []PerCPUK8V8Value{kpVal(-1), kpVal(-1), kpVal(-1)}
	require.True(t, m.Lookup(kpKey(1), long))
	require.Equal(t, []PerCPUK8V8Value{kpVal(10), kpVal(11), kpVal(-1)}, long, "only vals[:CPUs()] is written")

	const want = "PerCPUK8V8.Lookup: len(vals) = 1, want at least CPUs() = 2"
	roomy := make([]PerCPUK8V8Value, 1, 4)
	require.PanicsWithValue(t, want, func() { m.Lookup(kpKey(1), roomy) })
	require.Equal(t, PerCPUK8V8Value{}, roomy[:2][1], "nothing written past len(vals)")
	require.PanicsWithValue(t, want, func() { m.Lookup(kpKey(2), make([]PerCPUK8V8Value, 1)) }, "also for an absent key")
}

// TestPerCPUAllValsCapped: the values All yields for a key are exactly its
// CPUs' (length and capacity CPUs()), so that appending to them cannot
// overwrite the values of keys not yet yielded, with buckets of several keys.
func TestPerCPUAllValsCapped(t *testing.T) {
	const n, cpus = 64, 2
	m, err := NewPerCPUK8V8(htab.Options{MaxEntries: n, CPUs: cpus, ZeroSeed: true})
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, m.Update(kpKey(int64(i)), []PerCPUK8V8Value{kpVal(int64(i)), kpVal(int64(-i))}, htab.UpdateNoExist))
	}
	seen := 0
	for k, vals := range m.All() {
		require.Len(t, vals, cpus)
		require.Equal(t, cpus, cap(vals), "key %v", k)
		i := int64(binary.LittleEndian.Uint64(k[:]))
		require.Equal(t, []PerCPUK8V8Value{kpVal(i), kpVal(-i)}, vals, "key %d", i)
		_ = append(vals, kpVal(1<<40)) // must not reach the next key's values
		seen++
	}
	require.Equal(t, n, seen)
}

// TestPerCPUCPUHandleRange: CPU(i) exists for 0 <= i < CPUs() and panics
// outside.
func TestPerCPUCPUHandleRange(t *testing.T) {
	m, err := NewPerCPUK8V8(htab.Options{MaxEntries: 2, CPUs: 3})
	require.NoError(t, err)
	for i := range 3 {
		require.NotNil(t, m.CPU(i))
	}
	require.PanicsWithValue(t, "PerCPUK8V8.CPU(3): want 0 <= i < CPUs() = 3", func() { m.CPU(3) })
	require.PanicsWithValue(t, "PerCPUK8V8.CPU(-1): want 0 <= i < CPUs() = 3", func() { m.CPU(-1) })
	def, err := NewPerCPUK8V8(htab.Options{MaxEntries: 2})
	require.NoError(t, err)
	require.Positive(t, def.CPUs(), "CPUs 0 means runtime.NumCPU()")
}
