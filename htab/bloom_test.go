package htab

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBloomBitsIsTheKernels(t *testing.T) {
	for _, tt := range []struct {
		entries int64 // int64: the cases past 2^31-1 are not ints on 32-bit platforms
		hashes  int
		bits    uint64
	}{
		{1000, 3, 8192}, {1000, 5, 8192}, {10, 5, 128}, {1, 1, 64}, {100000, 5, 1 << 20},
		{45, 1, 64},              // 45*1/5*7 = 63: at least 64
		{46, 1, 64},              // 9*7 = 63
		{50, 1, 128},             // 70: the next power of two
		{1 << 28, 8, 1 << 32},    // 2^31 / 5 * 7 passes 2^31
		{1 << 31, 2, 1 << 32},    // 2^32 overflows the first product
		{306783378, 1, 1 << 29},  // / 5 * 7 = 429496725: rounded up
		{1533916891, 1, 1 << 31}, // / 5 * 7 = 2147483646: under the limit
		{1<<31 - 1, 15, 1 << 32}, // overflow
		{1 << 20, 15, 1 << 25},   // 15 Mi / 5 * 7 = 22020096
		{1533916895, 1, 1 << 32}, // / 5 * 7 = 2147483653: past 2^31
	} {
		if tt.entries > math.MaxInt {
			continue // no such map here: MaxEntries is an int
		}
		assert.Equal(t, tt.bits, BloomBits(int(tt.entries), tt.hashes), "max_entries %d, %d hashes", tt.entries, tt.hashes)
	}
}

func TestBloomFalsePositive(t *testing.T) {
	// 10 bits per value, 7 hashes: the classic 0.82 %.
	assert.InDelta(t, 0.0082, BloomFalsePositive(10000, 7, 1000), 0.0002)
	assert.Equal(t, 0.0, BloomFalsePositive(64, 3, 0))
}

func TestFilterFalsePositive(t *testing.T) {
	// 10 bits a key, 7 hashes: about 0.95 % blocked against 0.82 % (Putze et al.).
	bits := uint64(512 * 1000)
	assert.InDelta(t, 0.0095, FilterFalsePositive(bits, 7, int(bits/10)), 0.0015)
	assert.Greater(t, FilterFalsePositive(bits, 7, int(bits/10)), BloomFalsePositive(bits, 7, int(bits/10)))
	assert.Equal(t, 0.0, FilterFalsePositive(bits, 3, 0))
}
