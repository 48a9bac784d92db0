package htab

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var optTestAllTypes = []MapType{Hash, PerCPUHash, LRUHash, LRUPerCPUHash, BloomFilter}

// optTestInvalid asserts that o is rejected for t with ErrInvalid and a
// message that names the offending option.
func optTestInvalid(t *testing.T, o Options, typ MapType, names string) {
	t.Helper()
	_, err := o.Check(typ)
	require.Error(t, err, "%s map, %+v", typ, o)
	assert.True(t, errors.Is(err, ErrInvalid), "%s map, %+v: %v is not ErrInvalid", typ, o, err)
	assert.Contains(t, err.Error(), names, "%s map, %+v: the message should name the option", typ, o)
}

func TestOptionsCheckMaxEntries(t *testing.T) {
	for _, typ := range optTestAllTypes {
		for _, n := range []int{0, -1, math.MinInt} {
			optTestInvalid(t, Options{MaxEntries: n}, typ, "MaxEntries")
		}
		ok := []int{1, 2, 1000}
		if limit := int64(MaxMaxEntries); int64(math.MaxInt) > limit { // 64-bit int
			optTestInvalid(t, Options{MaxEntries: int(limit + 1)}, typ, "MaxEntries")
			optTestInvalid(t, Options{MaxEntries: math.MaxInt}, typ, "MaxEntries")
			ok = append(ok, int(limit))
		}
		for _, n := range ok {
			o, err := Options{MaxEntries: n}.Check(typ)
			require.NoError(t, err, "%s map, MaxEntries %d", typ, n)
			assert.Equal(t, n, o.MaxEntries)
		}
	}
}

func TestOptionsCheckCPUs(t *testing.T) {
	for _, typ := range optTestAllTypes {
		o, err := Options{MaxEntries: 1}.Check(typ)
		require.NoError(t, err)
		assert.Equal(t, runtime.NumCPU(), o.CPUs, "%s map: CPUs 0 means runtime.NumCPU()", typ)

		for _, n := range []int{1, 3, 64, 1 << 16} {
			o, err := Options{MaxEntries: 1, CPUs: n}.Check(typ)
			require.NoError(t, err, "%s map, CPUs %d", typ, n)
			assert.Equal(t, n, o.CPUs, "%s map: an explicit CPUs is kept", typ)
		}
		for _, n := range []int{-1, 1<<16 + 1} {
			optTestInvalid(t, Options{MaxEntries: 1, CPUs: n}, typ, "CPUs")
		}
	}
}

func TestOptionsCheckNoPrealloc(t *testing.T) {
	for _, typ := range optTestAllTypes {
		o := Options{MaxEntries: 8, NoPrealloc: true}
		if typ.IsLRU() || typ == BloomFilter {
			optTestInvalid(t, o, typ, "NoPrealloc")
			continue
		}
		got, err := o.Check(typ)
		require.NoError(t, err, "%s map", typ)
		assert.True(t, got.NoPrealloc)
	}
}

func TestOptionsCheckNoCommonLRU(t *testing.T) {
	for _, typ := range optTestAllTypes {
		o := Options{MaxEntries: 8, NoCommonLRU: true}
		if !typ.IsLRU() {
			optTestInvalid(t, o, typ, "NoCommonLRU")
			continue
		}
		got, err := o.Check(typ)
		require.NoError(t, err, "%s map", typ)
		assert.True(t, got.NoCommonLRU)
	}
	// Both LRU-only mistakes at once are still ErrInvalid.
	_, err := Options{MaxEntries: 8, NoCommonLRU: true, NoPrealloc: true}.Check(LRUHash)
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestOptionsCheckNoCommonLRURounding: per-CPU LRU lists round MaxEntries up
// to a multiple of CPUs, and the kernel checks the limit after that
// rounding (htab_map_alloc): 2^31 on 3 CPUs would be 2^31+1.
func TestOptionsCheckNoCommonLRURounding(t *testing.T) {
	if math.MaxInt/2 < MaxMaxEntries {
		t.Skip("on 32-bit platforms MaxEntries stops at 2^30, far from the rounding's reach")
	}
	limit := int64(MaxMaxEntries) // a variable: the constant overflows int on 32-bit builds
	for _, typ := range []MapType{LRUHash, LRUPerCPUHash} {
		o := Options{MaxEntries: int(limit), CPUs: 3, NoCommonLRU: true}
		optTestInvalid(t, o, typ, "rounds up to 2147483649")
		o.CPUs = 2 // 2 divides 2^31: no rounding
		_, err := o.Check(typ)
		require.NoError(t, err, "%s map", typ)
		o.CPUs, o.NoCommonLRU = 3, false // the common LRU does not round
		_, err = o.Check(typ)
		require.NoError(t, err, "%s map", typ)
	}
}

func TestOptionsCheckBloomHashes(t *testing.T) {
	for n := 0; n <= 15; n++ {
		o, err := Options{MaxEntries: 8, BloomHashes: n}.Check(BloomFilter)
		require.NoError(t, err, "BloomHashes %d", n)
		assert.Equal(t, n, o.BloomHashes)
	}
	for _, n := range []int{-1, 16, 100} {
		optTestInvalid(t, Options{MaxEntries: 8, BloomHashes: n}, BloomFilter, "BloomHashes")
	}
	for _, typ := range optTestAllTypes {
		if typ == BloomFilter {
			continue
		}
		optTestInvalid(t, Options{MaxEntries: 8, BloomHashes: 3}, typ, "BloomHashes")
		_, err := Options{MaxEntries: 8}.Check(typ)
		assert.NoError(t, err, "%s map: BloomHashes 0 is fine", typ)
	}
}

func TestOptionsCheckMessageNamesType(t *testing.T) {
	for _, typ := range optTestAllTypes {
		_, err := Options{}.Check(typ)
		require.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), typ.String())
	}
}

func TestMapTypeString(t *testing.T) {
	assert.Equal(t, "hash", Hash.String())
	assert.Equal(t, "pcpu", PerCPUHash.String())
	assert.Equal(t, "lru", LRUHash.String())
	assert.Equal(t, "lru_pcpu", LRUPerCPUHash.String())
	assert.Equal(t, "bloom", BloomFilter.String())
	assert.Equal(t, "MapType(200)", MapType(200).String())
	assert.True(t, LRUHash.IsLRU())
	assert.True(t, LRUPerCPUHash.IsLRU())
	assert.False(t, Hash.IsLRU())
	assert.False(t, PerCPUHash.IsLRU())
	assert.False(t, BloomFilter.IsLRU())
}

func TestOptionsSeed(t *testing.T) {
	for range 100 {
		assert.Zero(t, Options{MaxEntries: 1, ZeroSeed: true}.Seed())
	}
	// Random seeds: 16 draws that are all equal would be a broken generator.
	seen := map[uint32]bool{}
	for range 16 {
		seen[Options{MaxEntries: 1}.Seed()] = true
	}
	assert.Greater(t, len(seen), 1, "random seeds should differ")
	// Check keeps ZeroSeed.
	o, err := Options{MaxEntries: 1, ZeroSeed: true}.Check(Hash)
	require.NoError(t, err)
	assert.Zero(t, o.Seed())
}

func TestUpdateFlagsCheck(t *testing.T) {
	for _, f := range []UpdateFlags{UpdateAny, UpdateNoExist, UpdateExist, 0, 1, 2} {
		assert.NoError(t, f.Check(), "flags %d", f)
	}
	for _, f := range []UpdateFlags{3, 4, 8, 16, 1 << 32, ^UpdateFlags(0)} {
		err := f.Check()
		require.Error(t, err, "flags %#x", uint64(f))
		assert.True(t, errors.Is(err, ErrInvalid), "flags %#x: %v", uint64(f), err)
		assert.Contains(t, err.Error(), fmt.Sprintf("%#x", uint64(f)), "the message names the flags")
	}
}

func TestErrorsDistinct(t *testing.T) {
	errs := []error{ErrKeyNotExist, ErrKeyExist, ErrFull, ErrNoSpace, ErrInvalid}
	for i, a := range errs {
		for j, b := range errs {
			assert.Equal(t, i == j, errors.Is(a, b), "%v vs %v", a, b)
		}
		assert.ErrorIs(t, fmt.Errorf("wrapped: %w", a), a)
	}
}

func TestCPUOutOfRange(t *testing.T) {
	require.PanicsWithValue(t, "Conns.CPU(4): want 0 <= i < CPUs() = 4", func() { CPUOutOfRange("Conns", 4, 4) })
}
