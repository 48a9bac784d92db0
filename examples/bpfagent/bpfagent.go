// Package bpfagent is the user-space side of a BPF program, the XDP program
// of testdata/bpf/maps.c: it reads and tends the program's maps through
// cilium/ebpf. Its functions take Map, an interface over the methods of
// *ebpf.Map they call, so that they run on the kernel's maps in production
// and, in tests, on in-memory fakes with the kernel's semantics, which need
// no root.
//
// The fakes are generated from the compiled object itself: for each hash,
// per-CPU, LRU and bloom filter map of maps.o, htabgen -elf writes a map with
// the object's key and value sizes, max_entries and flags (<map>_htab.go,
// with NewXDefault and XOptions) and, with -ebpf-compat, its adapter with
// the methods of *ebpf.Map (<map>_htab_ebpf.go, NewXEBPF).
package bpfagent

//go:generate go tool htabgen -elf ../../testdata/bpf/maps.o -ebpf-compat

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab/ebpfcompat"
)

// Map is what this package calls of a BPF map: *ebpf.Map satisfies it, and
// so does every generated adapter (*FlowsEBPF, *CountersEBPF, ...).
type Map interface {
	Lookup(key, valueOut any) error
	Put(key, value any) error
	Update(key, value any, flags ebpf.MapUpdateFlags) error
	Delete(key any) error
	NextKey(key, nextKeyOut any) error
	BatchLookup(cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error)
	BatchDelete(keys any, opts *ebpf.BatchOptions) (int, error)
	KeySize() uint32
	MaxEntries() uint32
}

var _ Map = (*ebpf.Map)(nil)

// The maps' keys and values, as bpf2go would declare them from maps.c.
type (
	// Flow is struct flow_key, the key of flows: 16 bytes, the padding
	// explicit (a blank field, which marshals as zeroes).
	Flow struct {
		Saddr, Daddr uint32
		Sport, Dport uint16
		Proto        uint8
		_            [3]byte
	}
	// FlowStats is struct flow_stats, the value of flows.
	FlowStats struct {
		Packets, Bytes uint64
	}
	// Conn is struct conn_key, the key of conns; its value is the time the
	// program last saw the connection (bpf_ktime_get_ns).
	Conn struct {
		Saddr, Daddr uint32
		Sport, Dport uint16
		Ifindex      uint32
	}
	// IfStats is struct stat, the per-CPU value of stats: 12 bytes, which
	// the kernel pads to 16 per CPU.
	IfStats struct {
		Drops, Passes, Errors uint32
	}
)

// Maps are the maps of the program this package uses.
type Maps struct {
	Flows    Map // hash: Flow → FlowStats
	Counters Map // per-CPU hash: __u32 → __u64
	Conns    Map // LRU hash: Conn → __u64, last seen
	Stats    Map // LRU per-CPU hash: ifindex → IfStats
	Seen     Map // bloom filter of __u32 source addresses
}

// kernelMaps are Maps as cilium/ebpf loads them (bpf2go's bpfMaps).
type kernelMaps struct {
	Flows    *ebpf.Map `ebpf:"flows"`
	Counters *ebpf.Map `ebpf:"counters"`
	Conns    *ebpf.Map `ebpf:"conns"`
	Stats    *ebpf.Map `ebpf:"stats"`
	Seen     *ebpf.Map `ebpf:"seen"`
}

// LoadMaps creates in the kernel the maps of spec (maps.o's, from
// ebpf.LoadCollectionSpec) that Maps holds, without the object's programs.
// closeAll closes them.
func LoadMaps(spec *ebpf.CollectionSpec) (ms Maps, closeAll func() error, err error) {
	var k kernelMaps
	if err := spec.LoadAndAssign(&k, nil); err != nil {
		return Maps{}, nil, fmt.Errorf("bpfagent: load maps: %w", err)
	}
	closeAll = func() error {
		return errors.Join(k.Flows.Close(), k.Counters.Close(), k.Conns.Close(), k.Stats.Close(), k.Seen.Close())
	}
	return Maps{Flows: k.Flows, Counters: k.Counters, Conns: k.Conns, Stats: k.Stats, Seen: k.Seen}, closeAll, nil
}

// Counter is a counter summed over the CPUs.
type Counter struct {
	Key   uint32
	Total uint64
}

// batchSize is how many keys a batch call asks for at first.
const batchSize = 16

// SumCounters reads every counter of a per-CPU map of __u32 keys and __u64
// values, a batch of keys at a time, and sums each over the CPUs. The
// counters come in the map's order.
func SumCounters(m Map) ([]Counter, error) {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, err
	}
	var out []Counter
	var cursor ebpf.MapBatchCursor
	keys := make([]uint32, batchSize)
	vals := make([]uint64, len(keys)*cpus) // key i's value on CPU j: vals[i*cpus+j]
	for {
		n, err := m.BatchLookup(&cursor, keys, vals, nil)
		for i := range n {
			var total uint64
			for _, v := range vals[i*cpus : (i+1)*cpus] {
				total += v
			}
			out = append(out, Counter{keys[i], total})
		}
		switch {
		case err == nil:
		case errors.Is(err, ebpf.ErrKeyNotExist): // the end of the map
			return out, nil
		case errors.Is(err, ebpf.ErrNotSupported) && len(out) == 0: // a kernel without batches: key by key
			return sumByKey(m, cpus)
		case errors.Is(err, unix.ENOSPC): // a bucket larger than the batch
			keys = make([]uint32, 2*len(keys))
			vals = make([]uint64, len(keys)*cpus)
		default:
			return out, fmt.Errorf("sum counters: %w", err)
		}
	}
}

// sumByKey is SumCounters with NextKey and Lookup.
func sumByKey(m Map, cpus int) ([]Counter, error) {
	var out []Counter
	vals := make([]uint64, cpus)
	it := ebpfcompat.Iterate(m)
	var k uint32
	for it.Next(&k, vals) {
		var total uint64
		for _, v := range vals {
			total += v
		}
		out = append(out, Counter{k, total})
	}
	return out, it.Err()
}

// ExpireConns deletes the connections of conns last seen before now-idle,
// where now is on the program's clock (bpf_ktime_get_ns), and returns how
// many it deleted. Connections that go while it works (the program's LRU
// map evicts, or another agent deletes) are not errors.
func ExpireConns(m Map, now uint64, idle time.Duration) (int, error) {
	// Walk with NextKey, collecting the stale keys. A key deleted between
	// NextKey and Lookup sends the next NextKey back to the first key, as in
	// the kernel: stale is a set, and the walk has at most MaxEntries+1 steps
	// (as (*ebpf.Map).Iterate), lest keys that keep going keep it walking.
	stale := map[Conn]bool{}
	var key, next Conn
	var last uint64
	prev := any(nil) // NextKey from nil: the first key
	for steps := uint32(0); ; steps++ {
		if steps > m.MaxEntries() {
			return 0, fmt.Errorf("expire: %w", ebpf.ErrIterationAborted)
		}
		err := m.NextKey(prev, &next)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			break
		} else if err != nil {
			return 0, fmt.Errorf("expire: %w", err)
		}
		key, prev = next, &key
		switch err := m.Lookup(&key, &last); {
		case errors.Is(err, ebpf.ErrKeyNotExist): // gone since NextKey
			continue
		case err != nil:
			return 0, fmt.Errorf("expire: %w", err)
		}
		if last+uint64(idle) < now {
			stale[key] = true
		}
	}
	// Delete them in one batch; BatchDelete stops at a key that is already
	// gone (ebpf.ErrKeyNotExist), after the n before it: go on after it.
	keys := slices.SortedFunc(maps.Keys(stale), compareConns)
	deleted := 0
	for len(keys) > 0 {
		n, err := m.BatchDelete(keys, nil)
		deleted += n
		switch {
		case err == nil:
			return deleted, nil
		case errors.Is(err, ebpf.ErrKeyNotExist):
			keys = keys[n+1:]
		case errors.Is(err, ebpf.ErrNotSupported) && n == 0: // a kernel without batches: key by key
			for _, k := range keys {
				switch err := m.Delete(k); {
				case err == nil:
					deleted++
				case !errors.Is(err, ebpf.ErrKeyNotExist):
					return deleted, fmt.Errorf("expire: %w", err)
				}
			}
			return deleted, nil
		default:
			return deleted, fmt.Errorf("expire: %w", err)
		}
	}
	return deleted, nil
}

func compareConns(a, b Conn) int {
	return cmp.Or(cmp.Compare(a.Saddr, b.Saddr), cmp.Compare(a.Daddr, b.Daddr), cmp.Compare(a.Sport, b.Sport),
		cmp.Compare(a.Dport, b.Dport), cmp.Compare(a.Ifindex, b.Ifindex))
}

// FlowRecord is a flow and its counters.
type FlowRecord struct {
	Flow
	FlowStats
}

// TopFlows returns the n flows of the most bytes, most first (ties: the
// lower key first), walking the map with ebpfcompat.Iterate, which walks a
// kernel map and a fake alike.
func TopFlows(m Map, n int) ([]FlowRecord, error) {
	var all []FlowRecord
	var r FlowRecord
	it := ebpfcompat.Iterate(m)
	for it.Next(&r.Flow, &r.FlowStats) {
		all = append(all, r)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("top flows: %w", err)
	}
	slices.SortFunc(all, func(a, b FlowRecord) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Saddr, b.Saddr), cmp.Compare(a.Daddr, b.Daddr),
			cmp.Compare(a.Sport, b.Sport), cmp.Compare(a.Dport, b.Dport), cmp.Compare(a.Proto, b.Proto))
	})
	return all[:max(0, min(n, len(all)))], nil
}

// InterfaceStats is the stats of interface ifindex summed over the CPUs;
// ok is false if the program has none for it.
func InterfaceStats(m Map, ifindex uint32) (s IfStats, ok bool, err error) {
	var perCPU []IfStats // Lookup makes it one per possible CPU
	switch err := m.Lookup(ifindex, &perCPU); {
	case errors.Is(err, ebpf.ErrKeyNotExist):
		return IfStats{}, false, nil
	case err != nil:
		return IfStats{}, false, fmt.Errorf("interface %d: %w", ifindex, err)
	}
	for _, c := range perCPU {
		s.Drops += c.Drops
		s.Passes += c.Passes
		s.Errors += c.Errors
	}
	return s, true, nil
}

// MarkSeen adds addr to the bloom filter of seen source addresses.
func MarkSeen(m Map, addr uint32) error {
	return m.Put(nil, addr)
}

// SeenBefore reports whether addr may have been marked seen: false is
// certain, true may be a false positive.
func SeenBefore(m Map, addr uint32) (bool, error) {
	switch err := m.Lookup(nil, &addr); {
	case err == nil:
		return true, nil
	case errors.Is(err, ebpf.ErrKeyNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("seen %#x: %w", addr, err)
	}
}
