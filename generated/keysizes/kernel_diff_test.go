package keysizes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// ksDiffCases are the maps TestKernelDifferentialSizes compares with the
// kernel's BPF_MAP_TYPE_HASH of the same key and value sizes: keys that are
// not a multiple of 4 (the byte tail of the hash and the zero-padded words of
// the element), the loop path above 64 bytes, and odd value sizes, in both
// layouts.
var ksDiffCases = []struct {
	name     string
	key, val int
	run      func(t *testing.T, o htab.Options, seed uint64)
}{
	{"K1", 1, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK1(o)), 1, 8, o, s) }},
	{"K2", 2, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK2(o)), 2, 8, o, s) }},
	{"K5", 5, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK5(o)), 5, 8, o, s) }},
	{"K7", 7, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK7(o)), 7, 8, o, s) }},
	{"K31", 31, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK31(o)), 31, 8, o, s) }},
	{"K65", 65, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK65(o)), 65, 8, o, s) }},
	{"K65Jhash", 65, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK65Jhash(o)), 65, 8, o, s) }},
	{"K257", 257, 8, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK257(o)), 257, 8, o, s) }},
	{"K3V13", 3, 13, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK3V13(o)), 3, 13, o, s) }},
	{"K13V1", 13, 1, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK13V1(o)), 13, 1, o, s) }},
	{"K6V64", 6, 64, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK6V64(o)), 6, 64, o, s) }},
	{"K13V13Classic", 13, 13, func(t *testing.T, o htab.Options, s uint64) {
		ksKernelDiff(t, must(NewK13V13Classic(o)), 13, 13, o, s)
	}},
	{"K1V3Classic", 1, 3, func(t *testing.T, o htab.Options, s uint64) { ksKernelDiff(t, must(NewK1V3Classic(o)), 1, 3, o, s) }},
}

func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}

// TestKernelDifferentialSizes runs the same random operations (updates with
// every flag, invalid ones too, deletes, lookups, lookup-and-deletes and
// NextKey) on each map of ksDiffCases and on the kernel's map, both with a
// zero seed, comparing every result and, every so often and at the end, the
// whole iteration order and every value.
func TestKernelDifferentialSizes(t *testing.T) {
	kernel.Require(t)
	for _, c := range ksDiffCases {
		for _, max := range []int{3, 100, 1000} {
			for _, prealloc := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/max=%d/prealloc=%v", c.name, max, prealloc), func(t *testing.T) {
					c.run(t, htab.Options{MaxEntries: max, ZeroSeed: true, NoPrealloc: !prealloc, CPUs: 1}, kernel.Seed(t, 11))
				})
			}
		}
	}
}

// ksBytes is the bytes of an array type ([N]byte keys and values) in place.
func ksBytes[T any](x *T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(x)), unsafe.Sizeof(*x)) }

func ksKernelDiff[K, V comparable](t *testing.T, m ksMap[K, V], keySize, valSize int, o htab.Options, seed uint64) {
	var k0 K
	var v0 V
	require.Equal(t, keySize, len(ksBytes(&k0)), "key size")
	require.Equal(t, valSize, len(ksBytes(&v0)), "value size")
	km, err := kernel.New(htab.Hash, keySize, valSize, o)
	require.NoError(t, err)
	defer km.Close()

	rng := rand.New(rand.NewPCG(uint64(o.MaxEntries), seed))
	keySpace := 2*o.MaxEntries + 2
	if keySize == 1 {
		keySpace = min(keySpace, 256)
	}
	// Key i: i little-endian in the first bytes (so 1-byte keys stay
	// distinct), then bytes of a hash of i, so that every byte of the key
	// (the hash's tail too) takes part.
	key := func(i int) (k K) {
		b := ksBytes(&k)
		x := uint64(i)
		for j := range b {
			if j < 2 {
				b[j] = byte(x >> (8 * j))
				continue
			}
			b[j] = byte((x*0x9e3779b97f4a7c15 + uint64(j)*0xbf58476d1ce4e5b9) >> 56)
		}
		return k
	}
	val := func() (v V) {
		for i := range ksBytes(&v) {
			ksBytes(&v)[i] = byte(rng.Uint32())
		}
		return v
	}
	sameOrder := func(step int) {
		t.Helper()
		var want, got [][]byte
		for k, err := km.NextKey(nil); err == nil; k, err = km.NextKey(k) {
			want = append(want, k)
		}
		for k := range m.All() {
			got = append(got, append([]byte(nil), ksBytes(&k)...))
		}
		require.Equal(t, want, got, "step %d: iteration order", step)
		require.Equal(t, len(want), m.Len(), "step %d: Len", step)
		for _, kb := range want {
			var k K
			copy(ksBytes(&k), kb)
			wv, err := km.Lookup(kb)
			require.NoError(t, err)
			gv, ok := m.Lookup(k)
			require.True(t, ok, "step %d: Lookup(%x)", step, kb)
			require.Equal(t, wv, ksBytes(&gv), "step %d: Lookup(%x)", step, kb)
		}
	}
	steps := min(3000, 30*o.MaxEntries+300)
	for step := range steps {
		k := key(rng.IntN(keySpace))
		kb := ksBytes(&k)
		switch op := rng.IntN(10); {
		case op < 5:
			flags := uint64(rng.IntN(3))
			if rng.IntN(20) == 0 {
				flags = []uint64{3, 4, ^uint64(0)}[rng.IntN(3)]
			}
			v := val()
			kernel.RequireSameErr(t, km.Update(kb, ksBytes(&v), flags), m.Update(k, v, htab.UpdateFlags(flags)), "step %d: Update(%x, flags %#x)", step, kb, flags)
		case op < 7:
			kernel.RequireSameErr(t, km.Delete(kb), m.Delete(k), "step %d: Delete(%x)", step, kb)
		case op < 8:
			want, werr := km.LookupAndDelete(kb)
			got, gerr := m.LookupAndDelete(k)
			kernel.RequireSameErr(t, werr, gerr, "step %d: LookupAndDelete(%x)", step, kb)
			if werr == nil {
				require.Equal(t, want, ksBytes(&got), "step %d: LookupAndDelete(%x)", step, kb)
			}
		case op < 9:
			want, werr := km.Lookup(kb)
			got, ok := m.Lookup(k)
			require.Equal(t, werr == nil, ok, "step %d: Lookup(%x): kernel %v", step, kb, werr)
			if ok {
				require.Equal(t, want, ksBytes(&got), "step %d: Lookup(%x)", step, kb)
			}
		default:
			var kp *K
			var kpb []byte
			if rng.IntN(2) == 0 {
				kp, kpb = &k, kb
			}
			want, werr := km.NextKey(kpb)
			got, gerr := m.NextKey(kp)
			kernel.RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, kpb)
			if werr == nil {
				require.Equal(t, want, ksBytes(&got), "step %d: NextKey(%x)", step, kpb)
			}
		}
		if step%(steps/4) == steps/4-1 {
			sameOrder(step)
		}
	}
	sameOrder(steps)
}
