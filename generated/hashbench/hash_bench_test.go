package hashbench

// Hand-written benchmarks (not generated) next to the generated ones; see
// also paired_linux_test.go.
//
// BenchmarkHashLatency is the hash alone: the latency of k.words() and m.hash
// for each key size of the kernel's lookup benchmark, with the kernel's byte
// loop (jhash), its word loop (jhash2) and the static hash. Each key's index
// depends on the previous hash, so the figure is what a lookup waits for
// before it can load its bucket.
//
//	go test -run '^$' -bench HashLatency ./generated/hashbench/

import (
	"encoding/binary"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// lookupBenchKey is key i of the kernel's bpf-hashmap-lookup benchmark: word
// 0 is i+1, word j is 2654435761*j, little-endian, zero-padded.
func lookupBenchKey(k []byte, i int) {
	var buf [68]byte
	binary.LittleEndian.PutUint32(buf[:], uint32(i+1))
	for j := 1; j < len(k)/4; j++ {
		binary.LittleEndian.PutUint32(buf[4*j:], 2654435761*uint32(j))
	}
	copy(k, buf[:])
}

// hashLatency runs hash on the benchmark's keys, each key's index taken from
// the previous hash.
func hashLatency[K any](b *testing.B, view func(*K) []byte, hash func(*K) uint32) {
	keys := make([]K, 1024)
	for i := range keys {
		lookupBenchKey(view(&keys[i]), i)
	}
	var h uint32
	for b.Loop() {
		h = hash(&keys[h&uint32(len(keys)-1)])
	}
	sink = h
}

var sink uint32

func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}

func BenchmarkHashLatency(b *testing.B) {
	opts := htab.Options{MaxEntries: 16, ZeroSeed: true}
	b.Run("key=4", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK4Jhash(opts))
			hashLatency(b, func(k *K4JhashKey) []byte { return k[:] }, func(k *K4JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK4Jhash2(opts))
			hashLatency(b, func(k *K4Jhash2Key) []byte { return k[:] }, func(k *K4Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK4Static(opts))
			hashLatency(b, func(k *K4StaticKey) []byte { return k[:] }, func(k *K4StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=8", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK8Jhash(opts))
			hashLatency(b, func(k *K8JhashKey) []byte { return k[:] }, func(k *K8JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK8Jhash2(opts))
			hashLatency(b, func(k *K8Jhash2Key) []byte { return k[:] }, func(k *K8Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK8Static(opts))
			hashLatency(b, func(k *K8StaticKey) []byte { return k[:] }, func(k *K8StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=12", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK12Jhash(opts))
			hashLatency(b, func(k *K12JhashKey) []byte { return k[:] }, func(k *K12JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK12Jhash2(opts))
			hashLatency(b, func(k *K12Jhash2Key) []byte { return k[:] }, func(k *K12Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK12Static(opts))
			hashLatency(b, func(k *K12StaticKey) []byte { return k[:] }, func(k *K12StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=16", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK16Jhash(opts))
			hashLatency(b, func(k *K16JhashKey) []byte { return k[:] }, func(k *K16JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK16Jhash2(opts))
			hashLatency(b, func(k *K16Jhash2Key) []byte { return k[:] }, func(k *K16Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK16Static(opts))
			hashLatency(b, func(k *K16StaticKey) []byte { return k[:] }, func(k *K16StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=20", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK20Jhash(opts))
			hashLatency(b, func(k *K20JhashKey) []byte { return k[:] }, func(k *K20JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK20Jhash2(opts))
			hashLatency(b, func(k *K20Jhash2Key) []byte { return k[:] }, func(k *K20Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK20Static(opts))
			hashLatency(b, func(k *K20StaticKey) []byte { return k[:] }, func(k *K20StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=24", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK24Jhash(opts))
			hashLatency(b, func(k *K24JhashKey) []byte { return k[:] }, func(k *K24JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK24Jhash2(opts))
			hashLatency(b, func(k *K24Jhash2Key) []byte { return k[:] }, func(k *K24Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK24Static(opts))
			hashLatency(b, func(k *K24StaticKey) []byte { return k[:] }, func(k *K24StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=28", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK28Jhash(opts))
			hashLatency(b, func(k *K28JhashKey) []byte { return k[:] }, func(k *K28JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK28Jhash2(opts))
			hashLatency(b, func(k *K28Jhash2Key) []byte { return k[:] }, func(k *K28Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK28Static(opts))
			hashLatency(b, func(k *K28StaticKey) []byte { return k[:] }, func(k *K28StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=32", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK32Jhash(opts))
			hashLatency(b, func(k *K32JhashKey) []byte { return k[:] }, func(k *K32JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK32Jhash2(opts))
			hashLatency(b, func(k *K32Jhash2Key) []byte { return k[:] }, func(k *K32Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK32Static(opts))
			hashLatency(b, func(k *K32StaticKey) []byte { return k[:] }, func(k *K32StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
	b.Run("key=64", func(b *testing.B) {
		b.Run("impl=jhash", func(b *testing.B) {
			m := must(NewK64Jhash(opts))
			hashLatency(b, func(k *K64JhashKey) []byte { return k[:] }, func(k *K64JhashKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=jhash2", func(b *testing.B) {
			m := must(NewK64Jhash2(opts))
			hashLatency(b, func(k *K64Jhash2Key) []byte { return k[:] }, func(k *K64Jhash2Key) uint32 { w := k.words(); return m.hash(k, &w) })
		})
		b.Run("impl=static", func(b *testing.B) {
			m := must(NewK64Static(opts))
			hashLatency(b, func(k *K64StaticKey) []byte { return k[:] }, func(k *K64StaticKey) uint32 { w := k.words(); return m.hash(k, &w) })
		})
	})
}
