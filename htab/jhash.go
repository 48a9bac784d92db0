package htab

import (
	"encoding/binary"
	"math/bits"
)

// JhashInitval is the kernel's JHASH_INITVAL, lookup3's arbitrary initial
// value 0xdeadbeef.
const JhashInitval = 0xdeadbeef

// Jhash is the kernel's jhash(): Bob Jenkins' lookup3 hashlittle() over the key
// bytes, read little-endian. It is the reference that every generated hash is
// tested against; generated maps carry their own specialised copy.
func Jhash(key []byte, initval uint32) uint32 {
	n := uint32(len(key))
	a := JhashInitval + n + initval
	b, c := a, a
	for len(key) > 12 {
		a += binary.LittleEndian.Uint32(key[0:])
		b += binary.LittleEndian.Uint32(key[4:])
		c += binary.LittleEndian.Uint32(key[8:])
		a, b, c = jhashMix(a, b, c)
		key = key[12:]
	}
	if len(key) == 0 {
		return c // only the empty key gets here: no final mix at all
	}
	var tail [12]byte
	copy(tail[:], key)
	a += binary.LittleEndian.Uint32(tail[0:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	return jhashFinal(a, b, c)
}

// Jhash2 is the kernel's jhash2(): lookup3 hashword() over 32-bit words. For a
// key of 4n bytes read as little-endian words it equals Jhash of the bytes.
func Jhash2(words []uint32, initval uint32) uint32 {
	a := JhashInitval + uint32(len(words))<<2 + initval
	b, c := a, a
	for len(words) > 3 {
		a += words[0]
		b += words[1]
		c += words[2]
		a, b, c = jhashMix(a, b, c)
		words = words[3:]
	}
	switch len(words) {
	case 3:
		c += words[2]
		fallthrough
	case 2:
		b += words[1]
		fallthrough
	case 1:
		a += words[0]
		return jhashFinal(a, b, c)
	}
	return c
}

// jhashMix is the kernel's __jhash_mix.
func jhashMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

// jhashFinal is the kernel's __jhash_final; it returns c.
func jhashFinal(a, b, c uint32) uint32 {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return c
}
