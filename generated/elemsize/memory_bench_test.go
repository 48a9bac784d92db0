package elemsize

// The memory table of the kernel patch series "bpf: htab: Reduce memory use
// of hash maps", reproduced from measurements: for every row of its table
// (standard hash, per-CPU prealloc, per-CPU NoPrealloc, LRU, and LRU
// per-CPU) the lean element (the series' "new size") against the all-fields
// element (-lean=false, the "old size").
//
//	go test -run '^$' -bench EntryMemory -benchtime 3x ./generated/elemsize/
//
// reports, per map, "B/elem" (unsafe.Sizeof of the element, which for LRU
// types carries its LRU node, as the kernel's does) and
// "B/entry": heap growth (HeapAlloc after GC) of a map of memMaxEntries
// entries filled to capacity, divided by memMaxEntries — everything included:
// elements, buckets, per-CPU values (memCPUs CPU slots), LRU nodes.
// TestLeanElemSizes checks the static facts against the series' table.

import (
	"encoding/binary"
	"runtime"
	"testing"
	"unsafe"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernelfigures"
	"github.com/htabgen/htabgen/spec"
)

const (
	memMaxEntries = 65536
	memCPUs       = 2 // CPU slots of the per-CPU and LRU maps
)

// memRow is one row of the table: a map type and configuration, the
// kernel's element size before and after the series, and the lean and fat
// maps.
type memRow struct {
	name       string // the row's Map in kernelfigures.ElemSizes
	lean, fat  memMap
	noPrealloc bool
}

type memMap struct {
	elem  uintptr                          // element bytes, LRU node included
	build func(noPrealloc bool) (any, int) // a full map and its Len
}

func key8(i int) (k [8]byte) {
	binary.LittleEndian.PutUint64(k[:], uint64(i)*0x9e3779b97f4a7c15)
	return k
}

// fill inserts MaxEntries distinct keys; update is the map's userspace Update.
func fill(tb testing.TB, n int, update func(k [8]byte) error) {
	for i := range n {
		if err := update(key8(i)); err != nil {
			tb.Fatalf("update %d: %v", i, err)
		}
	}
}

func memRows(tb testing.TB) []memRow {
	opts := func(np bool) htab.Options {
		return htab.Options{MaxEntries: memMaxEntries, CPUs: memCPUs, NoPrealloc: np}
	}
	check := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	hashLean := memMap{unsafe.Sizeof(hashLeanElem{}), func(np bool) (any, int) {
		m, err := NewHashLean(opts(np))
		check(err)
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, HashLeanValue{1}, htab.UpdateAny) })
		return m, m.Len()
	}}
	hashFat := memMap{unsafe.Sizeof(hashFatElem{}), func(np bool) (any, int) {
		m, err := NewHashFat(opts(np))
		check(err)
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, HashFatValue{1}, htab.UpdateAny) })
		return m, m.Len()
	}}
	pcpuLean := memMap{unsafe.Sizeof(perCPULeanElem{}), func(np bool) (any, int) {
		m, err := NewPerCPULean(opts(np))
		check(err)
		vals := make([]PerCPULeanValue, m.CPUs())
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, vals, htab.UpdateAny) })
		return m, m.Len()
	}}
	pcpuFat := memMap{unsafe.Sizeof(perCPUFatElem{}), func(np bool) (any, int) {
		m, err := NewPerCPUFat(opts(np))
		check(err)
		vals := make([]PerCPUFatValue, m.CPUs())
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, vals, htab.UpdateAny) })
		return m, m.Len()
	}}
	lruLean := memMap{unsafe.Sizeof(lRULeanElem{}), func(bool) (any, int) {
		m, err := NewLRULean(opts(false))
		check(err)
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, LRULeanValue{1}, htab.UpdateAny) })
		return m, m.Len()
	}}
	lruFat := memMap{unsafe.Sizeof(lRUFatElem{}), func(bool) (any, int) {
		m, err := NewLRUFat(opts(false))
		check(err)
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, LRUFatValue{1}, htab.UpdateAny) })
		return m, m.Len()
	}}
	lruPcpuLean := memMap{unsafe.Sizeof(lRUPerCPULeanElem{}), func(bool) (any, int) {
		m, err := NewLRUPerCPULean(opts(false))
		check(err)
		vals := make([]LRUPerCPULeanValue, m.CPUs())
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, vals, htab.UpdateAny) })
		return m, m.Len()
	}}
	lruPcpuFat := memMap{unsafe.Sizeof(lRUPerCPUFatElem{}), func(bool) (any, int) {
		m, err := NewLRUPerCPUFat(opts(false))
		check(err)
		vals := make([]LRUPerCPUFatValue, m.CPUs())
		fill(tb, memMaxEntries, func(k [8]byte) error { return m.Update(k, vals, htab.UpdateAny) })
		return m, m.Len()
	}}
	return []memRow{
		{"hash", hashLean, hashFat, false},
		{"hash-noprealloc", hashLean, hashFat, true},
		{"pcpu", pcpuLean, pcpuFat, false},
		{"pcpu-noprealloc", pcpuLean, pcpuFat, true},
		{"lru", lruLean, lruFat, false},
		{"lru_pcpu", lruPcpuLean, lruPcpuFat, false},
	}
}

// heapGrowth is the live heap that build's result holds, in bytes.
func heapGrowth(build func() (any, int)) (bytes float64, n int) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	m, n := build()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	after := ms.HeapAlloc
	runtime.KeepAlive(m)
	return float64(int64(after) - int64(before)), n
}

func BenchmarkEntryMemory(b *testing.B) {
	for _, r := range memRows(b) {
		for _, impl := range []struct {
			name string
			m    memMap
		}{{"fat", r.fat}, {"lean", r.lean}} {
			b.Run("map="+r.name+"/impl="+impl.name, func(b *testing.B) {
				var total float64
				var iters, n int
				for b.Loop() {
					var bytes float64
					bytes, n = heapGrowth(func() (any, int) { return impl.m.build(r.noPrealloc) })
					total += bytes
					iters++
				}
				b.ReportMetric(float64(impl.m.elem), "B/elem")
				b.ReportMetric(total/float64(iters)/memMaxEntries, "B/entry")
				b.ReportMetric(float64(n), "keys")
			})
		}
	}
}

// TestLeanElemSizes checks the series' table against the generated
// elements: every lean element (with its LRU node) is no larger than the
// kernel's new size, strictly smaller than the all-fields element where the
// kernel saves memory, and the sizes the planner promised are the sizes the
// compiler laid out.
func TestLeanElemSizes(t *testing.T) {
	for _, r := range memRows(t) {
		kern, ok := kernelfigures.ElemSizeOf(r.name)
		if !ok {
			t.Fatalf("%s: not a row of the series' table", r.name)
		}
		if r.lean.elem > uintptr(kern.New) {
			t.Errorf("%s: lean element %d B > kernel's new size %d B", r.name, r.lean.elem, kern.New)
		}
		if r.lean.elem >= r.fat.elem {
			t.Errorf("%s: lean element %d B, not smaller than the fat one %d B", r.name, r.lean.elem, r.fat.elem)
		}
		if r.fat.elem > uintptr(kern.Old) {
			t.Errorf("%s: fat element %d B > kernel's old size %d B", r.name, r.fat.elem, kern.Old)
		}
	}
	plans := []struct {
		typ  spec.MapType
		key  int
		lean bool
		got  uintptr
	}{
		{spec.Hash, 8, true, unsafe.Sizeof(hashLeanElem{})},
		{spec.Hash, 8, false, unsafe.Sizeof(hashFatElem{})},
		{spec.PerCPU, 8, true, unsafe.Sizeof(perCPULeanElem{})},
		{spec.PerCPU, 8, false, unsafe.Sizeof(perCPUFatElem{})},
		{spec.LRU, 8, true, unsafe.Sizeof(lRULeanElem{})},
		{spec.LRU, 8, false, unsafe.Sizeof(lRUFatElem{})},
		{spec.LRUPerCPU, 8, true, unsafe.Sizeof(lRUPerCPULeanElem{})},
		{spec.LRUPerCPU, 8, false, unsafe.Sizeof(lRUPerCPUFatElem{})},
		{spec.Hash, 4, true, unsafe.Sizeof(memLeanElem{})},
		{spec.Hash, 4, false, unsafe.Sizeof(memFatElem{})},
	}
	for _, p := range plans {
		l := planFor(t, p.typ, p.key, p.lean)
		if uintptr(l.ElemSize) != p.got {
			t.Errorf("%s key %d lean=%v: planned element %d B, compiled %d B", p.typ, p.key, p.lean, l.ElemSize, p.got)
		}
	}
}

func planFor(t *testing.T, typ spec.MapType, key int, lean bool) *spec.Layout {
	t.Helper()
	s := spec.Default()
	s.Type, s.Key, s.Val, s.Lean = typ, key, 8, lean
	s.Layout = spec.LayoutClassic // as gen.go generates them
	l, err := spec.Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLeanHeapPerEntry fills maps and checks that the heap they hold is
// what the planner's EntryBytes says (elements, buckets, per-CPU values, LRU
// nodes), within a margin for the maps' fixed-size parts: no hidden
// per-entry cost.
func TestLeanHeapPerEntry(t *testing.T) {
	types := map[string]spec.MapType{"hash": spec.Hash, "hash-noprealloc": spec.Hash, "pcpu": spec.PerCPU,
		"pcpu-noprealloc": spec.PerCPU, "lru": spec.LRU, "lru_pcpu": spec.LRUPerCPU}
	for _, r := range memRows(t) {
		for _, lean := range []bool{true, false} {
			m := r.fat
			if lean {
				m = r.lean
			}
			want := planFor(t, types[r.name], 8, lean).EntryBytes(memMaxEntries, memCPUs)
			bytes, _ := heapGrowth(func() (any, int) { return m.build(r.noPrealloc) })
			got := bytes / memMaxEntries
			if got < want-0.5 || got > want+1 {
				t.Errorf("%s lean=%v: %.2f B/entry on the heap, planned %.2f", r.name, lean, got, want)
			}
		}
	}
}
