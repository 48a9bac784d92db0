// Package htabtest holds the checks every generated -tests file runs; use
// them on your own generated maps.
//
// A map reaches the checks through one adapter, [Map]: the map's own methods
// (the syscall side, with a key's values as a slice), its CPU(i) handles (the
// program side, [CPU]), its batch operations, and the few internals the
// checks need (the hash seed, the bucket count, the map's own hash
// function, what kind of map it is, and a constructor). The adapter has to
// live in the map's package, since it touches unexported fields; `htabgen
// -tests` writes one, <prefix>TestMap, into <out>_test.go, with a Test or
// Fuzz function per check:
//
//	func TestConnsRandomOps(t *testing.T) { htabtest.RandomOps(t, connsTestMap{}) }
//
// Each check takes the adapter of a map of the kind to test and makes the
// maps it needs, with the options it needs, through [Map.New]; the map the
// adapter holds is not used, so the zero adapter will do.
//
// The checks know the kernel's rules for its BPF hash maps (BPF_MAP_TYPE_HASH,
// PERCPU_HASH, LRU_HASH and LRU_PERCPU_HASH): what each call returns, the
// order of each bucket (newest first), how a batch call splits the map, how
// many keys an LRU update may evict. They use the standard library and htab
// only, so that they run in any module that generates a map.
//
// Keys and values are byte arrays, as generated maps' are ([N]byte); the
// checks fail at once for any other type. The test keys are [Key]'s and the
// values [Value]'s; where a key has one value per CPU, the checks write the
// values [Spread] makes and check that what they read is such a spread.
package htabtest

import (
	"iter"
	"reflect"
	"testing"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
)

// Map is the adapter through which every check reaches a generated map of
// key type K and value type V (byte arrays). Its zero value may stand for the
// kind of map: the checks call only New and Info on the adapter they are
// given, and reach the maps New returns through their adapters.
//
// The syscall side is the map's own methods, as bpf(2) commands: a key's
// values are a slice of Slots(m) values, one for the hash and LRU types, one
// per CPU (CPU c's at [c]) for the per-CPU types; a batch's vals hold that
// many per key, key i's from [i*Slots(m)].
type Map[K, V comparable] interface {
	// Len, MaxEntries and CPUs are the map's methods of those names.
	Len() int
	MaxEntries() int
	CPUs() int

	// Lookup copies k's values into vals (BPF_MAP_LOOKUP_ELEM) and reports
	// whether k is present.
	Lookup(k K, vals []V) bool
	// LookupAndDelete copies k's values into vals and deletes k
	// (BPF_MAP_LOOKUP_AND_DELETE_ELEM).
	LookupAndDelete(k K, vals []V) error
	// Update gives k the values vals (BPF_MAP_UPDATE_ELEM).
	Update(k K, vals []V, flags htab.UpdateFlags) error
	// Delete deletes k (BPF_MAP_DELETE_ELEM).
	Delete(k K) error
	// NextKey is BPF_MAP_GET_NEXT_KEY: the key after *k, or the first key
	// if k is nil or absent.
	NextKey(k *K) (K, error)
	// All yields every key and its values in NextKey's order. The slice of
	// values may be reused between steps.
	All() iter.Seq2[K, []V]
	// LookupBatch, LookupAndDeleteBatch, UpdateBatch and DeleteBatch are
	// the map's batch operations (BPF_MAP_*_BATCH).
	LookupBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	LookupAndDeleteBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	UpdateBatch(keys []K, vals []V, flags htab.UpdateFlags) (int, error)
	DeleteBatch(keys []K) (int, error)

	// LookupBulk looks up every key of keys, as Lookup does each: found[i]
	// is whether keys[i] is present, and its values are vals[i*Slots(m):].
	// It returns how many it found, and panics if a slice is too short.
	LookupBulk(keys []K, vals []V, found []bool) int

	// CPU is the program side on CPU i, 0 <= i < CPUs(): the map's CPU(i).
	CPU(i int) CPU[K, V]

	// New makes a new, empty map of the same kind with opts, as the map's
	// constructor does, and returns its adapter.
	New(opts htab.Options) (Map[K, V], error)
	// Info is what kind of map this is.
	Info() Info
	// Seed is the map's hash seed (the jhash initval); SetSeed changes it,
	// which only an empty map may have done.
	Seed() uint32
	SetSeed(seed uint32)
	// Buckets is the number of buckets a key's hash picks from (the mask
	// plus one). Degenerate makes it 1, so that every key falls in bucket
	// 0, which only an empty map may have done.
	Buckets() int
	Degenerate()
	// Hash is the map's own hash of k, as its lookups and updates compute
	// it (for the kernel's maps, jhash of the key with the seed).
	Hash(k K) uint32
}

// CPU is a map's program side on one CPU, its CPU(i) handle: the door BPF
// programs use, with that CPU's value only.
type CPU[K, V comparable] interface {
	Lookup(k K) (V, bool)                            // bpf_map_lookup_elem
	LookupBulk(keys []K, vals []V, found []bool) int // Lookup of each key; vals[i] is keys[i]'s
	Update(k K, v V, flags htab.UpdateFlags) error   // bpf_map_update_elem
	Delete(k K) error                                // bpf_map_delete_elem
}

// Info is what the checks need to know of a map that its methods do not
// tell.
type Info struct {
	Type htab.MapType // htab.Hash, PerCPUHash, LRUHash or LRUPerCPUHash
	// CachedHash says that an element keeps its key's hash and compares it
	// before the key, so that keys with equal hashes take a path of their
	// own (HashCollisions).
	CachedHash bool
	// Struct is the map's struct type (not the pointer), and Elem its
	// element type: StorageHasNoPointers walks Struct's slices and must
	// reach Elem.
	Struct, Elem reflect.Type
}

// PerCPU reports whether a key holds one value per CPU.
func (i Info) PerCPU() bool { return i.Type == htab.PerCPUHash || i.Type == htab.LRUPerCPUHash }

// LRU reports whether updates evict.
func (i Info) LRU() bool { return i.Type.IsLRU() }

// Slots is how many values m keeps per key: CPUs() for the per-CPU types,
// else 1.
func Slots[K, V comparable](m Map[K, V]) int {
	if m.Info().PerCPU() {
		return m.CPUs()
	}
	return 1
}

// Key is test key i: i little-endian in the first 8 bytes, then byte j is
// j*31. Distinct i < 2^(8*len(K)) give distinct keys.
func Key[K comparable](i int) (k K) {
	b := bytesOf(&k)
	for j := range b {
		if j < 8 {
			b[j] = byte(i >> (8 * j))
		} else {
			b[j] = byte(j * 31)
		}
	}
	return k
}

// Value is test value i: byte j is i+j.
func Value[V comparable](i int) (v V) {
	b := bytesOf(&v)
	for j := range b {
		b[j] = byte(i + j)
	}
	return v
}

// Spread is v spread over n CPUs, as the checks write a per-CPU key's values
// from one value: CPU c's is v with c added to its first byte.
func Spread[V comparable](v V, n int) []V {
	vals := make([]V, n)
	for c := range vals {
		vals[c] = v
		bytesOf(&vals[c])[0] += byte(c)
	}
	return vals
}

// isSpread reports whether vals is the Spread of vals[0].
func isSpread[V comparable](vals []V) bool {
	for c, v := range Spread(vals[0], len(vals)) {
		if vals[c] != v {
			return false
		}
	}
	return true
}

// bytesOf is the bytes of *p, a byte array.
func bytesOf[T comparable](p *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// checkTypes fails t unless K and V are byte arrays, as generated maps'
// keys and values are.
func checkTypes[K, V comparable](t testing.TB) {
	t.Helper()
	for _, typ := range []reflect.Type{reflect.TypeFor[K](), reflect.TypeFor[V]()} {
		if typ.Kind() != reflect.Array || typ.Elem().Kind() != reflect.Uint8 || typ.Len() == 0 {
			t.Fatalf("htabtest: %v is not a byte array [N]byte, N > 0", typ)
		}
	}
}

// newMap is m.New(opts), failing t on an error.
func newMap[K, V comparable](t testing.TB, m Map[K, V], opts htab.Options) Map[K, V] {
	t.Helper()
	checkTypes[K, V](t)
	n, err := m.New(opts)
	if err != nil {
		t.Fatalf("New(%+v): %v", opts, err)
	}
	return n
}

// testOpts are the options of most checks' maps: max entries, ZeroSeed,
// 2 CPUs.
func testOpts(max int) htab.Options {
	return htab.Options{MaxEntries: max, ZeroSeed: true, CPUs: 2}
}

// lookup is m.Lookup(k) into a new slice of values.
func lookup[K, V comparable](m Map[K, V], k K) ([]V, bool) {
	vals := make([]V, Slots(m))
	return vals, m.Lookup(k, vals)
}

// lookupAndDelete is m.LookupAndDelete(k) into a new slice of values.
func lookupAndDelete[K, V comparable](m Map[K, V], k K) ([]V, error) {
	vals := make([]V, Slots(m))
	return vals, m.LookupAndDelete(k, vals)
}

// all collects m.All(), each key's values copied.
func all[K, V comparable](m Map[K, V]) (keys []K, vals [][]V) {
	for k, vs := range m.All() {
		keys, vals = append(keys, k), append(vals, append([]V(nil), vs...))
	}
	return keys, vals
}

// The single-value view of the simpler checks: one value stands for a key's
// values, spread over the CPUs of a per-CPU map, and every read checks that
// what the CPUs hold is that spread.

// put is m.Update(k, the spread of v, flags).
func put[K, V comparable](m Map[K, V], k K, v V, flags htab.UpdateFlags) error {
	return m.Update(k, Spread(v, Slots(m)), flags)
}

// get is m.Lookup(k)'s first value, after checking that the values are a
// spread.
func get[K, V comparable](t testing.TB, m Map[K, V], k K) (V, bool) {
	t.Helper()
	vals, ok := lookup(m, k)
	if ok {
		checkSpread(t, k, vals)
	}
	return vals[0], ok
}

// getAll is m.All() with each key's first value, after checking that the
// values are a spread.
func getAll[K, V comparable](t testing.TB, m Map[K, V]) (keys []K, vals []V) {
	t.Helper()
	for k, vs := range m.All() {
		checkSpread(t, k, vs)
		keys, vals = append(keys, k), append(vals, vs[0])
	}
	return keys, vals
}

// checkSpread fails t unless vals, k's values, is the Spread of vals[0].
func checkSpread[K, V comparable](t testing.TB, k K, vals []V) {
	t.Helper()
	if !isSpread(vals) {
		t.Fatalf("key %x: the CPUs' values are %x, not the spread of CPU 0's (%x)", hex(k), hex(vals), hex(Spread(vals[0], len(vals))))
	}
}

// hex is x as an interface, for the messages' %x: vet's printf check does
// not know that keys and values, of comparable type parameters, are byte
// arrays.
func hex(x any) any { return x }
