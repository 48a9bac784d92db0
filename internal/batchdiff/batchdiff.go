// Package batchdiff compares the batch operations (BPF_MAP_LOOKUP_BATCH and
// the others) of a generated map with the kernel's map of the same type,
// call by call.
//
// Both sides are driven through Map, a byte-level view: keys, and values per
// slot (one slot, or one per CPU of a per-CPU map, concatenated as the
// kernel harness lays them out). Kernel wraps a kernel map; Generated wraps
// a generated map of any type through its htabtest.Map adapter. Differential
// then runs the same random fills and batch walks on both and requires the
// same result of every call, so each map type's test only says which maps to
// compare.
package batchdiff

import (
	"errors"
	"slices"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
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

// genMap drives a generated map through its adapter. It is safe for
// concurrent use if the map is: each batch call starts from an htab.Cursor
// at the bucket the caller passes, which is all a cursor holds until its
// walk is done.
type genMap[K, V comparable] struct {
	m     htabtest.Map[K, V]
	slots int
}

// Generated drives m, the adapter of a generated map of any type: its own
// methods, with htabtest.Slots(m) slots per key; the key size is K's, a
// slot's value size V's.
func Generated[K, V comparable](m htabtest.Map[K, V]) Map {
	return &genMap[K, V]{m: m, slots: htabtest.Slots(m)}
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

func (d *genMap[K, V]) KeySize() int   { return int(unsafe.Sizeof(*new(K))) }
func (d *genMap[K, V]) ValueSize() int { return int(unsafe.Sizeof(*new(V))) }
func (d *genMap[K, V]) Slots() int     { return d.slots }
func (d *genMap[K, V]) Len() int       { return d.m.Len() }
func (d *genMap[K, V]) Update(k, v []byte, flags uint64) error {
	return d.m.Update(fromBytes[K](k), values[V](v), htab.UpdateFlags(flags))
}
func (d *genMap[K, V]) Delete(k []byte) error { return d.m.Delete(fromBytes[K](k)) }

// errCursorNotDone: a walk ended (ErrKeyNotExist) but the cursor does not
// say Done, which no kernel result maps to.
var errCursorNotDone = errors.New("batchdiff: the walk ended but the cursor is not done")

func (d *genMap[K, V]) LookupBatch(cursor *uint32, count int, del bool) ([][]byte, [][]byte, uint32, error) {
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
		keys[i], vals[i] = slices.Clone(kernel.Bytes(&ks[i])), kernel.Concat(vs[i*d.slots:(i+1)*d.slots])
	}
	return nilIfEmpty(keys), nilIfEmpty(vals), c.Bucket(), err
}

func (d *genMap[K, V]) UpdateBatch(keys, vals [][]byte, flags uint64) (int, error) {
	ks := make([]K, len(keys))
	var vs []V
	for i := range keys {
		ks[i] = fromBytes[K](keys[i])
		vs = append(vs, values[V](vals[i])...)
	}
	return d.m.UpdateBatch(ks, vs, htab.UpdateFlags(flags))
}

func (d *genMap[K, V]) DeleteBatch(keys [][]byte) (int, error) {
	ks := make([]K, len(keys))
	for i := range keys {
		ks[i] = fromBytes[K](keys[i])
	}
	return d.m.DeleteBatch(ks)
}

func (d *genMap[K, V]) FirstKey() error {
	_, err := d.m.NextKey(nil)
	return err
}

func (d *genMap[K, V]) Contents() [][]byte {
	var r [][]byte
	for k, vs := range d.m.All() {
		r = append(r, append(slices.Clone(kernel.Bytes(&k)), kernel.Concat(vs)...))
	}
	return r
}
