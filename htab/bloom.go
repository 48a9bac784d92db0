package htab

import (
	"math"
	"math/bits"
)

// BloomBits is the size in bits of the bit array of a kernel bloom filter
// map (BPF_MAP_TYPE_BLOOM_FILTER) of maxEntries values and hashes hash
// functions, as kernel/bpf/bloom_filter.c's bloom_map_alloc sizes it: n*k
// bits times 7/5 (an approximation of 1/ln 2, the size that minimizes false
// positives), the division first, rounded up to a power of two, at least 64;
// 2^32 when either multiplication overflows 32 bits or the product passes
// 2^31 (the kernel then uses a mask of U32_MAX, an array of 512 MiB).
func BloomBits(maxEntries, hashes int) uint64 {
	n := uint64(uint32(maxEntries)) * uint64(uint32(hashes))
	if n > math.MaxUint32 {
		return 1 << 32
	}
	n = n / 5 * 7
	if n > math.MaxUint32 || n > 1<<31 {
		return 1 << 32
	}
	if n <= 64 {
		return 64
	}
	return 1 << bits.Len64(n-1)
}

// BloomFalsePositive is the textbook false-positive rate of a bloom filter
// of bits bits and hashes hash functions holding n values: (1 - e^(-kn/m))^k.
func BloomFalsePositive(bits uint64, hashes, n int) float64 {
	k := float64(hashes)
	return math.Pow(1-math.Exp(-k*float64(n)/float64(bits)), k)
}
