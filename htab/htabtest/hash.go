package htabtest

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
)

// Seeds checks that two maps made with ZeroSeed iterate the same 32 keys in
// one order, and that two made without it do not: each draws its own seed
// (that two random seeds give one order of 32 keys over 1024 buckets is
// vanishingly unlikely). m stands for the kind of map: the maps are m.New's.
func Seeds[K, V comparable](t testing.TB, m Map[K, V]) {
	order := func(zero bool) []K {
		m := newMap(t, m, htab.Options{MaxEntries: 1024, CPUs: 2, ZeroSeed: zero})
		for i := range 32 {
			if err := put(m, Key[K](i), Value[V](i), htab.UpdateNoExist); err != nil {
				t.Fatalf("Update(key %d): %v", i, err)
			}
		}
		keys, _ := getAll(t, m)
		if len(keys) != 32 {
			t.Fatalf("All yields %d keys, want 32", len(keys))
		}
		return keys
	}
	if !slices.Equal(order(true), order(true)) {
		t.Error("two ZeroSeed maps iterate the same keys in different orders")
	}
	if slices.Equal(order(false), order(false)) {
		t.Error("two maps without ZeroSeed iterate the same keys in one order: their seeds are not random")
	}
}

// HashIsJhash checks that the map's hash (Map.Hash) is htab.Jhash of the key
// with the map's seed, all 32 bits of it (RunOps's model compares only the
// bucket bits, of 64 buckets at most), for 512 keys (zero, all ones, then
// pseudo-random bytes) and seeds 0, 1, 0xdeadbeef and 0xffffffff; and that a
// map with a random seed finds each key, once inserted, with Lookup and
// CPU(0).Lookup, which may compute the hash in their own body. m stands for
// the kind of map: the maps are m.New's.
func HashIsJhash[K, V comparable](t testing.TB, m Map[K, V]) {
	zero := newMap(t, m, htab.Options{MaxEntries: 1, CPUs: 1, ZeroSeed: true})
	seeded := newMap(t, m, htab.Options{MaxEntries: 1024, CPUs: 1})
	x := uint64(0x9e3779b97f4a7c15)
	for i := range 512 {
		var k K
		b := bytesOf(&k)
		for j := range b {
			switch i {
			case 0:
			case 1:
				b[j] = 0xff
			default:
				x = x*6364136223846793005 + 1442695040888963407
				b[j] = byte(x >> 56)
			}
		}
		for _, seed := range []uint32{0, 1, 0xdeadbeef, 0xffffffff} {
			zero.SetSeed(seed)
			if got, want := zero.Hash(k), htab.Jhash(b, seed); got != want {
				t.Fatalf("key %x, seed %#x: hash %#x, htab.Jhash %#x", hex(k), seed, got, want)
			}
		}
		if err := seeded.Update(k, make([]V, Slots(seeded)), htab.UpdateNoExist); err != nil {
			t.Fatalf("key %x: Update: %v", hex(k), err)
		}
		_, found := lookup(seeded, k)
		_, cpuFound := seeded.CPU(0).Lookup(k)
		if err := seeded.Delete(k); !found || !cpuFound || err != nil {
			t.Fatalf("key %x, seed %#x: inserted, then Lookup found it: %v, CPU(0).Lookup: %v, Delete: %v", hex(k), seeded.Seed(), found, cpuFound, err)
		}
	}
}

// HashCollisions finds test keys whose hashes (Map.Hash) are equal, by a
// birthday search (4 pairs take about 2^17.5 keys), and checks that the map
// keeps them apart: both stored, each with its own value, and deleting one
// leaves the other. Random keys almost never share a 32-bit hash, so only
// such keys show that a lookup, update or delete of a map whose elements
// cache the hash (Info.CachedHash) goes on to compare the key; the check
// skips other maps, and keys of under 3 bytes, which have too few values.
// m stands for the kind of map: the map is m.New's.
func HashCollisions[K, V comparable](t testing.TB, m Map[K, V]) {
	var k0 K
	if !m.Info().CachedHash || unsafe.Sizeof(k0) < 3 {
		t.Skip("the map's elements do not cache the hash, or its keys have under 3 bytes")
	}
	m = newMap(t, m, testOpts(64))
	first := map[uint32]int{}
	var pairs [][2]int
	for i := 0; i < 1<<20 && len(pairs) < 4; i++ {
		h := m.Hash(Key[K](i))
		if j, ok := first[h]; ok {
			pairs = append(pairs, [2]int{j, i})
		} else {
			first[h] = i
		}
	}
	if len(pairs) < 4 {
		t.Fatalf("found %d pairs of keys with equal hashes, want 4", len(pairs))
	}
	deleteIs := func(i int, want error, format string) {
		if err := m.Delete(Key[K](i)); !errors.Is(err, want) {
			t.Fatalf(format, i, err)
		}
	}
	for _, p := range pairs {
		for _, i := range p {
			if err := put(m, Key[K](i), Value[V](i), htab.UpdateNoExist); err != nil {
				t.Fatalf("keys %d and %d share a hash: Update(%d, UpdateNoExist) = %v", p[0], p[1], i, err)
			}
		}
		for _, i := range p {
			if v, ok := get(t, m, Key[K](i)); !ok || v != Value[V](i) {
				t.Fatalf("keys %d and %d share a hash: Lookup(%d) = %x, %v; want %x", p[0], p[1], i, hex(v), ok, hex(Value[V](i)))
			}
		}
		deleteIs(p[0], nil, "Delete(%d) = %v")
		if v, ok := get(t, m, Key[K](p[1])); !ok || v != Value[V](p[1]) {
			t.Fatalf("after Delete(%d), Lookup(%d) = %x, %v; want its value", p[0], p[1], hex(v), ok)
		}
		deleteIs(p[0], htab.ErrKeyNotExist, "Delete(%d) again = %v, want ErrKeyNotExist")
		deleteIs(p[1], nil, "Delete(%d) = %v")
	}
}

// StorageHasNoPointers checks the design's promise that the garbage
// collector never scans a map's storage: what every slice of the map's
// struct (Info.Struct) holds (its elements, buckets, slots, per-CPU values
// and their NoPrealloc chunks) has no pointers. The walk goes through the
// slices, arrays and atomic.Pointers that lead to the storage, so a
// NoPrealloc chunk behind an atomic.Pointer counts as storage too (the short
// array of chunk pointers is all the collector scans), and must reach the
// element type (Info.Elem). The CPU handles, which point to their map, are
// not storage: a slice of the type the map's CPU method returns a pointer to
// is left out. m stands for the kind of map; no map is made.
func StorageHasNoPointers[K, V comparable](t testing.TB, m Map[K, V]) {
	info := m.Info()
	if info.Struct == nil || info.Struct.Kind() != reflect.Struct || info.Elem == nil {
		t.Fatalf("Info().Struct is %v and Elem %v: want the map's struct type and its element type", info.Struct, info.Elem)
	}
	var handle reflect.Type
	if cpu, ok := reflect.PointerTo(info.Struct).MethodByName("CPU"); ok && cpu.Type.NumOut() == 1 && cpu.Type.Out(0).Kind() == reflect.Pointer {
		handle = cpu.Type.Out(0).Elem()
	}
	leaves := map[reflect.Type]bool{}
	for i := range info.Struct.NumField() {
		fld := info.Struct.Field(i)
		if fld.Type.Kind() == reflect.Slice && (handle == nil || fld.Type.Elem() != handle) {
			storageLeaves(fld.Type, leaves)
		}
	}
	if !leaves[info.Elem] {
		t.Fatalf("the walk of the map's slices did not reach its element type %v; it found %v", info.Elem, leaves)
	}
	for lt := range leaves {
		if hasPointers(lt) {
			t.Errorf("%v, in the map's storage, holds pointers", lt)
		}
	}
}

// storageLeaves adds to leaves what t holds once the slices, arrays and
// atomic.Pointers (NoPrealloc chunks) on the way are unwrapped.
func storageLeaves(t reflect.Type, leaves map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		storageLeaves(t.Elem(), leaves)
		return
	case reflect.Struct:
		if load, ok := reflect.PointerTo(t).MethodByName("Load"); ok && t.PkgPath() == "sync/atomic" && load.Type.Out(0).Kind() == reflect.Pointer {
			storageLeaves(load.Type.Out(0).Elem(), leaves) // atomic.Pointer[T]
			return
		}
	}
	leaves[t] = true
}

// hasPointers reports whether a value of type t holds anything the garbage
// collector would follow.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.String, reflect.Slice:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
