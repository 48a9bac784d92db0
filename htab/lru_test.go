package htab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/internal/lrusanity"
)

// ---- a minimal test-only LRU hash map on top of the engine ----

// errLRUTestNoMem is the kernel's ENOMEM of an LRU map whose Pop failed.
var errLRUTestNoMem = errors.New("lru test map: no memory (ENOMEM)")

// lruTestMap mirrors the LRU paths of kernel/bpf/hashtab.c
// (htab_lru_map_update_elem and its per-CPU twin, delete, and the eviction
// callback htab_lru_map_delete_node) with uint64 keys and values; one mutex
// stands for the bucket locks.
type lruTestMap struct {
	lru    *LRU
	percpu bool // BPF_MAP_TYPE_LRU_PERCPU_HASH (else LRU_HASH)

	mu     sync.Mutex
	byKey  map[uint64]uint32
	keyOf  []uint64
	vals   []uint64
	linked []bool
}

func newLRUTestMap(maxEntries, cpus int, percpuType, noCommon bool) *lruTestMap {
	n := LRUMaxEntries(maxEntries, cpus, noCommon)
	m := &lruTestMap{
		percpu: percpuType,
		byKey:  make(map[uint64]uint32),
		keyOf:  make([]uint64, n),
		vals:   make([]uint64, n),
		linked: make([]bool, n),
	}
	m.lru = NewLRU(n, cpus, noCommon, m.delNode)
	return m
}

// delNode is htab_lru_map_delete_node.
func (m *lruTestMap) delNode(node uint32) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.linked[node] {
		return false
	}
	delete(m.byKey, m.keyOf[node])
	m.linked[node] = false
	return true
}

func (m *lruTestMap) link(node uint32, key, val uint64) {
	m.byKey[key] = node
	m.keyOf[node] = key
	m.vals[node] = val
	m.linked[node] = true
}

func (m *lruTestMap) unlink(node uint32) {
	delete(m.byKey, m.keyOf[node])
	m.linked[node] = false
}

func lruTestCheckFlags(exists bool, flags uint64) error {
	if exists && flags == uint64(UpdateNoExist) {
		return ErrKeyExist
	}
	if !exists && flags == uint64(UpdateExist) {
		return ErrKeyNotExist
	}
	return nil
}

// update is htab_lru_map_update_elem or __htab_lru_percpu_map_update_elem.
func (m *lruTestMap) update(cpu int, key, val, flags uint64) error {
	if flags > uint64(UpdateExist) {
		return ErrInvalid
	}
	if m.percpu {
		return m.updatePercpu(cpu, key, val, flags)
	}
	// The node is popped before the key is looked up: it may evict the key.
	node, ok := m.lru.Pop(cpu)
	if !ok {
		return errLRUTestNoMem
	}
	m.mu.Lock()
	old, exists := m.byKey[key]
	if err := lruTestCheckFlags(exists, flags); err != nil {
		m.mu.Unlock()
		m.lru.Push(node)
		return err
	}
	m.link(node, key, val)
	if exists {
		m.lru.Ref(node)
		m.linked[old] = false // the key now maps to node
	}
	m.mu.Unlock()
	if exists {
		m.lru.Push(old)
	}
	return nil
}

func (m *lruTestMap) updatePercpu(cpu int, key, val, flags uint64) error {
	var node uint32
	popped := false
	if flags != uint64(UpdateExist) {
		var ok bool
		if node, ok = m.lru.Pop(cpu); !ok {
			return errLRUTestNoMem
		}
		popped = true
	}
	m.mu.Lock()
	old, exists := m.byKey[key]
	err := lruTestCheckFlags(exists, flags)
	if err == nil {
		if exists {
			m.lru.Ref(old)
			m.vals[old] = val // in place
		} else {
			m.link(node, key, val)
			popped = false
		}
	}
	m.mu.Unlock()
	if popped {
		m.lru.Push(node)
	}
	return err
}

// lookup is a syscall lookup: no ref bit.
func (m *lruTestMap) lookup(key uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	node, ok := m.byKey[key]
	if !ok {
		return 0, ErrKeyNotExist
	}
	return m.vals[node], nil
}

// lookupRef is a BPF program's lookup: sets the ref bit.
func (m *lruTestMap) lookupRef(key uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	node, ok := m.byKey[key]
	if !ok {
		return 0, ErrKeyNotExist
	}
	m.lru.Ref(node)
	return m.vals[node], nil
}

// lookupAndDelete is __htab_map_lookup_and_delete_elem for LRU maps.
func (m *lruTestMap) lookupAndDelete(key uint64) (uint64, error) {
	m.mu.Lock()
	node, ok := m.byKey[key]
	if !ok {
		m.mu.Unlock()
		return 0, ErrKeyNotExist
	}
	val := m.vals[node]
	m.unlink(node)
	m.mu.Unlock()
	m.lru.Push(node)
	return val, nil
}

// delete is htab_lru_map_delete_elem.
func (m *lruTestMap) delete(key uint64) error {
	_, err := m.lookupAndDelete(key)
	return err
}

func (m *lruTestMap) contents() map[uint64]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[uint64]uint64, len(m.byKey))
	for k, n := range m.byKey {
		out[k] = m.vals[n]
	}
	return out
}

// ---- invariant checker (reads LRU internals; the test is in package htab) ----

type lruStats struct {
	free    int // on a free list (global/per-CPU FREE or a local free list)
	lru     int // on an active or inactive list
	pending int // on a local pending list
	nonFree map[uint32]bool
}

// lockAll takes every lock of l in an order compatible with the engine's
// (local before global), with the queued frees applied.
func (l *LRU) lockAll() func() {
	if l.perCPU {
		for i := range l.lists {
			l.lists[i].lock.lock()
		}
		return func() {
			for i := range l.lists {
				l.lists[i].lock.unlock()
			}
		}
	}
	for i := range l.local {
		l.local[i].lock.lock()
	}
	l.global.lock.lock()
	return func() {
		l.global.lock.unlock()
		for i := range l.local {
			l.local[i].lock.unlock()
		}
	}
}

// check verifies that every node is on exactly one list, with the type (and
// cpu) of that list, that the links are consistent, and that the counts and
// the rotation cursor are right.
func (l *LRU) check() (lruStats, error) {
	defer l.lockAll()()
	st := lruStats{nonFree: map[uint32]bool{}}
	seen := make([]bool, l.n)
	walk := func(h, typ uint32, cpu int) (int, error) {
		cnt := 0
		for x, p := l.node(h).next, h; x != h; p, x = x, l.node(x).next {
			if x >= l.n {
				return 0, fmt.Errorf("list %d: sentinel %d inside the list", h, x)
			}
			if l.node(x).prev != p {
				return 0, fmt.Errorf("node %d: prev %d, want %d", x, l.node(x).prev, p)
			}
			if seen[x] {
				return 0, fmt.Errorf("node %d on two lists (or a cycle)", x)
			}
			seen[x] = true
			if got := l.nodeType(x); got != typ {
				return 0, fmt.Errorf("node %d on list type %d has type %d", x, typ, got)
			}
			if cpu >= 0 && int(l.nodeCPU(x)) != cpu {
				return 0, fmt.Errorf("node %d on cpu %d's list has cpu %d", x, cpu, l.nodeCPU(x))
			}
			cnt++
		}
		return cnt, nil
	}
	checkList := func(ll *lruList, cpu int) error {
		for t := uint32(0); t < lruNrListT; t++ {
			c, err := walk(ll.heads[t], t, cpu)
			if err != nil {
				return err
			}
			if t < lruNrListCount && uint32(c) != ll.counts[t] {
				return fmt.Errorf("list type %d: %d nodes, count %d", t, c, ll.counts[t])
			}
			if t == lruFree {
				st.free += c
			} else {
				st.lru += c
			}
		}
		cur := ll.nextInactiveRotation
		if cur != ll.heads[lruInactive] && (cur >= l.n || l.nodeType(cur) != lruInactive) {
			return fmt.Errorf("next_inactive_rotation %d is not on the inactive list", cur)
		}
		return nil
	}
	if l.perCPU {
		for c := range l.lists {
			if err := checkList(&l.lists[c], c); err != nil {
				return st, fmt.Errorf("cpu %d: %w", c, err)
			}
		}
	} else {
		if err := checkList(&l.global, -1); err != nil {
			return st, fmt.Errorf("global: %w", err)
		}
		for c := range l.local {
			f, err := walk(l.local[c].free, lruLocalFree, -1)
			if err != nil {
				return st, fmt.Errorf("cpu %d local free: %w", c, err)
			}
			p, err := walk(l.local[c].pending, lruLocalPending, c)
			if err != nil {
				return st, fmt.Errorf("cpu %d pending: %w", c, err)
			}
			st.free += f
			st.pending += p
		}
	}
	for x, ok := range seen {
		if !ok {
			return st, fmt.Errorf("node %d is on no list", x)
		}
		if t := l.nodeType(uint32(x)); t != lruFree && t != lruLocalFree {
			st.nonFree[uint32(x)] = true
		}
	}
	return st, nil
}

// order returns the nodes of list h from head to tail.
func (l *LRU) order(h uint32) []uint32 {
	var out []uint32
	for x := l.node(h).next; x != h; x = l.node(x).next {
		out = append(out, x)
	}
	return out
}

// checkTable verifies the engine against the table at quiescence: the nodes
// linked in the table are exactly the non-free nodes, and none is lost.
func (m *lruTestMap) checkTable(t *testing.T) {
	t.Helper()
	st, err := m.lru.check()
	require.NoError(t, err)
	m.mu.Lock()
	defer m.mu.Unlock()
	inTable := map[uint32]bool{}
	for k, n := range m.byKey {
		require.True(t, m.linked[n], "key %d: node %d not marked linked", k, n)
		require.Equal(t, k, m.keyOf[n])
		inTable[n] = true
	}
	for n, ok := range m.linked {
		require.Equal(t, ok, inTable[uint32(n)], "node %d linked flag", n)
	}
	require.Equal(t, inTable, st.nonFree, "non-free nodes == nodes in the table")
	require.Equal(t, int(m.lru.n), st.free+len(m.byKey), "free + in use == nodes")
	require.Equal(t, int(m.lru.n), st.free+st.lru+st.pending)
}

// ---- test_lru_map.c (v6.16+; internal/lrusanity) ----

// lruSanityMap is the model table as lrusanity drives it. The model keeps
// one value per key, also for the per-CPU type.
type lruSanityMap struct{ m *lruTestMap }

func (s lruSanityMap) Update(cpu int, key, val, flags uint64) error {
	return s.m.update(cpu, key, val, flags)
}
func (s lruSanityMap) Lookup(key uint64) (uint64, bool) {
	v, err := s.m.lookup(key)
	return v, err == nil
}
func (s lruSanityMap) LookupRef(_ int, key uint64) (uint64, bool) {
	v, err := s.m.lookupRef(key)
	return v, err == nil
}
func (s lruSanityMap) LookupAndDelete(key uint64) (uint64, error) { return s.m.lookupAndDelete(key) }
func (s lruSanityMap) Delete(key uint64) error                    { return s.m.delete(key) }
func (s lruSanityMap) Contents() map[uint64]uint64                { return s.m.contents() }

// TestLRUSanity runs the 26 applicable test_lru_map.c sanity runs on the
// engine, with 1, 2 and 4 CPUs, checking the engine's invariants against the
// table at every map_equal.
func TestLRUSanity(t *testing.T) {
	n := lrusanity.ForEach(t, []int{1, 2, 4}, func(t *testing.T, percpu, noCommon bool, cpus int) *lrusanity.Env {
		return &lrusanity.Env{
			Errs: lrusanity.Errors{KeyExist: ErrKeyExist, KeyNotExist: ErrKeyNotExist, Invalid: ErrInvalid},
			New: func(size int) lrusanity.Map {
				return lruSanityMap{newLRUTestMap(size, cpus, percpu, noCommon)}
			},
			Check: func(m lrusanity.Map) { m.(lruSanityMap).m.checkTable(t) },
		}
	})
	require.Equal(t, lrusanity.Applicable, n, "applicable test_lru_map.c runs")
}

// ---- engine unit tests ----

func TestLRUMaxEntries(t *testing.T) {
	type row struct {
		max, cpus int
		perCPU    bool
		want      int
	}
	rows := []row{
		{10, 4, false, 10},
		{10, 4, true, 12},
		{12, 4, true, 12},
		{1, 3, true, 3},
		{2, 1, true, 2},
	}
	if strconv.IntSize == 64 { // max_entries near 2^32 fits an int only there
		var wide uint64 = math.MaxUint32 // a variable: as a constant it would not compile on 32-bit
		u32max := int(wide)
		rows = append(rows,
			row{u32max, 4, true, u32max - 3},     // roundup overflows -> rounddown
			row{u32max - 1, 3, true, u32max - 3}, // u32 wrap in the addition; true roundup 2^32-1 would fit
			row{u32max - 3, 4, true, u32max - 3},
			row{u32max, 1, true, u32max},
		)
	}
	for _, tc := range rows {
		assert.Equal(t, tc.want, LRUMaxEntries(tc.max, tc.cpus, tc.perCPU), "%+v", tc)
	}
}

func TestLRUNodeLayout(t *testing.T) {
	// prev, next, cpu|type, ref: 16 pointer-free bytes per element.
	require.Equal(t, uintptr(16), unsafe.Sizeof(LRUNode{}))
}

func TestLRUTargetFree(t *testing.T) {
	none := func(uint32) bool { return false }
	for _, tc := range []struct{ nodes, cpus, want int }{
		{1, 1, 1}, {2, 1, 1}, {10, 1, 5}, {256, 1, 128}, {1000, 1, 128},
		{256, 2, 64}, {256, 4, 32}, {256, 3, 42}, {3, 4, 1}, {1000, 4, 125},
	} {
		l := NewLRU(tc.nodes, tc.cpus, false, none)
		assert.Equal(t, uint32(tc.want), l.targetFree, "%+v", tc)
		assert.Equal(t, uint32(lruLocalNrScans), l.nrScans)
	}
	assert.Equal(t, uint32(lruPercpuNrScans), NewLRU(8, 2, true, none).nrScans)
}

func TestLRUPopulateOrder(t *testing.T) {
	none := func(uint32) bool { return false }

	// Common: the global free list's head is the last node; a refill moves
	// target_free (5) nodes from it, one by one, to the head of the local
	// free list, reversing them again.
	l := NewLRU(10, 1, false, none)
	require.Equal(t, []uint32{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, l.order(l.global.heads[lruFree]))
	var got []uint32
	for range 10 {
		n, ok := l.Pop(0)
		require.True(t, ok)
		got = append(got, n)
	}
	require.Equal(t, []uint32{5, 6, 7, 8, 9, 0, 1, 2, 3, 4}, got)
	require.Equal(t, []uint32{4, 3, 2, 1, 0}, l.order(l.local[0].pending))
	require.Equal(t, []uint32{9, 8, 7, 6, 5}, l.order(l.global.heads[lruInactive]))
	_, ok := l.Pop(0) // nothing evictable anywhere: ENOMEM
	require.False(t, ok)

	// Per-CPU: n/cpus consecutive nodes per CPU, each at the head.
	l = NewLRU(8, 2, true, none)
	require.Equal(t, []uint32{3, 2, 1, 0}, l.order(l.lists[0].heads[lruFree]))
	require.Equal(t, []uint32{7, 6, 5, 4}, l.order(l.lists[1].heads[lruFree]))
	for _, want := range []uint32{3, 2, 1, 0} {
		n, ok := l.Pop(0)
		require.True(t, ok)
		require.Equal(t, want, n)
	}
	_, ok = l.Pop(0) // cpu 0 cannot use cpu 1's nodes
	require.False(t, ok)
	n, ok := l.Pop(1)
	require.True(t, ok)
	require.Equal(t, uint32(7), n)
	require.Equal(t, []uint32{0, 1, 2, 3}, l.order(l.lists[0].heads[lruInactive]))
	require.Equal(t, uint32(4), l.lists[0].counts[lruInactive])
	l.Push(2)
	require.Equal(t, []uint32{2}, l.order(l.lists[0].heads[lruFree]))
	require.Equal(t, uint32(3), l.lists[0].counts[lruInactive])
	n, ok = l.Pop(0)
	require.True(t, ok)
	require.Equal(t, uint32(2), n)
}

// TestLRUEarlyEviction checks a consequence of kernel/bpf/bpf_lru_list.c:
// free nodes are cached per CPU in batches of target_free, so eviction
// starts before the map is full and evicts a whole batch at once.
func TestLRUEarlyEviction(t *testing.T) {
	m := newLRUTestMap(300, 1, false, false) // target_free 128
	for k := uint64(1); k <= 256; k++ {
		require.NoError(t, m.update(0, k, k, uint64(UpdateNoExist)))
	}
	require.Len(t, m.contents(), 256)
	require.NoError(t, m.update(0, 257, 257, uint64(UpdateNoExist)))
	require.Len(t, m.contents(), 173, "44 free nodes + 84 shrunk at key 257")
	for k := uint64(258); k <= 300; k++ {
		require.NoError(t, m.update(0, k, k, uint64(UpdateNoExist)))
	}
	require.Len(t, m.contents(), 216)
	m.checkTable(t)

	for _, tc := range []struct{ size, cpus int }{{256, 1}, {1000, 4}} {
		m := newLRUTestMap(tc.size, tc.cpus, false, false)
		for k := uint64(1); k <= uint64(tc.size); k++ {
			require.NoError(t, m.update(0, k, k, uint64(UpdateNoExist)))
		}
		require.Len(t, m.contents(), tc.size, "%+v: all max_entries fit", tc)
		m.checkTable(t)
	}
}

// TestLRUPercpuScanAndForceShrink pins nr_scans = PERCPU_NR_SCANS (4), the
// next_inactive_rotation cursor and the force shrink. Filling 16 nodes on one
// CPU runs rotate_inactive before every pop; traced by hand through
// __bpf_lru_list_rotate_inactive, the cursor ends on node 9. With every node
// referenced, the next pop's rotate_inactive promotes 9,8,7,6 (cursor -> 5),
// shrink_inactive promotes the tail 15,14,13,12 and frees none (4 scans), and
// the force shrink evicts exactly one node, 11, from the inactive tail,
// ignoring its ref bit.
func TestLRUPercpuScanAndForceShrink(t *testing.T) {
	l := NewLRU(16, 1, true, func(uint32) bool { return true })
	ll := &l.lists[0]
	for want := uint32(15); ; want-- {
		n, ok := l.Pop(0)
		require.True(t, ok)
		require.Equal(t, want, n)
		if want == 0 {
			break
		}
	}
	require.Equal(t, lruKeyRange32(0, 15), l.order(ll.heads[lruInactive]))
	require.Equal(t, uint32(9), ll.nextInactiveRotation)
	for n := range uint32(16) {
		l.Ref(n)
	}
	n, ok := l.Pop(0)
	require.True(t, ok)
	require.Equal(t, uint32(11), n)
	require.Equal(t, []uint32{12, 13, 14, 15, 6, 7, 8, 9}, l.order(ll.heads[lruActive]))
	require.Equal(t, []uint32{11, 0, 1, 2, 3, 4, 5, 10}, l.order(ll.heads[lruInactive]))
	require.Equal(t, uint32(5), ll.nextInactiveRotation)
	require.Equal(t, [2]uint32{8, 8}, ll.counts)
	for x := range uint32(16) {
		assert.Equal(t, x <= 5 || x == 10, l.isRef(x), "ref bit of node %d", x)
	}
	_, err := l.check()
	require.NoError(t, err)
}

func lruKeyRange32(lo, hi uint32) []uint32 {
	var out []uint32
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}

func TestLRUPushPending(t *testing.T) {
	l := NewLRU(16, 2, false, func(uint32) bool { return false })
	n, ok := l.Pop(1)
	require.True(t, ok)
	require.Equal(t, uint32(lruLocalPending), l.nodeType(n))
	require.Equal(t, uint32(1), l.nodeCPU(n))
	l.Ref(n)
	l.Push(n) // back to the head of cpu 1's local free list, ref cleared
	require.Equal(t, uint32(lruLocalFree), l.nodeType(n))
	require.False(t, l.isRef(n))
	require.Equal(t, n, l.order(l.local[1].free)[0])
	l.Push(n) // already free: ignored (the kernel WARNs)
	n2, ok := l.Pop(1)
	require.True(t, ok)
	require.Equal(t, n, n2)
	_, err := l.check()
	require.NoError(t, err)
}

func TestLRUStealPending(t *testing.T) {
	// 8 nodes, 2 CPUs: target_free 2. CPU 1 keeps two nodes in its pending
	// list; CPU 0 takes all the others. Only CPU 1's nodes are evictable, so
	// CPU 0 must steal them from CPU 1's pending list.
	evictable := map[uint32]bool{}
	var mu sync.Mutex
	l := NewLRU(8, 2, false, func(n uint32) bool {
		mu.Lock()
		defer mu.Unlock()
		ok := evictable[n]
		delete(evictable, n)
		return ok
	})
	for _, want := range []uint32{6, 7} {
		n, ok := l.Pop(1)
		require.True(t, ok)
		require.Equal(t, want, n)
	}
	require.Equal(t, []uint32{7, 6}, l.order(l.local[1].pending))
	for range 6 {
		_, ok := l.Pop(0)
		require.True(t, ok)
	}
	mu.Lock()
	evictable[6], evictable[7] = true, true
	mu.Unlock()
	l.Ref(6)

	n, ok := l.Pop(0)
	require.True(t, ok)
	require.Equal(t, uint32(7), n, "pass 1 skips the referenced tail")
	require.Equal(t, uint32(0), l.nodeCPU(n))
	require.Equal(t, uint32(lruLocalPending), l.nodeType(n))
	require.Equal(t, uint32(0), l.local[0].nextSteal.Load(), "next_steal: one past cpu 1, wrapped")

	n, ok = l.Pop(0)
	require.True(t, ok)
	require.Equal(t, uint32(6), n, "pass 2 ignores the ref bit")
	_, ok = l.Pop(0)
	require.False(t, ok)
	st, err := l.check()
	require.NoError(t, err)
	require.Equal(t, 0, st.free)
}

// ---- concurrency ----

func TestLRUStressRace(t *testing.T) {
	for _, noCommon := range []bool{false, true} {
		for _, percpu := range []bool{false, true} {
			name := fmt.Sprintf("percpu_type=%v/no_common=%v", percpu, noCommon)
			t.Run(name, func(t *testing.T) {
				const cpus, perCPUGoroutines, keys = 4, 2, 512
				ops := 20000
				if testing.Short() {
					ops = 2000
				}
				m := newLRUTestMap(96, cpus, percpu, noCommon)
				var wg sync.WaitGroup
				for g := range cpus * perCPUGoroutines {
					cpu := g % cpus
					wg.Go(func() {
						r := rand.New(rand.NewPCG(uint64(g), 42))
						for range ops {
							k := r.Uint64N(keys)
							switch op := r.IntN(100); {
							case op < 45:
								err := m.update(cpu, k, k*10, r.Uint64N(3))
								if err != nil && !errors.Is(err, ErrKeyExist) && !errors.Is(err, ErrKeyNotExist) && !errors.Is(err, errLRUTestNoMem) {
									t.Errorf("update: %v", err)
								}
							case op < 70:
								if v, err := m.lookupRef(k); err == nil && v != k*10 {
									t.Errorf("key %d: value %d", k, v)
								}
							case op < 80:
								_, _ = m.lookup(k)
							case op < 90:
								_ = m.delete(k)
							case op < 95:
								if v, err := m.lookupAndDelete(k); err == nil && v != k*10 {
									t.Errorf("key %d: value %d", k, v)
								}
							default:
								// A racy program lookup of a node whose element
								// may be going away: Ref must stay safe.
								m.lru.Ref(uint32(r.IntN(int(m.lru.n))))
							}
						}
					})
				}
				wg.Wait()
				m.checkTable(t)
				require.NotEmpty(t, m.contents())
			})
		}
	}
}

// TestLRUOver: an LRU over nodes inside the caller's elements behaves as one
// over its own node array, op for op, and touches nothing of the elements
// but their nodes.
func TestLRUOver(t *testing.T) {
	type elem struct {
		before [5]uint32
		node   LRUNode
		after  uint32
	}
	for _, perCPU := range []bool{false, true} {
		t.Run(fmt.Sprintf("perCPU=%v", perCPU), func(t *testing.T) {
			const nodes, cpus = 64, 2
			// Each engine's evict unlinks a node it handed out and not yet took back.
			linked := [2]map[uint32]bool{{}, {}}
			evict := func(side int) func(uint32) bool {
				return func(x uint32) bool {
					ok := linked[side][x]
					delete(linked[side], x)
					return ok
				}
			}
			own := NewLRU(nodes, cpus, perCPU, evict(0))
			elems := make([]elem, nodes+LRUHeads(cpus, perCPU))
			over := NewLRUOver(elems, func(e *elem) *LRUNode { return &e.node }, nodes, cpus, perCPU, evict(1))
			rng := rand.New(rand.NewPCG(7, 8))
			for step := range 5000 {
				cpu := rng.IntN(cpus)
				switch op := rng.IntN(10); {
				case op < 5:
					x0, ok0 := own.Pop(cpu)
					x1, ok1 := over.Pop(cpu)
					require.Equal(t, [2]any{x0, ok0}, [2]any{x1, ok1}, "step %d: Pop(%d)", step, cpu)
					if ok0 {
						linked[0][x0], linked[1][x1] = true, true
					}
				case op < 8:
					x := uint32(rng.IntN(nodes))
					own.Ref(x)
					over.Ref(x)
				default:
					for x := range linked[0] { // delete some linked node from both
						delete(linked[0], x)
						delete(linked[1], x)
						own.Push(x)
						over.Push(x)
						break
					}
				}
			}
			linkedNodes := 0
			for i := range elems {
				e := &elems[i]
				require.Equal(t, [5]uint32{}, e.before, "element %d", i)
				require.Zero(t, e.after, "element %d", i)
				if e.node.prev != e.node.next || e.node.prev != uint32(i) {
					linkedNodes++ // on a list with others: the LRU's lists live here
				}
			}
			require.Greater(t, linkedNodes, nodes/2)
		})
	}
	evict := func(uint32) bool { return false }
	node := func(e *elem) *LRUNode { return &e.node }
	assert.PanicsWithValue(t, "htab: NewLRUOver: len(elems) = 10, want nodes+LRUHeads = 15", func() {
		NewLRUOver(make([]elem, 10), node, 10, 1, false, evict)
	})
	var elsewhere LRUNode
	assert.PanicsWithValue(t, "htab: NewLRUOver: the node is not a field of the element", func() {
		NewLRUOver(make([]elem, 15), func(*elem) *LRUNode { return &elsewhere }, 10, 1, false, evict)
	})
	l := NewLRU(4, 1, false, evict)
	assert.PanicsWithValue(t, "htab: LRU node 4 out of range (4 nodes)", func() { l.Ref(4) })
	assert.PanicsWithValue(t, "htab: LRU node 4 out of range (4 nodes)", func() { l.Push(4) })
}
