package ebpfcompat

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"syscall"
	"weak"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
)

// cursors is where the batch walks of adapters stand: *ebpf.MapBatchCursor
// has only unexported fields, so each cursor's position lives here, found by
// a weak pointer to the cursor and let go when the cursor is collected.
var cursors = struct {
	sync.Mutex
	walks map[weak.Pointer[ebpf.MapBatchCursor]]*walk
}{walks: map[weak.Pointer[ebpf.MapBatchCursor]]*walk{}}

// walk is one cursor's batch walk: the generated map it walks and where.
type walk struct {
	owner any
	c     htab.Cursor
}

var errCursorReuse = errors.New("a cursor may not be reused across maps")

// cursor is the position of c's walk of m: a zero cursor starts a walk; a
// cursor that walks another map (or a kernel map) is an error, as it is in
// cilium/ebpf.
func (m *Map) cursor(c *ebpf.MapBatchCursor) (*htab.Cursor, error) {
	if c == nil {
		return nil, errors.New("a batch operation needs a non-nil cursor")
	}
	key := weak.Make(c)
	cursors.Lock()
	defer cursors.Unlock()
	w, ok := cursors.walks[key]
	switch {
	case !ok && !reflect.ValueOf(c).Elem().IsZero():
		return nil, errCursorReuse // cilium/ebpf has used it on a kernel map
	case !ok:
		w = &walk{owner: m.b.owner()}
		cursors.walks[key] = w
		runtime.AddCleanup(c, func(key weak.Pointer[ebpf.MapBatchCursor]) {
			cursors.Lock()
			delete(cursors.walks, key)
			cursors.Unlock()
		}, key)
	case w.owner != m.b.owner():
		return nil, errCursorReuse
	}
	return &w.c, nil
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
