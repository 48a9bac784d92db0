package templates

import "github.com/dave/jennifer/jen"

// alloc emits element storage: the accessor, allocation of a free element
// and freeing. Preallocated maps index one array; NoPrealloc maps allocate
// chunks on first use. Freed elements go on a lock-free stack and are reused
// before never-used ones, so a map holds exactly maxEntries keys either way.
func (g *generator) alloc(f *jen.File) {
	p := g.l.Prefix
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }

	// func (m *<Map>) elem(i uint32) *<elem>
	f.Comment("elem is element i (an index, not index+1).")
	f.Func().Params(g.recvMap()).Id("elem").Params(jen.Id("i").Uint32()).Op("*").Id(g.elemT).BlockFunc(func(gr *jen.Group) {
		if g.l.LRU {
			gr.Return(jen.Op("&").Add(m("elems")).Index(jen.Id("i")))
			return
		}
		gr.If(m("elems").Op("!=").Nil()).Block(jen.Return(jen.Op("&").Add(m("elems")).Index(jen.Id("i"))))
		gr.Return(inChunk(m("chunks"), p))
	})

	if g.l.LRU {
		g.lruFree(f)
		return
	}

	// func (m *<Map>) alloc() (uint32, bool)
	f.Comment("alloc takes a free element: a freed one, else a never-used one.")
	f.Comment("It reports false when all maxEntries elements are in use.")
	f.Func().Params(g.recvMap()).Id("alloc").Params().Params(jen.Uint32(), jen.Bool()).Block(
		jen.For().Block(
			jen.Id("h").Op(":=").Add(m("freeHead")).Dot("Load").Call(),
			jen.Id("top").Op(":=").Uint32().Call(jen.Id("h")),
			jen.If(jen.Id("top").Op("==").Lit(0)).Block(jen.Break()),
			jen.Id("next").Op(":=").Add(load(m("elem").Call(jen.Id("top").Op("-").Lit(1)).Dot("next"))),
			jen.Comment("The tag in the high half makes a stale CAS fail (ABA)."),
			jen.If(m("freeHead").Dot("CompareAndSwap").Call(jen.Id("h"),
				jen.Parens(jen.Id("h").Op(">>").Lit(32).Op("+").Lit(1)).Op("<<").Lit(32).Op("|").Uint64().Call(jen.Id("next")))).Block(
				jen.Return(jen.Id("top").Op("-").Lit(1), jen.True()),
			),
		),
		jen.For().Block(
			jen.Id("i").Op(":=").Add(m("fresh")).Dot("Load").Call(),
			jen.If(jen.Id("i").Op(">=").Add(m("maxEntries"))).Block(jen.Return(jen.Lit(0), jen.False())),
			jen.If(m("fresh").Dot("CompareAndSwap").Call(jen.Id("i"), jen.Id("i").Op("+").Lit(1))).Block(
				jen.If(m("elems").Op("==").Nil()).Block(m("ensureChunk").Call(jen.Id("i").Op(">>").Id(p+"ChunkShift"))),
				jen.Return(jen.Id("i"), jen.True()),
			),
		),
	)

	// func (m *<Map>) ensureChunk(c uint32)
	f.Comment("ensureChunk allocates chunk c of a NoPrealloc map if it is not there yet.")
	f.Func().Params(g.recvMap()).Id("ensureChunk").Params(jen.Id("c").Uint32()).Block(
		jen.If(m("chunks").Index(jen.Id("c")).Dot("Load").Call().Op("!=").Nil()).Block(jen.Return()),
		m("chunkMu").Dot("Lock").Call(),
		jen.If(m("chunks").Index(jen.Id("c")).Dot("Load").Call().Op("==").Nil()).Block(
			g.perCPUChunk(),
			m("chunks").Index(jen.Id("c")).Dot("Store").Call(jen.New(jen.Id(g.elemChunkT))),
		),
		m("chunkMu").Dot("Unlock").Call(),
	)

	// func (m *<Map>) free(i uint32)
	f.Comment("free puts element i, already unlinked from its bucket, back for reuse.")
	f.Func().Params(g.recvMap()).Id("free").Params(jen.Id("i").Uint32()).Block(
		g.quiesceBeforeFree(),
		m("count").Dot("Add").Call(jen.Lit(-1)),
		jen.Id("e").Op(":=").Add(m("elem").Call(jen.Id("i"))),
		jen.For().Block(
			jen.Id("h").Op(":=").Add(m("freeHead")).Dot("Load").Call(),
			store(jen.Id("e").Dot("next"), jen.Uint32().Call(jen.Id("h"))),
			jen.If(m("freeHead").Dot("CompareAndSwap").Call(jen.Id("h"),
				jen.Parens(jen.Id("h").Op(">>").Lit(32).Op("+").Lit(1)).Op("<<").Lit(32).Op("|").Uint64().Call(jen.Id("i").Op("+").Lit(1)))).Block(
				jen.Return(),
			),
		),
	)
}

// lruFree emits free for the LRU types: the element goes back to the LRU
// engine (bpf_lru_push_free), which hands out elements and evicts for them.
func (g *generator) lruFree(f *jen.File) {
	// func (m *<Map>) free(i uint32)
	f.Comment("free gives element i, already unlinked from its bucket, back to the LRU.")
	f.Comment("Never under a bucket lock: the LRU takes bucket locks when it evicts.")
	f.Func().Params(g.recvMap()).Id("free").Params(jen.Id("i").Uint32()).Block(
		jen.Id("m").Dot("count").Dot("Add").Call(jen.Lit(-1)),
		jen.Id("m").Dot("lru").Dot("Push").Call(jen.Id("i")),
	)
}

// quiesceBeforeFree makes free of a pcpu map (Layout.SlotLocks) wait out the
// program writes still in flight on the element, so that none lands after
// the element is reused.
func (g *generator) quiesceBeforeFree() jen.Code {
	if !g.l.SlotLocks {
		return jen.Null()
	}
	return jen.Id("m").Dot("quiesce").Call(jen.Id("i"))
}
