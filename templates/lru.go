package templates

import "github.com/dave/jennifer/jen"

// lruEvict emits the LRU types' eviction callback, the kernel's
// htab_lru_map_delete_node: htab.LRU calls it, with its own locks held, to
// take an element it chose out of the map. Nothing for the other types.
func (g *generator) lruEvict(f *jen.File) {
	if !g.l.LRU {
		return
	}
	l := g.l
	var bucket []jen.Code
	if l.CachedHash {
		// h := atomic.LoadUint32(&e.hash)
		bucket = []jen.Code{jen.Id("h").Op(":=").Add(load(jen.Id("e").Dot("hash")))}
	} else {
		// k := e.loadKey(); w := k.words(); h := m.hash(&k, &w)
		bucket = []jen.Code{
			jen.Comment("No cached hash (seed 002): hash the key again. A key being written by an"),
			jen.Comment("update in progress gives some bucket where the element is not linked yet,"),
			jen.Comment("so the answer is false, as the kernel's would be."),
			jen.Id("k").Op(":=").Id("e").Dot("loadKey").Call(),
			jen.Id("w").Op(":=").Id("k").Dot("words").Call(),
			jen.Id("h").Op(":=").Id("m").Dot("hash").Call(jen.Op("&").Id("k"), jen.Op("&").Id("w")),
		}
	}

	// func (m *<Map>) evict(n uint32) bool
	f.Comment("evict unlinks element n from its bucket if it is linked there and reports")
	f.Comment("whether it was: the LRU engine then reuses it. Called with LRU locks held;")
	f.Comment("writers never wait for those inside their bucket lock (they Pop before it,")
	f.Comment("and Push, which they call inside it, never waits).")
	f.Func().Params(g.recvMap()).Id("evict").Params(jen.Id("n").Uint32()).Bool().Block(append(append(
		[]jen.Code{jen.Id("e").Op(":=").Id("m").Dot("elem").Call(jen.Id("n"))}, bucket...),
		jen.Id("b").Op(":=").Op("&").Id("m").Dot("buckets").Index(hashBucketIndex()),
		jen.Id("b").Dot("Lock").Call(),
		jen.Defer().Id("b").Dot("Unlock").Call(),
		jen.Id("prev").Op(":=").Uint32().Call(jen.Lit(0)),
		jen.Id("i").Op(":=").Id("b").Dot("Head").Call(),
		jen.For(jen.Id("c").Op(":=").Uint32().Call(jen.Lit(0)), jen.Id("i").Op("!=").Lit(0).Op("&&").Id("c").Op("<").Id("m").Dot("maxEntries"), jen.Id("c").Op("++")).Block(
			jen.If(jen.Id("i").Op("==").Id("n").Op("+").Lit(1)).Block(
				jen.Id("m").Dot("unlink").Call(hashBucketIndex(), jen.Id("prev"), jen.Id("i")),
				jen.Id("m").Dot("count").Dot("Add").Call(jen.Lit(-1)),
				jen.Return(jen.True()),
			),
			jen.List(jen.Id("prev"), jen.Id("i")).Op("=").List(jen.Id("i"), load(jen.Id("m").Dot("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"))),
		),
		jen.Return(jen.False()),
	)...)
}

// lruMaxEntries is the constructor's rounding of MaxEntries for per-CPU LRU
// lists (each CPU gets the same number of elements), as htab_map_alloc does.
//
//	opts.MaxEntries = htab.LRUMaxEntries(opts.MaxEntries, opts.CPUs, opts.NoCommonLRU)
func (g *generator) lruMaxEntries() jen.Code {
	if !g.l.LRU {
		return jen.Null()
	}
	return jen.Id("opts").Dot("MaxEntries").Op("=").Qual(htabPkg, "LRUMaxEntries").Call(
		jen.Id("opts").Dot("MaxEntries"), jen.Id("opts").Dot("CPUs"), jen.Id("opts").Dot("NoCommonLRU"))
}

// lruCreate is the constructor's creation of the LRU engine over the nodes
// the elements carry (bpf_lru_populate).
//
//	m.lru = htab.NewLRUOver(m.elems, func(e *<Elem>) *htab.LRUNode { return &e.node },
//		opts.MaxEntries, opts.CPUs, opts.NoCommonLRU, m.evict)
func (g *generator) lruCreate() jen.Code {
	if !g.l.LRU {
		return jen.Null()
	}
	node := jen.Func().Params(jen.Id("e").Op("*").Id(g.elemT)).Op("*").Qual(htabPkg, "LRUNode").Block(
		jen.Return(jen.Op("&").Id("e").Dot("node")))
	return jen.Id("m").Dot("lru").Op("=").Qual(htabPkg, "NewLRUOver").Call(
		jen.Id("m").Dot("elems"), node,
		jen.Id("opts").Dot("MaxEntries"), jen.Id("opts").Dot("CPUs"), jen.Id("opts").Dot("NoCommonLRU"), jen.Id("m").Dot("evict"))
}
