package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// errIs asserts that err matches both the htab error and the errno.
func errIs(t *testing.T, err, h error, errno unix.Errno) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, h)
	assert.ErrorIs(t, err, errno)
}

// model predicts the kernel's bucket layout for a ZERO_SEED map: bucket
// hash & (n-1), new and replaced keys linked at the bucket head.
type model struct {
	buckets [][][]byte
}

func newModel(maxEntries int) *model {
	n := 1
	for n < maxEntries {
		n <<= 1
	}
	return &model{buckets: make([][][]byte, n)}
}

func (md *model) bucket(key []byte) int {
	var h uint32
	if len(key)%4 == 0 {
		w := make([]uint32, len(key)/4)
		for i := range w {
			w[i] = binary.LittleEndian.Uint32(key[4*i:])
		}
		h = htab.Jhash2(w, 0)
	} else {
		h = htab.Jhash(key, 0)
	}
	return int(h & uint32(len(md.buckets)-1))
}

// insert links key at the head of its bucket, removing an old copy.
func (md *model) insert(key []byte) {
	md.remove(key)
	b := md.bucket(key)
	md.buckets[b] = append([][]byte{key}, md.buckets[b]...)
}

func (md *model) remove(key []byte) {
	b := md.bucket(key)
	md.buckets[b] = slices.DeleteFunc(md.buckets[b], func(k []byte) bool { return bytes.Equal(k, key) })
}

// order is the kernel's get_next_key order.
func (md *model) order() [][]byte {
	var keys [][]byte
	for _, b := range md.buckets {
		keys = append(keys, b...)
	}
	return keys
}

// batch predicts one lookup batch call (__htab_map_lookup_and_delete_batch).
func (md *model) batch(cursor uint32, count int) (keys [][]byte, next uint32, err error) {
	nb := uint32(len(md.buckets))
	if count == 0 {
		return nil, cursor, nil
	}
	if cursor >= nb {
		return nil, cursor, unix.ENOENT
	}
	for b := cursor; ; {
		cnt := len(md.buckets[b])
		if cnt > count-len(keys) {
			if len(keys) == 0 {
				return nil, b, unix.ENOSPC
			}
			return keys, b, nil
		}
		keys = append(keys, md.buckets[b]...)
		b++
		if b >= nb {
			return keys, b, unix.ENOENT
		}
	}
}

// walk collects the map's keys with NextKey.
func walk(t *testing.T, m *Map) [][]byte {
	t.Helper()
	var keys [][]byte
	var key []byte
	for {
		next, err := m.NextKey(key)
		if errors.Is(err, htab.ErrKeyNotExist) {
			return keys
		}
		require.NoError(t, err)
		keys = append(keys, next)
		key = next
		require.LessOrEqual(t, len(keys), m.MaxEntries(), "NextKey loops")
	}
}

func TestRequireAction(t *testing.T) {
	act, msg := requireAction(nil, "1")
	assert.Equal(t, actRun, act)
	assert.Empty(t, msg)

	why := errors.New("bpf(2) is not allowed here")
	for _, env := range []string{"", "0", "false", "yes"} {
		act, msg = requireAction(why, env)
		assert.Equal(t, actSkip, act, "env %q", env)
		assert.Contains(t, msg, why.Error())
		assert.Contains(t, msg, RequireEnv)
	}
	for _, env := range []string{"1", "true"} {
		act, msg = requireAction(why, env)
		assert.Equal(t, actFail, act, "env %q", env)
		assert.Contains(t, msg, why.Error())
	}
}

func TestRequireSkipPath(t *testing.T) {
	var skipped bool
	t.Run("unavailable", func(st *testing.T) {
		defer func() { skipped = st.Skipped() }()
		requireWith(st, errors.New("simulated: no BPF here"), "")
		st.Error("require did not skip")
	})
	assert.True(t, skipped)

	t.Run("available", func(st *testing.T) {
		requireWith(st, nil, "1")
		assert.False(t, st.Skipped())
	})
}

func TestAvailable(t *testing.T) {
	Require(t)
	require.NoError(t, Available())
	assert.Positive(t, PossibleCPUs())
	assert.GreaterOrEqual(t, PossibleCPUs(), runtime.NumCPU())
}

func TestCreateErrors(t *testing.T) {
	Require(t)
	_, err := New(htab.Hash, 8, 8, htab.Options{MaxEntries: 0})
	errIs(t, err, htab.ErrInvalid, unix.EINVAL)

	_, err = New(htab.Hash, 8, 8, htab.Options{MaxEntries: 4, NoCommonLRU: true})
	errIs(t, err, htab.ErrInvalid, unix.EINVAL)

	_, err = New(htab.LRUHash, 8, 8, htab.Options{MaxEntries: 4, NoPrealloc: true})
	assert.ErrorIs(t, err, unix.Errno(524), "ENOTSUPP") // not mapped to an htab error
	assert.NotErrorIs(t, err, htab.ErrInvalid)

	_, err = New(htab.BloomFilter, 0, 8, htab.Options{MaxEntries: 4, BloomHashes: 16})
	errIs(t, err, htab.ErrInvalid, unix.EINVAL)

	_, err = New(htab.Hash, -1, 8, htab.Options{MaxEntries: 4})
	assert.ErrorIs(t, err, htab.ErrInvalid)
	assert.NotErrorIs(t, err, unix.EINVAL, "refused before the kernel")
}

// TestNewFromSpec: a map spec's flags reach the kernel, a per-CPU map has a
// value for each possible CPU, and a map type New does not take is refused
// before the kernel.
func TestNewFromSpec(t *testing.T) {
	Require(t)
	m, err := NewFromSpec(&ebpf.MapSpec{Type: ebpf.LRUCPUHash, KeySize: 4, ValueSize: 4, MaxEntries: 8, Flags: unix.BPF_F_NO_COMMON_LRU})
	require.NoError(t, err)
	assert.Equal(t, htab.LRUPerCPUHash, m.Type())
	require.NoError(t, m.Update(u32(1), make([]byte, 4*PossibleCPUs()), 0))
	v, err := m.Lookup(u32(1))
	require.NoError(t, err)
	assert.Len(t, v, 4*PossibleCPUs())
	require.NoError(t, m.Close())

	_, err = NewFromSpec(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 4, MaxEntries: 8, Flags: unix.BPF_F_NO_COMMON_LRU})
	errIs(t, err, htab.ErrInvalid, unix.EINVAL)

	_, err = NewFromSpec(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 8})
	assert.ErrorIs(t, err, htab.ErrInvalid)
	assert.NotErrorIs(t, err, unix.EINVAL, "refused before the kernel")
}

// TestHash follows test_maps.c test_hashmap.
func TestHash(t *testing.T) {
	Require(t)
	for _, prealloc := range []bool{true, false} {
		t.Run(fmt.Sprintf("prealloc=%v", prealloc), func(t *testing.T) {
			m, err := New(htab.Hash, 8, 8, htab.Options{MaxEntries: 2, ZeroSeed: true, NoPrealloc: !prealloc})
			require.NoError(t, err)
			defer m.Close()
			assert.Equal(t, 2, m.MaxEntries())
			assert.Equal(t, htab.Hash, m.Type())
			assert.Equal(t, 8, m.KeySize())
			assert.Equal(t, 8, m.ValueSize())

			require.NoError(t, m.Update(u64(1), u64(1234), 0))
			errIs(t, m.Update(u64(1), u64(1234), 1), htab.ErrKeyExist, unix.EEXIST)
			for _, flags := range []uint64{3, ^uint64(0), 8} {
				errIs(t, m.Update(u64(1), u64(1234), flags), htab.ErrInvalid, unix.EINVAL)
			}
			v, err := m.Lookup(u64(1))
			require.NoError(t, err)
			assert.Equal(t, u64(1234), v)

			require.NoError(t, m.Update(u64(2), u64(1234), 0))
			v, err = m.LookupAndDelete(u64(2))
			require.NoError(t, err)
			assert.Equal(t, u64(1234), v)
			_, err = m.Lookup(u64(2))
			errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
			errIs(t, m.Update(u64(2), u64(1234), 2), htab.ErrKeyNotExist, unix.ENOENT)
			require.NoError(t, m.Update(u64(2), u64(1234), 1))

			errIs(t, m.Update(u64(0), u64(1234), 1), htab.ErrFull, unix.E2BIG)
			require.NoError(t, m.Update(u64(1), u64(1), 2)) // replacing works when full
			require.NoError(t, m.Update(u64(2), u64(2), 0))
			errIs(t, m.Update(u64(3), u64(1234), 1), htab.ErrFull, unix.E2BIG)
			errIs(t, m.Update(u64(3), u64(1234), 2), htab.ErrKeyNotExist, unix.ENOENT) // flags first
			errIs(t, m.Delete(u64(0)), htab.ErrKeyNotExist, unix.ENOENT)

			// Iteration: ascending bucket, most recently linked first.
			md := newModel(2)
			md.insert(u64(1))
			md.insert(u64(2))
			want := md.order()
			assert.Equal(t, want, walk(t, m))
			first, err := m.NextKey(u64(0)) // unknown key restarts
			require.NoError(t, err)
			assert.Equal(t, want[0], first)

			require.NoError(t, m.Delete(u64(1)))
			require.NoError(t, m.Delete(u64(2)))
			errIs(t, m.Delete(u64(2)), htab.ErrKeyNotExist, unix.ENOENT)
			_, err = m.NextKey(nil)
			errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
			_, err = m.NextKey(u64(0))
			errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
			_, err = m.LookupAndDelete(u64(1))
			errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		})
	}
}

func TestIterationOrder(t *testing.T) {
	Require(t)
	for _, keySize := range []int{3, 4, 8, 13} {
		t.Run(fmt.Sprint("key", keySize), func(t *testing.T) {
			const n = 50
			m, err := New(htab.Hash, keySize, 4, htab.Options{MaxEntries: n, ZeroSeed: true})
			require.NoError(t, err)
			defer m.Close()
			md := newModel(n)
			key := func(i int) []byte {
				k := make([]byte, keySize)
				for j := range k {
					k[j] = byte(i*7 + j)
				}
				return k
			}
			for i := range n {
				require.NoError(t, m.Update(key(i), u32(uint32(i)), 0))
				md.insert(key(i))
			}
			// Replacing relinks at the bucket head.
			for i := 0; i < n; i += 3 {
				require.NoError(t, m.Update(key(i), u32(uint32(i+1)), 2))
				md.insert(key(i))
			}
			assert.Equal(t, md.order(), walk(t, m))
		})
	}
}

func TestLocalChecks(t *testing.T) {
	Require(t)
	m, err := New(htab.Hash, 4, 4, htab.Options{MaxEntries: 4})
	require.NoError(t, err)
	defer m.Close()
	checks := map[string]error{
		"short key":        m.Update(u32(1)[:3], u32(1), 0),
		"long value":       m.Update(u32(1), u64(1), 0),
		"lookup short key": func() error { _, err := m.Lookup(nil); return err }(),
		"next key empty":   func() error { _, err := m.NextKey([]byte{}); return err }(),
		"push on hash":     m.Push(u32(1)),
		"batch mismatch":   func() error { _, err := m.UpdateBatch([][]byte{u32(1)}, nil, 0); return err }(),
		"negative count":   func() error { _, err := m.LookupBatch(nil, -1); return err }(),
	}
	for name, err := range checks {
		assert.ErrorIs(t, err, htab.ErrInvalid, name)
		assert.NotErrorIs(t, err, unix.EINVAL, name)
	}
}

func TestPerCPU(t *testing.T) {
	Require(t)
	ncpu := PossibleCPUs()
	for _, typ := range []htab.MapType{htab.PerCPUHash, htab.LRUPerCPUHash} {
		t.Run(typ.String(), func(t *testing.T) {
			const vs = 5
			m, err := New(typ, 4, vs, htab.Options{MaxEntries: 8})
			require.NoError(t, err)
			defer m.Close()
			value := func(k byte) []byte {
				v := make([]byte, ncpu*vs)
				for i := range v {
					v[i] = byte(i) ^ k<<4 ^ 0xa5
				}
				return v
			}
			for k := range byte(4) {
				require.NoError(t, m.Update(u32(uint32(k)), value(k), 0))
			}
			for k := range byte(4) {
				v, err := m.Lookup(u32(uint32(k)))
				require.NoError(t, err)
				assert.Equal(t, value(k), v)
			}
			assert.ErrorIs(t, m.Update(u32(9), make([]byte, vs), 0), htab.ErrInvalid, "one CPU's value only")
			require.NoError(t, m.ProgLookup(u32(1)))
			assert.ErrorIs(t, m.ProgLookup(u32(9)), htab.ErrKeyNotExist)

			b, err := m.LookupBatch(nil, 100)
			errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
			require.Len(t, b.Keys, 4)
			for i, k := range b.Keys {
				assert.Equal(t, value(k[0]), b.Values[i])
			}

			n, err := m.UpdateBatch([][]byte{u32(5), u32(6)}, [][]byte{value(5), value(6)}, 0)
			require.NoError(t, err)
			assert.Equal(t, 2, n)
			v, err := m.LookupAndDelete(u32(6))
			require.NoError(t, err)
			assert.Equal(t, value(6), v)
		})
	}
}

// TestBatch checks every batch call against the kernel's algorithm
// (__htab_map_lookup_and_delete_batch in kernel/bpf/hashtab.c), on a
// ZERO_SEED map whose bucket layout the model predicts.
func TestBatch(t *testing.T) {
	Require(t)
	const n = 10
	keys := make([][]byte, n)
	values := make([][]byte, n)
	md := newModel(n)
	for i := range keys {
		keys[i], values[i] = u32(uint32(i+1)), u32(uint32(i+2))
	}
	newMap := func(t *testing.T) *Map {
		m, err := New(htab.Hash, 4, 4, htab.Options{MaxEntries: n, ZeroSeed: true})
		require.NoError(t, err)
		t.Cleanup(func() { m.Close() })
		return m
	}
	fill := func(t *testing.T, m *Map) {
		got, err := m.UpdateBatch(keys, values, 0)
		require.NoError(t, err)
		require.Equal(t, n, got)
	}
	for _, k := range keys {
		md.insert(k)
	}
	valueOf := func(k []byte) []byte { return u32(binary.LittleEndian.Uint32(k) + 1) }
	biggest := 0
	for _, b := range md.buckets {
		biggest = max(biggest, len(b))
	}
	t.Logf("bucket sizes: %v", func() (s []int) {
		for _, b := range md.buckets {
			s = append(s, len(b))
		}
		return
	}())

	t.Run("empty", func(t *testing.T) {
		m := newMap(t)
		b, err := m.LookupAndDeleteBatch(nil, n)
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		assert.Empty(t, b.Keys)
		assert.Equal(t, uint32(16), b.Next)
	})

	t.Run("count0", func(t *testing.T) {
		m := newMap(t)
		fill(t, m)
		b, err := m.LookupBatch(nil, 0)
		require.NoError(t, err)
		assert.Empty(t, b.Keys)
	})

	t.Run("all", func(t *testing.T) {
		m := newMap(t)
		fill(t, m)
		b, err := m.LookupBatch(nil, n)
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		assert.Equal(t, md.order(), b.Keys)
		for i, k := range b.Keys {
			assert.Equal(t, valueOf(k), b.Values[i])
		}
		assert.Equal(t, uint32(16), b.Next)
		// Past the end: ENOENT before out_batch is written.
		b, err = m.LookupBatch(&b.Next, n)
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		assert.Empty(t, b.Keys)

		b, err = m.LookupAndDeleteBatch(nil, 1000)
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		assert.Len(t, b.Keys, n)
		_, err = m.NextKey(nil)
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
	})

	for step := 1; step < n; step++ {
		t.Run(fmt.Sprint("step", step), func(t *testing.T) {
			m := newMap(t)
			fill(t, m)
			for _, del := range []bool{false, true} {
				lookup := m.LookupBatch
				if del {
					lookup = m.LookupAndDeleteBatch
				}
				var cursor *uint32
				var all [][]byte
				mdl := newModel(n) // a copy the walk can consume
				for _, k := range keys {
					mdl.insert(k)
				}
				for calls := 0; ; calls++ {
					require.Less(t, calls, 100)
					c := uint32(0)
					if cursor != nil {
						c = *cursor
					}
					wantKeys, wantNext, wantErr := mdl.batch(c, step)
					b, err := lookup(cursor, step)
					if wantErr != nil {
						require.ErrorIs(t, err, wantErr, "call %d from bucket %d", calls, c)
					} else {
						require.NoError(t, err, "call %d from bucket %d", calls, c)
					}
					assert.Equal(t, wantKeys, b.Keys, "call %d", calls)
					assert.Equal(t, wantNext, b.Next, "call %d", calls)
					for i, k := range b.Keys {
						assert.Equal(t, valueOf(k), b.Values[i])
						if del {
							mdl.remove(k)
						}
					}
					all = append(all, b.Keys...)
					if errors.Is(err, htab.ErrNoSpace) {
						assert.Less(t, step, biggest)
						assert.Empty(t, b.Keys)
						t.Logf("step %d: ENOSPC at bucket %d after %d keys", step, b.Next, len(all))
						return
					}
					if err != nil {
						break
					}
					cursor = &b.Next
				}
				assert.GreaterOrEqual(t, step, biggest)
				assert.ElementsMatch(t, keys, all)
				if !del {
					assert.Len(t, walk(t, m), n)
				} else {
					assert.Empty(t, walk(t, m))
				}
			}
		})
	}

	t.Run("update delete", func(t *testing.T) {
		m := newMap(t)
		fill(t, m)
		got, err := m.UpdateBatch([][]byte{keys[0], keys[1]}, [][]byte{u32(7), u32(8)}, 0)
		require.NoError(t, err)
		assert.Equal(t, 2, got)
		v, err := m.Lookup(keys[1])
		require.NoError(t, err)
		assert.Equal(t, u32(8), v)

		// elem_flags accepts only BPF_F_LOCK (and that only for values with
		// a bpf_spin_lock): BPF_NOEXIST and BPF_EXIST are EINVAL, count 0.
		for _, flags := range []uint64{1, 2, 3, 4} {
			got, err = m.UpdateBatch([][]byte{keys[0]}, [][]byte{u32(7)}, flags)
			errIs(t, err, htab.ErrInvalid, unix.EINVAL)
			assert.Equal(t, 0, got)
		}
		// Stops at the first failure: a new key in a full map.
		got, err = m.UpdateBatch([][]byte{keys[2], u32(99)}, [][]byte{u32(7), u32(7)}, 0)
		errIs(t, err, htab.ErrFull, unix.E2BIG)
		assert.Equal(t, 1, got)

		got, err = m.DeleteBatch([][]byte{keys[0], keys[1], u32(99), keys[2]})
		errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
		assert.Equal(t, 2, got)
		assert.Len(t, walk(t, m), n-2)
		got, err = m.DeleteBatch(keys[2:])
		require.NoError(t, err)
		assert.Equal(t, n-2, got)
		assert.Empty(t, walk(t, m))
	})
}

// pinFirstCPU pins the test goroutine to the first CPU it may run on, as
// test_lru_map.c does.
func pinFirstCPU(t *testing.T) int {
	var set unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &set))
	cpu := 0
	for !set.IsSet(cpu) {
		cpu++
	}
	unpin, err := PinCPU(cpu)
	require.NoError(t, err)
	t.Cleanup(unpin)
	return cpu
}

func TestPinCPU(t *testing.T) {
	var before unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &before))
	cpu := pinFirstCPU(t)
	var set unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &set))
	assert.Equal(t, 1, set.Count())
	assert.True(t, set.IsSet(cpu))

	_, err := PinCPU(-1)
	assert.ErrorIs(t, err, htab.ErrInvalid)

	done := make(chan unix.CPUSet)
	go func() {
		unpin, err := PinCPU(cpu)
		assert.NoError(t, err)
		unpin()
		unpin() // idempotent
		var after unix.CPUSet
		assert.NoError(t, unix.SchedGetaffinity(0, &after))
		done <- after
	}()
	assert.Equal(t, before, <-done)
}

// TestLRU runs test_lru_map.c's sanity0, sanity7 and sanity8, which
// only pass if ProgLookup sets the ref bit and Lookup does not.
func TestLRU(t *testing.T) {
	Require(t)
	ncpu := PossibleCPUs()
	for _, typ := range []htab.MapType{htab.LRUHash, htab.LRUPerCPUHash} {
		for _, noCommon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/nocommon=%v", typ, noCommon), func(t *testing.T) {
				pinFirstCPU(t)
				size := 2
				if noCommon {
					size *= ncpu
				}
				value := func(v uint64) []byte {
					if typ == htab.LRUPerCPUHash {
						return bytes.Repeat(u64(v), ncpu)
					}
					return u64(v)
				}
				newMap := func() *Map {
					m, err := New(typ, 8, 8, htab.Options{MaxEntries: size, NoCommonLRU: noCommon})
					require.NoError(t, err)
					t.Cleanup(func() { m.Close() })
					return m
				}
				keysOf := func(m *Map) (ks []uint64) {
					for _, k := range walk(t, m) {
						ks = append(ks, binary.LittleEndian.Uint64(k))
					}
					slices.Sort(ks)
					return ks
				}

				// sanity0
				m := newMap()
				require.NoError(t, m.Update(u64(1), value(1234), 1))
				errIs(t, m.Update(u64(1), value(1234), 1), htab.ErrKeyExist, unix.EEXIST)
				errIs(t, m.Update(u64(1), value(1234), ^uint64(0)), htab.ErrInvalid, unix.EINVAL)
				_, err := m.Lookup(u64(2))
				errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
				errIs(t, m.Update(u64(2), value(1234), 2), htab.ErrKeyNotExist, unix.ENOENT)
				require.NoError(t, m.Update(u64(2), value(1234), 1))
				_, err = m.Lookup(u64(3))
				errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
				require.NoError(t, m.ProgLookup(u64(1)))
				assert.ErrorIs(t, m.ProgLookup(u64(3)), htab.ErrKeyNotExist)
				require.NoError(t, m.Update(u64(3), value(1234), 1))
				_, err = m.Lookup(u64(2))
				errIs(t, err, htab.ErrKeyNotExist, unix.ENOENT)
				assert.ErrorIs(t, m.ProgLookup(u64(2)), htab.ErrKeyNotExist)
				v, err := m.LookupAndDelete(u64(1))
				require.NoError(t, err)
				assert.Equal(t, value(1234), v)
				assert.Equal(t, []uint64{3}, keysOf(m))

				// sanity7 and sanity8: the key read by the program survives.
				for _, ref := range []uint64{1, 2} {
					m := newMap()
					require.NoError(t, m.Update(u64(1), value(1), 1))
					require.NoError(t, m.Update(u64(2), value(2), 1))
					require.NoError(t, m.ProgLookup(u64(ref)))
					_, err := m.Lookup(u64(3 - ref))
					require.NoError(t, err)
					require.NoError(t, m.Update(u64(3), value(3), 1))
					assert.Equal(t, []uint64{ref, 3}, keysOf(m), "ProgLookup(%d)", ref)
				}
			})
		}
	}
}

func TestLRUMaxEntries(t *testing.T) {
	Require(t)
	ncpu := PossibleCPUs()
	m, err := New(htab.LRUHash, 8, 8, htab.Options{MaxEntries: ncpu + 1, NoCommonLRU: true})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, 2*ncpu, m.MaxEntries())
}

func TestProgLookupKeySizes(t *testing.T) {
	Require(t)
	for _, ks := range []int{1, 3, 8, 13, 64, MaxProgKeySize} {
		m, err := New(htab.Hash, ks, 4, htab.Options{MaxEntries: 4})
		require.NoError(t, err)
		key := bytes.Repeat([]byte{byte(ks)}, ks)
		other := bytes.Clone(key)
		other[ks-1]++
		require.NoError(t, m.Update(key, u32(1), 0))
		assert.NoError(t, m.ProgLookup(key), "key size %d", ks)
		assert.ErrorIs(t, m.ProgLookup(other), htab.ErrKeyNotExist, "key size %d", ks)
		require.NoError(t, m.Close())
	}
	m, err := New(htab.Hash, MaxProgKeySize+1, 4, htab.Options{MaxEntries: 4})
	require.NoError(t, err)
	defer m.Close()
	assert.ErrorIs(t, m.ProgLookup(make([]byte, MaxProgKeySize+1)), htab.ErrInvalid)
}

// TestProgLookupIPv4Bytes: a key whose bytes 12 and 13 read as the Ethernet
// type of IPv4 (0x0800) made a test packet that BPF_PROG_TEST_RUN refused
// with EINVAL when the key was the packet.
func TestProgLookupIPv4Bytes(t *testing.T) {
	Require(t)
	for _, ks := range []int{14, 20, 64} {
		m, err := New(htab.Hash, ks, 4, htab.Options{MaxEntries: 4})
		require.NoError(t, err)
		key := bytes.Repeat([]byte{0xaa}, ks)
		key[12], key[13] = 0x08, 0x00
		other := bytes.Clone(key)
		other[0]++
		require.NoError(t, m.Update(key, u32(1), 0))
		assert.NoError(t, m.ProgLookup(key), "key size %d", ks)
		assert.ErrorIs(t, m.ProgLookup(other), htab.ErrKeyNotExist, "key size %d", ks)
		require.NoError(t, m.Close())
	}
}

func TestBloom(t *testing.T) {
	Require(t)
	for _, vs := range []int{5, 8} {
		m, err := New(htab.BloomFilter, 0, vs, htab.Options{MaxEntries: 100, ZeroSeed: true, BloomHashes: 3})
		require.NoError(t, err)
		defer m.Close()
		a, b := bytes.Repeat([]byte{1}, vs), bytes.Repeat([]byte{2}, vs)
		ok, err := m.Peek(a)
		require.NoError(t, err)
		assert.False(t, ok, "empty filter")

		require.NoError(t, m.Push(a))
		ok, err = m.Peek(a)
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = m.Peek(b)
		require.NoError(t, err)
		assert.False(t, ok)

		assert.ErrorIs(t, m.Push(a[1:]), htab.ErrInvalid)
		assert.ErrorIs(t, m.Delete(nil), unix.EOPNOTSUPP)
		_, err = m.NextKey(nil)
		assert.ErrorIs(t, err, unix.EOPNOTSUPP)
		assert.ErrorIs(t, m.ProgLookup(nil), htab.ErrInvalid)
	}
}

func TestErrName(t *testing.T) {
	assert.Equal(t, "ok", ErrName(nil))
	assert.Equal(t, "ENOENT", ErrName(htab.ErrKeyNotExist))
	assert.Equal(t, "ENOENT", ErrName(mapErrno("lookup", unix.ENOENT)), "a kernel errno and its htab error have one name")
	assert.Equal(t, "ENOMEM", ErrName(fmt.Errorf("wrapped: %w", htab.ErrNoMem)))
	assert.Equal(t, "other: operation not permitted", ErrName(unix.EPERM))
}

func TestSeedShift(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want uint64
		bad  bool
	}{
		{"", 0, false},
		{"0", 0, false},
		{"3", 3, false},
		{"4294967295", 1<<32 - 1, false},
		{"4294967296", 0, true},
		{"-1", 0, true},
		{"x", 0, true},
	} {
		got, err := seedShift(tc.env)
		if tc.bad {
			require.ErrorContains(t, err, SeedEnv, "%q", tc.env)
			continue
		}
		require.NoError(t, err, "%q", tc.env)
		assert.Equal(t, tc.want, got, "%q", tc.env)
	}
}

// TestProgUpdateDelete: the program-side update and delete give the
// helpers' errors, and on a per-CPU map a program's insert writes the value
// of the CPU it runs on and zeroes the others, which ProgLookupValue and the
// syscall lookup both see.
func TestProgUpdateDelete(t *testing.T) {
	Require(t)
	m, err := New(htab.Hash, 13, 5, htab.Options{MaxEntries: 2})
	require.NoError(t, err)
	defer m.Close()
	key := func(b byte) []byte { return bytes.Repeat([]byte{b}, 13) }
	val := func(b byte) []byte { return bytes.Repeat([]byte{b}, 5) }
	require.NoError(t, m.ProgUpdate(key(1), val(1), 0))
	assert.ErrorIs(t, m.ProgUpdate(key(1), val(2), 1), htab.ErrKeyExist)
	assert.ErrorIs(t, m.ProgUpdate(key(2), val(2), 2), htab.ErrKeyNotExist)
	assert.ErrorIs(t, m.ProgUpdate(key(2), val(2), 8), htab.ErrInvalid)
	require.NoError(t, m.ProgUpdate(key(2), val(2), 1))
	assert.ErrorIs(t, m.ProgUpdate(key(3), val(3), 0), htab.ErrFull)
	got, err := m.ProgLookupValue(key(2))
	require.NoError(t, err)
	assert.Equal(t, val(2), got)
	got, err = m.Lookup(key(1))
	require.NoError(t, err)
	assert.Equal(t, val(1), got, "the syscall side sees the program's update")
	require.NoError(t, m.ProgDelete(key(1)))
	assert.ErrorIs(t, m.ProgDelete(key(1)), htab.ErrKeyNotExist)
	assert.ErrorIs(t, m.ProgLookup(key(1)), htab.ErrKeyNotExist)
	assert.ErrorIs(t, m.ProgUpdate(key(1), val(1)[1:], 0), htab.ErrInvalid)

	ncpu := PossibleCPUs()
	pm, err := New(htab.PerCPUHash, 4, 3, htab.Options{MaxEntries: 4})
	require.NoError(t, err)
	defer pm.Close()
	cpu := ncpu - 1
	unpin, err := PinCPU(cpu)
	require.NoError(t, err)
	err = pm.ProgUpdate(u32(7), []byte{1, 2, 3}, 0)
	got, lerr := pm.ProgLookupValue(u32(7))
	unpin()
	require.NoError(t, err)
	require.NoError(t, lerr)
	assert.Equal(t, []byte{1, 2, 3}, got)
	all, err := pm.Lookup(u32(7))
	require.NoError(t, err)
	want := make([]byte, 3*ncpu)
	copy(want[3*cpu:], []byte{1, 2, 3})
	assert.Equal(t, want, all, "CPU %d's value set, every other CPU's zero", cpu)
}
