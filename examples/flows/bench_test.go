package flows

import "testing"

// BenchmarkCount counts packets of 4096 flows in a table of 65536: one
// lookup and one update each.
func BenchmarkCount(b *testing.B) {
	c := NewCounter(newTable(b, 1<<16))
	keys := make([]FlowKey, 4096)
	for i := range keys {
		keys[i] = flow(i)
	}
	i := 0
	for b.Loop() {
		if err := c.Count(keys[i&4095], 64); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLookup looks up flows of a table of 65536 holding 4096.
func BenchmarkLookup(b *testing.B) {
	m := newTable(b, 1<<16)
	c := NewCounter(m)
	keys := make([]FlowTableKey, 4096)
	for i := range keys {
		if err := c.Count(flow(i), 64); err != nil {
			b.Fatal(err)
		}
		keys[i] = flow(i).Key()
	}
	i := 0
	for b.Loop() {
		if _, ok := m.Lookup(keys[i&4095]); !ok {
			b.Fatal("missing flow")
		}
		i++
	}
}
