package ebpfmaps

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

func newHash(t *testing.T) *HashEBPF {
	t.Helper()
	f, err := NewHashEBPF(htab.Options{MaxEntries: 64, ZeroSeed: true})
	require.NoError(t, err)
	return f
}

// A batch cursor walks one map: another map (or a kernel map) refuses it;
// another view of the same map takes it on.
func TestBatchCursorBelongsToOneMap(t *testing.T) {
	a, b := newHash(t), newHash(t)
	for i := range uint64(10) {
		require.NoError(t, a.Put(i, i))
		require.NoError(t, b.Put(i, i))
	}
	keys, vals := make([]uint64, 2), make([]uint64, 2)
	var c ebpf.MapBatchCursor
	_, err := a.BatchLookup(&c, keys, vals, nil)
	require.NoError(t, err)
	_, err = b.BatchLookup(&c, keys, vals, nil)
	require.ErrorContains(t, err, "a cursor may not be reused across maps")

	// A view of a is the same map: the walk goes on where it stood.
	total := 0
	view := a.Map().EBPF()
	for {
		n, err := view.BatchLookup(&c, keys, vals, nil)
		total += n
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			break
		}
		require.NoError(t, err)
	}
	assert.Less(t, total, 10, "the walk went on, it did not start over")

	_, err = a.BatchLookup(nil, keys, vals, nil)
	require.ErrorContains(t, err, "non-nil cursor")

	if kernel.Available() == nil {
		km, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4})
		require.NoError(t, err)
		defer km.Close()
		require.NoError(t, km.Put(uint64(1), uint64(1)))
		var kc ebpf.MapBatchCursor
		_, err = km.BatchLookup(&kc, keys, vals, nil)
		require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
		_, err = a.BatchLookup(&kc, keys, vals, nil)
		require.ErrorContains(t, err, "a cursor may not be reused across maps", "a cursor a kernel map has used")
	}
}

// A cursor set back to its zero value starts again, as a kernel map's does:
// a map polled in a loop with one cursor variable is dumped whole each time,
// and a zeroed cursor may go to another map. A copy of a cursor shares its
// walk, as a copy of a kernel map's cursor shares its buffer. A cursor a
// generated map has used is refused by a kernel map.
func TestBatchCursorZeroedStartsAgain(t *testing.T) {
	a, b := newHash(t), newHash(t)
	for i := range uint64(10) {
		require.NoError(t, a.Put(i, i))
	}
	require.NoError(t, b.Put(uint64(99), uint64(99)))
	keys, vals := make([]uint64, 16), make([]uint64, 16)

	var c ebpf.MapBatchCursor
	for round := range 3 {
		c = ebpf.MapBatchCursor{}
		n, err := a.BatchLookup(&c, keys, vals, nil)
		require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
		require.Equal(t, 10, n, "poll %d with a zeroed cursor dumps the whole map", round)
	}
	c = ebpf.MapBatchCursor{}
	n, err := b.BatchLookup(&c, keys, vals, nil)
	require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
	require.Equal(t, 1, n, "a zeroed cursor walks another map")

	// A copy taken mid-walk shares the walk: what one reads, the other does
	// not read again.
	var orig ebpf.MapBatchCursor
	total := 0
	n, err = a.BatchLookup(&orig, keys[:2], vals[:2], nil)
	require.NoError(t, err)
	total += n
	cp := orig
	for i := 0; ; i++ {
		use := &orig
		if i%2 == 0 {
			use = &cp
		}
		n, err := a.BatchLookup(use, keys[:2], vals[:2], nil)
		total += n
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			break
		}
		require.NoError(t, err)
	}
	require.Equal(t, 10, total, "the original and its copy read each key once between them")

	if kernel.Available() == nil {
		km, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4})
		require.NoError(t, err)
		defer km.Close()
		require.NoError(t, km.Put(uint64(1), uint64(1)))
		_, err = km.BatchLookup(&orig, keys, vals, nil)
		require.ErrorContains(t, err, "a cursor may not be reused across maps", "a kernel map given a generated map's cursor")
		orig = ebpf.MapBatchCursor{}
		n, err := km.BatchLookup(&orig, keys, vals, nil)
		require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
		require.Equal(t, 1, n, "a kernel map given the same cursor zeroed")
	}
}

// Close ends this view, as closing a file descriptor does: the map and its
// other views go on.
func TestClose(t *testing.T) {
	f := newHash(t)
	require.NoError(t, f.Put(uint64(1), uint64(2)))
	other := f.Map().EBPF()
	require.NoError(t, f.Close())
	require.NoError(t, f.Close(), "closing twice is not an error")
	var v uint64
	for name, err := range map[string]error{
		"lookup": f.Lookup(uint64(1), &v),
		"put":    f.Put(uint64(3), uint64(3)),
		"delete": f.Delete(uint64(1)),
	} {
		require.ErrorIs(t, err, unix.EBADF, name)
	}
	_, err := f.BatchDelete([]uint64{1}, nil)
	require.ErrorIs(t, err, unix.EBADF)
	require.NoError(t, other.Lookup(uint64(1), &v))
	assert.Equal(t, uint64(2), v)
}

// Marshaling errors are errors that name the type and size, never panics.
func TestMarshalingErrors(t *testing.T) {
	f := newHash(t)
	pc, err := NewPerCPUEBPF(htab.Options{MaxEntries: 8, ZeroSeed: true})
	require.NoError(t, err)
	require.NoError(t, f.Put(uint64(1), uint64(1)))
	var nilPtr *uint64
	type padded struct {
		A uint8
		B uint32 // 3 bytes of padding before it
	}
	bad := []any{
		make(chan int), func() {}, map[int]int{}, nilPtr, "short", []string{"a"}, [3]int32{},
		padded{}, struct{}{}, uint8(1), int(1), float32(1), true,
	}
	for _, x := range bad {
		t.Run(fmt.Sprintf("%T", x), func(t *testing.T) {
			require.NotPanics(t, func() {
				assert.Error(t, f.Put(x, uint64(1)), "as a key")
				assert.Error(t, f.Put(uint64(1), x), "as a value")
				assert.Error(t, f.Delete(x))
				assert.Error(t, f.NextKey(x, new(uint64)))
				assert.Error(t, f.Lookup(uint64(1), x), "as the value out")
				_, err := f.BatchUpdate([]uint64{1}, x, nil)
				assert.Error(t, err)
				_, err = f.BatchLookup(new(ebpf.MapBatchCursor), x, x, nil)
				assert.Error(t, err)
				assert.Error(t, pc.Put(uint64(1), x), "as a per-CPU value")
				assert.Error(t, pc.Lookup(uint64(1), x), "as a per-CPU value out")
			})
		})
	}
	err = f.Put(uint32(1), uint64(1))
	require.EqualError(t, err, "marshal key: uint32 doesn't marshal to 8 bytes")
	err = f.Put(uint64(1), [3]int32{})
	require.EqualError(t, err, "marshal value: [3]int32 doesn't marshal to 8 bytes")
	err = f.Put(nil, uint64(1))
	require.EqualError(t, err, "marshal key: can't use nil as key of map")
	err = pc.Put(uint64(1), make([]val12, pc.Map().CPUs()+1))
	require.EqualError(t, err, "marshal value: per-CPU value greater than number of CPUs")
}

// Values given and received in the forms cilium/ebpf takes, in place where
// their memory is their encoding.
func TestValueForms(t *testing.T) {
	f := newHash(t)
	require.NoError(t, f.Put(key64{1, 2}, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}))
	k := binary.NativeEndian.Uint64(binary.NativeEndian.AppendUint32(binary.NativeEndian.AppendUint32(nil, 1), 2)) // key64{1, 2}
	var b []byte
	require.NoError(t, f.Lookup(&k, &b))
	assert.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, b)
	var v uint64
	require.NoError(t, f.Lookup(unsafe.Pointer(&k), unsafe.Pointer(&v)))
	assert.Equal(t, binary.NativeEndian.Uint64([]byte{1, 2, 3, 4, 5, 6, 7, 8}), v)
	raw, err := f.LookupBytes(k)
	require.NoError(t, err)
	assert.Equal(t, b, raw)
	raw, err = f.LookupBytes(k + 1)
	require.NoError(t, err)
	assert.Nil(t, raw, "absent: nil without an error")

	pc, err := NewPerCPUEBPF(htab.Options{MaxEntries: 8, ZeroSeed: true})
	require.NoError(t, err)
	cpus := pc.Map().CPUs()
	require.NoError(t, pc.Put(uint64(7), []val12{{1, 2, 3}}), "shorter than CPUs: the rest zero")
	var got []val12
	require.NoError(t, pc.Lookup(uint64(7), &got))
	want := make([]val12, cpus)
	want[0] = val12{1, 2, 3}
	assert.Equal(t, want, got)
	raw, err = pc.LookupBytes(uint64(7))
	require.NoError(t, err)
	assert.Len(t, raw, 16*cpus, "each CPU's 12 bytes padded to 16")
}

// Every method is safe for concurrent use: writers, readers, batch walks
// (each with its own cursor) and iterations at once, under -race.
func TestConcurrentUse(t *testing.T) {
	f, err := NewLRUEBPF(htab.Options{MaxEntries: 128})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var v uint64
			for i := range uint64(2000) {
				k := (i*7 + uint64(g)) % 300
				switch i % 5 {
				case 0, 1:
					_ = f.Put(k, i)
				case 2:
					_ = f.Lookup(k, &v)
				case 3:
					_ = f.Delete(k)
				default:
					var c ebpf.MapBatchCursor
					keys, vals := make([]uint64, 16), make([]uint64, 16)
					for range 100 {
						if _, err := f.BatchLookup(&c, keys, vals, nil); err != nil {
							break
						}
					}
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			it := f.Iterate()
			var k, v uint64
			for it.Next(&k, &v) {
			}
		}
	})
	wg.Wait()
	assert.LessOrEqual(t, f.Map().Len(), 128)
}
