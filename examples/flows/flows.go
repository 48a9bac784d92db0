// Package flows counts packets and bytes per flow in a fixed-size flow
// table: a generated hash map (BPF_MAP_TYPE_HASH semantics) whose 16-byte
// key is a 5-tuple laid out as a BPF program's struct would be, padding
// included.
//
// The counting code (Counter) is written against Table, the few methods of
// the generated map it calls, not against the generated type itself.
package flows

//go:generate go tool htabgen -type hash -key 16 -val 16 -name FlowTable -out flowtable_htab.go

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
)

// FlowKey is a flow's 5-tuple, laid out as a BPF program would declare it:
//
//	struct flow_key {
//		__be32 saddr, daddr;
//		__be16 sport, dport;
//		__u8   proto;
//		__u8   pad[3];
//	};
//
// The padding is explicit, so that the struct is 16 bytes in Go too and
// every byte of the map's key is set: the map hashes and compares all 16
// bytes, and a key whose padding held garbage would be another key.
type FlowKey struct {
	SrcAddr, DstAddr [4]byte // IPv4, network byte order
	SrcPort, DstPort [2]byte // network byte order
	Proto            uint8
	_                [3]byte // padding: always zero
}

// The generated map's key is exactly the struct's size.
var _ [unsafe.Sizeof(FlowTableKey{})]byte = [unsafe.Sizeof(FlowKey{})]byte{}

// Protocol numbers.
const (
	TCP uint8 = 6
	UDP uint8 = 17
)

// Flow is the flow from src to dst over proto. The addresses must be IPv4
// (an IPv6 address would not fit the key): Flow panics otherwise.
func Flow(src, dst netip.AddrPort, proto uint8) FlowKey {
	if !src.Addr().Is4() || !dst.Addr().Is4() {
		panic(fmt.Sprintf("flows: %v -> %v: not IPv4", src, dst))
	}
	f := FlowKey{SrcAddr: src.Addr().As4(), DstAddr: dst.Addr().As4(), Proto: proto}
	binary.BigEndian.PutUint16(f.SrcPort[:], src.Port())
	binary.BigEndian.PutUint16(f.DstPort[:], dst.Port())
	return f
}

// Key is f as the flow table's key: its bytes in the struct's layout.
func (f FlowKey) Key() FlowTableKey {
	var k FlowTableKey
	copy(k[0:4], f.SrcAddr[:])
	copy(k[4:8], f.DstAddr[:])
	copy(k[8:10], f.SrcPort[:])
	copy(k[10:12], f.DstPort[:])
	k[12] = f.Proto // k[13:16], the padding, stay zero
	return k
}

// FlowOf is the flow whose key is k.
func FlowOf(k FlowTableKey) FlowKey {
	return FlowKey{
		SrcAddr: [4]byte(k[0:4]),
		DstAddr: [4]byte(k[4:8]),
		SrcPort: [2]byte(k[8:10]),
		DstPort: [2]byte(k[10:12]),
		Proto:   k[12],
	}
}

// Src is the flow's source.
func (f FlowKey) Src() netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4(f.SrcAddr), binary.BigEndian.Uint16(f.SrcPort[:]))
}

// Dst is the flow's destination.
func (f FlowKey) Dst() netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4(f.DstAddr), binary.BigEndian.Uint16(f.DstPort[:]))
}

func (f FlowKey) String() string {
	return fmt.Sprintf("proto %d %v -> %v", f.Proto, f.Src(), f.Dst())
}

// Stats are a flow's counters, the map's value (struct { __u64 packets,
// bytes; }, in the host's byte order, as a BPF program writes them).
type Stats struct {
	Packets, Bytes uint64
}

// Value is s as the map's value.
func (s Stats) Value() (v FlowTableValue) {
	binary.NativeEndian.PutUint64(v[0:8], s.Packets)
	binary.NativeEndian.PutUint64(v[8:16], s.Bytes)
	return v
}

// StatsOf is the Stats that v holds.
func StatsOf(v FlowTableValue) Stats {
	return Stats{Packets: binary.NativeEndian.Uint64(v[0:8]), Bytes: binary.NativeEndian.Uint64(v[8:16])}
}

// Table is what Counter calls of a flow table. *FlowTable satisfies it.
type Table interface {
	Lookup(k FlowTableKey) (FlowTableValue, bool)
	Update(k FlowTableKey, v FlowTableValue, flags htab.UpdateFlags) error
	LookupAndDeleteBatch(c *htab.Cursor, keys []FlowTableKey, vals []FlowTableValue) (int, error)
}

var _ Table = (*FlowTable)(nil)

// Counter counts packets per flow into a Table. Count is for one goroutine
// (the packet path); Export and the table's readers may run at the same time.
type Counter struct {
	t Table
	// Untracked counts the packets of new flows that found the table full.
	Untracked Stats
}

// NewCounter returns a Counter over t.
func NewCounter(t Table) *Counter { return &Counter{t: t} }

// Count adds a packet of length n to its flow's counters. A new flow into a
// full table is not an error: its packet goes into c.Untracked.
//
// The update flags make a concurrent Export safe: an existing flow is
// updated only if it is still there (htab.UpdateExist), so that a flow that
// Export has just taken out starts again from zero instead of being put back
// with the counts Export reported; a new flow is inserted only if it is
// still absent (htab.UpdateNoExist).
func (c *Counter) Count(f FlowKey, n int) error {
	k := f.Key()
	for range 3 {
		v, ok := c.t.Lookup(k)
		s := StatsOf(v) // zero if absent
		s.Packets++
		s.Bytes += uint64(n)
		flags := htab.UpdateExist
		if !ok {
			flags = htab.UpdateNoExist
		}
		err := c.t.Update(k, s.Value(), flags)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, htab.ErrFull):
			c.Untracked.Packets++
			c.Untracked.Bytes += uint64(n)
			return nil
		case errors.Is(err, htab.ErrKeyNotExist), errors.Is(err, htab.ErrKeyExist):
			continue // Export took the flow out, or put in by someone else: again
		default:
			return err
		}
	}
	return fmt.Errorf("flows: count %v: the flow kept changing under the update", f)
}

// Export takes every flow out of the table, a batch at a time, and calls fn
// with each, in the table's order. It returns the number of flows exported.
func (c *Counter) Export(fn func(FlowKey, Stats)) (int, error) {
	keys := make([]FlowTableKey, 64)
	vals := make([]FlowTableValue, 64)
	var cur htab.Cursor
	total := 0
	for {
		n, err := c.t.LookupAndDeleteBatch(&cur, keys, vals)
		for i := range n {
			fn(FlowOf(keys[i]), StatsOf(vals[i]))
		}
		total += n
		switch {
		case err == nil:
		case errors.Is(err, htab.ErrKeyNotExist): // the end of the walk
			return total, nil
		case errors.Is(err, htab.ErrNoSpace): // a bucket larger than the buffers
			keys = make([]FlowTableKey, 2*len(keys))
			vals = make([]FlowTableValue, 2*len(vals))
		default:
			return total, err
		}
	}
}
