package conntrack

import (
	"net/netip"
	"testing"
)

// BenchmarkLookup looks up connections in a table of 65536 holding 32768:
// tracked ones (hit), and unknown ones (miss), most of which the bloom
// filter answers without reading the table.
func BenchmarkLookup(b *testing.B) {
	const conns = 1 << 15
	m := newTable(b, 1<<16, 1)
	tr := NewTracker(m)
	known := make([]ConnTableKey, conns)
	unknown := make([]ConnTableKey, conns)
	for i := range conns {
		p := udp(client(i), server)
		if _, err := tr.Track(p, t0); err != nil {
			b.Fatal(err)
		}
		k, _ := KeyOf(p)
		known[i] = k.Bytes()
		k, _ = KeyOf(udp(client(i), netip.MustParseAddrPort("203.0.113.9:80")))
		unknown[i] = k.Bytes()
	}
	for _, c := range []struct {
		name string
		keys []ConnTableKey
		want bool
	}{{"hit", known, true}, {"miss", unknown, false}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := m.Lookup(c.keys[i&(conns-1)]); ok != c.want {
					b.Fatalf("Lookup: %v, want %v", ok, c.want)
				}
				i++
			}
		})
	}
}
