package htab

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// next is the obvious Occupancy.Next, one bit at a time.
func next(set map[uint32]bool, i, n uint32) uint32 {
	for ; i < n; i++ {
		if set[i] {
			return i
		}
	}
	return n
}

func TestOccupancyNextMatchesScan(t *testing.T) {
	for _, n := range []int{1, 2, 63, 64, 65, 128, 1000, 1 << 16} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		o := NewOccupancy(n)
		require.Equal(t, n, o.Len())
		set := map[uint32]bool{}
		for range 3 * n {
			i := uint32(rng.IntN(n))
			if rng.IntN(3) == 0 {
				o.Clear(i)
				delete(set, i)
			} else {
				o.Set(i)
				set[i] = true
			}
			for _, from := range []uint32{0, i, i + 1, uint32(rng.IntN(n + 2))} {
				require.Equal(t, next(set, from, uint32(n)), o.Next(from), "n %d, Next(%d)", n, from)
			}
			require.True(t, o.Has(i) == set[i])
		}
		// Walk every set bit with Next, as a batch walk does.
		var walked []uint32
		for i := o.Next(0); i < uint32(n); i = o.Next(i + 1) {
			walked = append(walked, i)
		}
		assert.Len(t, walked, len(set))
		for _, i := range walked {
			assert.True(t, set[i], "bit %d walked but not set", i)
		}
	}
}

func TestOccupancyEdges(t *testing.T) {
	o := NewOccupancy(70)
	assert.Equal(t, uint32(70), o.Next(0), "empty bitmap: Next is Len")
	o.Set(69)
	assert.Equal(t, uint32(69), o.Next(0))
	assert.Equal(t, uint32(69), o.Next(64))
	assert.Equal(t, uint32(70), o.Next(70))
	assert.Equal(t, uint32(70), o.Next(1000))
	o.Set(0)
	o.Set(63)
	assert.Equal(t, uint32(0), o.Next(0))
	assert.Equal(t, uint32(63), o.Next(1))
	o.Clear(63)
	assert.Equal(t, uint32(69), o.Next(1))
	assert.True(t, o.Has(0))
	assert.False(t, o.Has(63))
	var zero Occupancy
	assert.Equal(t, uint32(0), zero.Next(0))
}

// TestOccupancyConcurrentBitsOfOneWord: writers of different buckets whose
// bits share a word never lose each other's bits.
func TestOccupancyConcurrentBitsOfOneWord(t *testing.T) {
	o := NewOccupancy(64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				for i := uint32(g); i < 64; i += 8 {
					o.Set(i)
					o.Clear(i)
				}
			}
			for i := uint32(g); i < 64; i += 16 { // leave half of each goroutine's bits set
				o.Set(i)
			}
		}()
	}
	wg.Wait()
	for i := range uint32(64) {
		assert.Equal(t, i%16 < 8, o.Has(i), "bit %d", i)
	}
}
