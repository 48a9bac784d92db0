package htab

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStoreReleaseMessagePassing is the pattern every generated map relies
// on: a writer stores data, then publishes with StoreRelease; a reader that
// loads the flag with sync/atomic and sees it published must see the data.
// A store that the compiler or the CPU moved after the flag fails it.
func TestStoreReleaseMessagePassing(t *testing.T) {
	const rounds = 20000
	var data [4]uint32
	var flag uint32
	var wg sync.WaitGroup
	wg.Go(func() {
		for r := uint32(1); r <= rounds; r++ {
			for atomic.LoadUint32(&flag) != 2*r-2 { // the reader saw the last round
			}
			for i := range data {
				StoreRelease(&data[i], r)
			}
			StoreRelease(&flag, 2*r-1)
		}
	})
	bad := 0
	for r := uint32(1); r <= rounds; r++ {
		for atomic.LoadUint32(&flag) != 2*r-1 {
		}
		for i := range data {
			if atomic.LoadUint32(&data[i]) != r {
				bad++
			}
		}
		StoreRelease(&flag, 2*r)
	}
	wg.Wait()
	require.Zero(t, bad, "data loaded after its flag was older than the flag")
}

func TestStoreReleaseStores(t *testing.T) {
	var x [3]uint32
	StoreRelease(&x[1], 0xdeadbeef)
	require.Equal(t, [3]uint32{0, 0xdeadbeef, 0}, x)
}
