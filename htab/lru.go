package htab

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"
)

// This file is a port of the kernel's kernel/bpf/bpf_lru_list.c (v6.16+, the
// version with a per-map target_free, commit d4adf1c9ee77) and of the parts of
// kernel/bpf/bpf_lru_list.h it needs. Names in comments refer to that source.

// Node list types (enum bpf_lru_list_type). The first three are the lists of a
// bpf_lru_list (only ACTIVE and INACTIVE are counted); the last two are the
// per-CPU local lists of the common LRU.
const (
	lruActive       = 0 // BPF_LRU_LIST_T_ACTIVE
	lruInactive     = 1 // BPF_LRU_LIST_T_INACTIVE
	lruFree         = 2 // BPF_LRU_LIST_T_FREE
	lruLocalFree    = 3 // BPF_LRU_LOCAL_LIST_T_FREE
	lruLocalPending = 4 // BPF_LRU_LOCAL_LIST_T_PENDING

	lruNrListT      = 3 // NR_BPF_LRU_LIST_T
	lruNrListCount  = 2 // NR_BPF_LRU_LIST_COUNT
	lruLocalListOff = 3 // BPF_LOCAL_LIST_T_OFFSET
)

// Tunables of bpf_lru_list.c.
const (
	lruLocalFreeTarget  = 128                 // LOCAL_FREE_TARGET (upper clamp of target_free)
	lruLocalNrScans     = lruLocalFreeTarget  // LOCAL_NR_SCANS
	lruPercpuFreeTarget = 4                   // PERCPU_FREE_TARGET
	lruPercpuNrScans    = lruPercpuFreeTarget // PERCPU_NR_SCANS
)

func lruIsLocalType(t uint32) bool { return t >= lruLocalListOff } // IS_LOCAL_LIST_TYPE

// LRUNode is struct bpf_lru_node with indexes instead of pointers: 16
// pointer-free bytes, which the element of an LRU map carries (NewLRUOver) as
// the kernel's element embeds its bpf_lru_node. Its fields are the LRU's.
// Indexes 0..n-1 are the map's elements; indexes >= n are list heads
// (sentinels).
//
// ref is the kernel's racy u8 ref bit; here a uint32 only ever accessed
// with sync/atomic and StoreRelease (the kernel's READ_ONCE and WRITE_ONCE).
// It comes first: an element that puts its node right after its value has
// the ref bit a program-side lookup sets next to the value it read.
// meta packs cpu (bits 8..23) and type (bits 0..7); it is only written with
// the owning list's lock held, but bpf_common_lru_push_free reads the type
// (READ_ONCE) and the cpu without any lock, so it is accessed as ref is. prev
// and next are protected by the lock of the list the node is on.
type LRUNode struct {
	ref        uint32
	meta       uint32
	prev, next uint32
}

func lruMeta(cpu, typ uint32) uint32 { return cpu<<8 | typ }

// lruList is struct bpf_lru_list: three lists, counts of the active and
// inactive lists, the inactive-rotation cursor and the lock.
type lruList struct {
	lock   listLock
	heads  [lruNrListT]uint32 // sentinel index of each list, by type
	counts [lruNrListCount]uint32
	// nextInactiveRotation is where the next inactive rotation starts: a node
	// on the inactive list or the inactive list's head.
	nextInactiveRotation uint32
	_                    [64]byte // keep the locks of neighbouring CPUs apart
}

// lruLocal is struct bpf_lru_locallist: a common-LRU CPU's cache of free nodes
// and its pending list (nodes handed out by Pop and not yet in the global
// active/inactive order).
type lruLocal struct {
	lock    listLock
	free    uint32 // sentinel of the local free list
	pending uint32 // sentinel of the local pending list
	// nextSteal is the CPU the next steal starts at. The kernel reads and
	// writes it without a lock (only its own CPU uses it); here several
	// goroutines may share a CPU slot, hence atomic.
	nextSteal atomic.Uint32
	_         [64]byte // keep the locks of neighbouring CPUs apart
}

// LRU is the kernel's bpf_lru (kernel/bpf/bpf_lru_list.c), the engine behind
// BPF_MAP_TYPE_LRU_HASH and BPF_MAP_TYPE_LRU_PERCPU_HASH. It tracks a fixed
// set of nodes, identified by index 0..n-1 (the element index of the map that
// owns it), and hands out free nodes, evicting old elements when none is left.
//
// There are two modes, chosen at creation like the kernel's
// BPF_F_NO_COMMON_LRU flag:
//
//   - Common LRU (the default): one global list set (active, inactive, free)
//     under one lock, plus for each CPU a local list set under its own lock:
//     a local free list (a batch of target_free nodes fetched from the global
//     lists at once) and a pending list holding the nodes that CPU handed out
//     and has not yet flushed into the global active/inactive order. When a
//     CPU's local free list runs dry it flushes its pending list, rotates the
//     global lists and refills (evicting inactive elements when the global
//     free list is short); when even that yields nothing it steals a free or
//     pending node from the CPUs' local lists, round-robin.
//   - Per-CPU LRU (NO_COMMON_LRU): every CPU has its own independent list set
//     and lock with n/cpus nodes; a CPU only ever reuses its own nodes.
//
// Elements are aged by the clock-like "ref" bit: Ref (a BPF program's
// lookup) sets it, and the rotations promote referenced nodes to the active
// list and demote the others to the inactive list, whose tail is evicted
// first. The behaviour, including when eviction starts and which keys go,
// follows the kernel exactly: kernel/bpf/bpf_lru_list.c (with target_free,
// v6.16+) and the LRU paths of kernel/bpf/hashtab.c; docs/kernel.md has the
// account.
//
// All methods are safe for concurrent use. The storage is pointer-free, so
// the garbage collector never scans it.
type LRU struct {
	// Node x is at base + x*stride: in an array of its own (NewLRU) or in
	// the map's elements (NewLRUOver). base keeps that array alive.
	base       unsafe.Pointer
	stride     uintptr
	n          uint32 // number of element nodes; sentinels start here
	cpus       uint32
	perCPU     bool
	nrScans    uint32
	targetFree uint32 // common LRU only

	local []lruLocal // common LRU, one per CPU
	lists []lruList  // per-CPU LRU, one per CPU

	evict func(node uint32) bool // del_from_htab

	// The global lock is written by every CPU's refills and frees; the
	// padding keeps it off the cache line of the fields above, which every
	// Pop, Push and LRU.Ref reads.
	_      [64]byte
	global lruList // common LRU
}

// NewLRU creates an LRU of nodes nodes (the map's max_entries, as returned by
// LRUMaxEntries) for cpus CPU slots (>= 1, at most 65536: the kernel keeps the
// cpu in a u16). perCPU selects per-CPU lists (BPF_F_NO_COMMON_LRU); then
// nodes must be a multiple of cpus, which htab_map_alloc guarantees by
// rounding max_entries (LRUMaxEntries), and NewLRU panics otherwise.
//
// All nodes start free, populated as bpf_lru_populate does: common LRU — each
// node in index order added at the head of the global free list; per-CPU —
// nodes/cpus consecutive nodes per CPU, each added at the head of that CPU's
// free list.
//
// evict is the hash table's del_from_htab callback: it must unlink node's
// element from the hash table if it is still linked there and return true,
// else return false. It is called with LRU locks held; it may take the
// table's bucket lock, so the table must never call Pop while holding a
// bucket lock. Push never waits for a lock (listLock.push), so the table may
// give a node back under a bucket lock, and does, so that a deleted key's
// element is free before anyone can see the key gone.
func NewLRU(nodes, cpus int, perCPU bool, evict func(node uint32) bool) *LRU {
	checkLRU("NewLRU", nodes, cpus, perCPU, evict)
	store := make([]LRUNode, nodes+LRUHeads(cpus, perCPU))
	return newLRU(unsafe.Pointer(&store[0]), unsafe.Sizeof(LRUNode{}), nodes, cpus, perCPU, evict)
}

// NewLRUOver is NewLRU over nodes that live in the caller's elements, as an
// LRU map's elements carry theirs: node i is node(&elems[i]), which must be
// the same field of every element. elems holds nodes+LRUHeads(cpus, perCPU)
// elements; the last LRUHeads serve as list heads and must not be used for
// anything else. The LRU keeps elems alive.
func NewLRUOver[E any](elems []E, node func(*E) *LRUNode, nodes, cpus int, perCPU bool, evict func(node uint32) bool) *LRU {
	checkLRU("NewLRUOver", nodes, cpus, perCPU, evict)
	if want := nodes + LRUHeads(cpus, perCPU); len(elems) != want {
		panic(fmt.Sprintf("htab: NewLRUOver: len(elems) = %d, want nodes+LRUHeads = %d", len(elems), want))
	}
	base := unsafe.Pointer(node(&elems[0]))
	off := uintptr(base) - uintptr(unsafe.Pointer(&elems[0]))
	if off+unsafe.Sizeof(LRUNode{}) > unsafe.Sizeof(elems[0]) {
		panic("htab: NewLRUOver: the node is not a field of the element")
	}
	return newLRU(base, unsafe.Sizeof(elems[0]), nodes, cpus, perCPU, evict)
}

// LRUHeads is the number of list heads an LRU keeps after its nodes: the
// global lists and each CPU's local free and pending lists, or (perCPU) each
// CPU's lists.
func LRUHeads(cpus int, perCPU bool) int {
	if perCPU {
		return lruNrListT * cpus
	}
	return lruNrListT + 2*cpus
}

// checkLRU panics on arguments no LRU can be made of.
func checkLRU(fn string, nodes, cpus int, perCPU bool, evict func(uint32) bool) {
	if cpus < 1 || cpus > 1<<16 {
		panic(fmt.Sprintf("htab: %s: cpus = %d, want 1..65536", fn, cpus))
	}
	if evict == nil {
		panic(fmt.Sprintf("htab: %s: nil evict callback", fn))
	}
	if nodes < 0 || uint64(nodes)+uint64(LRUHeads(cpus, perCPU)) > math.MaxUint32 {
		panic(fmt.Sprintf("htab: %s: nodes = %d out of range", fn, nodes))
	}
	if perCPU && nodes%cpus != 0 {
		// bpf_percpu_lru_populate relies on htab_map_alloc's rounding: with
		// fewer nodes than CPUs it divides by zero, and any remainder is
		// never populated.
		panic(fmt.Sprintf("htab: %s: per-CPU LRU needs nodes (%d) to be a multiple of cpus (%d); use LRUMaxEntries", fn, nodes, cpus))
	}
}

// newLRU populates an LRU whose node x is at base + x*stride, as
// bpf_lru_init and bpf_lru_populate do.
func newLRU(base unsafe.Pointer, stride uintptr, nodes, cpus int, perCPU bool, evict func(node uint32) bool) *LRU {
	l := &LRU{
		base:   base,
		stride: stride,
		n:      uint32(nodes),
		cpus:   uint32(cpus),
		perCPU: perCPU,
		evict:  evict,
	}
	next := uint32(nodes) // next free sentinel index
	head := func() uint32 {
		h := next
		next++
		l.node(h).prev, l.node(h).next = h, h // INIT_LIST_HEAD
		return h
	}
	initList := func(ll *lruList) { // bpf_lru_list_init
		for t := range ll.heads {
			ll.heads[t] = head()
		}
		ll.nextInactiveRotation = ll.heads[lruInactive]
	}
	if perCPU {
		// bpf_lru_init + bpf_percpu_lru_populate
		l.nrScans = lruPercpuNrScans
		l.lists = make([]lruList, cpus)
		for c := range l.lists {
			ll := &l.lists[c]
			initList(ll)
			ll.lock.apply = func(x uint32) { l.move(ll, x, lruFree) } // bpf_percpu_lru_push_free
		}
		pcpu := uint32(nodes / cpus)
		i := uint32(0)
		for c := uint32(0); c < l.cpus && i < l.n; c++ {
			ll := &l.lists[c]
			for {
				nd := l.node(i)
				atomic.StoreUint32(&nd.meta, lruMeta(c, lruFree))
				atomic.StoreUint32(&nd.ref, 0)
				l.listAdd(i, ll.heads[lruFree])
				i++
				if i == l.n || i%pcpu == 0 {
					break
				}
			}
		}
	} else {
		// bpf_lru_init + bpf_common_lru_populate
		l.nrScans = lruLocalNrScans
		initList(&l.global)
		l.global.lock.apply = l.globalPushFree
		l.local = make([]lruLocal, cpus)
		for c := range l.local {
			loc := &l.local[c]
			loc.lock.apply = func(x uint32) { l.localPushFree(loc, x) }
			loc.free = head()
			loc.pending = head()
			loc.nextSteal.Store(uint32(c))
		}
		for i := uint32(0); i < l.n; i++ {
			nd := l.node(i)
			atomic.StoreUint32(&nd.meta, lruMeta(0, lruFree))
			atomic.StoreUint32(&nd.ref, 0)
			l.listAdd(i, l.global.heads[lruFree])
		}
		l.targetFree = min(max(l.n/l.cpus/2, 1), lruLocalFreeTarget)
	}
	return l
}

// LRUMaxEntries returns the max_entries an LRU map really has, as
// htab_map_alloc computes it: unchanged for the common LRU; with perCPU
// (BPF_F_NO_COMMON_LRU) rounded up to a multiple of cpus so that every CPU
// gets the same number of nodes, or rounded down if the round-up overflows.
// The arithmetic is the kernel's u32 arithmetic, so maxEntries must be a u32
// value (1..2^32-1); note that the kernel's roundup() overflows in its
// addition, so it rounds down a little earlier than a true overflow of the
// result (e.g. 2^32-2 on 3 CPUs gives 2^32-4, not 2^32-1).
func LRUMaxEntries(maxEntries, cpus int, perCPU bool) int {
	if !perCPU || cpus < 1 {
		return maxEntries
	}
	m, c := uint32(maxEntries), uint32(cpus)
	r := (m + (c - 1)) / c * c // roundup(), wrapping like the kernel's u32 math
	if r < m {
		r = m / c * c // rounddown()
	}
	return int(r)
}

// Ref sets node's ref bit, as a BPF program's lookup of an LRU map does
// (bpf_lru_node_set_ref: load, and store 1 only if not yet set). It takes no
// lock and is safe to call concurrently with everything.
func (l *LRU) Ref(node uint32) {
	l.mustBeElement(node)
	l.node(node).Ref()
}

// Ref sets the node's ref bit, as LRU.Ref does: for a map whose element
// carries its node, a program-side lookup sets the bit of the element it
// found without going through the LRU.
func (n *LRUNode) Ref() {
	if atomic.LoadUint32(&n.ref) == 0 {
		StoreRelease(&n.ref, 1)
	}
}

// Pop is bpf_lru_pop_free as run on CPU cpu (0 <= cpu < cpus): it returns a
// free node for a new element, evicting other elements through the evict
// callback if needed, or ok=false when none can be had (the kernel's NULL,
// which the map reports as ENOMEM). In the common LRU the node goes to cpu's
// pending list; in the per-CPU LRU to the head of cpu's inactive list. Its
// ref bit is clear.
func (l *LRU) Pop(cpu int) (node uint32, ok bool) {
	if l.perCPU {
		return l.percpuPopFree(uint32(cpu))
	}
	return l.commonPopFree(uint32(cpu))
}

// Push is bpf_lru_push_free: node's element was deleted from the table (or a
// node returned by Pop went unused) and node becomes free again. A node still
// on the pending list of the CPU that popped it goes back to that CPU's local
// free list; any other goes to the global free list (per-CPU LRU: its CPU's
// free list). Pushing a node that is already free is ignored in the common
// LRU (the kernel WARNs and returns).
func (l *LRU) Push(node uint32) {
	l.mustBeElement(node)
	if l.perCPU {
		l.percpuPushFree(node)
		return
	}
	l.commonPushFree(node)
}

// mustBeElement panics unless x is an element's node: the callers' indexes
// address memory unchecked otherwise.
func (l *LRU) mustBeElement(x uint32) {
	if x >= l.n {
		panic(fmt.Sprintf("htab: LRU node %d out of range (%d nodes)", x, l.n))
	}
}

// node is node x: an element's (x < n) or a list head's.
func (l *LRU) node(x uint32) *LRUNode {
	return (*LRUNode)(unsafe.Add(l.base, uintptr(x)*l.stride))
}

// ---- list_head primitives on indexes ----

// listAdd is list_add: insert x right after head h.
func (l *LRU) listAdd(x, h uint32) {
	nx := l.node(h).next
	l.node(x).next = nx
	l.node(x).prev = h
	l.node(nx).prev = x
	l.node(h).next = x
}

// listDel is list_del (without poisoning).
func (l *LRU) listDel(x uint32) {
	p, nx := l.node(x).prev, l.node(x).next
	l.node(p).next = nx
	l.node(nx).prev = p
}

// listMove is list_move: delete x from its list and add it after head h.
func (l *LRU) listMove(x, h uint32) {
	l.listDel(x)
	l.listAdd(x, h)
}

func (l *LRU) listEmpty(h uint32) bool { return l.node(h).next == h }

// ---- bpf_lru_node helpers ----

func (l *LRU) nodeType(x uint32) uint32 { return atomic.LoadUint32(&l.node(x).meta) & 0xff }
func (l *LRU) nodeCPU(x uint32) uint32  { return atomic.LoadUint32(&l.node(x).meta) >> 8 }
func (l *LRU) isRef(x uint32) bool      { return atomic.LoadUint32(&l.node(x).ref) != 0 }

// clearRef stores only if the bit is set: most nodes that rotations and
// refills move are not referenced, and a store dirties the node's cache line
// (off amd64, or under -race, it is also a locked instruction). A Ref racing
// with the clear wins either way, as it may in the kernel.
func (l *LRU) clearRef(x uint32) {
	if r := &l.node(x).ref; atomic.LoadUint32(r) != 0 {
		StoreRelease(r, 0)
	}
}

func (l *LRU) setType(x, t uint32) {
	m := &l.node(x).meta
	StoreRelease(m, atomic.LoadUint32(m)&^0xff|t)
}

func (ll *lruList) countInc(t uint32) {
	if t < lruNrListCount {
		ll.counts[t]++
	}
}

func (ll *lruList) countDec(t uint32) {
	if t < lruNrListCount {
		ll.counts[t]--
	}
}

// moveToFree is __bpf_lru_node_move_to_free. It does not clear the ref bit.
func (l *LRU) moveToFree(ll *lruList, x, freeList, tgtFreeType uint32) {
	t := l.nodeType(x)
	if lruIsLocalType(t) { // WARN_ON_ONCE
		return
	}
	if x == ll.nextInactiveRotation {
		ll.nextInactiveRotation = l.node(x).prev
	}
	ll.countDec(t)
	l.setType(x, tgtFreeType)
	l.listMove(x, freeList)
}

// moveIn is __bpf_lru_node_move_in: from a local list into the LRU list.
func (l *LRU) moveIn(ll *lruList, x, tgt uint32) {
	if !lruIsLocalType(l.nodeType(x)) || lruIsLocalType(tgt) { // WARN_ON_ONCE
		return
	}
	ll.countInc(tgt)
	l.setType(x, tgt)
	l.clearRef(x)
	l.listMove(x, ll.heads[tgt])
}

// move is __bpf_lru_node_move: between or within the lists of ll.
func (l *LRU) move(ll *lruList, x, tgt uint32) {
	t := l.nodeType(x)
	if lruIsLocalType(t) || lruIsLocalType(tgt) { // WARN_ON_ONCE
		return
	}
	if t != tgt {
		ll.countDec(t)
		ll.countInc(tgt)
		l.setType(x, tgt)
	}
	l.clearRef(x)
	if x == ll.nextInactiveRotation {
		ll.nextInactiveRotation = l.node(x).prev
	}
	l.listMove(x, ll.heads[tgt])
}

// ---- bpf_lru_list operations (ll locked) ----

// rotateActive is __bpf_lru_list_rotate_active.
func (l *LRU) rotateActive(ll *lruList) {
	active := ll.heads[lruActive]
	first := l.node(active).next
	i := uint32(0)
	// list_for_each_entry_safe_reverse
	for x := l.node(active).prev; x != active; {
		tmp := l.node(x).prev
		if l.isRef(x) {
			l.move(ll, x, lruActive)
		} else {
			l.move(ll, x, lruInactive)
		}
		i++
		if i == l.nrScans || x == first {
			break
		}
		x = tmp
	}
}

// rotateInactive is __bpf_lru_list_rotate_inactive.
func (l *LRU) rotateInactive(ll *lruList) {
	inactive := ll.heads[lruInactive]
	if l.listEmpty(inactive) {
		return
	}
	next := inactive
	last := l.node(ll.nextInactiveRotation).next
	if last == inactive {
		last = l.node(last).next
	}
	cur := ll.nextInactiveRotation
	for i := uint32(0); i < l.nrScans; {
		if cur == inactive {
			cur = l.node(cur).prev
			continue
		}
		next = l.node(cur).prev
		if l.isRef(cur) {
			l.move(ll, cur, lruActive)
		}
		if cur == last {
			break
		}
		cur = next
		i++
	}
	ll.nextInactiveRotation = next
}

// shrinkInactive is __bpf_lru_list_shrink_inactive.
func (l *LRU) shrinkInactive(ll *lruList, tgtNShrink, freeList, tgtFreeType uint32) uint32 {
	inactive := ll.heads[lruInactive]
	nshrinked, i := uint32(0), uint32(0)
	for x := l.node(inactive).prev; x != inactive; {
		tmp := l.node(x).prev
		if l.isRef(x) {
			l.move(ll, x, lruActive)
		} else if l.evict(x) {
			l.moveToFree(ll, x, freeList, tgtFreeType)
			nshrinked++
			if nshrinked == tgtNShrink {
				break
			}
		}
		i++
		if i == l.nrScans {
			break
		}
		x = tmp
	}
	return nshrinked
}

// rotate is __bpf_lru_list_rotate.
func (l *LRU) rotate(ll *lruList) {
	if ll.counts[lruInactive] < ll.counts[lruActive] { // bpf_lru_list_inactive_low
		l.rotateActive(ll)
	}
	l.rotateInactive(ll)
}

// shrink is __bpf_lru_list_shrink: shrinkInactive, and if that frees nothing
// a force shrink of exactly one node ignoring the ref bits, from the tail of
// the inactive list (or of the active list if the inactive one is empty).
func (l *LRU) shrink(ll *lruList, tgtNShrink, freeList, tgtFreeType uint32) uint32 {
	if n := l.shrinkInactive(ll, tgtNShrink, freeList, tgtFreeType); n != 0 {
		return n
	}
	force := ll.heads[lruInactive]
	if l.listEmpty(force) {
		force = ll.heads[lruActive]
	}
	for x := l.node(force).prev; x != force; {
		tmp := l.node(x).prev
		if l.evict(x) {
			l.moveToFree(ll, x, freeList, tgtFreeType)
			return 1
		}
		x = tmp
	}
	return 0
}

// ---- common LRU ----

// localFlush is __local_list_flush (loc and the global lists locked).
func (l *LRU) localFlush(loc *lruLocal) {
	pending := loc.pending
	for x := l.node(pending).prev; x != pending; {
		tmp := l.node(x).prev
		if l.isRef(x) {
			l.moveIn(&l.global, x, lruActive)
		} else {
			l.moveIn(&l.global, x, lruInactive)
		}
		x = tmp
	}
}

// popFreeToLocal is bpf_lru_list_pop_free_to_local (loc locked).
func (l *LRU) popFreeToLocal(loc *lruLocal) {
	g := &l.global
	g.lock.lock()
	l.localFlush(loc)
	l.rotate(g)
	nfree := uint32(0)
	free := g.heads[lruFree]
	for x := l.node(free).next; x != free; { // list_for_each_entry_safe
		tmp := l.node(x).next
		l.moveToFree(g, x, loc.free, lruLocalFree)
		nfree++
		if nfree == l.targetFree {
			break
		}
		x = tmp
	}
	if nfree < l.targetFree {
		l.shrink(g, l.targetFree-nfree, loc.free, lruLocalFree)
	}
	g.lock.unlock()
}

// localAddPending is __local_list_add_pending (loc locked).
func (l *LRU) localAddPending(loc *lruLocal, cpu, x uint32) {
	StoreRelease(&l.node(x).meta, lruMeta(cpu, lruLocalPending))
	l.clearRef(x)
	l.listAdd(x, loc.pending)
}

// localPopFree is __local_list_pop_free (loc locked). The node keeps its
// LOCAL_FREE type until localAddPending.
func (l *LRU) localPopFree(loc *lruLocal) (uint32, bool) {
	x := l.node(loc.free).next
	if x == loc.free {
		return 0, false
	}
	l.listDel(x)
	return x, true
}

// localPopPending is __local_list_pop_pending (loc locked): from the tail
// (oldest), the first unreferenced node whose element can be evicted; failing
// that, a second pass ignoring the ref bits.
func (l *LRU) localPopPending(loc *lruLocal) (uint32, bool) {
	pending := loc.pending
	for _, force := range [2]bool{false, true} {
		for x := l.node(pending).prev; x != pending; x = l.node(x).prev {
			if (!l.isRef(x) || force) && l.evict(x) {
				l.listDel(x)
				return x, true
			}
		}
	}
	return 0, false
}

// commonPopFree is bpf_common_lru_pop_free.
func (l *LRU) commonPopFree(cpu uint32) (uint32, bool) {
	loc := &l.local[cpu]
	loc.lock.lock()
	x, ok := l.localPopFree(loc)
	if !ok {
		l.popFreeToLocal(loc)
		x, ok = l.localPopFree(loc)
	}
	if ok {
		l.localAddPending(loc, cpu, x)
	}
	loc.lock.unlock()
	if ok {
		return x, true
	}

	// No free node in the local free list nor from the global LRU list:
	// steal from the local free/pending lists of this and the other CPUs,
	// round-robin from loc.nextSteal.
	first := loc.nextSteal.Load()
	steal := first
	for {
		sl := &l.local[steal]
		sl.lock.lock()
		x, ok = l.localPopFree(sl)
		if !ok {
			x, ok = l.localPopPending(sl)
		}
		sl.lock.unlock()
		steal++ // get_next_cpu: all CPU slots are possible CPUs
		if steal == l.cpus {
			steal = 0
		}
		if ok || steal == first {
			break
		}
	}
	loc.nextSteal.Store(steal)
	if ok {
		loc.lock.lock()
		l.localAddPending(loc, cpu, x)
		loc.lock.unlock()
	}
	return x, ok
}

// commonPushFree is bpf_common_lru_push_free. Neither path waits for a lock
// (listLock.push): a free that finds its lists locked is applied by the
// holder.
func (l *LRU) commonPushFree(x uint32) {
	// READ_ONCE(node->type), without a lock.
	t := l.nodeType(x)
	if t == lruFree || t == lruLocalFree { // WARN_ON_ONCE
		return
	}
	if t == lruLocalPending {
		loc := &l.local[l.nodeCPU(x)]
		loc.lock.push(x) // localPushFree
		return
	}
	l.global.lock.push(x) // globalPushFree
}

// localPushFree is the pending-node half of bpf_common_lru_push_free
// (loc locked).
func (l *LRU) localPushFree(loc *lruLocal, x uint32) {
	// The pending list's CPU may have flushed the node into the global
	// lists in the meantime.
	if l.nodeType(x) != lruLocalPending {
		l.global.lock.push(x)
		return
	}
	l.setType(x, lruLocalFree)
	l.clearRef(x)
	l.listMove(x, loc.free)
}

// globalPushFree is bpf_lru_list_push_free (the global lists locked).
func (l *LRU) globalPushFree(x uint32) {
	if lruIsLocalType(l.nodeType(x)) { // WARN_ON_ONCE
		return
	}
	l.move(&l.global, x, lruFree)
}

// ---- per-CPU LRU ----

// percpuPopFree is bpf_percpu_lru_pop_free.
func (l *LRU) percpuPopFree(cpu uint32) (uint32, bool) {
	ll := &l.lists[cpu]
	ll.lock.lock()
	defer ll.lock.unlock()
	l.rotate(ll)
	free := ll.heads[lruFree]
	if l.listEmpty(free) {
		l.shrink(ll, lruPercpuFreeTarget, free, lruFree)
	}
	if l.listEmpty(free) {
		return 0, false
	}
	x := l.node(free).next
	l.clearRef(x)
	l.move(ll, x, lruInactive)
	return x, true
}

// percpuPushFree is bpf_percpu_lru_push_free, without waiting for the lock
// (listLock.push; the lists' apply moves the node to their free list).
func (l *LRU) percpuPushFree(x uint32) {
	l.lists[l.nodeCPU(x)].lock.push(x)
}
