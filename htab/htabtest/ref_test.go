package htabtest

import (
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// refMap is a plain reference of the kernel's BPF_MAP_TYPE_HASH behind one
// mutex, with 4-byte keys and values: buckets of (key, value) newest first,
// jhash of the key with the seed, masked. The checks must pass on it, and
// fail on it when a fault is planted.
type refMap struct {
	mu      sync.Mutex
	max     int
	cpus    int
	seed    uint32
	mask    uint32
	buckets [][]refKV
	n       int
	fault   refFault
}

type refKV struct{ k, v [4]byte }

// refFault is a fault to plant in a refMap.
type refFault int

const (
	noFault          refFault = iota
	replaceInPlace            // a replace keeps the key's place instead of moving it to the head
	batchStopsEarly           // a batch call returns one bucket fewer than fit, when it could take two or more
	findsNextElement          // a key's search lands on the element after it in its bucket, if any
)

type refKind struct{ fault refFault }

func (r refKind) new(opts htab.Options) (*refMap, error) {
	opts, err := opts.Check(htab.Hash)
	if err != nil {
		return nil, err
	}
	n := htab.BucketCount(opts.MaxEntries)
	return &refMap{max: opts.MaxEntries, cpus: opts.CPUs, seed: opts.Seed(), mask: uint32(n - 1), buckets: make([][]refKV, n), fault: r.fault}, nil
}

// refAdapter is a refMap, or a refKind when m is nil, as htabtest.Map.
type refAdapter struct {
	*refMap
	kind refKind
}

func (a refAdapter) New(opts htab.Options) (Map[[4]byte, [4]byte], error) {
	m, err := a.kind.new(opts)
	if err != nil {
		return nil, err
	}
	return refAdapter{m, a.kind}, nil
}

func (a refAdapter) Info() Info {
	return Info{Type: htab.Hash, Struct: reflect.TypeFor[refMap](), Elem: reflect.TypeFor[refKV]()}
}

func (m *refMap) Len() int              { m.mu.Lock(); defer m.mu.Unlock(); return m.n }
func (m *refMap) MaxEntries() int       { return m.max }
func (m *refMap) CPUs() int             { return m.cpus }
func (m *refMap) Seed() uint32          { return m.seed }
func (m *refMap) SetSeed(s uint32)      { m.seed = s }
func (m *refMap) Buckets() int          { return int(m.mask) + 1 }
func (m *refMap) Degenerate()           { m.mask = 0 }
func (m *refMap) Hash(k [4]byte) uint32 { return htab.Jhash(k[:], m.seed) }
func (m *refMap) bucket(k [4]byte) int  { return int(m.Hash(k) & m.mask) }

// find is k's place in its bucket, or -1.
func (m *refMap) find(k [4]byte) (b, i int) {
	b = m.bucket(k)
	for i, e := range m.buckets[b] {
		if e.k == k {
			if m.fault == findsNextElement && i+1 < len(m.buckets[b]) {
				return b, i + 1
			}
			return b, i
		}
	}
	return b, -1
}

func (m *refMap) Lookup(k [4]byte, vals [][4]byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, i := m.find(k)
	if i >= 0 {
		vals[0] = m.buckets[b][i].v
	}
	return i >= 0
}

func (m *refMap) LookupAndDelete(k [4]byte, vals [][4]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, i := m.find(k)
	if i < 0 {
		return htab.ErrKeyNotExist
	}
	vals[0] = m.buckets[b][i].v
	m.unlink(b, i)
	return nil
}

func (m *refMap) unlink(b, i int) {
	m.buckets[b] = append(m.buckets[b][:i:i], m.buckets[b][i+1:]...)
	m.n--
}

func (m *refMap) update(k, v [4]byte, flags htab.UpdateFlags) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if flags > htab.UpdateExist {
		return htab.ErrInvalid
	}
	b, i := m.find(k)
	switch {
	case flags == htab.UpdateNoExist && i >= 0:
		return htab.ErrKeyExist
	case flags == htab.UpdateExist && i < 0:
		return htab.ErrKeyNotExist
	case i < 0 && m.n == m.max:
		return htab.ErrFull
	case i >= 0 && m.fault == replaceInPlace:
		m.buckets[b][i].v = v
		return nil
	case i >= 0:
		m.unlink(b, i)
	}
	m.buckets[b] = append([]refKV{{k, v}}, m.buckets[b]...)
	m.n++
	return nil
}

func (m *refMap) Update(k [4]byte, vals [][4]byte, flags htab.UpdateFlags) error {
	return m.update(k, vals[0], flags)
}

func (m *refMap) Delete(k [4]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, i := m.find(k)
	if i < 0 {
		return htab.ErrKeyNotExist
	}
	m.unlink(b, i)
	return nil
}

func (m *refMap) order() (kvs []refKV) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.buckets {
		kvs = append(kvs, b...)
	}
	return kvs
}

func (m *refMap) NextKey(k *[4]byte) ([4]byte, error) {
	order := m.order()
	i := 0
	if k != nil {
		for j, e := range order {
			if e.k == *k {
				i = j + 1
			}
		}
	}
	if i == len(order) {
		return [4]byte{}, htab.ErrKeyNotExist
	}
	return order[i].k, nil
}

func (m *refMap) All() iter.Seq2[[4]byte, [][4]byte] {
	return func(yield func([4]byte, [][4]byte) bool) {
		for _, e := range m.order() {
			if !yield(e.k, [][4]byte{e.v}) {
				return
			}
		}
	}
}

func (m *refMap) batch(c *htab.Cursor, keys, vals [][4]byte, del bool) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b := 0
	if c != nil {
		b = int(c.Bucket())
	}
	got, taken, err := 0, 0, htab.ErrKeyNotExist
	for ; b < len(m.buckets); b++ {
		l := len(m.buckets[b])
		if got+l > len(keys) || m.fault == batchStopsEarly && taken >= 2 && l > 0 {
			err = nil
			if got == 0 {
				err = htab.ErrNoSpace
			}
			break
		}
		for j, e := range m.buckets[b] {
			keys[got+j], vals[got+j] = e.k, e.v
		}
		got += l
		if l > 0 {
			taken++
		}
		if del {
			m.n -= l
			m.buckets[b] = nil
		}
	}
	if c != nil && err != htab.ErrNoSpace {
		c.Advance(uint32(b), err == htab.ErrKeyNotExist)
	}
	return got, err
}

func (m *refMap) LookupBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return m.batch(c, keys, vals, false)
}

func (m *refMap) LookupAndDeleteBatch(c *htab.Cursor, keys, vals [][4]byte) (int, error) {
	return m.batch(c, keys, vals, true)
}

func (m *refMap) UpdateBatch(keys, vals [][4]byte, flags htab.UpdateFlags) (int, error) {
	if flags != htab.UpdateAny {
		return 0, htab.ErrInvalid
	}
	for i := range keys {
		if err := m.update(keys[i], vals[i], flags); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

func (m *refMap) DeleteBatch(keys [][4]byte) (int, error) {
	for i := range keys {
		if err := m.Delete(keys[i]); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

func (m *refMap) CPU(i int) CPU[[4]byte, [4]byte] { return refCPU{m} }

func (m *refMap) LookupBulk(keys, vals [][4]byte, found []bool) int {
	return bulkByOne(keys, vals, found, func(k [4]byte) ([4]byte, bool) {
		v := make([][4]byte, 1)
		return v[0], m.Lookup(k, v)
	})
}

// bulkByOne is LookupBulk as a loop of lookup.
func bulkByOne(keys, vals [][4]byte, found []bool, lookup func([4]byte) ([4]byte, bool)) int {
	if len(vals) < len(keys) || len(found) < len(keys) {
		panic("LookupBulk: slices too short")
	}
	n := 0
	for i, k := range keys {
		vals[i], found[i] = lookup(k)
		if found[i] {
			n++
		}
	}
	return n
}

// refCPU is the program side: the same map, one value.
type refCPU struct{ m *refMap }

func (c refCPU) Lookup(k [4]byte) ([4]byte, bool) {
	vals := make([][4]byte, 1)
	return vals[0], c.m.Lookup(k, vals)
}

func (c refCPU) Update(k, v [4]byte, flags htab.UpdateFlags) error { return c.m.update(k, v, flags) }
func (c refCPU) Delete(k [4]byte) error                            { return c.m.Delete(k) }
func (c refCPU) LookupBulk(keys, vals [][4]byte, found []bool) int {
	return bulkByOne(keys, vals, found, c.Lookup)
}

// recorder is a testing.TB that records a failure instead of failing the
// test; run the check in a goroutine of its own (runFails), since Fatalf
// ends it.
type recorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.msg == "" {
		r.msg = fmt.Sprintf(format, args...)
	}
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// runFails runs check with a recorder and returns its first failure's
// message, "" if it passed.
func runFails(t *testing.T, check func(testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.msg
}

// The reference map passes every check that applies to it.
func TestChecksPassOnReference(t *testing.T) {
	kind := refAdapter{kind: refKind{}}
	t.Run("RandomOps", func(t *testing.T) { RandomOps(t, kind) })
	t.Run("Batch", func(t *testing.T) { Batch(t, kind) })
	t.Run("Seeds", func(t *testing.T) { Seeds(t, kind) })
	t.Run("HashIsJhash", func(t *testing.T) { HashIsJhash(t, kind) })
	t.Run("Concurrent", func(t *testing.T) { Concurrent(t, kind) })
	t.Run("ConcurrentValues", func(t *testing.T) { ConcurrentValues(t, kind) })
	t.Run("LookupBulk", func(t *testing.T) { LookupBulk(t, kind) })
	t.Run("HashCollisionsSkips", func(t *testing.T) {
		HashCollisions(t, kind)
		t.Error("HashCollisions ran on a map whose elements do not cache the hash")
	})
}

// Faults planted in the reference map fail RunOps on the first run of
// RandomOps. (Batch compares only what whole walks return, so a batch call
// that stops early passes it; the model checks the kernel's split.)
func TestRunOpsCatchesFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault refFault
	}{
		{"replace-in-place", replaceInPlace},
		{"batch-stops-early", batchStopsEarly},
		{"finds-next-element", findsNextElement},
	} {
		t.Run(c.name, func(t *testing.T) {
			kind := refAdapter{kind: refKind{c.fault}}
			msg := runFails(t, func(tb testing.TB) {
				RunOps(tb, kind, randomOpsData(0x0f, randomOpsShort)) // RandomOps's first run, 64 entries on 2 CPUs
			})
			if msg == "" {
				t.Fatal("RunOps passed")
			}
			t.Logf("RunOps failed: %s", msg)
		})
	}
}

// A check refuses keys or values that are not byte arrays.
func TestCheckTypes(t *testing.T) {
	if msg := runFails(t, checkTypes[[4]byte, [2]byte]); msg != "" {
		t.Errorf("byte arrays refused: %s", msg)
	}
	if msg := runFails(t, checkTypes[[4]byte, [2]uint16]); msg == "" {
		t.Error("[2]uint16 values accepted")
	}
	if msg := runFails(t, checkTypes[uint32, [2]byte]); msg == "" {
		t.Error("uint32 keys accepted")
	}
}
