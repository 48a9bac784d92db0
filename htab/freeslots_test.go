package htab

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFreeSlotsClaimRelease(t *testing.T) {
	var s FreeSlots
	s.Init(8) // fewer than 64: only the low 8 bits exist
	for i := range uint32(8) {
		require.True(t, s.Claim(i), "slot %d starts free", i)
		require.False(t, s.Claim(i), "slot %d is taken", i)
	}
	s.Release(5)
	assert.True(t, s.Claim(5))
}

func TestFreeSlotsAllocNearest(t *testing.T) {
	var s FreeSlots
	s.Init(256)
	for i := range uint32(256) {
		s.Claim(i)
	}
	for _, i := range []uint32{70, 75, 90, 200} {
		s.Release(i)
	}
	assert.Equal(t, uint32(75), s.Alloc(74), "the nearest in the hint's word")
	assert.Equal(t, uint32(70), s.Alloc(74), "below, when it is nearer")
	assert.Equal(t, uint32(90), s.Alloc(74))
	assert.Equal(t, uint32(200), s.Alloc(74), "another word when the hint's is full")
}

// TestFreeSlotsConcurrent: goroutines allocate and release; no slot is ever
// handed out twice at once, and every slot ends free (-race).
func TestFreeSlotsConcurrent(t *testing.T) {
	const n, workers, rounds = 128, 4, 2000
	var s FreeSlots
	s.Init(n)
	var owner [n]sync.Mutex // a slot's mutex is held while someone owns it
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var mine []uint32
			for r := range rounds {
				if len(mine) < n/workers {
					i := s.Alloc(uint32(w*r) % n)
					if !owner[i].TryLock() {
						t.Errorf("slot %d handed out twice", i)
						return
					}
					mine = append(mine, i)
				} else {
					i := mine[0]
					mine = mine[1:]
					owner[i].Unlock()
					s.Release(i)
				}
			}
			for _, i := range mine {
				owner[i].Unlock()
				s.Release(i)
			}
		})
	}
	wg.Wait()
	for i := range uint32(n) {
		assert.True(t, s.Claim(i), "slot %d ends free", i)
	}
}
