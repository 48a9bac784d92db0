package bloom

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// filter is a generated bloom filter map seen byte by byte, as the kernel's
// is through bpf(2).
type filter struct {
	push  func(v []byte)
	peek  func(v []byte) bool
	bits  func() uint64
	bytes int // value size
}

// filterOf makes a filter of the generated type N (values V) with opts.
func filterOf[V any, N interface {
	Push(V) error
	Peek(V) bool
	Bits() uint64
}](newN func(htab.Options) (N, error)) func(t *testing.T, opts htab.Options) filter {
	return func(t *testing.T, opts htab.Options) filter {
		m, err := newN(opts)
		require.NoError(t, err)
		var v V
		return filter{
			push:  func(b []byte) { require.NoError(t, m.Push(*(*V)(unsafe.Pointer(&b[0])))) },
			peek:  func(b []byte) bool { return m.Peek(*(*V)(unsafe.Pointer(&b[0]))) },
			bits:  m.Bits,
			bytes: int(unsafe.Sizeof(v)),
		}
	}
}

// bloomDiffCases are the generated filters the differential compares with
// the kernel's BPF_MAP_TYPE_BLOOM_FILTER: value sizes 1..256, multiples of 4
// (the kernel's jhash2) and not (its jhash), and each form of the hash.
var bloomDiffCases = []struct {
	name string
	make func(t *testing.T, opts htab.Options) filter
}{
	{"V1", filterOf(NewV1)}, {"V2", filterOf(NewV2)}, {"V3", filterOf(NewV3)}, {"V4", filterOf(NewV4)},
	{"V5", filterOf(NewV5)}, {"V7", filterOf(NewV7)}, {"V8", filterOf(NewV8)}, {"V12", filterOf(NewV12)},
	{"V13", filterOf(NewV13)}, {"V16", filterOf(NewV16)}, {"V40", filterOf(NewV40)}, {"V64", filterOf(NewV64)},
	{"V100", filterOf(NewV100)}, {"V256", filterOf(NewV256)},
	{"V8Jhash2", filterOf(NewV8Jhash2)}, {"V40Jhash2", filterOf(NewV40Jhash2)},
	{"V5Jhash", filterOf(NewV5Jhash)}, {"V8Jhash", filterOf(NewV8Jhash)},
}

// TestKernelDifferentialBloom (with -short: one round of 2,000 values a case,
// and no full filter) pushes the same random values into a generated
// filter and the kernel's bloom filter map (BPF_F_ZERO_SEED, map_extra the
// number of hashes), for every value size of bloomDiffCases, 1..15 hashes
// and max_entries from 1 to 1,000,000, and requires the same answer from
// every Peek: of pushed values (as many as max_entries, up to 20,000; and
// one filter of 1,000,000 pushed full, 20,000 of them peeked), and of 20,000
// random probes, false positives included. HTAB_BLOOM_HUGE=1 also compares a filter whose size
// overflows the kernel's arithmetic (a 512 MiB bit array on each side).
func TestKernelDifferentialBloom(t *testing.T) {
	kernel.Require(t)
	rng := rand.New(rand.NewPCG(kernel.Seed(t, 1), 2))
	sizes := []int{1, 2, 3, 10, 100, 1000, 10000, 100000, 1000000}
	rounds, n := 4, 20000
	if testing.Short() {
		rounds, n = 1, 2000
	}
	for ci, c := range bloomDiffCases {
		for round := range rounds {
			max := sizes[rng.IntN(len(sizes))]
			if round == 0 {
				max = 1000000 // every value size once at the largest size
			}
			// Every hash count 1..15, each for several value sizes.
			hashes := 1 + (4*ci+round)%htab.MaxBloomHashes
			t.Run(fmt.Sprintf("%s/max=%d/hashes=%d", c.name, max, hashes), func(t *testing.T) {
				compareBloom(t, c.make, max, hashes, rng, n, n)
			})
		}
	}
	// One filter of 1,000,000 entries pushed full, where its false
	// positives (about 3 % with 3 hashes) are many.
	t.Run("V8/max=1000000/hashes=3/full", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: pushing 1,000,000 values into the kernel's map takes seconds")
		}
		compareBloom(t, filterOf(NewV8), 1000000, 3, rng, 1000000, 20000)
	})
	if os.Getenv("HTAB_BLOOM_HUGE") == "1" {
		// max_entries * 15 passes 2^32: the kernel's mask is U32_MAX.
		t.Run("V8/overflow", func(t *testing.T) { compareBloom(t, filterOf(NewV8), 300000000, 15, rng, 20000, 20000) })
	} else {
		t.Log("HTAB_BLOOM_HUGE=1 also compares the sizing that overflows 32 bits (512 MiB on each side)")
	}
}

// compareBloom pushes as many random values as max, up to pushes, into a
// generated filter and the kernel's, then compares every Peek.
func compareBloom(t *testing.T, makeFilter func(*testing.T, htab.Options) filter, max, hashes int, rng *rand.Rand, pushes, probes int) {
	opts := htab.Options{MaxEntries: max, ZeroSeed: true, BloomHashes: hashes}
	g := makeFilter(t, opts)
	km, err := kernel.New(htab.BloomFilter, 0, g.bytes, opts)
	require.NoError(t, err)
	defer km.Close()
	require.Equal(t, htab.BloomBits(max, hashes), g.bits(), "the bit array's size")
	value := func() []byte {
		v := make([]byte, g.bytes)
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		return v
	}
	var pushed [][]byte
	for range min(max, pushes) {
		v := value()
		g.push(v)
		require.NoError(t, km.Push(v))
		pushed = append(pushed, v)
	}
	// Pushed values (a sample of probes of them, if there are more), then
	// random ones.
	rng.Shuffle(len(pushed), func(i, j int) { pushed[i], pushed[j] = pushed[j], pushed[i] })
	check := pushed[:min(len(pushed), probes)]
	for range probes {
		check = append(check, value())
	}
	for _, v := range check {
		want, err := km.Peek(v)
		require.NoError(t, err)
		require.Equal(t, want, g.peek(v), "Peek(%x): the kernel says %v", v, want)
	}
}
