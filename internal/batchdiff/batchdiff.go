// Package batchdiff compares the batch operations (BPF_MAP_LOOKUP_BATCH and
// the others) of a generated map with the kernel's map of the same type,
// call by call.
//
// Both sides are driven through Map, a byte-level view: keys, and values per
// slot (one slot, or one per CPU of a per-CPU map, concatenated as the
// kernel harness lays them out). Kernel wraps a kernel
// map; Plain and PerCPU wrap a generated map. Differential then runs the same
// random fills and batch walks on both and requires the same result of every
// call, so each map type's test only says which maps to compare.
package batchdiff

import (
	"errors"
	"iter"
	"slices"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// Map is a map seen byte by byte. Flags are the kernel's BPF_* update flags,
// passed through unchecked.
type Map interface {
	KeySize() int   // bytes
	ValueSize() int // bytes of one slot's value
	Slots() int     // values per key: 1, or the CPUs of a per-CPU map
	Len() int       // the number of keys (the kernel's side walks to count them)
	Update(k, v []byte, flags uint64) error
	Delete(k []byte) error
	// LookupBatch is one BPF_MAP_LOOKUP(_AND_DELETE)_BATCH call of count
	// elements from the bucket *cursor (nil: the start); next is the
	// cursor the call leaves.
	LookupBatch(cursor *uint32, count int, del bool) (keys, vals [][]byte, next uint32, err error)
	UpdateBatch(keys, vals [][]byte, flags uint64) (int, error)
	DeleteBatch(keys [][]byte) (int, error)
	FirstKey() error    // NextKey(nil)'s error
	Contents() [][]byte // key||value of every element, in NextKey order
}

// nilIfEmpty makes an empty batch result nil, whichever side returned it.
func nilIfEmpty(s [][]byte) [][]byte {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ---- the kernel's side ----

type kernelMap struct {
	km    *kernel.Map
	slots int
}

// Kernel drives km, whose values have slots slots (1, or
// kernel.PossibleCPUs() for a per-CPU map).
func Kernel(km *kernel.Map, slots int) Map { return kernelMap{km, slots} }

func (d kernelMap) KeySize() int                           { return d.km.KeySize() }
func (d kernelMap) ValueSize() int                         { return d.km.ValueSize() }
func (d kernelMap) Slots() int                             { return d.slots }
func (d kernelMap) Len() int                               { return len(d.Contents()) }
func (d kernelMap) Update(k, v []byte, flags uint64) error { return d.km.Update(k, v, flags) }
func (d kernelMap) Delete(k []byte) error                  { return d.km.Delete(k) }
func (d kernelMap) LookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
	var b kernel.Batch
	var err error
	if del {
		b, err = d.km.LookupAndDeleteBatch(cursor, count)
	} else {
		b, err = d.km.LookupBatch(cursor, count)
	}
	return nilIfEmpty(b.Keys), nilIfEmpty(b.Values), b.Next, err
}
func (d kernelMap) UpdateBatch(keys, vals [][]byte, flags uint64) (int, error) {
	return d.km.UpdateBatch(keys, vals, flags)
}
func (d kernelMap) DeleteBatch(keys [][]byte) (int, error) { return d.km.DeleteBatch(keys) }
func (d kernelMap) FirstKey() error {
	_, err := d.km.NextKey(nil)
	return err
}
func (d kernelMap) Contents() [][]byte {
	var r [][]byte
	for k, err := d.km.NextKey(nil); err == nil; k, err = d.km.NextKey(k) {
		v, err := d.km.Lookup(k)
		if err != nil {
			continue // deleted or evicted meanwhile: only under concurrency
		}
		r = append(r, append(slices.Clone(k), v...))
	}
	return r
}

// ---- the generated maps' side ----

// generated is what every generated map has, whatever its values. K and V
// are its [N]byte key and value types.
type generated[K, V comparable] interface {
	Len() int
	Delete(K) error
	NextKey(*K) (K, error)
	LookupBatch(*htab.Cursor, []K, []V) (int, error)
	LookupAndDeleteBatch(*htab.Cursor, []K, []V) (int, error)
	UpdateBatch([]K, []V, htab.UpdateFlags) (int, error)
	DeleteBatch([]K) (int, error)
}

// PlainMap is a generated map with one value per key (hash, LRU).
type PlainMap[K, V comparable] interface {
	generated[K, V]
	Update(K, V, htab.UpdateFlags) error
	All() iter.Seq2[K, V]
}

// PerCPUMap is a generated per-CPU map (per-CPU hash, LRU per-CPU).
type PerCPUMap[K, V comparable] interface {
	generated[K, V]
	CPUs() int
	Update(K, []V, htab.UpdateFlags) error
	All() iter.Seq2[K, []V]
}

// genMap drives a generated map. It is safe for concurrent use if the map
// is: each batch call starts from an htab.Cursor at the bucket the caller
// passes, which is all a cursor holds until its walk is done.
type genMap[K, V comparable, M generated[K, V]] struct {
	m      M
	slots  int
	update func(k K, v []V, flags htab.UpdateFlags) error
	all    func(yield func(K, []V) bool)
}

// Plain drives m.
func Plain[K, V comparable, M PlainMap[K, V]](m M) Map {
	return &genMap[K, V, M]{
		m:      m,
		slots:  1,
		update: func(k K, v []V, f htab.UpdateFlags) error { return m.Update(k, v[0], f) },
		all: func(yield func(K, []V) bool) {
			for k, v := range m.All() {
				if !yield(k, []V{v}) {
					return
				}
			}
		},
	}
}

// PerCPU drives m.
func PerCPU[K, V comparable, M PerCPUMap[K, V]](m M) Map {
	return &genMap[K, V, M]{m: m, slots: m.CPUs(), update: m.Update, all: m.All()}
}

// fromBytes is the [N]byte value of type T that b holds.
func fromBytes[T any](b []byte) (t T) {
	copy(kernel.Bytes(&t), b)
	return t
}

// values splits b into values of type V.
func values[V any](b []byte) []V {
	n := int(unsafe.Sizeof(*new(V)))
	r := make([]V, len(b)/n)
	for i := range r {
		r[i] = fromBytes[V](b[n*i:])
	}
	return r
}

// join is vs, concatenated.
func join[V any](vs []V) []byte {
	var r []byte
	for i := range vs {
		r = append(r, kernel.Bytes(&vs[i])...)
	}
	return r
}

func (d *genMap[K, V, M]) KeySize() int   { return int(unsafe.Sizeof(*new(K))) }
func (d *genMap[K, V, M]) ValueSize() int { return int(unsafe.Sizeof(*new(V))) }
func (d *genMap[K, V, M]) Slots() int     { return d.slots }
func (d *genMap[K, V, M]) Len() int       { return d.m.Len() }
func (d *genMap[K, V, M]) Update(k, v []byte, flags uint64) error {
	return d.update(fromBytes[K](k), values[V](v), htab.UpdateFlags(flags))
}
func (d *genMap[K, V, M]) Delete(k []byte) error { return d.m.Delete(fromBytes[K](k)) }

// errCursorNotDone: a walk ended (ErrKeyNotExist) but the cursor does not
// say Done, which no kernel result maps to.
var errCursorNotDone = errors.New("batchdiff: the walk ended but the cursor is not done")

func (d *genMap[K, V, M]) LookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
	c := new(htab.Cursor)
	if cursor != nil {
		c.Advance(*cursor, false)
	}
	ks, vs := make([]K, count), make([]V, count*d.slots)
	var n int
	var err error
	if del {
		n, err = d.m.LookupAndDeleteBatch(c, ks, vs)
	} else {
		n, err = d.m.LookupBatch(c, ks, vs)
	}
	if errors.Is(err, htab.ErrKeyNotExist) && !c.Done() {
		err = errCursorNotDone
	}
	keys, vals := make([][]byte, n), make([][]byte, n)
	for i := range n {
		keys[i], vals[i] = slices.Clone(kernel.Bytes(&ks[i])), join(vs[i*d.slots:(i+1)*d.slots])
	}
	return nilIfEmpty(keys), nilIfEmpty(vals), c.Bucket(), err
}

func (d *genMap[K, V, M]) UpdateBatch(keys, vals [][]byte, flags uint64) (int, error) {
	ks := make([]K, len(keys))
	var vs []V
	for i := range keys {
		ks[i] = fromBytes[K](keys[i])
		vs = append(vs, values[V](vals[i])...)
	}
	return d.m.UpdateBatch(ks, vs, htab.UpdateFlags(flags))
}

func (d *genMap[K, V, M]) DeleteBatch(keys [][]byte) (int, error) {
	ks := make([]K, len(keys))
	for i := range keys {
		ks[i] = fromBytes[K](keys[i])
	}
	return d.m.DeleteBatch(ks)
}

func (d *genMap[K, V, M]) FirstKey() error {
	_, err := d.m.NextKey(nil)
	return err
}

func (d *genMap[K, V, M]) Contents() [][]byte {
	var r [][]byte
	for k, vs := range d.all {
		r = append(r, append(slices.Clone(kernel.Bytes(&k)), join(vs)...))
	}
	return r
}
