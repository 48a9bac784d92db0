package templates

import "github.com/dave/jennifer/jen"

// lruEvict emits the LRU types' eviction callback, the kernel's
// htab_lru_map_delete_node: htab.LRU calls it, with its own locks held, to
// take an element it chose out of the map. Nothing for the other types.
//
//	func (m *<Map>) evict(n uint32) bool
func (g *generator) lruEvict(f *jen.File) {
	if g.l.LRU == nil {
		return
	}
	bucket := "\th := m.elemHash(e)\n"
	if !g.l.CachedHash {
		bucket = `	// No cached hash: the key is hashed again. A key being written by an
	// update in progress gives some bucket where the element is not linked
	// yet, so the answer is false, as the kernel's would be.
	h := m.elemHash(e)
`
	}
	f.Add(g.code(`
// evict unlinks element n from its bucket if it is linked there and reports
// whether it was: the LRU engine then reuses it. Called with LRU locks held;
// writers never wait for those inside their bucket lock (they Pop before it,
// and Push, which they call inside it, never waits).
func (m *$Map) evict(n uint32) bool {
	e := m.elem(n)
` + bucket + `	bi := h & m.mask
	b := m.lock(bi)
	b.Lock()
	defer b.Unlock()
	prev := uint32(0)
	i := m.head(bi)
	for c := uint32(0); i != 0 && c < m.maxEntries; c++ {
		if i == n+1 {
			m.unlink(bi, prev, i)
			m.count.Add(-1)
			return true
		}
		prev, i = i, m.elem(i-1).nextIndex()
	}
	return false
}
`))
}

// lruMaxEntries is the constructor's rounding of MaxEntries for per-CPU LRU
// lists (each CPU gets the same number of elements), as htab_map_alloc does;
// nothing for the other types. With -ebpf-compat it first keeps the options
// as asked for (ebpfOptionsInit).
//
//	asked := opts // with -ebpf-compat
//	opts.MaxEntries = htab.LRUMaxEntries(opts.MaxEntries, opts.CPUs, opts.NoCommonLRU)
func (g *generator) lruMaxEntries() jen.Code {
	if g.l.LRU == nil {
		return jen.Null()
	}
	var keep string
	if g.l.Spec.EbpfCompat {
		keep = "\tasked := opts // before the rounding, for EBPF(): *ebpf.Map reports the MaxEntries of its spec\n"
	}
	return g.code(keep + "\topts.MaxEntries = htab.LRUMaxEntries(opts.MaxEntries, opts.CPUs, opts.NoCommonLRU)\n")
}

// lruCreate is the constructor's creation of the LRU engine over the nodes
// the elements carry (bpf_lru_populate); nothing for the other types.
//
//	m.lru = htab.NewLRUOver(m.elems, func(e *<Elem>) *htab.LRUNode { return &e.node }, ...)
func (g *generator) lruCreate() jen.Code {
	return when(g.l.LRU != nil, g.code("\tm.lru = htab.NewLRUOver(m.elems, func(e *$Elem) *htab.LRUNode { return &e.node },\n\t\topts.MaxEntries, opts.CPUs, opts.NoCommonLRU, m.evict)\n"))
}
