package kernel

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

// Map is a real kernel BPF map. Its methods are safe for concurrent use,
// except Close.
type Map struct {
	m          *ebpf.Map
	fd         uint32
	typ        htab.MapType
	keySize    int
	valueSize  int
	maxEntries int
	percpu     bool
	ncpu       int // value slots: PossibleCPUs() for per-CPU types, else 1
	slot       int // kernel bytes per slot: round_up(valueSize, 8) per-CPU, else valueSize

	progMu sync.Mutex
	progs  [nProgKinds]*ebpf.Program // the program-side calls' programs, built on first use
}

var ebpfTypes = map[htab.MapType]ebpf.MapType{
	htab.Hash:          ebpf.Hash,
	htab.PerCPUHash:    ebpf.PerCPUHash,
	htab.LRUHash:       ebpf.LRUHash,
	htab.LRUPerCPUHash: ebpf.LRUCPUHash,
	htab.BloomFilter:   ebpf.BloomFilter,
}

// New creates a kernel map of type t (HASH, PERCPU_HASH, LRU_HASH,
// LRU_PERCPU_HASH or BLOOM_FILTER) with the given key and value sizes in bytes
// and the options: MaxEntries is max_entries, ZeroSeed sets BPF_F_ZERO_SEED
// (0x40), NoPrealloc BPF_F_NO_PREALLOC, NoCommonLRU BPF_F_NO_COMMON_LRU, and
// BloomHashes is map_extra. A bloom filter has key size 0.
//
// The options are passed as they are, so the kernel judges them (NoCommonLRU
// on a HASH map is EINVAL, NoPrealloc on an LRU map ENOTSUPP, errno 524).
// Options.CPUs is ignored: kernel per-CPU maps always have PossibleCPUs()
// slots.
func New(t htab.MapType, keySize, valueSize int, opts htab.Options) (*Map, error) {
	const op = "map create"
	et, ok := ebpfTypes[t]
	if !ok {
		return nil, invalid(op, "map type %v", t)
	}
	switch {
	case keySize < 0 || uint64(keySize) > math.MaxUint32:
		return nil, invalid(op, "key size %d", keySize)
	case valueSize < 0 || uint64(valueSize) > math.MaxUint32:
		return nil, invalid(op, "value size %d", valueSize)
	case opts.MaxEntries < 0 || uint64(opts.MaxEntries) > math.MaxUint32:
		return nil, invalid(op, "MaxEntries %d", opts.MaxEntries)
	case opts.BloomHashes < 0:
		return nil, invalid(op, "BloomHashes %d", opts.BloomHashes)
	}
	var flags uint32
	if opts.ZeroSeed {
		flags |= unix.BPF_F_ZERO_SEED
	}
	if opts.NoPrealloc {
		flags |= unix.BPF_F_NO_PREALLOC
	}
	if opts.NoCommonLRU {
		flags |= unix.BPF_F_NO_COMMON_LRU
	}
	m, err := newMap(t, &ebpf.MapSpec{
		Type:       et,
		KeySize:    uint32(keySize),
		ValueSize:  uint32(valueSize),
		MaxEntries: uint32(opts.MaxEntries),
		Flags:      flags,
		MapExtra:   uint64(opts.BloomHashes),
	})
	if err != nil {
		return nil, mapErrno(fmt.Sprintf("%s (%v, key %d, value %d, %+v)", op, t, keySize, valueSize, opts), err)
	}
	return m, nil
}

// NewFromSpec creates the kernel map of ms as cilium/ebpf creates a BPF
// object's map, with its flags and BTF: a value's special fields (a
// bpf_spin_lock, a kptr) are the kernel's to manage. Its type is one of
// New's.
func NewFromSpec(ms *ebpf.MapSpec) (*Map, error) {
	const op = "map create"
	for t, et := range ebpfTypes {
		if et == ms.Type {
			m, err := newMap(t, ms)
			if err != nil {
				return nil, mapErrno(fmt.Sprintf("%s (%v, key %d, value %d)", op, t, ms.KeySize, ms.ValueSize), err)
			}
			return m, nil
		}
	}
	return nil, invalid(op, "map type %v", ms.Type)
}

// newMap creates the kernel map of ms, whose type is t; its errors are the
// kernel's, unwrapped.
func newMap(t htab.MapType, ms *ebpf.MapSpec) (*Map, error) {
	em, err := ebpf.NewMap(ms)
	if err != nil {
		return nil, err
	}
	keySize, valueSize := int(ms.KeySize), int(ms.ValueSize)
	m := &Map{
		m:          em,
		fd:         uint32(em.FD()),
		typ:        t,
		keySize:    keySize,
		valueSize:  valueSize,
		maxEntries: int(em.MaxEntries()),
		ncpu:       1,
		slot:       valueSize,
	}
	if t == htab.PerCPUHash || t == htab.LRUPerCPUHash {
		m.percpu = true
		m.ncpu = PossibleCPUs()
		m.slot = (valueSize + 7) &^ 7
	}
	info, err := em.Info()
	if err != nil {
		em.Close()
		return nil, fmt.Errorf("map info: %w", err)
	}
	m.maxEntries = int(info.MaxEntries)
	return m, nil
}

// Close closes the map and the programs of the program-side calls that were
// built.
func (m *Map) Close() error {
	m.progMu.Lock()
	defer m.progMu.Unlock()
	var errs []error
	for i, p := range m.progs {
		if p != nil {
			errs = append(errs, p.Close())
			m.progs[i] = nil
		}
	}
	errs = append(errs, m.m.Close())
	return errors.Join(errs...)
}

// Type is the type the map was created with.
func (m *Map) Type() htab.MapType { return m.typ }

// KeySize is the key size in bytes.
func (m *Map) KeySize() int { return m.keySize }

// ValueSize is the size in bytes of one value (of one CPU's value for per-CPU
// types).
func (m *Map) ValueSize() int { return m.valueSize }

// MaxEntries is max_entries as the kernel reports it, which can differ from
// the requested one: NO_COMMON_LRU rounds it up to a multiple of PossibleCPUs().
func (m *Map) MaxEntries() int { return m.maxEntries }

// valueLen is the length of a value as the harness's callers see it.
func (m *Map) valueLen() int { return m.valueSize * m.ncpu }

// kernelValueLen is the length of a value as the kernel's syscalls see it.
func (m *Map) kernelValueLen() int { return m.slot * m.ncpu }

// toKernel writes v, a value of valueLen bytes, into dst in the kernel's layout.
func (m *Map) toKernel(dst, v []byte) {
	if !m.percpu {
		copy(dst, v)
		return
	}
	for c := 0; c < m.ncpu; c++ {
		copy(dst[c*m.slot:], v[c*m.valueSize:(c+1)*m.valueSize])
	}
}

// fromKernel returns the value that src, in the kernel's layout, holds.
func (m *Map) fromKernel(src []byte) []byte {
	if !m.percpu {
		return append([]byte(nil), src...)
	}
	v := make([]byte, m.valueLen())
	for c := 0; c < m.ncpu; c++ {
		copy(v[c*m.valueSize:(c+1)*m.valueSize], src[c*m.slot:])
	}
	return v
}

func (m *Map) checkKey(op string, key []byte) error {
	if len(key) != m.keySize {
		return invalid(op, "key of %d bytes (map key size %d)", len(key), m.keySize)
	}
	return nil
}

func (m *Map) checkValue(op string, value []byte) error {
	if len(value) != m.valueLen() {
		if m.percpu {
			return invalid(op, "value of %d bytes (want %d CPUs × %d bytes = %d)",
				len(value), m.ncpu, m.valueSize, m.valueLen())
		}
		return invalid(op, "value of %d bytes (map value size %d)", len(value), m.valueSize)
	}
	return nil
}

// Lookup returns the value of key (BPF_MAP_LOOKUP_ELEM, flags 0). A syscall
// lookup does not set an LRU element's ref bit; see ProgLookup.
func (m *Map) Lookup(key []byte) ([]byte, error) {
	const op = "map lookup"
	if err := m.checkKey(op, key); err != nil {
		return nil, err
	}
	buf := make([]byte, m.kernelValueLen())
	a := elemAttr{mapFD: m.fd, key: ptr(key), value: ptr(buf)}
	if err := a.do(cmdLookupElem); err != nil {
		return nil, mapErrno(op, err)
	}
	return m.fromKernel(buf), nil
}

// Update stores value under key (BPF_MAP_UPDATE_ELEM). flags are passed raw,
// so invalid ones (3, ^0, 8) reach the kernel.
func (m *Map) Update(key, value []byte, flags uint64) error {
	const op = "map update"
	if err := m.checkKey(op, key); err != nil {
		return err
	}
	if err := m.checkValue(op, value); err != nil {
		return err
	}
	buf := make([]byte, m.kernelValueLen())
	m.toKernel(buf, value)
	a := elemAttr{mapFD: m.fd, key: ptr(key), value: ptr(buf), flags: flags}
	return mapErrno(op, a.do(cmdUpdateElem))
}

// Delete removes key (BPF_MAP_DELETE_ELEM).
func (m *Map) Delete(key []byte) error {
	const op = "map delete"
	if err := m.checkKey(op, key); err != nil {
		return err
	}
	a := elemAttr{mapFD: m.fd, key: ptr(key)}
	return mapErrno(op, a.do(cmdDeleteElem))
}

// LookupAndDelete removes key and returns its value
// (BPF_MAP_LOOKUP_AND_DELETE_ELEM, flags 0).
func (m *Map) LookupAndDelete(key []byte) ([]byte, error) {
	const op = "map lookup and delete"
	if err := m.checkKey(op, key); err != nil {
		return nil, err
	}
	buf := make([]byte, m.kernelValueLen())
	a := elemAttr{mapFD: m.fd, key: ptr(key), value: ptr(buf)}
	if err := a.do(cmdLookupAndDeleteElem); err != nil {
		return nil, mapErrno(op, err)
	}
	return m.fromKernel(buf), nil
}

// NextKey returns the key after key in the kernel's iteration order
// (BPF_MAP_GET_NEXT_KEY); a nil key asks for the first key. At the end it
// returns htab.ErrKeyNotExist. A key that is not in the map restarts the
// iteration, as the kernel does.
func (m *Map) NextKey(key []byte) ([]byte, error) {
	const op = "map get next key"
	if key != nil {
		if err := m.checkKey(op, key); err != nil {
			return nil, err
		}
	}
	next := make([]byte, m.keySize)
	a := elemAttr{mapFD: m.fd, key: ptr(key), value: ptr(next)}
	if err := a.do(cmdGetNextKey); err != nil {
		return nil, mapErrno(op, err)
	}
	return next, nil
}

// Batch is what one batch lookup call returned.
type Batch struct {
	// Keys and Values are the elements of this call, in the kernel's order
	// (whole buckets, in ascending bucket order). Values are in the harness's
	// layout (per-CPU values unpadded).
	Keys, Values [][]byte
	// Next is the kernel's out_batch: the index of the next bucket to read,
	// to pass as the cursor of the following call. When the kernel did not
	// write out_batch (count 0, or a cursor at or past the last bucket) it is
	// the cursor passed in, or 0.
	Next uint32
}

// LookupBatch is one BPF_MAP_LOOKUP_BATCH call of at most count elements,
// starting at bucket *cursor, or at the start when cursor is nil. It returns
// exactly what the kernel answered: htab.ErrNoSpace when the first non-empty
// bucket holds more than count elements (nothing returned), and
// htab.ErrKeyNotExist when the walk has reached the last bucket, possibly with
// elements returned by this same call.
func (m *Map) LookupBatch(cursor *uint32, count int) (Batch, error) {
	return m.lookupBatch("map lookup batch", cmdLookupBatch, cursor, count)
}

// LookupAndDeleteBatch is LookupBatch with BPF_MAP_LOOKUP_AND_DELETE_BATCH:
// the elements returned are also deleted.
func (m *Map) LookupAndDeleteBatch(cursor *uint32, count int) (Batch, error) {
	return m.lookupBatch("map lookup and delete batch", cmdLookupAndDeleteBat, cursor, count)
}

func (m *Map) lookupBatch(op string, cmd uintptr, cursor *uint32, count int) (Batch, error) {
	if count < 0 || uint64(count) > math.MaxUint32 {
		return Batch{}, invalid(op, "count %d", count)
	}
	vlen := m.kernelValueLen()
	keys := make([]byte, count*m.keySize)
	values := make([]byte, count*vlen)
	// Separate allocations: the kernel reads in_batch and writes out_batch.
	in, out := new(uint32), new(uint32)
	a := batchAttr{
		outBatch: unsafe.Pointer(out),
		keys:     ptr(keys),
		values:   ptr(values),
		count:    uint32(count),
		mapFD:    m.fd,
	}
	if cursor != nil {
		*in, *out = *cursor, *cursor
		a.inBatch = unsafe.Pointer(in)
	}
	err := a.do(cmd)
	b := Batch{Next: *out}
	if err != nil && err != unix.ENOENT {
		// The kernel wrote count 0, or nothing at all (an early error).
		return b, mapErrno(op, err)
	}
	n := int(a.count)
	if n > count { // cannot happen; never read past the buffers
		n = count
	}
	b.Keys = make([][]byte, n)
	b.Values = make([][]byte, n)
	for i := range n {
		b.Keys[i] = keys[i*m.keySize : (i+1)*m.keySize : (i+1)*m.keySize]
		b.Values[i] = m.fromKernel(values[i*vlen : (i+1)*vlen])
	}
	return b, mapErrno(op, err)
}

// UpdateBatch is one BPF_MAP_UPDATE_BATCH call storing values[i] under
// keys[i], with flags as elem_flags (passed raw). The kernel stops at the
// first failing element; UpdateBatch returns how many it stored, and that
// element's error. Note that the kernel (generic_map_update_batch) accepts
// only BPF_F_LOCK in elem_flags: BPF_NOEXIST and BPF_EXIST are EINVAL here,
// unlike in Update.
func (m *Map) UpdateBatch(keys, values [][]byte, flags uint64) (int, error) {
	const op = "map update batch"
	if len(keys) != len(values) {
		return 0, invalid(op, "%d keys but %d values", len(keys), len(values))
	}
	kbuf, err := m.packKeys(op, keys)
	if err != nil {
		return 0, err
	}
	vlen := m.kernelValueLen()
	vbuf := make([]byte, len(values)*vlen)
	for i, v := range values {
		if err := m.checkValue(fmt.Sprintf("%s (value %d)", op, i), v); err != nil {
			return 0, err
		}
		m.toKernel(vbuf[i*vlen:(i+1)*vlen], v)
	}
	a := batchAttr{keys: ptr(kbuf), values: ptr(vbuf), count: uint32(len(keys)), mapFD: m.fd, elemFlags: flags}
	return m.doCountBatch(op, cmdUpdateBatch, &a, len(keys))
}

// DeleteBatch is one BPF_MAP_DELETE_BATCH call deleting keys in order. The
// kernel stops at the first failing key (htab.ErrKeyNotExist for an absent
// one); DeleteBatch returns how many it deleted, and that key's error.
func (m *Map) DeleteBatch(keys [][]byte) (int, error) {
	const op = "map delete batch"
	kbuf, err := m.packKeys(op, keys)
	if err != nil {
		return 0, err
	}
	a := batchAttr{keys: ptr(kbuf), count: uint32(len(keys)), mapFD: m.fd}
	return m.doCountBatch(op, cmdDeleteBatch, &a, len(keys))
}

func (m *Map) packKeys(op string, keys [][]byte) ([]byte, error) {
	if uint64(len(keys)) > math.MaxUint32 {
		return nil, invalid(op, "%d keys", len(keys))
	}
	kbuf := make([]byte, 0, len(keys)*m.keySize)
	for i, k := range keys {
		if err := m.checkKey(fmt.Sprintf("%s (key %d)", op, i), k); err != nil {
			return nil, err
		}
		kbuf = append(kbuf, k...)
	}
	return kbuf, nil
}

// doCountBatch runs an update or delete batch of n elements and returns the
// count the kernel wrote back.
func (m *Map) doCountBatch(op string, cmd uintptr, a *batchAttr, n int) (int, error) {
	err := a.do(cmd)
	done := int(a.count)
	if err != nil && done >= n {
		// The kernel stops at a failing element, so it cannot have done all n:
		// it failed before writing count back (bad flags, unsupported map).
		done = 0
	}
	return done, mapErrno(op, err)
}

// Push adds value to a bloom filter (BPF_MAP_UPDATE_ELEM with a NULL key and
// flags BPF_ANY).
func (m *Map) Push(value []byte) error {
	const op = "bloom push"
	if m.typ != htab.BloomFilter {
		return invalid(op, "Push applies only to bloom filter maps, not %v", m.typ)
	}
	if err := m.checkValue(op, value); err != nil {
		return err
	}
	a := elemAttr{mapFD: m.fd, value: ptr(value)}
	return mapErrno(op, a.do(cmdUpdateElem))
}

// Peek reports whether a bloom filter may hold value (BPF_MAP_LOOKUP_ELEM with
// a NULL key): true when the kernel answers 0, false when it answers ENOENT.
func (m *Map) Peek(value []byte) (bool, error) {
	const op = "bloom peek"
	if m.typ != htab.BloomFilter {
		return false, invalid(op, "Peek applies only to bloom filter maps, not %v", m.typ)
	}
	if err := m.checkValue(op, value); err != nil {
		return false, err
	}
	buf := append([]byte(nil), value...) // the kernel reads it; never write to the caller's
	a := elemAttr{mapFD: m.fd, value: ptr(buf)}
	switch err := a.do(cmdLookupElem); err {
	case nil:
		return true, nil
	case unix.ENOENT:
		return false, nil
	default:
		return false, mapErrno(op, err)
	}
}
