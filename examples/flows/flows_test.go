package flows

import (
	"errors"
	"net/netip"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// flow is the i-th flow of a test: 10.0.x.y:1000+i -> 192.0.2.1:443.
func flow(i int) FlowKey {
	src := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), uint16(1000+i))
	return Flow(src, netip.MustParseAddrPort("192.0.2.1:443"), TCP)
}

func newTable(t testing.TB, maxEntries int) *FlowTable {
	t.Helper()
	m, err := NewFlowTable(htab.Options{MaxEntries: maxEntries})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKeyLayout(t *testing.T) {
	f := Flow(netip.MustParseAddrPort("10.1.2.3:4660"), netip.MustParseAddrPort("192.0.2.1:80"), UDP)
	want := FlowTableKey{10, 1, 2, 3, 192, 0, 2, 1, 0x12, 0x34, 0, 80, 17, 0, 0, 0}
	if got := f.Key(); got != want {
		t.Fatalf("Key() = %v, want %v", got, want)
	}
	if got := FlowOf(want); got != f {
		t.Fatalf("FlowOf(%v) = %v, want %v", want, got, f)
	}
	if got, want := f.String(), "proto 17 10.1.2.3:4660 -> 192.0.2.1:80"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	s := Stats{Packets: 3, Bytes: 1 << 40}
	if got := StatsOf(s.Value()); got != s {
		t.Fatalf("StatsOf(Value()) = %v, want %v", got, s)
	}
}

func TestFlowRefusesIPv6(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Flow of IPv6 addresses did not panic")
		}
	}()
	Flow(netip.MustParseAddrPort("[::1]:1"), netip.MustParseAddrPort("[::1]:2"), TCP)
}

func TestCount(t *testing.T) {
	m := newTable(t, 1024)
	c := NewCounter(m)
	for i := range 10 {
		for range i + 1 { // flow i gets i+1 packets of 100 bytes
			if err := c.Count(flow(i), 100); err != nil {
				t.Fatal(err)
			}
		}
	}
	if m.Len() != 10 {
		t.Fatalf("Len() = %d, want 10", m.Len())
	}
	for i := range 10 {
		v, ok := m.Lookup(flow(i).Key())
		if !ok {
			t.Fatalf("flow %v missing", flow(i))
		}
		if got, want := StatsOf(v), (Stats{Packets: uint64(i + 1), Bytes: uint64(100 * (i + 1))}); got != want {
			t.Errorf("flow %v: %+v, want %+v", flow(i), got, want)
		}
	}
	if c.Untracked != (Stats{}) {
		t.Errorf("Untracked = %+v, want none", c.Untracked)
	}
}

// A full table refuses new flows (htab.ErrFull) but still counts the flows
// it holds; the new flows' packets go into Untracked.
func TestCountFullTable(t *testing.T) {
	m := newTable(t, 2)
	c := NewCounter(m)
	for i := range 5 {
		if err := c.Count(flow(i), 60); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Count(flow(0), 60); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Untracked, (Stats{Packets: 3, Bytes: 180}); got != want {
		t.Fatalf("Untracked = %+v, want %+v", got, want)
	}
	v, _ := m.Lookup(flow(0).Key())
	if got, want := StatsOf(v), (Stats{Packets: 2, Bytes: 120}); got != want {
		t.Fatalf("flow 0: %+v, want %+v", got, want)
	}
}

func TestExport(t *testing.T) {
	m := newTable(t, 4096)
	c := NewCounter(m)
	const flows = 1000
	for i := range flows {
		if err := c.Count(flow(i), i); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[FlowKey]Stats{}
	n, err := c.Export(func(f FlowKey, s Stats) { seen[f] = s })
	if err != nil {
		t.Fatal(err)
	}
	if n != flows || len(seen) != flows {
		t.Fatalf("exported %d flows (%d distinct), want %d", n, len(seen), flows)
	}
	for i := range flows {
		if got, want := seen[flow(i)], (Stats{Packets: 1, Bytes: uint64(i)}); got != want {
			t.Fatalf("flow %v: %+v, want %+v", flow(i), got, want)
		}
	}
	if m.Len() != 0 {
		t.Fatalf("Len() = %d after Export, want 0", m.Len())
	}
}

// Export while Count runs: every packet is exported exactly once, in one
// export or the final one.
func TestExportWhileCounting(t *testing.T) {
	m := newTable(t, 256)
	c := NewCounter(m)
	packets := 20000
	if testing.Short() {
		packets = 5000
	}
	var exported Stats
	add := func(_ FlowKey, s Stats) {
		exported.Packets += s.Packets
		exported.Bytes += s.Bytes
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := c.Export(add); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := range packets {
		if err := c.Count(flow(i%100), 10); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if _, err := c.Export(add); err != nil {
		t.Fatal(err)
	}
	if want := (Stats{Packets: uint64(packets), Bytes: uint64(10 * packets)}); exported != want {
		t.Fatalf("exported %+v, want %+v", exported, want)
	}
}

// failing is a Table whose updates fail: Count passes the error on.
type failing struct{ *FlowTable }

var errBroken = errors.New("broken table")

func (failing) Update(FlowTableKey, FlowTableValue, htab.UpdateFlags) error { return errBroken }

func TestCountPassesErrorsOn(t *testing.T) {
	c := NewCounter(failing{newTable(t, 4)})
	if err := c.Count(flow(1), 1); !errors.Is(err, errBroken) {
		t.Fatalf("Count: %v, want %v", err, errBroken)
	}
}
