package ebpfmaps

import (
	"testing"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// BenchmarkEBPFMap compares one map's operations through the *ebpf.Map
// methods, on the kernel's map (a bpf(2) syscall each) and on the adapter,
// and the generated map's own typed methods, for 8-byte keys and values in
// a map of 4096 keys out of 65536 entries. Run it with -count and compare
// the sub-benchmarks of one run: the adapter's cost is the marshaling, the
// kernel's the syscall.
func BenchmarkEBPFMap(b *testing.B) {
	const entries, keys = 1 << 16, 4096
	fake, err := NewHashEBPF(htab.Options{MaxEntries: entries})
	if err != nil {
		b.Fatal(err)
	}
	maps := []struct {
		name string
		m    bpfMap
	}{{"adapter", fake}}
	if kernel.Available() == nil {
		km, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: entries})
		if err != nil {
			b.Fatal(err)
		}
		defer km.Close()
		maps = append(maps, struct {
			name string
			m    bpfMap
		}{"kernel", km})
	} else {
		b.Logf("no kernel map: %v", kernel.Available())
	}
	for _, mm := range maps {
		for k := range uint64(keys) {
			if err := mm.m.Put(k, k); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("Lookup/"+mm.name, func(b *testing.B) {
			var v uint64
			k := uint64(0)
			for b.Loop() {
				if err := mm.m.Lookup(&k, &v); err != nil {
					b.Fatal(err)
				}
				k = (k + 1) % keys
			}
		})
		b.Run("Put/"+mm.name, func(b *testing.B) {
			k := uint64(0)
			for b.Loop() {
				if err := mm.m.Put(&k, &k); err != nil {
					b.Fatal(err)
				}
				k = (k + 1) % keys
			}
		})
		b.Run("BatchLookup/"+mm.name, func(b *testing.B) {
			ks, vs := make([]uint64, 256), make([]uint64, 256)
			for b.Loop() {
				var c ebpf.MapBatchCursor
				for n := 0; ; {
					got, err := mm.m.BatchLookup(&c, ks, vs, nil)
					n += got
					if err != nil {
						if n != keys {
							b.Fatalf("%d keys, want %d: %v", n, keys, err)
						}
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*keys), "ns/key")
		})
	}
	b.Run("Lookup/generated", func(b *testing.B) {
		m := fake.Map()
		var k HashKey
		for i := 0; b.Loop(); i = (i + 1) % keys {
			k[0], k[1] = byte(i), byte(i>>8)
			if _, ok := m.Lookup(k); !ok {
				b.Fatal("absent")
			}
		}
	})
}
