package bpfagent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

// object is the BPF object whose maps the fakes were generated from.
const object = "../../testdata/bpf/maps.o"

// The tests run each body twice: on the generated fakes, and, where BPF is
// available, on the kernel's maps made from the object, through cilium/ebpf.
// A body returns what it saw; both runs must see the same. Both sides use the
// zero seed, so that even the order of keys is the same.

// fakeMaps are the generated stand-ins of the object's maps, with the
// object's options (XOptions) and the zero seed.
func fakeMaps(t *testing.T) Maps {
	t.Helper()
	zero := func(o htab.Options) htab.Options { o.ZeroSeed = true; return o }
	var ms Maps
	var errs [5]error
	ms.Flows, errs[0] = NewFlowsEBPF(zero(FlowsOptions()))
	ms.Counters, errs[1] = NewCountersEBPF(zero(CountersOptions()))
	ms.Conns, errs[2] = NewConnsEBPF(zero(ConnsOptions()))
	ms.Stats, errs[3] = NewStatsEBPF(zero(StatsOptions()))
	ms.Seen, errs[4] = NewSeenEBPF(zero(SeenOptions()))
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	return ms
}

// kernelMapsOf are the object's maps in the kernel, as LoadMaps loads them
// for the program, with BPF_F_ZERO_SEED added.
func kernelMapsOf(t *testing.T) Maps {
	t.Helper()
	requireKernel(t)
	spec, err := ebpf.LoadCollectionSpec(object)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"flows", "counters", "conns", "stats", "seen"} {
		spec.Maps[name].Flags |= unix.BPF_F_ZERO_SEED
	}
	ms, closeMaps, err := LoadMaps(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeMaps(); err != nil {
			t.Error(err)
		}
	})
	return ms
}

var kernelErr = sync.OnceValue(func() error {
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 4, MaxEntries: 1})
	if err != nil {
		return err
	}
	return m.Close()
})

// requireKernel skips t where BPF maps cannot be created (without CAP_BPF,
// in a container, not on Linux), or fails it there if HTAB_REQUIRE_KERNEL
// is set to a true value, as in CI.
func requireKernel(t *testing.T) {
	t.Helper()
	err := kernelErr()
	if err == nil {
		return
	}
	if on, _ := strconv.ParseBool(os.Getenv("HTAB_REQUIRE_KERNEL")); on {
		t.Fatalf("HTAB_REQUIRE_KERNEL is set, but BPF maps cannot be created here: %v", err)
	}
	t.Skipf("skipping: BPF maps cannot be created here (they need CAP_BPF or root): %v; HTAB_REQUIRE_KERNEL=1 fails instead", err)
}

// both runs body on the fakes and on the kernel's maps, and requires the
// same result of both.
func both(t *testing.T, body func(t *testing.T, ms Maps) string) {
	t.Helper()
	var fake, kernel string
	var ranFake, ranKernel bool
	t.Run("fake", func(t *testing.T) {
		fake, ranFake = body(t, fakeMaps(t)), !t.Failed()
	})
	t.Run("kernel", func(t *testing.T) {
		kernel, ranKernel = body(t, kernelMapsOf(t)), !t.Failed()
	})
	if ranFake && ranKernel && fake != kernel {
		t.Fatalf("the fakes and the kernel's maps differ:\nfakes:  %s\nkernel: %s", fake, kernel)
	}
}

func cpus(t *testing.T) int {
	t.Helper()
	n, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// What the fakes were generated from: every generated map has the type, key
// and value sizes, max_entries and flags of the object's map of its name.
// (No BPF needed: this reads the object.)
func TestFakesHaveTheObjectsAttributes(t *testing.T) {
	spec, err := ebpf.LoadCollectionSpec(object)
	if err != nil {
		t.Fatal(err)
	}
	type attrs interface {
		Type() ebpf.MapType
		KeySize() uint32
		ValueSize() uint32
		MaxEntries() uint32
		Flags() uint32
	}
	fakes := map[string]func() (attrs, error){
		"flows":           func() (attrs, error) { return NewFlowsEBPF(FlowsOptions()) },
		"flows_dyn":       func() (attrs, error) { return NewFlowsDynEBPF(FlowsDynOptions()) },
		"zero_seeded":     func() (attrs, error) { return NewZeroSeededEBPF(ZeroSeededOptions()) },
		"counters":        func() (attrs, error) { return NewCountersEBPF(CountersOptions()) },
		"conns":           func() (attrs, error) { return NewConnsEBPF(ConnsOptions()) },
		"conns_own_lists": func() (attrs, error) { return NewConnsOwnListsEBPF(ConnsOwnListsOptions()) },
		"stats":           func() (attrs, error) { return NewStatsEBPF(StatsOptions()) },
		"seen":            func() (attrs, error) { return NewSeenEBPF(SeenOptions()) },
	}
	for name, ms := range spec.Maps {
		newFake, ok := fakes[name]
		if !ok {
			if ms.Type != ebpf.Array && ms.Type != ebpf.RingBuf {
				t.Errorf("map %s (%v) has no fake", name, ms.Type)
			}
			continue
		}
		f, err := newFake()
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(f.Type(), f.KeySize(), f.ValueSize(), f.MaxEntries(), f.Flags())
		if want := fmt.Sprint(ms.Type, ms.KeySize, ms.ValueSize, ms.MaxEntries, ms.Flags); got != want {
			t.Errorf("map %s: the fake is %s, the object's map %s (type, key, value, max_entries, flags)", name, got, want)
		}
		delete(fakes, name)
	}
	for name := range fakes {
		t.Errorf("fake %s: the object has no such map", name)
	}
}

func TestSumCounters(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		n := cpus(t)
		// Key k holds 10k+j on CPU j; key 1000 only 7 on CPU 0 (a shorter
		// slice leaves the other CPUs zero).
		for k := range uint32(100) {
			perCPU := make([]uint64, n)
			for j := range perCPU {
				perCPU[j] = uint64(10*k) + uint64(j)
			}
			if err := ms.Counters.Put(k, perCPU); err != nil {
				t.Fatal(err)
			}
		}
		if err := ms.Counters.Put(uint32(1000), []uint64{7}); err != nil {
			t.Fatal(err)
		}
		got, err := SumCounters(ms.Counters)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 101 {
			t.Fatalf("%d counters, want 101", len(got))
		}
		for _, c := range got {
			want := uint64(7)
			if c.Key != 1000 {
				want = uint64(n)*uint64(10*c.Key) + uint64(n*(n-1)/2)
			}
			if c.Total != want {
				t.Errorf("counter %d: %d, want %d", c.Key, c.Total, want)
			}
		}
		// The order: the map's, which the zero seed makes the kernel's.
		return fmt.Sprint(got)
	})
}

// The counters of an empty map, and of a map of one key.
func TestSumCountersEdges(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		got, err := SumCounters(ms.Counters)
		if err != nil || len(got) != 0 {
			t.Fatalf("SumCounters of an empty map: %v, %v", got, err)
		}
		if err := ms.Counters.Put(uint32(5), []uint64{1, 2}); err != nil {
			t.Fatal(err)
		}
		got, err = SumCounters(ms.Counters)
		if err != nil || len(got) != 1 || got[0] != (Counter{5, 3}) {
			t.Fatalf("SumCounters: %v, %v; want [{5 3}]", got, err)
		}
		return fmt.Sprint(got)
	})
}

// A bucket of more keys than SumCounters's first batch: the batch call that
// reaches it is ENOSPC, and SumCounters asks again with more room. With the
// zero seed a key's bucket is jhash(key, 0) modulo the 256 buckets.
func TestSumCountersBigBucket(t *testing.T) {
	var keys []uint32
	for k := uint32(0); len(keys) < batchSize+4; k++ {
		if htab.Jhash(binary.NativeEndian.AppendUint32(nil, k), 0)%256 == 7 {
			keys = append(keys, k)
		}
	}
	both(t, func(t *testing.T, ms Maps) string {
		for _, k := range keys {
			if err := ms.Counters.Put(k, []uint64{uint64(k)}); err != nil {
				t.Fatal(err)
			}
		}
		// A batch of 16 cannot take the bucket.
		var cursor ebpf.MapBatchCursor
		out := make([]uint32, batchSize)
		n, err := ms.Counters.BatchLookup(&cursor, out, make([]uint64, batchSize*cpus(t)), nil)
		if n != 0 || !errors.Is(err, unix.ENOSPC) {
			t.Fatalf("BatchLookup of %d into a bucket of %d: %d, %v; want ENOSPC", batchSize, len(keys), n, err)
		}
		got, err := SumCounters(ms.Counters)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("%d counters, want %d", len(got), len(keys))
		}
		for _, c := range got {
			if c.Total != uint64(c.Key) {
				t.Fatalf("counter %d: %d", c.Key, c.Total)
			}
		}
		return fmt.Sprint(got)
	})
}

// conn is the i-th connection of a test.
func conn(i int) Conn {
	return Conn{Saddr: 0x0a000000 + uint32(i), Daddr: 0xc0000201, Sport: uint16(1024 + i), Dport: 443, Ifindex: 2}
}

// walk is the keys of conns in NextKey's order.
func walk(t *testing.T, m Map) []Conn {
	t.Helper()
	var keys []Conn
	var k Conn
	for err := m.NextKey(nil, &k); err == nil; err = m.NextKey(k, &k) {
		keys = append(keys, k)
	}
	return keys
}

func TestExpireConns(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		// Connection i was last seen at 1000i ns; at 40000 with 15000 idle,
		// those last seen before 25000 go: 0..24.
		for i := range 40 {
			if err := ms.Conns.Update(conn(i), uint64(1000*i), ebpf.UpdateNoExist); err != nil {
				t.Fatal(err)
			}
		}
		n, err := ExpireConns(ms.Conns, 40000, 15000*time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		left := walk(t, ms.Conns)
		if n != 25 || len(left) != 15 {
			t.Fatalf("expired %d, %d left; want 25 and 15", n, len(left))
		}
		var last uint64
		for _, c := range left {
			if err := ms.Conns.Lookup(c, &last); err != nil || last < 25000 {
				t.Fatalf("%+v: last seen %d (%v), should have expired", c, last, err)
			}
		}
		if err := ms.Conns.Lookup(conn(0), &last); !errors.Is(err, ebpf.ErrKeyNotExist) {
			t.Fatalf("Lookup of an expired connection: %v, want ErrKeyNotExist", err)
		}
		// Nothing more to expire.
		if n, err := ExpireConns(ms.Conns, 40000, 15000*time.Nanosecond); n != 0 || err != nil {
			t.Fatalf("ExpireConns again: %d, %v", n, err)
		}
		return fmt.Sprint(left)
	})
}

// racing is a map from which a key disappears just before the batch delete
// that asks for it, as when the program's LRU map evicts it meanwhile.
type racing struct {
	Map
	victim Conn
	gone   bool
}

func (r *racing) BatchDelete(keys any, opts *ebpf.BatchOptions) (int, error) {
	if !r.gone {
		if err := r.Map.Delete(r.victim); err != nil {
			return 0, err
		}
		r.gone = true
	}
	return r.Map.BatchDelete(keys, opts)
}

func TestExpireConnsGoneMeanwhile(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		for i := range 10 {
			if err := ms.Conns.Put(conn(i), uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := ExpireConns(&racing{Map: ms.Conns, victim: conn(4)}, 1000, 100*time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		if left := walk(t, ms.Conns); n != 9 || len(left) != 0 {
			t.Fatalf("expired %d, left %v; want 9 and none", n, left)
		}
		return strconv.Itoa(n)
	})
}

// noBatches is a map as on a kernel without batch operations (before 5.6).
type noBatches struct{ Map }

func (noBatches) BatchLookup(*ebpf.MapBatchCursor, any, any, *ebpf.BatchOptions) (int, error) {
	return 0, fmt.Errorf("batch lookup: %w", ebpf.ErrNotSupported)
}

func (noBatches) BatchDelete(any, *ebpf.BatchOptions) (int, error) {
	return 0, fmt.Errorf("batch delete: %w", ebpf.ErrNotSupported)
}

// Without batch operations, SumCounters and ExpireConns go key by key, with
// the same results.
func TestWithoutBatches(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		for k := range uint32(50) {
			if err := ms.Counters.Put(k, []uint64{uint64(k), 1}); err != nil {
				t.Fatal(err)
			}
			if err := ms.Conns.Put(conn(int(k)), uint64(k)); err != nil {
				t.Fatal(err)
			}
		}
		want, err := SumCounters(ms.Counters)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SumCounters(noBatches{ms.Counters})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("SumCounters without batches: %v, %v; want %v", got, err, want)
		}
		n, err := ExpireConns(noBatches{ms.Conns}, 100, 60*time.Nanosecond)
		if err != nil || n != 40 {
			t.Fatalf("ExpireConns without batches: %d, %v; want 40", n, err)
		}
		return fmt.Sprint(got, walk(t, ms.Conns))
	})
}

// An LRU map is never full: new connections evict old ones.
func TestConnsNeverFull(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		max := int(ms.Conns.MaxEntries())
		for i := range 2 * max {
			if err := ms.Conns.Put(conn(i), uint64(i)); err != nil {
				t.Fatalf("Put %d into an LRU map of %d: %v", i, max, err)
			}
		}
		if n := len(walk(t, ms.Conns)); n == 0 || n > max {
			t.Fatalf("%d connections in a map of %d", n, max)
		}
		return "" // which ones were evicted depends on the CPUs the kernel's calls ran on
	})
}

func flow(i int) Flow {
	return Flow{Saddr: 0x0a000000 + uint32(i), Daddr: 0xc0000201, Sport: uint16(2000 + i), Dport: 80, Proto: 6}
}

func TestTopFlows(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		for i := range 30 {
			if err := ms.Flows.Put(flow(i), FlowStats{Packets: uint64(i), Bytes: uint64(i%10) * 1000}); err != nil {
				t.Fatal(err)
			}
		}
		top, err := TopFlows(ms.Flows, 4)
		if err != nil {
			t.Fatal(err)
		}
		// 9000 bytes: flows 9, 19, 29; then 8000: 8, 18, 28.
		want := []FlowRecord{{flow(9), FlowStats{9, 9000}}, {flow(19), FlowStats{19, 9000}}, {flow(29), FlowStats{29, 9000}}, {flow(8), FlowStats{8, 8000}}}
		if !reflect.DeepEqual(top, want) {
			t.Fatalf("TopFlows = %v, want %v", top, want)
		}
		var s FlowStats
		if err := ms.Flows.Lookup(flow(3), &s); err != nil || s != (FlowStats{3, 3000}) {
			t.Fatalf("Lookup(flow 3) = %v, %v", s, err)
		}
		for _, n := range []int{0, -1} {
			if none, err := TopFlows(ms.Flows, n); err != nil || len(none) != 0 {
				t.Fatalf("TopFlows(%d) = %v, %v", n, none, err)
			}
		}
		// The order of the whole table.
		var keys []string
		var k Flow
		for err := ms.Flows.NextKey(nil, &k); err == nil; err = ms.Flows.NextKey(k, &k) {
			keys = append(keys, strconv.Itoa(int(k.Saddr&0xff)))
		}
		return strings.Join(keys, " ")
	})
}

// A hash map holds max_entries keys: one more is E2BIG, as from the kernel.
func TestFlowsFull(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		max := int(ms.Flows.MaxEntries())
		for i := range max {
			if err := ms.Flows.Update(flow(i), FlowStats{}, ebpf.UpdateNoExist); err != nil {
				t.Fatal(err)
			}
		}
		err := ms.Flows.Put(flow(max), FlowStats{1, 1})
		if !errors.Is(err, unix.E2BIG) {
			t.Fatalf("Put into a full map: %v, want E2BIG", err)
		}
		if err := ms.Flows.Put(flow(0), FlowStats{1, 1}); err != nil {
			t.Fatalf("replacing a key of a full map: %v", err)
		}
		if err := ms.Flows.Update(flow(0), FlowStats{}, ebpf.UpdateNoExist); !errors.Is(err, ebpf.ErrKeyExist) {
			t.Fatalf("UpdateNoExist of a present key: %v, want ErrKeyExist", err)
		}
		return err.Error()
	})
}

func TestInterfaceStats(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		n := cpus(t)
		perCPU := make([]IfStats, n)
		for j := range perCPU {
			perCPU[j] = IfStats{Drops: 1, Passes: uint32(10 * (j + 1)), Errors: uint32(j)}
		}
		if err := ms.Stats.Put(uint32(2), perCPU); err != nil {
			t.Fatal(err)
		}
		if err := ms.Stats.Put(uint32(3), []IfStats{{Passes: 5}}); err != nil { // CPU 0 only
			t.Fatal(err)
		}
		s, ok, err := InterfaceStats(ms.Stats, 2)
		want := IfStats{Drops: uint32(n), Passes: uint32(10 * n * (n + 1) / 2), Errors: uint32(n * (n - 1) / 2)}
		if err != nil || !ok || s != want {
			t.Fatalf("InterfaceStats(2) = %+v, %v, %v; want %+v", s, ok, err, want)
		}
		if s, ok, err := InterfaceStats(ms.Stats, 3); err != nil || !ok || s != (IfStats{Passes: 5}) {
			t.Fatalf("InterfaceStats(3) = %+v, %v, %v", s, ok, err)
		}
		if _, ok, err := InterfaceStats(ms.Stats, 9); ok || err != nil {
			t.Fatalf("InterfaceStats(9) = %v, %v; want none", ok, err)
		}
		return fmt.Sprint(s)
	})
}

// A bloom filter: no false negatives, and, with the zero seed, exactly the
// kernel's false positives.
func TestSeen(t *testing.T) {
	both(t, func(t *testing.T, ms Maps) string {
		for a := range uint32(3000) {
			if err := MarkSeen(ms.Seen, 0x0a000000+a); err != nil {
				t.Fatal(err)
			}
		}
		for a := range uint32(3000) {
			if ok, err := SeenBefore(ms.Seen, 0x0a000000+a); !ok || err != nil {
				t.Fatalf("SeenBefore(%#x) = %v, %v after MarkSeen", 0x0a000000+a, ok, err)
			}
		}
		var falsePositives []string
		for a := range uint32(20000) {
			ok, err := SeenBefore(ms.Seen, 0xc0000000+a)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				falsePositives = append(falsePositives, strconv.FormatUint(uint64(a), 16))
			}
		}
		if len(falsePositives) > 2000 {
			t.Fatalf("%d false positives in 20000", len(falsePositives))
		}
		return strings.Join(falsePositives, " ")
	})
}

// LoadMaps, which production code calls, gives maps that this package's
// functions take.
func TestLoadMaps(t *testing.T) {
	requireKernel(t)
	spec, err := ebpf.LoadCollectionSpec(object)
	if err != nil {
		t.Fatal(err)
	}
	ms, closeMaps, err := LoadMaps(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeMaps(); err != nil {
			t.Error(err)
		}
	}()
	if got, err := SumCounters(ms.Counters); err != nil || len(got) != 0 {
		t.Fatalf("SumCounters of a new map: %v, %v", got, err)
	}
	if n, err := ExpireConns(ms.Conns, 0, time.Second); err != nil || n != 0 {
		t.Fatalf("ExpireConns of a new map: %d, %v", n, err)
	}
}
