package htab

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
)

// MaxMaxEntries is the limit on max_entries (2^31), the kernel's first
// check; the kernel (6.18) refuses hash maps over 2^27 entries later, for the
// size of its bucket array.
const MaxMaxEntries = 1 << 31

// MaxBloomHashes is the most hash functions a bloom filter may have, as the
// kernel's BPF_MAP_TYPE_BLOOM_FILTER allows (the low 4 bits of map_extra).
const MaxBloomHashes = 15

// Options are the creation attributes of a map, the userspace twin of the
// kernel's max_entries and map_flags.
type Options struct {
	MaxEntries  int  // required: 1..2^31
	ZeroSeed    bool // hash seed 0 (BPF_F_ZERO_SEED); otherwise a random seed per map
	NoPrealloc  bool // allocate elements on demand (BPF_F_NO_PREALLOC); an error for LRU types
	CPUs        int  // per-CPU and LRU types: number of CPU slots; 0 means runtime.NumCPU()
	NoCommonLRU bool // LRU types: per-CPU LRU lists (BPF_F_NO_COMMON_LRU)
	BloomHashes int  // bloom: number of hash functions; 0 means the spec's -hashes
}

// Check validates o for a map of type t, as the kernel's map_alloc_check does,
// and returns it with defaults filled in: CPUs set to runtime.NumCPU() when 0.
// Errors wrap ErrInvalid and name the option, its value and what is allowed.
func (o Options) Check(t MapType) (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return o, fmt.Errorf("%w: %s map: %s", ErrInvalid, t, fmt.Sprintf(format, args...))
	}
	// On 32-bit platforms the cap is 2^30, so that the bucket count fits an int.
	if o.MaxEntries < 1 || int64(o.MaxEntries) > MaxMaxEntries || int64(o.MaxEntries) > math.MaxInt/2 {
		return bad("MaxEntries %d (allowed: 1..%d)", o.MaxEntries, min(int64(MaxMaxEntries), math.MaxInt/2))
	}
	if o.CPUs < 0 || o.CPUs > 1<<16 {
		return bad("CPUs %d (allowed: 0 for runtime.NumCPU(), or 1..65536)", o.CPUs)
	}
	if o.CPUs == 0 {
		o.CPUs = runtime.NumCPU()
	}
	if o.NoPrealloc && t.IsLRU() {
		return bad("NoPrealloc is not supported by LRU maps (the kernel answers ENOTSUPP)")
	}
	if o.NoPrealloc && t == BloomFilter {
		return bad("NoPrealloc does not apply to bloom filters (the kernel answers EINVAL)")
	}
	if o.NoCommonLRU && !t.IsLRU() {
		return bad("NoCommonLRU applies only to LRU maps")
	}
	if o.NoCommonLRU {
		// htab_map_alloc checks the limit after rounding up for per-CPU lists.
		if r := LRUMaxEntries(o.MaxEntries, o.CPUs, true); int64(r) > MaxMaxEntries || int64(r) > math.MaxInt/2 {
			return bad("MaxEntries %d rounds up to %d, a multiple of CPUs %d for NoCommonLRU, past the limit %d",
				o.MaxEntries, r, o.CPUs, min(int64(MaxMaxEntries), math.MaxInt/2))
		}
	}
	if o.BloomHashes != 0 && t != BloomFilter {
		return bad("BloomHashes applies only to bloom filter maps")
	}
	if o.BloomHashes < 0 || o.BloomHashes > MaxBloomHashes {
		return bad("BloomHashes %d (allowed: 0 for the spec's default, or 1..%d)", o.BloomHashes, MaxBloomHashes)
	}
	return o, nil
}

// Seed returns the map's hash seed: 0 under ZeroSeed, else a random value.
func (o Options) Seed() uint32 {
	if o.ZeroSeed {
		return 0
	}
	return rand.Uint32()
}

// CPUOutOfRange panics for the CPU(i) method of the map named name, which has
// cpus CPU slots: generated code calls it when i is outside 0..cpus-1. It is
// never inlined, so that CPU itself stays small enough to be.
//
//go:noinline
func CPUOutOfRange(name string, i, cpus int) {
	panic(fmt.Sprintf("%s.CPU(%d): want 0 <= i < CPUs() = %d", name, i, cpus))
}
