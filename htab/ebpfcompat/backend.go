package ebpfcompat

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
)

// HashMap is the userspace side of a generated hash or LRU map with key K
// and value V, each a byte array ([K]byte, [V]byte): the methods its
// adapter calls.
type HashMap[K, V any] interface {
	Lookup(k K) (V, bool)
	LookupAndDelete(k K) (V, error)
	Update(k K, v V, flags htab.UpdateFlags) error
	Delete(k K) error
	NextKey(k *K) (K, error)
	LookupBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	LookupAndDeleteBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	UpdateBatch(keys []K, vals []V, flags htab.UpdateFlags) (int, error)
	DeleteBatch(keys []K) (int, error)
}

// PerCPUMap is the userspace side of a generated per-CPU map (pcpu or
// lru_pcpu), which carries every CPU's value.
type PerCPUMap[K, V any] interface {
	Lookup(k K, vals []V) bool
	LookupAndDelete(k K, vals []V) error
	Update(k K, vals []V, flags htab.UpdateFlags) error
	Delete(k K) error
	NextKey(k *K) (K, error)
	LookupBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	LookupAndDeleteBatch(c *htab.Cursor, keys []K, vals []V) (int, error)
	UpdateBatch(keys []K, vals []V, flags htab.UpdateFlags) (int, error)
	DeleteBatch(keys []K) (int, error)
}

// BloomMap is a generated bloom filter map with value V.
type BloomMap[V any] interface {
	Push(v V) error
	Peek(v V) bool
}

// backend is a generated map seen as bpf(2) sees a map: keys and values are
// memory in the kernel's layout (a per-CPU value is every CPU's value, each
// padded to a multiple of 8 bytes), and errors are the map's htab errors.
// Every slice has the length its operation needs; the adapter checks that.
type backend interface {
	owner() any // the generated map: what a batch cursor belongs to
	lookup(key, val []byte) error
	lookupAndDelete(key, val []byte) error
	update(key, val []byte, flags htab.UpdateFlags) error
	delete(key []byte) error
	nextKey(key, next []byte) error // key nil: the first key
	lookupBatch(c *htab.Cursor, keys, vals []byte, del bool) (int, error)
	updateBatch(keys, vals []byte, flags htab.UpdateFlags) (int, error)
	deleteBatch(keys []byte) (int, error)
}

// view is b's memory as a T, a byte array no longer than b.
func view[T any](b []byte) *T { return (*T)(unsafe.Pointer(unsafe.SliceData(b))) }

// views is b's memory as n Ts, byte arrays that fill b.
func views[T any](b []byte, n int) []T { return unsafe.Slice(view[T](b), n) }

// byteArray panics unless T is [size]byte: the adapter reinterprets memory
// as keys and values, which is sound for byte arrays only. A generated
// adapter always passes its own key and value types.
func byteArray[T any](what string, size int) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Array || t.Elem().Kind() != reflect.Uint8 || t.Len() != size {
		panic(fmt.Sprintf("ebpfcompat: %s type %v is not [%d]byte", what, t, size))
	}
}

// unsupported is what a bloom filter answers for the operations it lacks,
// as the kernel's does.
type unsupported struct{}

func (unsupported) lookupAndDelete(key, val []byte) error { return errNotSupported }
func (unsupported) delete(key []byte) error               { return errOpNotSupp }
func (unsupported) nextKey(key, next []byte) error        { return errOpNotSupp }
func (unsupported) lookupBatch(*htab.Cursor, []byte, []byte, bool) (int, error) {
	return 0, errNotSupported
}
func (unsupported) updateBatch(keys, vals []byte, flags htab.UpdateFlags) (int, error) {
	return 0, errNotSupported
}
func (unsupported) deleteBatch(keys []byte) (int, error) { return 0, errNotSupported }

// hashBackend is a HashMap as a backend.
type hashBackend[K, V any] struct {
	m HashMap[K, V]
}

func (b hashBackend[K, V]) owner() any { return b.m }

func (b hashBackend[K, V]) lookup(key, val []byte) error {
	v, ok := b.m.Lookup(*view[K](key))
	if !ok {
		return htab.ErrKeyNotExist
	}
	*view[V](val) = v
	return nil
}

func (b hashBackend[K, V]) lookupAndDelete(key, val []byte) error {
	v, err := b.m.LookupAndDelete(*view[K](key))
	if err == nil {
		*view[V](val) = v
	}
	return err
}

func (b hashBackend[K, V]) update(key, val []byte, flags htab.UpdateFlags) error {
	return b.m.Update(*view[K](key), *view[V](val), flags)
}

func (b hashBackend[K, V]) delete(key []byte) error { return b.m.Delete(*view[K](key)) }

func (b hashBackend[K, V]) nextKey(key, next []byte) error {
	return nextKey(b.m.NextKey, key, next)
}

func (b hashBackend[K, V]) lookupBatch(c *htab.Cursor, keys, vals []byte, del bool) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	batch := b.m.LookupBatch
	if del {
		batch = b.m.LookupAndDeleteBatch
	}
	return batch(c, views[K](keys, n), views[V](vals, n))
}

func (b hashBackend[K, V]) updateBatch(keys, vals []byte, flags htab.UpdateFlags) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	return b.m.UpdateBatch(views[K](keys, n), views[V](vals, n), flags)
}

func (b hashBackend[K, V]) deleteBatch(keys []byte) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	return b.m.DeleteBatch(views[K](keys, n))
}

// nextKey is NextKey over bytes: key nil means the first key.
func nextKey[K any](next func(*K) (K, error), key, out []byte) error {
	var k *K
	if key != nil {
		k = view[K](key)
	}
	n, err := next(k)
	if err == nil {
		*view[K](out) = n
	}
	return err
}

// perCPUBackend is a PerCPUMap as a backend: it moves values between the
// map's []V of CPUs values and the kernel's layout, where each CPU's value
// takes stride bytes.
type perCPUBackend[K, V any] struct {
	m      PerCPUMap[K, V]
	cpus   int
	stride int
}

func (b perCPUBackend[K, V]) owner() any { return b.m }

// spread writes vals, one per CPU (and n keys' worth in a batch), into raw
// in the kernel's layout; gather reads them back.
func (b perCPUBackend[K, V]) spread(raw []byte, vals []V) {
	for i := range vals {
		*view[V](raw[i*b.stride:]) = vals[i]
	}
}

func (b perCPUBackend[K, V]) gather(raw []byte, n int) []V {
	vals := make([]V, n)
	for i := range vals {
		vals[i] = *view[V](raw[i*b.stride:])
	}
	return vals
}

func (b perCPUBackend[K, V]) lookup(key, val []byte) error {
	vals := make([]V, b.cpus)
	if !b.m.Lookup(*view[K](key), vals) {
		return htab.ErrKeyNotExist
	}
	b.spread(val, vals)
	return nil
}

func (b perCPUBackend[K, V]) lookupAndDelete(key, val []byte) error {
	vals := make([]V, b.cpus)
	err := b.m.LookupAndDelete(*view[K](key), vals)
	if err == nil {
		b.spread(val, vals)
	}
	return err
}

func (b perCPUBackend[K, V]) update(key, val []byte, flags htab.UpdateFlags) error {
	return b.m.Update(*view[K](key), b.gather(val, b.cpus), flags)
}

func (b perCPUBackend[K, V]) delete(key []byte) error { return b.m.Delete(*view[K](key)) }

func (b perCPUBackend[K, V]) nextKey(key, next []byte) error {
	return nextKey(b.m.NextKey, key, next)
}

func (b perCPUBackend[K, V]) lookupBatch(c *htab.Cursor, keys, vals []byte, del bool) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	batch := b.m.LookupBatch
	if del {
		batch = b.m.LookupAndDeleteBatch
	}
	out := make([]V, n*b.cpus)
	got, err := batch(c, views[K](keys, n), out)
	b.spread(vals, out[:got*b.cpus])
	return got, err
}

func (b perCPUBackend[K, V]) updateBatch(keys, vals []byte, flags htab.UpdateFlags) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	return b.m.UpdateBatch(views[K](keys, n), b.gather(vals, n*b.cpus), flags)
}

func (b perCPUBackend[K, V]) deleteBatch(keys []byte) (int, error) {
	n := len(keys) / int(unsafe.Sizeof(*new(K)))
	return b.m.DeleteBatch(views[K](keys, n))
}

// bloomBackend is a BloomMap as a backend, as bpf(2) reaches the kernel's
// bloom filter (kernel/bpf/bloom_filter.c): a lookup peeks at the value it
// is given, an update pushes it, and the map has no other operation.
type bloomBackend[V any] struct {
	unsupported
	m BloomMap[V]
}

func (b bloomBackend[V]) owner() any { return b.m }

func (b bloomBackend[V]) lookup(_, val []byte) error {
	if !b.m.Peek(*view[V](val)) {
		return htab.ErrKeyNotExist
	}
	return nil
}

func (b bloomBackend[V]) update(_, val []byte, flags htab.UpdateFlags) error {
	if flags != htab.UpdateAny { // bloom_map_push_elem takes BPF_ANY only
		return htab.ErrInvalid
	}
	return b.m.Push(*view[V](val))
}
