// Package conntrack tracks connections in a generated LRU map
// (BPF_MAP_TYPE_LRU_HASH semantics) with a bloom filter in front of its
// lookups: a full table evicts the connections least recently used instead
// of refusing new ones, and a packet of an unknown connection is answered by
// the filter without touching the table, for most such packets.
//
// Tracker is written against Table, the methods of the map it calls, which
// both the map (*ConnTable, the user-space side) and its per-CPU handles
// (*ConnTableCPU, the side of a BPF program running on a CPU) have. A worker
// that holds its own handle, NewTracker(m.CPU(i)), behaves as a program on
// CPU i does: its lookups mark connections as used, so the busy ones stay,
// and its inserts take free entries from CPU i's lists.
package conntrack

//go:generate go tool htabgen -type lru -key 16 -val 16 -bloom 3 -name ConnTable -out conntable_htab.go

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"net/netip"
	"time"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
)

// Protocol numbers.
const (
	TCP uint8 = 6
	UDP uint8 = 17
)

// TCP flags.
const (
	FIN uint8 = 1 << iota
	SYN
	RST
	PSH
	ACK
)

// Packet is what the tracker looks at in a packet.
type Packet struct {
	Src, Dst netip.AddrPort // IPv4
	Proto    uint8
	Flags    uint8 // TCP flags
}

// Key is a connection's key, the same for the packets of both directions:
// endpoint A is the lower of the two (by address, then port). Laid out as
//
//	struct conn_key { __be32 a_addr, b_addr; __be16 a_port, b_port; __u8 proto, pad[3]; };
//
// with its padding explicit, so that all 16 bytes of the map's key are set.
type Key struct {
	AAddr, BAddr [4]byte // network byte order
	APort, BPort [2]byte // network byte order
	Proto        uint8
	_            [3]byte // padding: always zero
}

// Entry is a connection's state, the map's value:
//
//	struct conn { __s64 last_seen_ns; __u32 packets; __u8 state, origin, pad[2]; };
type Entry struct {
	LastSeen int64 // Unix nanoseconds
	Packets  uint32
	State    State
	Origin   uint8 // 0: endpoint A opened the connection; 1: B did
	_        [2]byte
}

var (
	_ [unsafe.Sizeof(ConnTableKey{})]byte   = [unsafe.Sizeof(Key{})]byte{}
	_ [unsafe.Sizeof(ConnTableValue{})]byte = [unsafe.Sizeof(Entry{})]byte{}
)

// State is a connection's state.
type State uint8

const (
	None        State = iota // not tracked
	SynSent                  // TCP: the opening SYN seen
	Established              // TCP: SYN-ACK seen; UDP: any packet
	Closing                  // TCP: a FIN seen
)

func (s State) String() string {
	switch s {
	case None:
		return "none"
	case SynSent:
		return "syn-sent"
	case Established:
		return "established"
	case Closing:
		return "closing"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// KeyOf is the connection of p, and which endpoint sent p (0: A, 1: B).
func KeyOf(p Packet) (k Key, from uint8) {
	if !p.Src.Addr().Is4() || !p.Dst.Addr().Is4() {
		panic(fmt.Sprintf("conntrack: %v -> %v: not IPv4", p.Src, p.Dst))
	}
	a, b := p.Src, p.Dst
	if b.Compare(a) < 0 {
		a, b, from = b, a, 1
	}
	k = Key{AAddr: a.Addr().As4(), BAddr: b.Addr().As4(), Proto: p.Proto}
	binary.BigEndian.PutUint16(k.APort[:], a.Port())
	binary.BigEndian.PutUint16(k.BPort[:], b.Port())
	return k, from
}

// Bytes is k as the map's key.
func (k Key) Bytes() (b ConnTableKey) {
	copy(b[0:4], k.AAddr[:])
	copy(b[4:8], k.BAddr[:])
	copy(b[8:10], k.APort[:])
	copy(b[10:12], k.BPort[:])
	b[12] = k.Proto
	return b
}

// Bytes is e as the map's value.
func (e Entry) Bytes() (v ConnTableValue) {
	binary.NativeEndian.PutUint64(v[0:8], uint64(e.LastSeen))
	binary.NativeEndian.PutUint32(v[8:12], e.Packets)
	v[12], v[13] = byte(e.State), e.Origin
	return v
}

// EntryOf is the Entry that v holds.
func EntryOf(v ConnTableValue) Entry {
	return Entry{
		LastSeen: int64(binary.NativeEndian.Uint64(v[0:8])),
		Packets:  binary.NativeEndian.Uint32(v[8:12]),
		State:    State(v[12]),
		Origin:   v[13],
	}
}

// Table is what a Tracker calls: *ConnTable and *ConnTableCPU satisfy it.
type Table interface {
	Lookup(k ConnTableKey) (ConnTableValue, bool)
	Update(k ConnTableKey, v ConnTableValue, flags htab.UpdateFlags) error
	Delete(k ConnTableKey) error
}

var (
	_ Table = (*ConnTable)(nil)
	_ Table = (*ConnTableCPU)(nil)
)

// Tracker follows connections through their packets. One goroutine uses a
// Tracker; several, each with its own, may share a table.
type Tracker struct {
	t Table
}

// NewTracker returns a Tracker over t.
func NewTracker(t Table) *Tracker { return &Tracker{t: t} }

// Track updates the connection of p, seen at now, and returns its state
// after p: None for a packet that belongs to no connection (a TCP packet
// other than an opening SYN of a connection not tracked) and for a reset,
// which ends the connection.
func (tr *Tracker) Track(p Packet, now time.Time) (State, error) {
	key, from := KeyOf(p)
	k := key.Bytes()
	for range 3 {
		v, ok := tr.t.Lookup(k)
		var e Entry
		flags := htab.UpdateExist
		if ok {
			e = EntryOf(v)
			e.State = next(e, p, from)
		} else {
			flags = htab.UpdateNoExist
			e = Entry{State: open(p), Origin: from}
		}
		if e.State == None {
			if ok {
				if err := tr.t.Delete(k); err != nil && !errors.Is(err, htab.ErrKeyNotExist) {
					return None, err
				}
			}
			return None, nil
		}
		e.LastSeen, e.Packets = now.UnixNano(), e.Packets+1
		switch err := tr.t.Update(k, e.Bytes(), flags); {
		case err == nil:
			return e.State, nil
		case errors.Is(err, htab.ErrKeyExist), errors.Is(err, htab.ErrKeyNotExist):
			continue // another tracker opened it, or it was evicted or expired: again
		default:
			return None, err
		}
	}
	return None, fmt.Errorf("conntrack: track %v -> %v: the connection kept changing under the update", p.Src, p.Dst)
}

// Lookup returns the connection of p, without changing it.
func (tr *Tracker) Lookup(p Packet) (Entry, bool) {
	k, _ := KeyOf(p)
	v, ok := tr.t.Lookup(k.Bytes())
	return EntryOf(v), ok
}

// open is the state of a connection that p would open: TCP needs a SYN
// without ACK.
func open(p Packet) State {
	switch {
	case p.Proto != TCP:
		return Established
	case p.Flags&(SYN|ACK|RST) == SYN:
		return SynSent
	}
	return None
}

// next is the state of connection e after p, sent by endpoint from.
func next(e Entry, p Packet, from uint8) State {
	if p.Proto != TCP {
		return e.State
	}
	switch {
	case p.Flags&RST != 0:
		return None
	case p.Flags&FIN != 0:
		return Closing
	case e.State == SynSent && from != e.Origin && p.Flags&(SYN|ACK) == SYN|ACK:
		return Established
	}
	return e.State
}

// Walker is what Expire calls: *ConnTable satisfies it.
type Walker interface {
	All() iter.Seq2[ConnTableKey, ConnTableValue]
	Delete(k ConnTableKey) error
}

var _ Walker = (*ConnTable)(nil)

// Expire deletes the connections idle since before now-idle, and the closing
// ones idle since before now-closing, and returns how many it deleted. It
// may run while trackers do; a connection that a tracker refreshes while
// Expire looks at it may still be deleted, and then opens again (UDP) or is
// treated as unknown (TCP).
func Expire(t Walker, now time.Time, idle, closing time.Duration) (int, error) {
	n := 0
	for k, v := range t.All() {
		e := EntryOf(v)
		limit := idle
		if e.State == Closing {
			limit = closing
		}
		if now.Sub(time.Unix(0, e.LastSeen)) <= limit {
			continue
		}
		switch err := t.Delete(k); {
		case err == nil:
			n++
		case !errors.Is(err, htab.ErrKeyNotExist):
			return n, err
		}
	}
	return n, nil
}
