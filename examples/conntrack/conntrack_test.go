package conntrack

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/htabgen/htabgen/htab"
)

var (
	server = netip.MustParseAddrPort("192.0.2.1:443")
	t0     = time.Unix(1_700_000_000, 0)
)

// client is the i-th client of a test: 10.0.x.y:1024+i.
func client(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), uint16(1024+i))
}

func tcp(src, dst netip.AddrPort, flags uint8) Packet {
	return Packet{Src: src, Dst: dst, Proto: TCP, Flags: flags}
}

func udp(src, dst netip.AddrPort) Packet { return Packet{Src: src, Dst: dst, Proto: UDP} }

func newTable(t testing.TB, maxEntries, cpus int) *ConnTable {
	t.Helper()
	m, err := NewConnTable(htab.Options{MaxEntries: maxEntries, CPUs: cpus})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// track tracks p at t0+at and requires the state want after it.
func track(t *testing.T, tr *Tracker, p Packet, at time.Duration, want State) {
	t.Helper()
	got, err := tr.Track(p, t0.Add(at))
	if err != nil {
		t.Fatalf("Track(%+v): %v", p, err)
	}
	if got != want {
		t.Fatalf("Track(%+v) = %v, want %v", p, got, want)
	}
}

func TestKeyOfBothDirections(t *testing.T) {
	k1, from1 := KeyOf(udp(client(1), server))
	k2, from2 := KeyOf(udp(server, client(1)))
	if k1 != k2 || from1 == from2 {
		t.Fatalf("KeyOf: %v from %d and %v from %d, want one key from both ends", k1, from1, k2, from2)
	}
	want := ConnTableKey{10, 0, 0, 1, 192, 0, 2, 1, 0x04, 0x01, 0x01, 0xbb, 17, 0, 0, 0}
	if got := k1.Bytes(); got != want {
		t.Fatalf("Bytes() = %v, want %v", got, want)
	}
	e := Entry{LastSeen: t0.UnixNano(), Packets: 7, State: Closing, Origin: 1}
	if got := EntryOf(e.Bytes()); got != e {
		t.Fatalf("EntryOf(Bytes()) = %+v, want %+v", got, e)
	}
}

func TestTCPLifecycle(t *testing.T) {
	m := newTable(t, 128, 1)
	tr := NewTracker(m)
	c := client(1)
	track(t, tr, tcp(c, server, ACK), 0, None) // no connection: not tracked
	if m.Len() != 0 {
		t.Fatalf("Len() = %d after a stray ACK, want 0", m.Len())
	}
	track(t, tr, tcp(c, server, SYN), 0, SynSent)
	track(t, tr, tcp(c, server, SYN|ACK), 1, SynSent) // from the opener: not the answer
	track(t, tr, tcp(server, c, SYN|ACK), 2, Established)
	track(t, tr, tcp(c, server, ACK|PSH), 3, Established)
	track(t, tr, tcp(server, c, FIN|ACK), 4, Closing)
	e, ok := tr.Lookup(tcp(c, server, 0))
	if !ok || e.Packets != 5 || e.LastSeen != t0.Add(4).UnixNano() || e.Origin != 0 {
		t.Fatalf("Lookup = %+v, %v; want 5 packets, last seen at 4ns, opened by A", e, ok)
	}
	track(t, tr, tcp(c, server, RST), 5, None)
	if _, ok := tr.Lookup(tcp(c, server, 0)); ok || m.Len() != 0 {
		t.Fatalf("the connection outlived its reset (Len %d)", m.Len())
	}
}

func TestUDP(t *testing.T) {
	tr := NewTracker(newTable(t, 16, 1))
	track(t, tr, udp(server, client(2)), 0, Established)
	track(t, tr, udp(client(2), server), 1, Established)
	if e, _ := tr.Lookup(udp(client(2), server)); e.Packets != 2 || e.Origin != 1 {
		t.Fatalf("Lookup = %+v, want 2 packets, opened by B (the server, the higher endpoint)", e)
	}
}

func TestExpire(t *testing.T) {
	m := newTable(t, 128, 1)
	tr := NewTracker(m)
	for i := range 10 {
		track(t, tr, udp(client(i), server), time.Duration(i)*time.Second, Established)
	}
	track(t, tr, tcp(client(20), server, SYN), 9*time.Second, SynSent)
	track(t, tr, tcp(client(20), server, FIN), 9*time.Second, Closing)
	// At 12s, with 5s idle: 0..6 go (idle 12..6s), 7..9 stay; the closing
	// one (idle 3s) goes with its 2s limit.
	n, err := Expire(m, t0.Add(12*time.Second), 5*time.Second, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n != 8 || m.Len() != 3 {
		t.Fatalf("Expire deleted %d, %d left; want 8 and 3", n, m.Len())
	}
	for i := 7; i < 10; i++ {
		if _, ok := tr.Lookup(udp(client(i), server)); !ok {
			t.Errorf("connection %d expired early", i)
		}
	}
}

// An LRU table never refuses a connection: it evicts. A tracker on a CPU
// handle marks the connections it looks up as used, so a busy connection
// stays while thousands of others come and go.
func TestLRUKeepsBusyConnections(t *testing.T) {
	m := newTable(t, 256, 1)
	tr := NewTracker(m.CPU(0))
	busy := udp(netip.MustParseAddrPort("198.51.100.7:53"), server)
	track(t, tr, busy, 0, Established)
	for i := range 4000 {
		track(t, tr, udp(client(i), server), 0, Established)
		track(t, tr, busy, 0, Established)
	}
	if m.Len() > m.MaxEntries() {
		t.Fatalf("Len() = %d, over MaxEntries %d", m.Len(), m.MaxEntries())
	}
	if e, ok := tr.Lookup(busy); !ok || e.Packets != 4001 {
		t.Fatalf("the busy connection: %+v, %v; want it kept, with 4001 packets", e, ok)
	}
	if _, ok := tr.Lookup(udp(client(0), server)); ok {
		t.Fatal("the first connection, idle since, is still there")
	}
}

// Workers on CPUs of their own share one table.
func TestTrackersOnCPUs(t *testing.T) {
	const workers, conns = 4, 200
	m := newTable(t, 4096, workers)
	var wg sync.WaitGroup
	for w := range workers {
		tr := NewTracker(m.CPU(w))
		wg.Go(func() {
			for i := w * conns; i < (w+1)*conns; i++ {
				c := client(i)
				for _, p := range []Packet{tcp(c, server, SYN), tcp(server, c, SYN|ACK), tcp(c, server, ACK)} {
					if s, err := tr.Track(p, t0); err != nil || s == None {
						t.Errorf("worker %d: Track(%+v) = %v, %v", w, p, s, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if m.Len() != workers*conns {
		t.Fatalf("Len() = %d, want %d", m.Len(), workers*conns)
	}
	for k, v := range m.All() {
		if e := EntryOf(v); e.State != Established || e.Packets != 3 {
			t.Fatalf("%v: %+v, want established after 3 packets", k, e)
		}
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{None: "none", SynSent: "syn-sent", Established: "established", Closing: "closing", 9: "State(9)"} {
		if got := fmt.Sprint(s); got != want {
			t.Errorf("State %d: %q, want %q", uint8(s), got, want)
		}
	}
}
