package proto

import (
	"encoding/binary"
	"hash/maphash"
	"testing"
)

var sinkU32 uint32
var sinkU64 uint64

// BenchmarkHashCost: the cost of the kernel's jhash for 8 bytes, in
// throughput, next to the runtime's AES hash that the builtin map uses.
func BenchmarkHashCost(b *testing.B) {
	keys := peerKeys(1 << 12)
	b.Run("hash=jhash8", func(b *testing.B) {
		var x uint32
		i := 0
		for b.Loop() {
			kw := binary.LittleEndian.Uint64(keys[i][:])
			x += jhash8(uint32(kw), uint32(kw>>32), 0)
			i = (i + 1) & (1<<12 - 1)
		}
		sinkU32 = x
	})
	b.Run("hash=maphash", func(b *testing.B) {
		seed := maphash.MakeSeed()
		var x uint64
		i := 0
		for b.Loop() {
			x += maphash.Comparable(seed, keys[i])
			i = (i + 1) & (1<<12 - 1)
		}
		sinkU64 = x
	})
}
