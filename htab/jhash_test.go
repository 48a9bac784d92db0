package htab

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fourScore is the key of lookup3's driver5() vectors.
const fourScore = "Four score and seven years ago"

// jhTestHashlittle2 is lookup3's hashlittle2(), built from the same mix and final as
// Jhash, so that every published driver5() row (both outputs) checks them. It
// returns (c, b), the primary and the secondary hash.
func jhTestHashlittle2(key []byte, pc, pb uint32) (uint32, uint32) {
	a := JhashInitval + uint32(len(key)) + pc
	b, c := a, a
	c += pb
	for len(key) > 12 {
		a += binary.LittleEndian.Uint32(key[0:])
		b += binary.LittleEndian.Uint32(key[4:])
		c += binary.LittleEndian.Uint32(key[8:])
		a, b, c = jhashMix(a, b, c)
		key = key[12:]
	}
	if len(key) == 0 {
		return c, b
	}
	var tail [12]byte
	copy(tail[:], key)
	a += binary.LittleEndian.Uint32(tail[0:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	// jhashFinal returns only c; recompute b with the same steps.
	c ^= b
	c -= jhTestRol(b, 14)
	a ^= c
	a -= jhTestRol(c, 11)
	b ^= a
	b -= jhTestRol(a, 25)
	c ^= b
	c -= jhTestRol(b, 16)
	a ^= c
	a -= jhTestRol(c, 4)
	b ^= a
	b -= jhTestRol(a, 14)
	c ^= b
	c -= jhTestRol(b, 24)
	return c, b
}

func jhTestRol(x uint32, k int) uint32 { return x<<k | x>>(32-k) }

// TestJhashPublishedVectors checks the vectors that driver5() of Bob
// Jenkins' lookup3.c publishes (the kernel's include/linux/jhash.h is
// lookup3's hashlittle and hashword).
func TestJhashPublishedVectors(t *testing.T) {
	// The rows with *pb == 0 are hashlittle(k, len, *pc), the kernel's jhash.
	assert.Equal(t, uint32(0xdeadbeef), Jhash(nil, 0), `jhash("", 0)`)
	assert.Equal(t, uint32(0xdeadbeef), Jhash([]byte{}, 0), `jhash("", 0)`)
	assert.Equal(t, uint32(0x17770551), Jhash([]byte(fourScore), 0), "jhash(four score, 0)")
	assert.Equal(t, uint32(0xcd628161), Jhash([]byte(fourScore), 1), "jhash(four score, 1)")
	// jhTestHashlittle2("", c=0xdeadbeef, b=0xdeadbeef) has b = hashlittle("", 0xdeadbeef).
	assert.Equal(t, uint32(0xbd5b7dde), Jhash(nil, 0xdeadbeef), `jhash("", 0xdeadbeef)`)
	// Jhash2 of no words equals Jhash of no bytes (the same initial state).
	assert.Equal(t, uint32(0xdeadbeef), Jhash2(nil, 0))
}

// TestHashlittle2PublishedVectors checks every driver5() row, both outputs,
// with the package's own mix and final.
func TestHashlittle2PublishedVectors(t *testing.T) {
	for _, tc := range []struct {
		key    string
		pc, pb uint32
		c, b   uint32
	}{
		{"", 0, 0, 0xdeadbeef, 0xdeadbeef},
		{"", 0, 0xdeadbeef, 0xbd5b7dde, 0xdeadbeef},
		{"", 0xdeadbeef, 0xdeadbeef, 0x9c093ccd, 0xbd5b7dde},
		{fourScore, 0, 0, 0x17770551, 0xce7226e6},
		{fourScore, 0, 1, 0xe3607cae, 0xbd371de4},
		{fourScore, 1, 0, 0xcd628161, 0x6cbea4b3},
	} {
		name := fmt.Sprintf("%q/c=%#x/b=%#x", tc.key, tc.pc, tc.pb)
		c, b := jhTestHashlittle2([]byte(tc.key), tc.pc, tc.pb)
		assert.Equal(t, tc.c, c, name+" c")
		assert.Equal(t, tc.b, b, name+" b")
		if tc.pb == 0 {
			assert.Equal(t, tc.c, Jhash([]byte(tc.key), tc.pc), name+": Jhash == hashlittle2's c when b=0")
		}
	}
}

// TestJhashRegressionTable checks values computed by an independent port of
// include/linux/jhash.h (not published anywhere), as regression values.
func TestJhashRegressionTable(t *testing.T) {
	seq := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name string
		key  []byte
		seed uint32
		want uint32
	}{
		{"u32 1", unhex("01000000"), 0, 0x72a82a9b},
		{"u32 0", unhex("00000000"), 0, 0x049396b8},
		{"u32 1 seed 0x12345678", unhex("01000000"), 0x12345678, 0x22417ff4},
		{"u64 1", unhex("0100000000000000"), 0, 0x5543253f},
		{"u64 0x0123456789abcdef", unhex("efcdab8967452301"), 0, 0x4da802b4},
		{"00..0b (12 B)", seq(12), 0, 0x5e4aa593},
		{"00..0c (13 B)", seq(13), 0, 0xbc9d6816},
		{"00..0f (16 B)", seq(16), 0, 0x5e84eafc},
		{"a", []byte("a"), 0, 0x58d68708},
		{"abc", []byte("abc"), 0, 0x0e397631},
		{"0001020304 seed 7", seq(5), 7, 0xde436eeb},
	} {
		assert.Equal(t, tc.want, Jhash(tc.key, tc.seed), "Jhash %s", tc.name)
		if len(tc.key)%4 == 0 {
			assert.Equal(t, tc.want, Jhash2(jhTestWords(tc.key), tc.seed), "Jhash2 %s", tc.name)
		}
	}

	for _, tc := range []struct {
		words []uint32
		seed  uint32
		want  uint32
	}{
		{[]uint32{1, 2, 3}, 0, 0xa46158f5},
		{[]uint32{1, 2, 3, 4}, 0, 0x66491246},
		{nil, 0, 0xdeadbeef},
		{[]uint32{}, 1, 0xdeadbef0},
	} {
		assert.Equal(t, tc.want, Jhash2(tc.words, tc.seed), "Jhash2(%v, %d)", tc.words, tc.seed)
		assert.Equal(t, tc.want, Jhash(jhTestBytes(tc.words), tc.seed), "Jhash(bytes of %v, %d)", tc.words, tc.seed)
	}
}

// TestJhashEmptyKeyNoFinal: the empty key returns the initial state unmixed.
func TestJhashEmptyKeyNoFinal(t *testing.T) {
	for _, seed := range []uint32{0, 1, 0x12345678, 0xffffffff} {
		assert.Equal(t, uint32(0xdeadbeef)+seed, Jhash(nil, seed))
		assert.Equal(t, uint32(0xdeadbeef)+seed, Jhash2(nil, seed))
	}
}

// TestJhashTailIsLittleEndian: a tail byte i lands at bit 8*(i%4) of word i/4,
// whatever the host, so a key equals its zero-padded words read little-endian
// when only the length (part of the initial state) is kept.
func TestJhashTailIsLittleEndian(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 12; n++ {
		key := make([]byte, n)
		for i := range key {
			key[i] = byte(r.Uint32())
		}
		var pad [12]byte
		copy(pad[:], key)
		a := JhashInitval + uint32(n)
		b, c := a, a
		a += binary.LittleEndian.Uint32(pad[0:])
		b += binary.LittleEndian.Uint32(pad[4:])
		c += binary.LittleEndian.Uint32(pad[8:])
		assert.Equal(t, jhashFinal(a, b, c), Jhash(key, 0), "tail of %d bytes", n)
	}
}

// TestJhash2EqualsJhash: for word-aligned keys, jhash2 of the little-endian
// words equals jhash of the bytes (include/linux/jhash.h: the same initial
// state and loop bound, a little-endian tail), which is why the kernel's
// htab_map_hash in kernel/bpf/hashtab.c may pick either; for 0..64 words.
func TestJhash2EqualsJhash(t *testing.T) {
	r := rand.New(rand.NewPCG(0x6a686173, 0x68))
	for n := 0; n <= 64; n++ {
		for range 50 {
			key := make([]byte, 4*n)
			for i := range key {
				key[i] = byte(r.Uint32())
			}
			seed := r.Uint32()
			if n%8 == 0 {
				seed = 0
			}
			require.Equal(t, Jhash(key, seed), Jhash2(jhTestWords(key), seed),
				"key %x seed %#x", key, seed)
		}
	}
}

// TestJhashLengthMatters: keys that differ only by trailing zero bytes hash
// differently (the length is in the initial state).
func TestJhashLengthMatters(t *testing.T) {
	seen := map[uint32]int{}
	for n := 0; n <= 64; n++ {
		h := Jhash(make([]byte, n), 0)
		if prev, ok := seen[h]; ok {
			t.Fatalf("Jhash of %d and %d zero bytes collide: %#x", prev, n, h)
		}
		seen[h] = n
	}
}

func FuzzJhash2EqualsJhash(f *testing.F) {
	f.Add([]byte{}, uint32(0))
	f.Add([]byte{1, 0, 0, 0}, uint32(0x12345678))
	f.Add([]byte(fourScore[:28]), uint32(1))
	f.Add(make([]byte, 48), uint32(0xdeadbeef))
	f.Fuzz(func(t *testing.T, key []byte, seed uint32) {
		key = key[:len(key)&^3]
		if h, h2 := Jhash(key, seed), Jhash2(jhTestWords(key), seed); h != h2 {
			t.Fatalf("key %x seed %#x: Jhash %#x, Jhash2 %#x", key, seed, h, h2)
		}
	})
}

// jhTestWords reads a word-aligned key as little-endian words.
func jhTestWords(key []byte) []uint32 {
	w := make([]uint32, len(key)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	return w
}

// jhTestBytes writes words as little-endian bytes.
func jhTestBytes(words []uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func BenchmarkJhash(b *testing.B) {
	for _, n := range []int{4, 8, 16, 64} {
		key := make([]byte, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Jhash(key, 0)
			}
		})
	}
}
