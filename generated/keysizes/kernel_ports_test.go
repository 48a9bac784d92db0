package keysizes

// Port of test_map_large of the kernel's
// tools/testing/selftests/bpf/test_maps.c, run twice as in the kernel:
// map_flags=0 and BPF_F_NO_PREALLOC.

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/stretchr/testify/require"
)

// bigKey is struct bigkey { int a; char b[4096]; long long c; }: a at 0,
// b at 4, 4 bytes of padding, c at 4104; 4112 bytes.
type bigKey struct {
	a int32
	b [4096]byte
	c int64
}

func (k *bigKey) bytes() (out Large4112Key) {
	binary.LittleEndian.PutUint32(out[0:], uint32(k.a))
	copy(out[4:4100], k.b[:])
	binary.LittleEndian.PutUint64(out[4104:], uint64(k.c))
	return
}

func largeVal(i int32) (v Large4112Value) {
	binary.LittleEndian.PutUint32(v[:], uint32(i))
	return
}

func TestKernelPortMapLarge(t *testing.T) {
	// The kernel's MAP_SIZE. The scenario does nothing concurrent, so under
	// -race (50 times slower here: every key word is an atomic access) and
	// -short it runs on a smaller map; the full size runs without them.
	mapSize := 32768
	if raceEnabled || testing.Short() {
		mapSize = 2048
		t.Logf("-race or -short: %d entries instead of 32768", mapSize)
	}
	for _, f := range []struct {
		name string
		opts htab.Options
	}{
		{"prealloc", htab.Options{MaxEntries: mapSize}},
		{"NoPrealloc", htab.Options{MaxEntries: mapSize, NoPrealloc: true}},
	} {
		t.Run(f.name, func(t *testing.T) {
			require.Equal(t, 4112, len(Large4112Key{}))
			require.Equal(t, 4, len(Large4112Value{}))
			m, err := NewLarge4112(f.opts)
			require.NoError(t, err)

			var key bigKey
			for i := range int32(mapSize) {
				key = bigKey{c: int64(i)}
				require.NoError(t, m.Update(key.bytes(), largeVal(i), htab.UpdateNoExist), "key %d", i)
			}
			require.Equal(t, mapSize, m.Len())
			key.c = -1
			err = m.Update(key.bytes(), largeVal(0), htab.UpdateNoExist)
			require.True(t, errors.Is(err, htab.ErrFull), "E2BIG, got %v", err)

			// Iterate through all elements: c = -1 is unknown, so the walk
			// restarts and mapSize calls succeed, the next one fails.
			_, err = m.NextKey(nil)
			require.NoError(t, err)
			key.c = -1
			k := key.bytes()
			seen := make(map[int64]bool, mapSize)
			for i := range mapSize {
				k, err = m.NextKey(&k)
				require.NoError(t, err, "step %d", i)
				c := int64(binary.LittleEndian.Uint64(k[4104:]))
				require.False(t, seen[c], "key c=%d twice", c)
				seen[c] = true
			}
			_, err = m.NextKey(&k)
			require.True(t, errors.Is(err, htab.ErrKeyNotExist), "ENOENT, got %v", err)
			require.Len(t, seen, mapSize)

			key.c = 0
			v, ok := m.Lookup(key.bytes())
			require.True(t, ok)
			require.Equal(t, largeVal(0), v)
			key.a = 1
			_, ok = m.Lookup(key.bytes())
			require.False(t, ok, "ENOENT for a=1")

			// The last key and a key differing only in its last byte.
			key = bigKey{c: int64(mapSize) - 1}
			v, ok = m.Lookup(key.bytes())
			require.True(t, ok)
			require.Equal(t, largeVal(int32(mapSize)-1), v)
			kb := key.bytes()
			kb[4111] ^= 0x80
			_, ok = m.Lookup(kb)
			require.False(t, ok)
		})
	}
}
