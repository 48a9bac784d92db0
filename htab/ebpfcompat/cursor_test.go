package ebpfcompat

import (
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// emptyMap is a HashMap with no keys: enough to walk batches over.
type emptyMap struct{}

func (emptyMap) Lookup([8]byte) ([8]byte, bool)                  { return [8]byte{}, false }
func (emptyMap) LookupAndDelete([8]byte) ([8]byte, error)        { return [8]byte{}, htab.ErrKeyNotExist }
func (emptyMap) Update([8]byte, [8]byte, htab.UpdateFlags) error { return htab.ErrFull }
func (emptyMap) Delete([8]byte) error                            { return htab.ErrKeyNotExist }
func (emptyMap) NextKey(*[8]byte) ([8]byte, error)               { return [8]byte{}, htab.ErrKeyNotExist }
func (emptyMap) UpdateBatch([][8]byte, [][8]byte, htab.UpdateFlags) (int, error) {
	return 0, htab.ErrFull
}
func (emptyMap) DeleteBatch([][8]byte) (int, error) { return 0, htab.ErrKeyNotExist }
func (emptyMap) LookupBatch(c *htab.Cursor, _ [][8]byte, _ [][8]byte) (int, error) {
	c.Advance(1, true)
	return 0, htab.ErrKeyNotExist
}
func (m emptyMap) LookupAndDeleteBatch(c *htab.Cursor, k [][8]byte, v [][8]byte) (int, error) {
	return m.LookupBatch(c, k, v)
}

// The fields of cilium/ebpf's cursor where walks keep their position are
// found: a cilium/ebpf that renames them fails here, not in a user's test.
func TestCursorFieldsFound(t *testing.T) {
	require.NoError(t, cursorFields.err)
}

// A walk is collected with its cursor: nothing else holds it.
func TestWalkIsCollectedWithItsCursor(t *testing.T) {
	m := NewHash[[8]byte, [8]byte](emptyMap{}, Info{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 1})
	walked := func() weak.Pointer[walk] {
		c := new(ebpf.MapBatchCursor)
		_, err := m.BatchLookup(c, make([]uint64, 1), make([]uint64, 1), nil)
		require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
		w, err := walkOf(c, m.b.owner())
		require.NoError(t, err)
		require.True(t, w.c.Done(), "the walk the call ended")
		return weak.Make(w)
	}()
	// The weak pointer goes nil once a collection finds the walk unreachable.
	for range 200 {
		runtime.GC()
		if walked.Value() == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.Nil(t, walked.Value(), "the walk outlived its cursor")
}
