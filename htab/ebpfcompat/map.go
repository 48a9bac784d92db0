package ebpfcompat

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
)

// Info is what the getters of *ebpf.Map answer for an adapter: the map's
// creation attributes.
type Info struct {
	Name       string // the generated map's Go name, for String
	Type       ebpf.MapType
	KeySize    uint32 // 0 for a bloom filter
	ValueSize  uint32 // one CPU's value, for per-CPU maps
	MaxEntries uint32 // as asked for, before an LRU map's rounding for NoCommonLRU
	Flags      uint32 // BPF_F_* of the options (Flags)
	CPUs       int    // per-CPU maps: the values of a key, one per CPU
}

// The map flags that htab.Options stand for, from include/uapi/linux/bpf.h.
const (
	flagNoPrealloc  = 1 << 0 // BPF_F_NO_PREALLOC
	flagNoCommonLRU = 1 << 1 // BPF_F_NO_COMMON_LRU
	flagZeroSeed    = 1 << 6 // BPF_F_ZERO_SEED
)

// Flags is the map_flags of a kernel map created with opts.
func Flags(opts htab.Options) uint32 {
	var f uint32
	if opts.NoPrealloc {
		f |= flagNoPrealloc
	}
	if opts.NoCommonLRU {
		f |= flagNoCommonLRU
	}
	if opts.ZeroSeed {
		f |= flagZeroSeed
	}
	return f
}

// PossibleCPUs is opts with CPUs 0 replaced by the number of possible CPUs
// (ebpf.PossibleCPU), which is how many values cilium/ebpf gives a per-CPU
// map's key: an adapter made with it takes the same per-CPU slices as the
// kernel's map on this machine.
func PossibleCPUs(opts htab.Options) (htab.Options, error) {
	if opts.CPUs != 0 {
		return opts, nil
	}
	n, err := ebpf.PossibleCPU()
	if err != nil {
		return opts, fmt.Errorf("number of possible CPUs: %w", err)
	}
	opts.CPUs = n
	return opts, nil
}

// Map has the methods of cilium/ebpf's *ebpf.Map over a generated map. A
// generated adapter (the -ebpf-compat file's <Name>EBPF) forwards to it.
// Every method is safe for concurrent use, as the generated map's are.
type Map struct {
	info     Info
	b        backend
	perCPU   bool
	noBatch  bool // a bloom filter, which has no batch operations
	fullSize int  // bytes of a value in the kernel's layout
	closed   atomic.Bool
}

// NewHash is the adapter of a hash or LRU map; info.Type is ebpf.Hash or
// ebpf.LRUHash. K and V must be [info.KeySize]byte and [info.ValueSize]byte.
func NewHash[K, V any](m HashMap[K, V], info Info) *Map {
	byteArray[K]("key", int(info.KeySize))
	byteArray[V]("value", int(info.ValueSize))
	return newMap(info, hashBackend[K, V]{m: m}, false)
}

// NewPerCPU is the adapter of a per-CPU map (ebpf.PerCPUHash or
// ebpf.LRUCPUHash) with info.CPUs values a key.
func NewPerCPU[K, V any](m PerCPUMap[K, V], info Info) *Map {
	byteArray[K]("key", int(info.KeySize))
	byteArray[V]("value", int(info.ValueSize))
	return newMap(info, perCPUBackend[K, V]{m: m, cpus: info.CPUs, stride: align8(int(info.ValueSize))}, true)
}

// NewBloom is the adapter of a bloom filter map (ebpf.BloomFilter), whose
// info.KeySize is 0.
func NewBloom[V any](m BloomMap[V], info Info) *Map {
	byteArray[V]("value", int(info.ValueSize))
	f := newMap(info, bloomBackend[V]{m: m}, false)
	f.noBatch = true
	return f
}

func newMap(info Info, b backend, perCPU bool) *Map {
	m := &Map{info: info, b: b, perCPU: perCPU, fullSize: int(info.ValueSize)}
	if perCPU {
		m.fullSize = info.CPUs * align8(int(info.ValueSize))
	}
	return m
}

// String names the map as (*ebpf.Map).String does, with the generated map's
// name where a kernel map has its name and file descriptor.
func (m *Map) String() string { return fmt.Sprintf("%s(%s)#htabgen", m.info.Type, m.info.Name) }

// Type is the map's type.
func (m *Map) Type() ebpf.MapType { return m.info.Type }

// KeySize is the size of a key in bytes (0 for a bloom filter).
func (m *Map) KeySize() uint32 { return m.info.KeySize }

// ValueSize is the size of a value in bytes; for a per-CPU map, of one CPU's.
func (m *Map) ValueSize() uint32 { return m.info.ValueSize }

// MaxEntries is the MaxEntries the map was asked for, as (*ebpf.Map).MaxEntries
// answers for a map made from a spec. With NoCommonLRU the kernel rounds the
// capacity up to a multiple of the CPUs, and so does the generated map, whose
// own MaxEntries is the rounded one (the kernel's map info).
func (m *Map) MaxEntries() uint32 { return m.info.MaxEntries }

// Flags is the map_flags the map was created with (Flags of its options).
func (m *Map) Flags() uint32 { return m.info.Flags }

// Close makes every later operation fail with an error that errors.Is
// ErrClosed (EBADF), as operations on a closed map's file descriptor do.
// The generated map underneath is untouched. Closing twice is not an error.
func (m *Map) Close() error {
	m.closed.Store(true)
	return nil
}

// call runs one operation of the map as a syscall: EBADF after Close, else
// the backend's answer as the kernel's errno.
func (m *Map) call(op func() error) error {
	if m.closed.Load() {
		return errClosed
	}
	return errno(op())
}

// marshalKey is key as the map's KeySize bytes: nil is an error, except on
// a bloom filter, which has no key.
func (m *Map) marshalKey(key any) ([]byte, error) {
	if key == nil {
		if m.info.KeySize == 0 {
			return nil, nil
		}
		return nil, errors.New("can't use nil as key of map")
	}
	return marshalInput(key, int(m.info.KeySize))
}

// marshalValue is value as the map's ValueSize bytes. *ebpf.Map and
// *ebpf.Program values are refused as cilium/ebpf refuses them for a hash
// map: they go only into map-in-map and program array maps.
func (m *Map) marshalValue(value any) ([]byte, error) {
	switch value.(type) {
	case *ebpf.Map:
		return nil, fmt.Errorf("can't store map in %s", m.info.Type)
	case *ebpf.Program:
		return nil, fmt.Errorf("can't store program in %s", m.info.Type)
	}
	return marshalInput(value, int(m.info.ValueSize))
}

// unmarshalValue decodes a looked-up value into valueOut, which is refused
// if it asks for a map or a program, as cilium/ebpf does for a hash map.
func (m *Map) unmarshalValue(valueOut any, buf []byte, decode bool) error {
	switch valueOut.(type) {
	case **ebpf.Map, *ebpf.Map:
		return fmt.Errorf("can't read a map from %s", m.info.Type)
	case **ebpf.Program, *ebpf.Program:
		return fmt.Errorf("can't read a program from %s", m.info.Type)
	}
	return decodeOutput(valueOut, buf, decode)
}

// Lookup retrieves the value of key into valueOut: a pointer to a fixed-size
// value, a []byte or *[]byte, an encoding.BinaryUnmarshaler or an
// unsafe.Pointer; for a per-CPU map a slice of CPUs values or a pointer to a
// slice, which Lookup makes. An absent key is an error that errors.Is
// ebpf.ErrKeyNotExist. On a bloom filter, key is nil and valueOut the value
// to peek at: found means it may have been pushed.
func (m *Map) Lookup(key, valueOut any) error { return m.LookupWithFlags(key, valueOut, 0) }

// LookupWithFlags is Lookup with flags; the only lookup flag, LookupLock,
// needs a value with a spin lock, which these maps do not have: any flag is
// EINVAL.
func (m *Map) LookupWithFlags(key, valueOut any, flags ebpf.MapLookupFlags) error {
	return m.readInto(valueOut, func(buf []byte) error { return m.lookup(key, buf, flags) })
}

// readInto runs read, which fills a value in the kernel's layout, and
// unmarshals that value into valueOut: Lookup's and LookupAndDelete's output.
func (m *Map) readInto(valueOut any, read func(buf []byte) error) error {
	if m.perCPU {
		slice, err := perCPUSlice(valueOut, m.info.CPUs)
		if err != nil {
			return err
		}
		buf := make([]byte, m.fullSize)
		if err := read(buf); err != nil {
			return err
		}
		return unmarshalPerCPU(slice, m.info.CPUs, int(m.info.ValueSize), buf)
	}
	buf, decode := output(valueOut, m.fullSize)
	if err := read(buf); err != nil {
		return err
	}
	return m.unmarshalValue(valueOut, buf, decode)
}

// LookupBytes is the value of key as bytes (for a per-CPU map, in the
// kernel's layout: each CPU's value padded to a multiple of 8), or nil
// without an error if key is absent.
func (m *Map) LookupBytes(key any) ([]byte, error) {
	buf := make([]byte, m.fullSize)
	err := m.lookup(key, buf, 0)
	if errors.Is(err, ebpf.ErrKeyNotExist) {
		return nil, nil
	}
	return buf, err
}

func (m *Map) lookup(key any, val []byte, flags ebpf.MapLookupFlags) error {
	k, err := m.marshalKey(key)
	if err != nil {
		return fmt.Errorf("can't marshal key: %w", err)
	}
	err = m.call(func() error {
		if flags != 0 {
			return errInvalid
		}
		return m.b.lookup(k, val)
	})
	if errors.Is(err, errKeyNotExist) {
		return errLookupKeyNotExist
	}
	if err != nil {
		return fmt.Errorf("lookup: %w", err)
	}
	return nil
}

// LookupAndDelete retrieves the value of key into valueOut, as Lookup, and
// deletes key.
func (m *Map) LookupAndDelete(key, valueOut any) error {
	return m.LookupAndDeleteWithFlags(key, valueOut, 0)
}

// LookupAndDeleteWithFlags is LookupAndDelete with flags, which must be 0
// (LookupLock needs a spin lock in the value).
func (m *Map) LookupAndDeleteWithFlags(key, valueOut any, flags ebpf.MapLookupFlags) error {
	return m.readInto(valueOut, func(buf []byte) error { return m.lookupAndDelete(key, buf, flags) })
}

func (m *Map) lookupAndDelete(key any, val []byte, flags ebpf.MapLookupFlags) error {
	k, err := m.marshalKey(key)
	if err != nil {
		return fmt.Errorf("can't marshal key: %w", err)
	}
	err = m.call(func() error {
		if flags != 0 {
			return errInvalid
		}
		return m.b.lookupAndDelete(k, val)
	})
	if err != nil {
		return fmt.Errorf("lookup and delete: %w", err)
	}
	return nil
}

// Put is Update with ebpf.UpdateAny.
func (m *Map) Put(key, value any) error { return m.Update(key, value, ebpf.UpdateAny) }

// Update sets the value of key: ebpf.UpdateAny, UpdateNoExist (an error that
// errors.Is ebpf.ErrKeyExist if key is present) or UpdateExist
// (ebpf.ErrKeyNotExist if absent); other flags are EINVAL, and a new key
// into a full hash or per-CPU map E2BIG. A per-CPU value is a slice of at
// most CPUs values, the CPUs past its end set to zero. On a bloom filter,
// key is nil and Update pushes value.
func (m *Map) Update(key, value any, flags ebpf.MapUpdateFlags) error {
	var val []byte
	var err error
	if m.perCPU {
		val, err = appendPerCPU(nil, value, m.info.CPUs, int(m.info.ValueSize), align8(int(m.info.ValueSize)))
	} else {
		val, err = m.marshalValue(value)
	}
	if err != nil {
		return fmt.Errorf("marshal value: %w", err)
	}
	k, err := m.marshalKey(key)
	if err != nil {
		return fmt.Errorf("marshal key: %w", err)
	}
	if err := m.call(func() error { return m.b.update(k, val, updateFlags(flags)) }); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return nil
}

// updateFlags is flags for the generated map, which refuses (as the kernel
// does) every flag but its three; BPF_F_LOCK, which the kernel refuses for
// a value without a spin lock, stays invalid.
func updateFlags(flags ebpf.MapUpdateFlags) htab.UpdateFlags { return htab.UpdateFlags(flags) }

// Delete removes key: an error that errors.Is ebpf.ErrKeyNotExist if absent.
func (m *Map) Delete(key any) error {
	k, err := m.marshalKey(key)
	if err != nil {
		return fmt.Errorf("can't marshal key: %w", err)
	}
	if err := m.call(func() error { return m.b.delete(k) }); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// NextKey writes the key after key into nextKeyOut, in the kernel's order;
// key nil (or absent) gives the first key. After the last key it is an
// error that errors.Is ebpf.ErrKeyNotExist.
func (m *Map) NextKey(key, nextKeyOut any) error {
	buf, decode := output(nextKeyOut, int(m.info.KeySize))
	if err := m.nextKey(key, buf); err != nil {
		return err
	}
	if err := decodeOutput(nextKeyOut, buf, decode); err != nil {
		return fmt.Errorf("can't unmarshal next key: %w", err)
	}
	return nil
}

// NextKeyBytes is the key after key as bytes, or nil without an error after
// the last key.
func (m *Map) NextKeyBytes(key any) ([]byte, error) {
	next := make([]byte, m.info.KeySize)
	err := m.nextKey(key, next)
	if errors.Is(err, ebpf.ErrKeyNotExist) {
		return nil, nil
	}
	return next, err
}

func (m *Map) nextKey(key any, next []byte) error {
	var k []byte
	if key != nil {
		var err error
		if k, err = m.marshalKey(key); err != nil {
			return fmt.Errorf("can't marshal key: %w", err)
		}
	}
	if err := m.call(func() error { return m.b.nextKey(k, next) }); err != nil {
		return fmt.Errorf("next key: %w", err)
	}
	return nil
}
