package hash

// Ports of the hash-map scenarios of the kernel's
// tools/testing/selftests/bpf/test_maps.c: test_hashmap, test_hashmap_walk, test_hashmap_zero_seed and, sized down,
// test_map_parallel. Each runs twice, as in the kernel: map_flags=0 and
// BPF_F_NO_PREALLOC, and on both layouts (HashK8V8 and HashK8V24, and
// HomeK8V8 and HomeK8V24). test_map_large is in generated/keysizes.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kpFlags are the kernel's two runs: map_flags=0 and BPF_F_NO_PREALLOC.
var kpFlags = []struct {
	name string
	opts htab.Options
}{
	{"prealloc", htab.Options{}},
	{"NoPrealloc", htab.Options{NoPrealloc: true}},
}

// kpKey is a long long key as the kernel test stores it (native, little-endian).
func kpKey[K ~[8]byte](i int64) (k K) {
	binary.LittleEndian.PutUint64(k[:], uint64(i))
	return
}

func kpVal[V ~[8]byte](i int64) (v V) {
	binary.LittleEndian.PutUint64(v[:], uint64(i))
	return
}

// kpMap is what the ports need of a k8v8 map (HashK8V8, HomeK8V8).
type kpMap[K ~[8]byte, V ~[8]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	LookupAndDelete(K) (V, error)
	Lookup(K) (V, bool)
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
	Len() int
	MaxEntries() int
}

// kpWalkMap is what the walk ports need of a k8v24 map (HashK8V24, HomeK8V24).
type kpWalkMap[K ~[8]byte, V ~[24]byte] interface {
	Update(K, V, htab.UpdateFlags) error
	Lookup(K) (V, bool)
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
	Len() int
}

// kpDoor is a door to a map for kpParallel: the map itself or a CPU handle.
type kpDoor[K, V any] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
}

// kpLayouts runs a port on each layout.
func kpLayouts(t *testing.T, classic, home func(t *testing.T)) {
	t.Run("layout=classic", classic)
	t.Run("layout=home", home)
}

func kpInt(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }

// TestKernelPortHashmap is test_hashmap: 8-byte key and value, max_entries 2.
func TestKernelPortHashmap(t *testing.T) {
	kpLayouts(t,
		func(t *testing.T) { kpHashmap(t, NewHashK8V8) },
		func(t *testing.T) { kpHashmap(t, NewHomeK8V8) })
}

func kpHashmap[K ~[8]byte, V ~[8]byte, M kpMap[K, V]](t *testing.T, newMap func(htab.Options) (M, error)) {
	kpKey, kpVal := kpKey[K], kpVal[V]
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			o.MaxEntries = 2
			m, err := newMap(o)
			require.NoError(t, err)
			var v V

			// Insert key=1 element.
			require.NoError(t, m.Update(kpKey(1), kpVal(1234), htab.UpdateAny))
			// BPF_NOEXIST means add new element if it doesn't exist: key=1 exists.
			err = m.Update(kpKey(1), kpVal(0), htab.UpdateNoExist)
			require.True(t, errors.Is(err, htab.ErrKeyExist), "EEXIST, got %v", err)
			// -1 is an invalid flag; so is NOEXIST|EXIST.
			err = m.Update(kpKey(1), kpVal(0), ^htab.UpdateFlags(0))
			require.True(t, errors.Is(err, htab.ErrInvalid), "EINVAL for -1, got %v", err)
			err = m.Update(kpKey(1), kpVal(0), 3)
			require.True(t, errors.Is(err, htab.ErrInvalid), "EINVAL for 3, got %v", err)
			// Check that key=1 can be found (and the failed updates did nothing).
			v, ok := m.Lookup(kpKey(1))
			require.True(t, ok)
			require.Equal(t, int64(1234), kpInt(v[:]))

			// Insert key=2 element.
			require.NoError(t, m.Update(kpKey(2), kpVal(1234), htab.UpdateAny))
			// Check that key=2 matches the value and delete it.
			v, err = m.LookupAndDelete(kpKey(2))
			require.NoError(t, err)
			require.Equal(t, int64(1234), kpInt(v[:]))
			// Check that key=2 is not found.
			_, ok = m.Lookup(kpKey(2))
			require.False(t, ok, "ENOENT")
			_, err = m.LookupAndDelete(kpKey(2))
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
			// BPF_EXIST means update existing element: key=2 is not there.
			err = m.Update(kpKey(2), v, htab.UpdateExist)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
			// Insert key=2 element.
			require.NoError(t, m.Update(kpKey(2), v, htab.UpdateNoExist))
			require.Equal(t, 2, m.Len())

			// key=1 and key=2 were inserted: key=0 cannot be, max_entries.
			err = m.Update(kpKey(0), v, htab.UpdateNoExist)
			require.True(t, errors.Is(err, htab.ErrFull), "E2BIG, got %v", err)
			err = m.Update(kpKey(0), v, htab.UpdateAny)
			require.True(t, errors.Is(err, htab.ErrFull), "E2BIG for ANY too, got %v", err)
			// Flag errors win over fullness.
			err = m.Update(kpKey(0), v, htab.UpdateExist)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)

			// Update existing elements, though the map is full.
			require.NoError(t, m.Update(kpKey(1), v, htab.UpdateExist))
			require.NoError(t, m.Update(kpKey(2), v, htab.UpdateAny))
			err = m.Update(kpKey(3), v, htab.UpdateNoExist)
			require.True(t, errors.Is(err, htab.ErrFull), "E2BIG, got %v", err)
			require.Equal(t, 2, m.Len())

			// Check that key=0 doesn't exist.
			err = m.Delete(kpKey(0))
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)

			// Iterate over two elements.
			first, err := m.NextKey(nil)
			require.NoError(t, err)
			require.Contains(t, []int64{1, 2}, kpInt(first[:]))
			k0 := kpKey(0) // unknown: the walk restarts at the first key
			next, err := m.NextKey(&k0)
			require.NoError(t, err)
			require.Equal(t, first, next)
			next, err = m.NextKey(&next)
			require.NoError(t, err)
			require.Contains(t, []int64{1, 2}, kpInt(next[:]))
			require.NotEqual(t, first, next)
			_, err = m.NextKey(&next)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)

			// Delete both elements.
			require.NoError(t, m.Delete(kpKey(1)))
			require.NoError(t, m.Delete(kpKey(2)))
			err = m.Delete(kpKey(2))
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
			require.Zero(t, m.Len())

			// Check that the map is empty.
			_, err = m.NextKey(nil)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
			_, err = m.NextKey(&k0)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
		})
	}
}

// kpFillWalkMap is helper_fill_hashmap: keys 0..n-1 with value[0] = key,
// inserted with BPF_NOEXIST.
func kpFillWalkMap[K ~[8]byte, V ~[24]byte, W kpWalkMap[K, V]](t require.TestingT, newMap func(htab.Options) (W, error), o htab.Options, n int) W {
	o.MaxEntries = n
	m, err := newMap(o)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, m.Update(kpKey[K](int64(i)), kpWalkVal[V](int64(i)), htab.UpdateNoExist), "key %d", i)
	}
	require.Equal(t, n, m.Len())
	return m
}

// kpWalkVal is long long value[3] with value[0] = x.
func kpWalkVal[V ~[24]byte](x int64) (v V) {
	binary.LittleEndian.PutUint64(v[:], uint64(x))
	return
}

// TestKernelPortHashmapWalk is test_hashmap_walk: 10000 entries, 8-byte key,
// 24-byte value.
func TestKernelPortHashmapWalk(t *testing.T) {
	kpLayouts(t,
		func(t *testing.T) { kpHashmapWalk(t, NewHashK8V24) },
		func(t *testing.T) { kpHashmapWalk(t, NewHomeK8V24) })
}

func kpHashmapWalk[K ~[8]byte, V ~[24]byte, W kpWalkMap[K, V]](t *testing.T, newMap func(htab.Options) (W, error)) {
	const maxEntries = 10000
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			m := kpFillWalkMap(t, newMap, f.opts, maxEntries)
			kpWalk(t, m, maxEntries)
		})
	}
}

// kpWalk runs the three walks of test_hashmap_walk on a filled map.
func kpWalk[K ~[8]byte, V ~[24]byte, W kpWalkMap[K, V]](t require.TestingT, m W, maxEntries int) {
	// A full walk visits every key once.
	seen := make(map[K]bool, maxEntries)
	var key K
	i := 0
	for ; ; i++ {
		var prev *K
		if i != 0 {
			prev = &key
		}
		next, err := m.NextKey(prev)
		if err != nil {
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
			break
		}
		key = next
		_, ok := m.Lookup(key)
		require.True(t, ok)
		require.False(t, seen[key], "first walk: key %d twice", kpInt(key[:]))
		seen[key] = true
	}
	require.Equal(t, maxEntries, i)

	// Fetch the next key before replacing the current one (BPF_EXIST, which
	// relinks it at its bucket's head): every key is still visited once.
	key, err := m.NextKey(nil)
	require.NoError(t, err)
	clear(seen)
	nextValid := true
	for i = 0; nextValid; i++ {
		next, err := m.NextKey(&key)
		nextValid = err == nil
		if !nextValid {
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
		}
		v, ok := m.Lookup(key)
		require.True(t, ok)
		require.False(t, seen[key], "second walk: key %d twice", kpInt(key[:]))
		seen[key] = true
		binary.LittleEndian.PutUint64(v[:], uint64(kpInt(v[:])+1))
		require.NoError(t, m.Update(key, v, htab.UpdateExist))
		key = next
		require.LessOrEqual(t, i, maxEntries, "second walk does not end")
	}
	require.Equal(t, maxEntries, i)
	require.Len(t, seen, maxEntries)

	// Every key was incremented once.
	for i = 0; ; i++ {
		var prev *K
		if i != 0 {
			prev = &key
		}
		next, err := m.NextKey(prev)
		if err != nil {
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
			break
		}
		key = next
		v, ok := m.Lookup(key)
		require.True(t, ok)
		require.Equal(t, kpInt(key[:]), kpInt(v[:])-1, "value[0]-1 == key")
	}
	require.Equal(t, maxEntries, i)
}

// TestKernelPortHashmapZeroSeed is test_hashmap_zero_seed: two ZeroSeed maps
// filled the same way iterate identically. The kernel fills 3 entries; more
// entries make the check stronger.
func TestKernelPortHashmapZeroSeed(t *testing.T) {
	kpLayouts(t,
		func(t *testing.T) { kpHashmapZeroSeed(t, NewHashK8V24, func(m *HashK8V24) uint32 { return m.seed }) },
		func(t *testing.T) { kpHashmapZeroSeed(t, NewHomeK8V24, func(m *HomeK8V24) uint32 { return m.seed }) })
}

func kpHashmapZeroSeed[K ~[8]byte, V ~[24]byte, W kpWalkMap[K, V]](t *testing.T, newMap func(htab.Options) (W, error), seed func(W) uint32) {
	for _, f := range kpFlags {
		for _, n := range []int{3, 1000} {
			t.Run(fmt.Sprintf("%s/%d", f.name, n), func(t *testing.T) {
				o := f.opts
				o.ZeroSeed = true
				old := kpFillWalkMap(t, newMap, o, n)
				cur := kpFillWalkMap(t, newMap, o, n)
				require.Zero(t, seed(old))
				require.Zero(t, seed(cur))
				var keyPtr *K
				for i := 0; ; i++ {
					k1, err1 := old.NextKey(keyPtr)
					k2, err2 := cur.NextKey(keyPtr)
					require.Equal(t, err1, err2, "step %d", i)
					if err1 != nil {
						require.ErrorIs(t, err1, htab.ErrKeyNotExist)
						require.Equal(t, n, i)
						break
					}
					require.Equal(t, k1, k2, "step %d", i)
					keyPtr = &k1
				}
				var a, b []K
				for k := range old.All() {
					a = append(a, k)
				}
				for k := range cur.All() {
					b = append(b, k)
				}
				require.Equal(t, a, b)
			})
		}
	}
}

// TestKernelPortHashmapZeroSeedOrder: under ZeroSeed the order is the
// kernel's: ascending bucket index jhash(key,0) & (roundup_pow_of_two(n)-1),
// and within a bucket newest first.
func TestKernelPortHashmapZeroSeedOrder(t *testing.T) {
	kpLayouts(t,
		func(t *testing.T) { kpHashmapZeroSeedOrder(t, NewHashK8V8) },
		func(t *testing.T) { kpHashmapZeroSeedOrder(t, NewHomeK8V8) })
}

func kpHashmapZeroSeedOrder[K ~[8]byte, V ~[8]byte, M kpMap[K, V]](t *testing.T, newMap func(htab.Options) (M, error)) {
	kpKey, kpVal := kpKey[K], kpVal[V]
	const n = 100
	m, err := newMap(htab.Options{MaxEntries: n, ZeroSeed: true})
	require.NoError(t, err)
	mask := uint32(htab.BucketCount(n) - 1)
	buckets := make([][]K, mask+1)
	for i := range int64(n) {
		k := kpKey(i * 7919)
		require.NoError(t, m.Update(k, kpVal(i), htab.UpdateNoExist))
		b := htab.Jhash(k[:], 0) & mask
		buckets[b] = append([]K{k}, buckets[b]...) // newest first
	}
	var want []K
	for _, b := range buckets {
		want = append(want, b...)
	}
	var got []K
	var prev *K
	for {
		k, err := m.NextKey(prev)
		if err != nil {
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
			break
		}
		got = append(got, k)
		prev = &k
	}
	require.Equal(t, want, got)

	// A replace moves the key to the head of its bucket.
	last := want[len(want)-1]
	require.NoError(t, m.Update(last, kpVal(-1), htab.UpdateExist))
	b := htab.Jhash(last[:], 0) & mask
	first, err := m.NextKey(nil)
	require.NoError(t, err)
	if b == htab.Jhash(want[0][:], 0)&mask {
		require.Equal(t, last, first)
	}
	var bucketKeys []K
	for k := range m.All() {
		if htab.Jhash(k[:], 0)&mask == b {
			bucketKeys = append(bucketKeys, k)
		}
	}
	require.Equal(t, last, bucketKeys[0], "a replaced key is at its bucket's head")
}

// TestKernelPortMapParallel is test_map_parallel, sized down: tasks insert
// disjoint keys (NOEXIST then EXIST), then delete them in parallel; the odd
// tasks also run test_hashmap_walk on a map of their own, as in the kernel.
// Readers iterate all the while. Run with -race.
func TestKernelPortMapParallel(t *testing.T) {
	kpLayouts(t,
		func(t *testing.T) {
			kpMapParallel(t, NewHashK8V8, NewHashK8V24, func(m *HashK8V8, i int) kpDoor[HashK8V8Key, HashK8V8Value] { return m.CPU(i) })
		},
		func(t *testing.T) {
			kpMapParallel(t, NewHomeK8V8, NewHomeK8V24, func(m *HomeK8V8, i int) kpDoor[HomeK8V8Key, HomeK8V8Value] { return m.CPU(i) })
		})
}

func kpMapParallel[K ~[8]byte, V ~[8]byte, M kpMap[K, V], WK ~[8]byte, WV ~[24]byte, W kpWalkMap[WK, WV]](
	t *testing.T, newMap func(htab.Options) (M, error), newWalkMap func(htab.Options) (W, error), cpu func(M, int) kpDoor[K, V],
) {
	kpKey, kpVal := kpKey[K], kpVal[V]
	const tasks = 4
	mapSize, walkEntries, rounds := 4096, 1000, 6
	if testing.Short() {
		mapSize, walkEntries, rounds = 1024, 200, 2
	}
	for _, f := range kpFlags {
		t.Run(f.name, func(t *testing.T) {
			o := f.opts
			o.MaxEntries = mapSize
			o.CPUs = tasks
			m, err := newMap(o)
			require.NoError(t, err)
			for round := range rounds {
				kpParallel(t, m, cpu, newWalkMap, f.opts, tasks, walkEntries, true)
				require.Equal(t, mapSize, m.Len())

				// Check that key=0 is already there.
				require.ErrorIs(t, m.Update(kpKey(0), kpVal(0), htab.UpdateNoExist), htab.ErrKeyExist)
				// And that the map is full.
				require.ErrorIs(t, m.Update(kpKey(int64(mapSize)), kpVal(0), htab.UpdateNoExist), htab.ErrFull)

				// Check that all elements were inserted: an unknown key (-1)
				// restarts the walk, so mapSize calls succeed and one more fails.
				_, err := m.NextKey(nil)
				require.NoError(t, err)
				key := kpKey(-1)
				seen := map[K]bool{}
				for i := range mapSize {
					key, err = m.NextKey(&key)
					require.NoError(t, err, "round %d, step %d", round, i)
					seen[key] = true
				}
				_, err = m.NextKey(&key)
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
				require.Len(t, seen, mapSize)

				// Another check for all elements.
				for i := range mapSize {
					k := int64(mapSize - i - 1)
					v, ok := m.Lookup(kpKey(k))
					require.True(t, ok, "key %d", k)
					require.Equal(t, k, kpInt(v[:]))
				}

				// Now delete all elements in parallel.
				kpParallel(t, m, cpu, newWalkMap, f.opts, tasks, walkEntries, false)

				// Nothing should be left.
				_, err = m.NextKey(nil)
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
				key = kpKey(-1)
				_, err = m.NextKey(&key)
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
				require.Zero(t, m.Len())
				require.ErrorIs(t, m.Delete(kpKey(0)), htab.ErrKeyNotExist)
			}
		})
	}
}

// kpParallel is run_parallel(TASKS, test_update_delete): task fn handles
// keys fn, fn+tasks, ...; odd tasks use the program side (CPU(fn)) and first
// run a walk test on their own map. Two readers iterate meanwhile and check
// that no key is yielded twice and every value equals its key.
func kpParallel[K ~[8]byte, V ~[8]byte, M kpMap[K, V], WK ~[8]byte, WV ~[24]byte, W kpWalkMap[WK, WV]](
	t *testing.T, m M, cpu func(M, int) kpDoor[K, V], newWalkMap func(htab.Options) (W, error),
	walkOpts htab.Options, tasks, walkEntries int, update bool,
) {
	mapSize := m.MaxEntries()
	var wg sync.WaitGroup
	errs := make(chan error, tasks+2)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				seen := map[K]bool{}
				for k, v := range m.All() {
					if seen[k] {
						errs <- fmt.Errorf("All yielded key %d twice", kpInt(k[:]))
						return
					}
					seen[k] = true
					if [8]byte(k) != [8]byte(v) {
						errs <- fmt.Errorf("All yielded key %d with value %d", kpInt(k[:]), kpInt(v[:]))
						return
					}
				}
				if len(seen) > mapSize {
					errs <- fmt.Errorf("All yielded %d keys, more than %d", len(seen), mapSize)
					return
				}
			}
		})
	}
	for fn := range tasks {
		wg.Go(func() {
			if fn&1 != 0 {
				// require in a goroutine: record the failure and end the goroutine.
				ft := &kpGoroutineT{task: fn, errs: errs}
				wm := kpFillWalkMap(ft, newWalkMap, walkOpts, walkEntries)
				kpWalk(ft, wm, walkEntries)
			}
			var d kpDoor[K, V] = m
			if fn&1 != 0 {
				d = cpu(m, fn)
			}
			for i := fn; i < mapSize; i += tasks {
				k, v := kpKey[K](int64(i)), kpVal[V](int64(i))
				if update {
					if err := d.Update(k, v, htab.UpdateNoExist); err != nil {
						errs <- fmt.Errorf("task %d: NOEXIST update of key %d: %w", fn, i, err)
						return
					}
					if err := d.Update(k, v, htab.UpdateExist); err != nil {
						errs <- fmt.Errorf("task %d: EXIST update of key %d: %w", fn, i, err)
						return
					}
				} else if err := d.Delete(k); err != nil {
					errs <- fmt.Errorf("task %d: delete of key %d: %w", fn, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// kpGoroutineT lets require run in a goroutine other than the test's: a
// failure is sent to errs and FailNow ends only the goroutine.
type kpGoroutineT struct {
	task int
	errs chan<- error
}

func (g *kpGoroutineT) Errorf(format string, args ...any) {
	g.errs <- fmt.Errorf("task %d: "+format, append([]any{g.task}, args...)...)
}

func (g *kpGoroutineT) FailNow() { runtime.Goexit() }
