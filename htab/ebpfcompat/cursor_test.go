package ebpfcompat

import (
	"runtime"
	"testing"
	"time"

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

func walks() int {
	cursors.Lock()
	defer cursors.Unlock()
	return len(cursors.walks)
}

// A cursor's position is let go when the cursor is collected.
func TestCursorsAreLetGo(t *testing.T) {
	m := NewHash[[8]byte, [8]byte](emptyMap{}, Info{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 1})
	before := walks()
	use := func() {
		for range 1000 {
			c := new(ebpf.MapBatchCursor)
			_, err := m.BatchLookup(c, make([]uint64, 1), make([]uint64, 1), nil)
			require.ErrorIs(t, err, ebpf.ErrKeyNotExist)
		}
	}
	use()
	require.GreaterOrEqual(t, walks(), before+1, "the walks are registered")
	// Cleanups run after a collection, on a goroutine of their own: collect
	// until they have run, or give up.
	for range 200 {
		runtime.GC()
		if walks() <= before {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.LessOrEqual(t, walks(), before, "every collected cursor's walk is let go")
}
