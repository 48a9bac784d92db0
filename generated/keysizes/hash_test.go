package keysizes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/htabgen/htabgen/htab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ksCase is one generated map of this package, reached through closures
// because every map has its own key type.
type ksCase struct {
	name string
	size int // key size in bytes
	// hasher returns the map's own hash function (m.hash over k.words()) with
	// the map's seed set to seed.
	hasher func(t *testing.T, seed uint32) func(key []byte) uint32
	// roundTrip creates the map with o and runs ksRoundTrip on it.
	roundTrip func(t *testing.T, o htab.Options, keys [][]byte, absent []byte)
}

// ksZeroSeed are the options the hashers are made with: seed 0 to start with.
var ksZeroSeed = htab.Options{MaxEntries: 1, ZeroSeed: true}

// ksCases lists every map of gen.go with 8-byte values (the others are
// kernel_diff_test.go's). Keep it in step with gen.go.
var ksCases = []ksCase{
	{
		name: "K1", size: 1,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK1(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K1Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK1(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K1Key) { copy(k[:], b); return },
				func(i uint32) (v K1Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K2", size: 2,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK2(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K2Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK2(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K2Key) { copy(k[:], b); return },
				func(i uint32) (v K2Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K3", size: 3,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK3(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K3Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK3(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K3Key) { copy(k[:], b); return },
				func(i uint32) (v K3Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K4", size: 4,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK4(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K4Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK4(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K4Key) { copy(k[:], b); return },
				func(i uint32) (v K4Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K5", size: 5,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK5(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K5Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK5(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K5Key) { copy(k[:], b); return },
				func(i uint32) (v K5Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K6", size: 6,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK6(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K6Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK6(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K6Key) { copy(k[:], b); return },
				func(i uint32) (v K6Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K7", size: 7,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK7(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K7Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK7(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K7Key) { copy(k[:], b); return },
				func(i uint32) (v K7Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K8", size: 8,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK8(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K8Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK8(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K8Key) { copy(k[:], b); return },
				func(i uint32) (v K8Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K9", size: 9,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK9(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K9Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK9(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K9Key) { copy(k[:], b); return },
				func(i uint32) (v K9Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K10", size: 10,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK10(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K10Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK10(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K10Key) { copy(k[:], b); return },
				func(i uint32) (v K10Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K11", size: 11,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK11(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K11Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK11(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K11Key) { copy(k[:], b); return },
				func(i uint32) (v K11Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K12", size: 12,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK12(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K12Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK12(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K12Key) { copy(k[:], b); return },
				func(i uint32) (v K12Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K13", size: 13,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK13(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K13Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK13(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K13Key) { copy(k[:], b); return },
				func(i uint32) (v K13Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K14", size: 14,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK14(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K14Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK14(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K14Key) { copy(k[:], b); return },
				func(i uint32) (v K14Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K15", size: 15,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK15(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K15Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK15(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K15Key) { copy(k[:], b); return },
				func(i uint32) (v K15Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K16", size: 16,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK16(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K16Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK16(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K16Key) { copy(k[:], b); return },
				func(i uint32) (v K16Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K17", size: 17,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK17(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K17Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK17(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K17Key) { copy(k[:], b); return },
				func(i uint32) (v K17Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K18", size: 18,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK18(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K18Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK18(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K18Key) { copy(k[:], b); return },
				func(i uint32) (v K18Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K19", size: 19,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK19(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K19Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK19(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K19Key) { copy(k[:], b); return },
				func(i uint32) (v K19Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K20", size: 20,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK20(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K20Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK20(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K20Key) { copy(k[:], b); return },
				func(i uint32) (v K20Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K21", size: 21,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK21(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K21Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK21(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K21Key) { copy(k[:], b); return },
				func(i uint32) (v K21Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K22", size: 22,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK22(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K22Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK22(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K22Key) { copy(k[:], b); return },
				func(i uint32) (v K22Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K23", size: 23,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK23(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K23Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK23(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K23Key) { copy(k[:], b); return },
				func(i uint32) (v K23Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K24", size: 24,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK24(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K24Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK24(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K24Key) { copy(k[:], b); return },
				func(i uint32) (v K24Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K25", size: 25,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK25(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K25Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK25(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K25Key) { copy(k[:], b); return },
				func(i uint32) (v K25Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K26", size: 26,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK26(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K26Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK26(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K26Key) { copy(k[:], b); return },
				func(i uint32) (v K26Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K27", size: 27,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK27(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K27Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK27(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K27Key) { copy(k[:], b); return },
				func(i uint32) (v K27Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K28", size: 28,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK28(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K28Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK28(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K28Key) { copy(k[:], b); return },
				func(i uint32) (v K28Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K29", size: 29,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK29(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K29Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK29(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K29Key) { copy(k[:], b); return },
				func(i uint32) (v K29Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K30", size: 30,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK30(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K30Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK30(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K30Key) { copy(k[:], b); return },
				func(i uint32) (v K30Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K31", size: 31,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK31(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K31Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK31(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K31Key) { copy(k[:], b); return },
				func(i uint32) (v K31Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K32", size: 32,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK32(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K32Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK32(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K32Key) { copy(k[:], b); return },
				func(i uint32) (v K32Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K33", size: 33,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK33(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K33Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK33(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K33Key) { copy(k[:], b); return },
				func(i uint32) (v K33Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K34", size: 34,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK34(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K34Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK34(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K34Key) { copy(k[:], b); return },
				func(i uint32) (v K34Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K35", size: 35,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK35(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K35Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK35(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K35Key) { copy(k[:], b); return },
				func(i uint32) (v K35Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K36", size: 36,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK36(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K36Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK36(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K36Key) { copy(k[:], b); return },
				func(i uint32) (v K36Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K37", size: 37,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK37(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K37Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK37(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K37Key) { copy(k[:], b); return },
				func(i uint32) (v K37Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K38", size: 38,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK38(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K38Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK38(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K38Key) { copy(k[:], b); return },
				func(i uint32) (v K38Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K39", size: 39,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK39(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K39Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK39(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K39Key) { copy(k[:], b); return },
				func(i uint32) (v K39Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K40", size: 40,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK40(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K40Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK40(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K40Key) { copy(k[:], b); return },
				func(i uint32) (v K40Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K41", size: 41,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK41(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K41Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK41(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K41Key) { copy(k[:], b); return },
				func(i uint32) (v K41Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K42", size: 42,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK42(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K42Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK42(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K42Key) { copy(k[:], b); return },
				func(i uint32) (v K42Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K43", size: 43,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK43(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K43Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK43(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K43Key) { copy(k[:], b); return },
				func(i uint32) (v K43Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K44", size: 44,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK44(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K44Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK44(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K44Key) { copy(k[:], b); return },
				func(i uint32) (v K44Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K45", size: 45,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK45(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K45Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK45(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K45Key) { copy(k[:], b); return },
				func(i uint32) (v K45Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K46", size: 46,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK46(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K46Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK46(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K46Key) { copy(k[:], b); return },
				func(i uint32) (v K46Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K47", size: 47,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK47(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K47Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK47(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K47Key) { copy(k[:], b); return },
				func(i uint32) (v K47Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K48", size: 48,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK48(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K48Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK48(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K48Key) { copy(k[:], b); return },
				func(i uint32) (v K48Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K49", size: 49,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK49(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K49Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK49(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K49Key) { copy(k[:], b); return },
				func(i uint32) (v K49Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K50", size: 50,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK50(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K50Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK50(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K50Key) { copy(k[:], b); return },
				func(i uint32) (v K50Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K51", size: 51,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK51(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K51Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK51(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K51Key) { copy(k[:], b); return },
				func(i uint32) (v K51Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K52", size: 52,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK52(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K52Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK52(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K52Key) { copy(k[:], b); return },
				func(i uint32) (v K52Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K53", size: 53,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK53(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K53Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK53(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K53Key) { copy(k[:], b); return },
				func(i uint32) (v K53Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K54", size: 54,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK54(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K54Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK54(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K54Key) { copy(k[:], b); return },
				func(i uint32) (v K54Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K55", size: 55,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK55(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K55Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK55(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K55Key) { copy(k[:], b); return },
				func(i uint32) (v K55Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K56", size: 56,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK56(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K56Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK56(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K56Key) { copy(k[:], b); return },
				func(i uint32) (v K56Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K57", size: 57,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK57(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K57Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK57(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K57Key) { copy(k[:], b); return },
				func(i uint32) (v K57Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K58", size: 58,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK58(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K58Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK58(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K58Key) { copy(k[:], b); return },
				func(i uint32) (v K58Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K59", size: 59,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK59(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K59Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK59(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K59Key) { copy(k[:], b); return },
				func(i uint32) (v K59Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K60", size: 60,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK60(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K60Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK60(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K60Key) { copy(k[:], b); return },
				func(i uint32) (v K60Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K61", size: 61,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK61(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K61Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK61(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K61Key) { copy(k[:], b); return },
				func(i uint32) (v K61Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K62", size: 62,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK62(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K62Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK62(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K62Key) { copy(k[:], b); return },
				func(i uint32) (v K62Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K63", size: 63,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK63(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K63Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK63(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K63Key) { copy(k[:], b); return },
				func(i uint32) (v K63Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K64", size: 64,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK64(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K64Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK64(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K64Key) { copy(k[:], b); return },
				func(i uint32) (v K64Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K128", size: 128,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK128(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K128Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK128(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K128Key) { copy(k[:], b); return },
				func(i uint32) (v K128Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K512", size: 512,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK512(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K512Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK512(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K512Key) { copy(k[:], b); return },
				func(i uint32) (v K512Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K4112", size: 4112,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK4112(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K4112Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK4112(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K4112Key) { copy(k[:], b); return },
				func(i uint32) (v K4112Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K4Jhash2", size: 4,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK4Jhash2(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K4Jhash2Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK4Jhash2(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K4Jhash2Key) { copy(k[:], b); return },
				func(i uint32) (v K4Jhash2Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K12Jhash2", size: 12,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK12Jhash2(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K12Jhash2Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK12Jhash2(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K12Jhash2Key) { copy(k[:], b); return },
				func(i uint32) (v K12Jhash2Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K64Jhash2", size: 64,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK64Jhash2(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K64Jhash2Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK64Jhash2(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K64Jhash2Key) { copy(k[:], b); return },
				func(i uint32) (v K64Jhash2Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K4Jhash", size: 4,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK4Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K4JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK4Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K4JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K4JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K12Jhash", size: 12,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK12Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K12JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK12Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K12JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K12JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K13Jhash", size: 13,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK13Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K13JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK13Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K13JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K13JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K64Jhash", size: 64,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK64Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K64JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK64Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K64JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K64JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "Large4112", size: 4112,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewLarge4112(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k Large4112Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewLarge4112(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k Large4112Key) { copy(k[:], b); return },
				func(i uint32) (v Large4112Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K65", size: 65,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK65(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K65Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK65(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K65Key) { copy(k[:], b); return },
				func(i uint32) (v K65Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K73", size: 73,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK73(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K73Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK73(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K73Key) { copy(k[:], b); return },
				func(i uint32) (v K73Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K74", size: 74,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK74(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K74Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK74(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K74Key) { copy(k[:], b); return },
				func(i uint32) (v K74Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K75", size: 75,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK75(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K75Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK75(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K75Key) { copy(k[:], b); return },
				func(i uint32) (v K75Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K76", size: 76,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK76(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K76Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK76(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K76Key) { copy(k[:], b); return },
				func(i uint32) (v K76Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K77", size: 77,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK77(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K77Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK77(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K77Key) { copy(k[:], b); return },
				func(i uint32) (v K77Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K78", size: 78,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK78(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K78Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK78(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K78Key) { copy(k[:], b); return },
				func(i uint32) (v K78Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K79", size: 79,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK79(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K79Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK79(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K79Key) { copy(k[:], b); return },
				func(i uint32) (v K79Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K80", size: 80,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK80(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K80Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK80(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K80Key) { copy(k[:], b); return },
				func(i uint32) (v K80Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K81", size: 81,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK81(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K81Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK81(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K81Key) { copy(k[:], b); return },
				func(i uint32) (v K81Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K82", size: 82,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK82(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K82Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK82(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K82Key) { copy(k[:], b); return },
				func(i uint32) (v K82Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K83", size: 83,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK83(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K83Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK83(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K83Key) { copy(k[:], b); return },
				func(i uint32) (v K83Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K84", size: 84,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK84(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K84Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK84(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K84Key) { copy(k[:], b); return },
				func(i uint32) (v K84Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K100", size: 100,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK100(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K100Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK100(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K100Key) { copy(k[:], b); return },
				func(i uint32) (v K100Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K127", size: 127,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK127(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K127Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK127(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K127Key) { copy(k[:], b); return },
				func(i uint32) (v K127Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K257", size: 257,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK257(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K257Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK257(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K257Key) { copy(k[:], b); return },
				func(i uint32) (v K257Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K128Jhash2", size: 128,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK128Jhash2(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K128Jhash2Key
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK128Jhash2(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K128Jhash2Key) { copy(k[:], b); return },
				func(i uint32) (v K128Jhash2Value) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K65Jhash", size: 65,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK65Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K65JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK65Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K65JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K65JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K6Jhash", size: 6,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK6Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K6JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK6Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K6JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K6JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K10Jhash", size: 10,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK10Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K10JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK10Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K10JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K10JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
	{
		name: "K11Jhash", size: 11,
		hasher: func(t *testing.T, seed uint32) func([]byte) uint32 {
			m, err := NewK11Jhash(ksZeroSeed)
			require.NoError(t, err)
			require.Zero(t, m.seed, "ZeroSeed")
			m.seed = seed
			return func(b []byte) uint32 {
				var k K11JhashKey
				require.Equal(t, len(k), copy(k[:], b))
				w := k.words()
				return m.hash(&k, &w)
			}
		},
		roundTrip: func(t *testing.T, o htab.Options, keys [][]byte, absent []byte) {
			m, err := NewK11Jhash(o)
			require.NoError(t, err)
			ksRoundTrip(t, m,
				func(b []byte) (k K11JhashKey) { copy(k[:], b); return },
				func(i uint32) (v K11JhashValue) { binary.LittleEndian.PutUint32(v[:], i); return },
				keys, absent)
		},
	},
}

// TestKeysizesCoverGenGo: the table has every key size 1..64 and 128, 512, 4112.
func TestKeysizesCoverGenGo(t *testing.T) {
	sizes := map[int]bool{}
	names := map[string]bool{}
	for _, c := range ksCases {
		sizes[c.size] = true
		assert.False(t, names[c.name], "duplicate %s", c.name)
		names[c.name] = true
	}
	for _, n := range append(ksSeq(1, 64), 128, 512, 4112) {
		assert.True(t, sizes[n], "key size %d", n)
	}
	// Above 64 bytes the loop path: every tail length 1..12 is covered.
	tails := map[int]bool{}
	for _, c := range ksCases {
		if c.size > 64 {
			tails[(c.size-1)%12+1] = true
		}
	}
	for tail := 1; tail <= 12; tail++ {
		assert.True(t, tails[tail], "a key over 64 bytes with a %d-byte tail", tail)
	}
}

// TestGeneratedHashEqualsJhash: the generated hash equals htab.Jhash for every
// key size 1..64 and 128, 512, 4112, under the static, jhash2 and jhash
// variants, with seed 0 and random seeds.
func TestGeneratedHashEqualsJhash(t *testing.T) {
	r := rand.New(rand.NewPCG(0x6b657973, 0x697a6573))
	for _, c := range ksCases {
		t.Run(c.name, func(t *testing.T) {
			keys := ksHashKeys(r, c.size)
			for _, seed := range []uint32{0, 1, 0xdeadbeef, 0xffffffff, r.Uint32(), r.Uint32()} {
				h := c.hasher(t, seed)
				for _, k := range keys {
					want := htab.Jhash(k, seed)
					if got := h(k); got != want {
						t.Fatalf("%s: key %x seed %#x: generated hash %#x, htab.Jhash %#x",
							c.name, k, seed, got, want)
					}
				}
			}
		})
	}
}

// ksHashKeys: special keys (zero, all ones, ascending bytes, one-hot and
// one-cold at each position of a short key or of the first and last 64
// bytes of a long one) and random keys.
func ksHashKeys(r *rand.Rand, size int) [][]byte {
	var keys [][]byte
	fill := func(f func(i int) byte) []byte {
		k := make([]byte, size)
		for i := range k {
			k[i] = f(i)
		}
		return k
	}
	keys = append(keys,
		fill(func(int) byte { return 0 }),
		fill(func(int) byte { return 0xff }),
		fill(func(i int) byte { return byte(i) }),
		fill(func(i int) byte { return byte(size - i) }),
	)
	for _, p := range ksPositions(size) {
		keys = append(keys,
			fill(func(i int) byte { return ksB(i == p, 0x80, 0) }),
			fill(func(i int) byte { return ksB(i == p, 0x01, 0) }),
			fill(func(i int) byte { return ksB(i == p, 0, 0xff) }),
		)
	}
	n := 300
	if size > 512 {
		n = 100
	}
	for range n {
		keys = append(keys, fill(func(int) byte { return byte(r.Uint32()) }))
	}
	return keys
}

// ksPositions: every byte of a key up to 64 bytes, else the first and last 64.
func ksPositions(size int) []int {
	if size <= 64 {
		return ksSeq(0, size-1)
	}
	return append(ksSeq(0, 63), ksSeq(max(64, size-64), size-1)...)
}

func ksSeq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

func ksB(c bool, a, b byte) byte {
	if c {
		return a
	}
	return b
}

// TestRoundTripAllKeySizes: Update, Lookup, NextKey, All, Delete and
// LookupAndDelete on every map, with keys that differ only in the last byte
// (a tail bug collides them) and keys that differ in one byte each.
func TestRoundTripAllKeySizes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, c := range ksCases {
		t.Run(c.name, func(t *testing.T) {
			prefix := make([]byte, c.size)
			for i := range prefix {
				prefix[i] = byte(r.Uint32())
			}
			var lastByte [][]byte
			for i := range 32 {
				k := append([]byte(nil), prefix...)
				k[c.size-1] = byte(i)
				lastByte = append(lastByte, k)
			}
			absentLast := append([]byte(nil), prefix...)
			absentLast[c.size-1] = 0xff

			oneHot := [][]byte{make([]byte, c.size)}
			for _, p := range ksPositions(c.size) {
				k := make([]byte, c.size)
				k[p] = 0x80
				oneHot = append(oneHot, k)
			}
			absentHot := make([]byte, c.size)
			absentHot[0] |= 1
			absentHot[c.size-1] |= 2

			for _, o := range []htab.Options{
				{ZeroSeed: true},
				{},
				{NoPrealloc: true},
				{NoPrealloc: true, ZeroSeed: true},
			} {
				name := fmt.Sprintf("ZeroSeed=%v,NoPrealloc=%v", o.ZeroSeed, o.NoPrealloc)
				t.Run("last-byte/"+name, func(t *testing.T) {
					o.MaxEntries = len(lastByte)
					c.roundTrip(t, o, lastByte, absentLast)
				})
				t.Run("one-hot/"+name, func(t *testing.T) {
					o.MaxEntries = len(oneHot)
					c.roundTrip(t, o, oneHot, absentHot)
				})
			}
		})
	}
}

// ksMap is the userspace API that every generated hash map has.
type ksMap[K, V comparable] interface {
	Len() int
	MaxEntries() int
	Lookup(K) (V, bool)
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	LookupAndDelete(K) (V, error)
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
}

// ksRoundTrip runs a map through every single-key operation with keys
// (distinct, and none equal to absent); when the map's MaxEntries is
// len(keys) it also checks ErrFull.
func ksRoundTrip[K, V comparable](t *testing.T, m ksMap[K, V], mk func([]byte) K, mv func(uint32) V, keyBytes [][]byte, absentBytes []byte) {
	t.Helper()
	keys := make([]K, len(keyBytes))
	index := map[K]int{}
	for i, b := range keyBytes {
		keys[i] = mk(b)
		_, dup := index[keys[i]]
		require.False(t, dup, "test keys must be distinct")
		index[keys[i]] = i
	}
	absent := mk(absentBytes)
	_, clash := index[absent]
	require.False(t, clash, "the absent key must not be a test key")
	n := len(keys)

	// Empty map.
	require.Zero(t, m.Len())
	_, err := m.NextKey(nil)
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	_, err = m.NextKey(&absent)
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	_, ok := m.Lookup(keys[0])
	require.False(t, ok)
	require.ErrorIs(t, m.Delete(keys[0]), htab.ErrKeyNotExist)

	// Fill. The caller's MaxEntries is len(keys) when it can be; else only
	// check that keys go in.
	for i, k := range keys {
		require.NoError(t, m.Update(k, mv(uint32(i)), htab.UpdateNoExist), "key %d", i)
	}
	require.Equal(t, n, m.Len())
	for i, k := range keys {
		require.ErrorIs(t, m.Update(k, mv(0), htab.UpdateNoExist), htab.ErrKeyExist, "key %d", i)
	}
	if m.MaxEntries() == n {
		require.ErrorIs(t, m.Update(absent, mv(0), htab.UpdateAny), htab.ErrFull)
		require.ErrorIs(t, m.Update(absent, mv(0), htab.UpdateNoExist), htab.ErrFull)
		require.ErrorIs(t, m.Update(absent, mv(0), htab.UpdateExist), htab.ErrKeyNotExist, "flag errors win over ErrFull")
	}
	require.ErrorIs(t, m.Update(absent, mv(0), 3), htab.ErrInvalid)
	ksCheck(t, m, keys, absent, mv, 0)

	// Replace every key, in reverse order (which moves each to its bucket's head).
	for i := n - 1; i >= 0; i-- {
		require.NoError(t, m.Update(keys[i], mv(uint32(i)+1000), htab.UpdateExist), "key %d", i)
	}
	require.Equal(t, n, m.Len())
	ksCheck(t, m, keys, absent, mv, 1000)

	// Delete the even keys, LookupAndDelete the odd ones.
	for i, k := range keys {
		if i%2 == 0 {
			require.NoError(t, m.Delete(k), "key %d", i)
			require.ErrorIs(t, m.Delete(k), htab.ErrKeyNotExist, "key %d", i)
			_, ok := m.Lookup(k)
			require.False(t, ok, "deleted key %d", i)
		}
	}
	for i, k := range keys {
		if i%2 == 1 {
			v, err := m.LookupAndDelete(k)
			require.NoError(t, err, "key %d", i)
			require.Equal(t, mv(uint32(i)+1000), v, "key %d", i)
			_, err = m.LookupAndDelete(k)
			require.ErrorIs(t, err, htab.ErrKeyNotExist)
		}
	}
	require.Zero(t, m.Len())
	_, err = m.NextKey(nil)
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	_, err = m.NextKey(&keys[0])
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	for range m.All() {
		t.Fatal("All on an empty map yielded")
	}

	// Refill (freed elements are reused) with the ANY flag.
	for i, k := range keys {
		require.NoError(t, m.Update(k, mv(uint32(i)), htab.UpdateAny), "key %d", i)
	}
	ksCheck(t, m, keys, absent, mv, 0)
}

// ksCheck: m holds exactly keys, key i with mv(i+off); NextKey and All visit
// each once, in the same order; an absent key restarts NextKey at the first.
func ksCheck[K, V comparable](t *testing.T, m ksMap[K, V], keys []K, absent K, mv func(uint32) V, off uint32) {
	t.Helper()
	for i, k := range keys {
		v, ok := m.Lookup(k)
		require.True(t, ok, "key %d", i)
		require.Equal(t, mv(uint32(i)+off), v, "key %d", i)
	}
	_, ok := m.Lookup(absent)
	require.False(t, ok, "absent key")

	want := map[K]V{}
	for i, k := range keys {
		want[k] = mv(uint32(i) + off)
	}
	var order []K
	seen := map[K]bool{}
	var prev *K
	for {
		k, err := m.NextKey(prev)
		if errors.Is(err, htab.ErrKeyNotExist) {
			break
		}
		require.NoError(t, err)
		_, in := want[k]
		require.True(t, in, "NextKey returned a key that is not in the map")
		require.False(t, seen[k], "NextKey visited a key twice")
		seen[k] = true
		order = append(order, k)
		require.LessOrEqual(t, len(order), len(keys))
		prev = &k
	}
	require.Len(t, order, len(keys))

	first, err := m.NextKey(&absent)
	require.NoError(t, err)
	require.Equal(t, order[0], first, "an absent key restarts at the first key")

	var allOrder []K
	for k, v := range m.All() {
		require.Equal(t, want[k], v)
		allOrder = append(allOrder, k)
	}
	require.Equal(t, order, allOrder, "All walks in NextKey's order")
}
