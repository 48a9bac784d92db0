package ebpfcompat

import (
	"errors"
	"fmt"
	"reflect"
	"syscall"
	"unsafe"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
)

// A batch walk's position lives where cilium/ebpf keeps a kernel map's:
// behind the cursor's opaque buffer, the one cilium/ebpf hands the kernel as
// in_batch and out_batch. On a zero cursor's first call the adapter sets that
// buffer to the start of a walk of its own and leaves the cursor's map unset.
// So the cursor behaves as a kernel map's does:
//
//   - set back to ebpf.MapBatchCursor{}, it starts again (a map polled in a
//     loop with one cursor variable);
//   - a copy shares the walk, as a copy of a kernel map's cursor shares its
//     buffer;
//   - another generated map refuses it, and so does a kernel map (cilium/ebpf
//     finds a buffer and no map of its own, or another map);
//   - it needs no table and nothing to let go: the walk is collected with
//     the cursor.
//
// cilium/ebpf's fields are unexported, so they are found by reflection, once
// (cursorFields), and reached through unsafe.
type walk struct {
	tag   [walkTagLen]byte // first: the cursor's opaque slice is tag[:], whose data pointer is the walk's
	owner any              // the generated map the walk belongs to (every view of it shares the walk)
	c     htab.Cursor
}

const (
	walkTagLen = len(walkTag)
	walkTag    = "htabwalk"
)

// cursorFields are the offsets in ebpf.MapBatchCursor of its map and its
// opaque buffer, or the error that says cilium/ebpf's cursor is no longer the
// one this package was written against (v0.22: m *Map, opaque []byte).
var cursorFields = func() (f struct {
	m, opaque uintptr
	err       error
}) {
	t := reflect.TypeFor[ebpf.MapBatchCursor]()
	m, okM := t.FieldByName("m")
	o, okO := t.FieldByName("opaque")
	if !okM || m.Type != reflect.TypeFor[*ebpf.Map]() || !okO || o.Type != reflect.TypeFor[[]byte]() {
		f.err = fmt.Errorf("ebpfcompat: this cilium/ebpf's MapBatchCursor has no fields m *Map and opaque []byte, where batch walks keep their position (cilium/ebpf v0.22 has them)")
		return f
	}
	f.m, f.opaque = m.Offset, o.Offset
	return f
}()

var errCursorReuse = errors.New("a cursor may not be reused across maps")

// cursor is the position of c's walk of m: a zero cursor starts a walk; a
// cursor that walks another map (or a kernel map) is an error, as it is in
// cilium/ebpf. A cursor is one walk's, as in cilium/ebpf: not for several
// goroutines at once.
func (m *Map) cursor(c *ebpf.MapBatchCursor) (*htab.Cursor, error) {
	w, err := walkOf(c, m.b.owner())
	if err != nil {
		return nil, err
	}
	return &w.c, nil
}

// walkOf is c's walk of owner, started if c is a zero cursor.
func walkOf(c *ebpf.MapBatchCursor, owner any) (*walk, error) {
	if c == nil {
		return nil, errors.New("a batch operation needs a non-nil cursor")
	}
	if cursorFields.err != nil {
		return nil, cursorFields.err
	}
	km := (**ebpf.Map)(unsafe.Add(unsafe.Pointer(c), cursorFields.m))
	opaque := (*[]byte)(unsafe.Add(unsafe.Pointer(c), cursorFields.opaque))
	switch {
	case *km != nil:
		return nil, errCursorReuse // cilium/ebpf has used it on a kernel map
	case *opaque == nil:
		w := &walk{owner: owner}
		copy(w.tag[:], walkTag)
		*opaque = w.tag[:]
		return w, nil
	case len(*opaque) != walkTagLen || cap(*opaque) != walkTagLen || string(*opaque) != walkTag:
		return nil, errCursorReuse
	}
	// The buffer is the tag of a walk, at the walk's start: the pointer to it
	// is a pointer to the walk.
	w := (*walk)(unsafe.Pointer(unsafe.SliceData(*opaque)))
	if w.owner != owner {
		return nil, errCursorReuse
	}
	return w, nil
}

// BatchLookup looks up whole buckets of keys and values into keysOut and
// valuesOut, slices of equal length (for a per-CPU map, valuesOut holds
// CPUs values a key: key i's value on CPU j at i*CPUs+j), from where cursor
// stands, a zero cursor at the beginning. It returns how many it wrote;
// the call that reaches the end returns an error that errors.Is
// ebpf.ErrKeyNotExist, with or without elements. A batch too small for the
// first bucket is ENOSPC.
func (m *Map) BatchLookup(cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error) {
	n, err := m.batchLookup(false, cursor, keysOut, valuesOut, opts)
	if err != nil {
		return n, fmt.Errorf("map batch lookup: %w", err)
	}
	return n, nil
}

// BatchLookupAndDelete is BatchLookup, deleting what it returns.
func (m *Map) BatchLookupAndDelete(cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error) {
	n, err := m.batchLookup(true, cursor, keysOut, valuesOut, opts)
	if err != nil {
		return n, fmt.Errorf("map batch lookup and delete: %w", err)
	}
	return n, nil
}

func (m *Map) batchLookup(del bool, cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error) {
	var count int
	var err error
	if m.perCPU {
		if count, err = sliceLen(keysOut); err != nil {
			return 0, fmt.Errorf("keys: %w", err)
		}
	} else if count, err = batchCount(keysOut, valuesOut); err != nil {
		return 0, err
	}
	vals, decode := sliceOutput(valuesOut, count*m.fullSize)
	n, sysErr := m.batchLookupCmd(del, cursor, count, keysOut, vals, opts)
	if !m.perCPU && errors.Is(sysErr, syscall.ENOSPC) {
		return n, fmt.Errorf("%w (batch size too small?)", sysErr)
	}
	if sysErr != nil && !errors.Is(sysErr, syscall.ENOENT) {
		return 0, sysErr
	}
	if decode {
		if m.perCPU {
			err = unmarshalBatchPerCPU(valuesOut, count, m.info.CPUs, int(m.info.ValueSize), vals)
		} else {
			err = unmarshal(valuesOut, vals)
		}
		if err != nil {
			return 0, err
		}
	}
	return n, sysErr
}

func (m *Map) batchLookupCmd(del bool, cursor *ebpf.MapBatchCursor, count int, keysOut any, vals []byte, opts *ebpf.BatchOptions) (int, error) {
	c, err := m.cursor(cursor)
	if err != nil {
		return 0, err
	}
	keys, decode := sliceOutput(keysOut, count*int(m.info.KeySize))
	var n int
	sysErr := m.call(func() error {
		if m.noBatch {
			return errNotSupported
		}
		if opts != nil && (opts.ElemFlags != 0 || opts.Flags != 0) {
			return errInvalid // BPF_F_LOCK needs a spin lock; no other flag is allowed
		}
		var err error
		n, err = m.b.lookupBatch(c, keys, vals, del)
		return err
	})
	if sysErr != nil && !errors.Is(sysErr, syscall.ENOENT) {
		return 0, sysErr
	}
	if decode {
		if err := unmarshal(keysOut, keys); err != nil {
			return 0, err
		}
	}
	return n, sysErr
}

// BatchUpdate sets the values of keys, two slices of equal length (for a
// per-CPU map, values holds CPUs values a key), as Update with UpdateAny
// does one by one: a batch has no update flags. It stops at the first error
// and returns how many it set.
func (m *Map) BatchUpdate(keys, values any, opts *ebpf.BatchOptions) (int, error) {
	var count int
	var vals []byte
	var err error
	if m.perCPU {
		if count, err = sliceLen(keys); err != nil {
			return 0, fmt.Errorf("keys: %w", err)
		}
		if vals, err = marshalBatchPerCPU(values, count, m.info.CPUs, int(m.info.ValueSize)); err != nil {
			return 0, err
		}
	} else {
		if count, err = batchCount(keys, values); err != nil {
			return 0, err
		}
		if vals, err = marshalInput(values, count*int(m.info.ValueSize)); err != nil {
			return 0, err
		}
	}
	k, err := marshalInput(keys, count*int(m.info.KeySize))
	if err != nil {
		return 0, err
	}
	var n int
	err = m.call(func() error {
		if m.noBatch {
			n = count // refused before it starts, as the kernel does without the map type's batch op
			return errNotSupported
		}
		// Only ElemFlags: the kernel's batch updates and deletes ignore Flags.
		if opts != nil && opts.ElemFlags != 0 {
			n = count // refused before it starts, the kernel leaves count as given
			return errInvalid
		}
		var err error
		n, err = m.b.updateBatch(k, vals, htab.UpdateAny)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("batch update: %w", err)
	}
	return n, nil
}

// BatchDelete deletes keys, a slice, one by one; it stops at the first
// error (an absent key: ebpf.ErrKeyNotExist) and returns how many it
// deleted.
func (m *Map) BatchDelete(keys any, opts *ebpf.BatchOptions) (int, error) {
	count, err := sliceLen(keys)
	if err != nil {
		return 0, fmt.Errorf("keys: %w", err)
	}
	k, err := marshalInput(keys, count*int(m.info.KeySize))
	if err != nil {
		return 0, fmt.Errorf("cannot marshal keys: %v", err)
	}
	var n int
	err = m.call(func() error {
		if m.noBatch {
			n = count
			return errNotSupported
		}
		if opts != nil && opts.ElemFlags != 0 {
			n = count
			return errInvalid
		}
		var err error
		n, err = m.b.deleteBatch(k)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("batch delete: %w", err)
	}
	return n, nil
}

// batchCount is the length of keys and values, two slices of one length.
func batchCount(keys, values any) (int, error) {
	nk, err := sliceLen(keys)
	if err != nil {
		return 0, fmt.Errorf("keys: %w", err)
	}
	nv, err := sliceLen(values)
	if err != nil {
		return 0, fmt.Errorf("values: %w", err)
	}
	if nk != nv {
		return 0, errors.New("keys and values must have the same length")
	}
	return nk, nil
}
