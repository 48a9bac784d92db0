package ebpfcompat

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cilium/ebpf"
)

// Iterable is what MapIterator walks: the methods that *ebpf.Map and every
// generated adapter have.
type Iterable interface {
	NextKey(key, nextKeyOut any) error
	Lookup(key, valueOut any) error
	KeySize() uint32
	MaxEntries() uint32
}

// MapIterator walks a map as *ebpf.MapIterator does, with NextKey and
// Lookup: a key deleted between the two is skipped, and a walk that takes
// more than MaxEntries+1 steps (keys deleted and added behind it) ends with
// ebpf.ErrIterationAborted.
type MapIterator struct {
	target            Iterable
	cursor            []byte // the last key, nil before the first
	count, maxEntries uint32
	done              bool
	err               error
}

// Iterate walks m, a kernel map (*ebpf.Map) or an adapter, with the same
// algorithm as (*ebpf.Map).Iterate: code that holds either behind an
// interface iterates with it.
func Iterate(m Iterable) *MapIterator {
	return &MapIterator{target: m, maxEntries: m.MaxEntries()}
}

// Next decodes the next key and value into keyOut and valueOut (as Lookup
// decodes a value). It returns false at the end or on an error; Err tells
// which.
func (mi *MapIterator) Next(keyOut, valueOut any) bool {
	if mi.err != nil || mi.done {
		return false
	}
	for mi.count <= mi.maxEntries {
		if mi.cursor == nil {
			mi.cursor = make([]byte, mi.target.KeySize())
			mi.err = mi.target.NextKey(nil, mi.cursor)
		} else {
			mi.err = mi.target.NextKey(mi.cursor, mi.cursor)
		}
		if errors.Is(mi.err, ebpf.ErrKeyNotExist) {
			mi.done, mi.err = true, nil
			return false
		} else if mi.err != nil {
			mi.err = fmt.Errorf("get next key: %w", mi.err)
			return false
		}
		mi.count++
		mi.err = mi.target.Lookup(mi.cursor, valueOut)
		if errors.Is(mi.err, ebpf.ErrKeyNotExist) {
			continue // deleted since NextKey: the next NextKey starts over
		}
		if mi.err != nil {
			mi.err = fmt.Errorf("look up next key: %w", mi.err)
			return false
		}
		if p, ok := keyOut.(unsafe.Pointer); ok {
			copy(unsafe.Slice((*byte)(p), len(mi.cursor)), mi.cursor)
		} else {
			mi.err = unmarshal(keyOut, mi.cursor)
		}
		return mi.err == nil
	}
	mi.err = fmt.Errorf("%w", ebpf.ErrIterationAborted)
	return false
}

// Err is the error that ended the walk, or nil if it reached the end.
func (mi *MapIterator) Err() error { return mi.err }

// Iterate walks the map as (*ebpf.Map).Iterate does (see Iterate).
func (m *Map) Iterate() *MapIterator { return Iterate(m) }
