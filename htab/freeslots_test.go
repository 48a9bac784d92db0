package htab

import (
	"sync"
	"sync/atomic"
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

// checkSummary fails unless every non-zero word of every level has its bit
// set in the level above (at rest; with writers running a bit may be set
// over an empty word, never clear over a non-empty one).
func checkSummary(t *testing.T, s *FreeSlots) {
	t.Helper()
	for l := 0; l+1 < len(s.levels); l++ {
		for wi := range s.levels[l] {
			if s.levels[l][wi].Load() != 0 {
				require.NotZero(t, s.levels[l+1][wi>>6].Load()&(1<<(wi&63)), "level %d word %d is non-empty but its summary bit is clear", l, wi)
			}
		}
	}
}

// TestFreeSlotsLevels: the summary levels over n slots, down to one word.
func TestFreeSlotsLevels(t *testing.T) {
	for _, tt := range []struct{ n, levels int }{{1, 1}, {64, 1}, {128, 2}, {4096, 2}, {8192, 3}, {1 << 20, 4}} {
		var s FreeSlots
		s.Init(tt.n)
		require.Len(t, s.levels, tt.levels, "n = %d", tt.n)
		require.Len(t, s.levels[len(s.levels)-1], 1)
		checkSummary(t, &s)
	}
}

// TestFreeSlotsOneFree: a map at capacity that deletes one key and inserts
// another has one free slot, anywhere; Alloc finds it from any hint, and
// finds none missing after every slot was taken and given back in turn.
func TestFreeSlotsOneFree(t *testing.T) {
	const n = 1 << 16
	var s FreeSlots
	s.Init(n)
	for i := range uint32(n) {
		require.True(t, s.Claim(i))
	}
	checkSummary(t, &s)
	for _, i := range []uint32{0, 63, 64, 4095, 4096, 40000, n - 1} {
		s.Release(i)
		checkSummary(t, &s)
		for _, hint := range []uint32{0, n / 2, n - 1} {
			require.Equal(t, i, s.Alloc(hint), "the only free slot, hint %d", hint)
			s.Release(i)
		}
		require.Equal(t, i, s.Alloc(i^0x5555&(n-1)))
		checkSummary(t, &s)
	}
}

// TestFreeSlotsConcurrentNearlyFull: workers keep a bitmap with summary
// levels nearly full, so that words and summary words empty and refill all
// the time; no slot is handed out twice, the summaries hold at the end, and
// every slot ends free (-race).
func TestFreeSlotsConcurrentNearlyFull(t *testing.T) {
	const n, workers = 8192, 4
	rounds := 20000
	if testing.Short() {
		rounds = 4000
	}
	var s FreeSlots
	s.Init(n)
	for i := range uint32(n - 8) {
		require.True(t, s.Claim(i))
	}
	var owner [n]atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var mine []uint32
			for r := range rounds {
				if len(mine) < 2 && r%3 != 0 {
					i := s.Alloc(uint32(w*7919+r*104729) % n)
					if !owner[i].CompareAndSwap(false, true) {
						t.Errorf("slot %d handed out twice", i)
						return
					}
					mine = append(mine, i)
				} else if len(mine) > 0 {
					i := mine[0]
					mine = mine[1:]
					owner[i].Store(false)
					s.Release(i)
				}
			}
			for _, i := range mine {
				owner[i].Store(false)
				s.Release(i)
			}
		})
	}
	wg.Wait()
	checkSummary(t, &s)
	for i := range uint32(n - 8) {
		s.Release(i)
	}
	checkSummary(t, &s)
	for i := range uint32(n) {
		require.True(t, s.Claim(i), "slot %d ends free", i)
	}
}
