package htab

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SummaryBit is one of 8 bits, and the keys of one bucket (hashes with the
// same low bits) spread over all 8 evenly: a summary bit taken from the
// bucket bits would be the same for every key of a chain, and answer nothing.
func TestSummaryBit(t *testing.T) {
	for _, mask := range []uint32{0, 0xff, 0xffff, 1<<24 - 1} {
		var counts [8]int
		const n = 80000
		for i := range uint32(n) {
			h := (i*0x9e3779b9)&^mask | 0x5a5a5a&mask // the same bucket, for a map of mask+1 buckets
			b := SummaryBit(h)
			require.Equal(t, 1, popcount8(b), "hash %#x: bit %08b", h, b)
			for j := range 8 {
				if b == 1<<j {
					counts[j]++
				}
			}
		}
		for j, c := range counts {
			assert.InDelta(t, n/8, c, n/8*0.05, "mask %#x: bit %d taken %d times of %d", mask, j, c, n)
		}
	}
}

func popcount8(b uint8) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// The four buckets of a word keep their own bytes: Add and Set change their
// bucket's byte only, MayHold reads it, and Set replaces it whole.
func TestSummaries(t *testing.T) {
	var s Summaries
	s.Init(6) // two words, the second half used
	hashes := []uint32{0x12345678, 0x9abcdef0, 0x0fedcba9, 0x87654321}
	for bi := range uint32(6) {
		assert.Zero(t, s.Get(bi))
		for _, h := range hashes {
			assert.False(t, s.MayHold(bi, h), "empty bucket %d", bi)
		}
	}
	s.Add(1, hashes[0])
	s.Add(2, hashes[1])
	s.Add(2, hashes[2])
	assert.True(t, s.MayHold(1, hashes[0]))
	assert.Equal(t, SummaryBit(hashes[0]), s.Get(1))
	assert.Equal(t, SummaryBit(hashes[1])|SummaryBit(hashes[2]), s.Get(2))
	for _, bi := range []uint32{0, 3, 4, 5} {
		assert.Zero(t, s.Get(bi), "bucket %d, a neighbour of 1 and 2", bi)
	}
	for _, h := range hashes {
		// A clear bit is a sure "no"; a set one is what Add put there.
		assert.Equal(t, SummaryBit(h)&s.Get(1) != 0, s.MayHold(1, h))
		assert.Equal(t, SummaryBit(h)&s.Get(2) != 0, s.MayHold(2, h))
	}
	s.Set(2, SummaryBit(hashes[2]))
	assert.Equal(t, SummaryBit(hashes[2]), s.Get(2))
	assert.Equal(t, SummaryBit(hashes[0]), s.Get(1), "Set of bucket 2 leaves bucket 1")
	s.Set(1, 0)
	assert.Zero(t, s.Get(1))
	assert.Equal(t, SummaryBit(hashes[2]), s.Get(2))
	s.Add(5, hashes[3])
	assert.Equal(t, SummaryBit(hashes[3]), s.Get(5))
	assert.Zero(t, s.Get(4))
}

// Writers of the four buckets of one word, each changing its own byte as a
// bucket's lock holder would, never disturb each other's bytes. Run with
// -race.
func TestSummariesConcurrentNeighbours(t *testing.T) {
	var s Summaries
	s.Init(4)
	var wg sync.WaitGroup
	for bi := range uint32(4) {
		wg.Go(func() {
			want := uint8(0)
			for i := range uint32(20000) {
				h := i * 0x9e3779b9
				switch i % 3 {
				case 0, 1:
					s.Add(bi, h)
					want |= SummaryBit(h)
				default:
					want = SummaryBit(h) | uint8(i)&0x11
					s.Set(bi, want)
				}
				if got := s.Get(bi); got != want {
					t.Errorf("bucket %d after step %d: %08b, want %08b", bi, i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
