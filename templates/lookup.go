package templates

import "github.com/dave/jennifer/jen"

// lookup emits the lock-free read path: find, and Lookup on top of it.
func (g *generator) lookup(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }

	// func (m *<Map>) find(b *htab.Bucket, w *<keyWords>, h uint32) (prev, i uint32)
	f.Comment("find walks bucket b for key w (of hash h) and returns index+1 of its element")
	f.Comment("and of the element before it (0: none). Readers must validate the bucket's")
	f.Comment("sequence afterwards; the walk is bounded so that a chain that changes under")
	f.Comment("a reader cannot keep it looping.")
	f.Func().Params(g.recvMap()).Id("find").Params(
		jen.Id("b").Op("*").Qual(htabPkg, "Bucket"), jen.Id("w").Op("*").Id(g.keyWordsT), jen.Id("h").Uint32(),
	).Params(jen.Id("prev"), jen.Id("i").Uint32()).Block(
		jen.Id("i").Op("=").Id("b").Dot("Head").Call(),
		jen.For(jen.Id("n").Op(":=").Uint32().Call(jen.Lit(0)), jen.Id("i").Op("!=").Lit(0).Op("&&").Id("n").Op("<").Add(m("maxEntries")), jen.Id("n").Op("++")).Block(
			jen.Id("e").Op(":=").Add(m("elem").Call(jen.Id("i").Op("-").Lit(1))),
			jen.If(jen.Id("e").Dot("matches").Call(jen.Id("w"), jen.Id("h"))).Block(jen.Return(jen.Id("prev"), jen.Id("i"))),
			jen.List(jen.Id("prev"), jen.Id("i")).Op("=").List(jen.Id("i"), load(jen.Id("e").Dot("next"))),
		),
		jen.Return(jen.Lit(0), jen.Lit(0)),
	)

	g.lookupOn(f)
	if g.l.PerCPU {
		g.lookupPerCPU(f)
		return
	}

	// func (m *<Map>) Lookup(k <Key>) (<Value>, bool)
	f.Comment("Lookup returns the value of k, as BPF_MAP_LOOKUP_ELEM does. It takes no lock:")
	f.Comment("it reads the bucket between two loads of its sequence and retries if a")
	f.Comment("writer came in between.")
	f.Func().Params(g.recvMap()).Id("Lookup").Params(jen.Id("k").Id(g.keyT)).Params(jen.Id(g.valT), jen.Bool()).Block(
		jen.Return(m("lookup").Call(jen.Op("&").Id("k"))),
	)
	// func (m *<Map>) lookup(k *<Key>) (<Value>, bool)
	f.Comment("lookup is Lookup with the key by pointer. Lookup, small enough to be inlined,")
	f.Comment("spares its callers a copy of the key into the arguments: for keys the compiler")
	f.Comment("copies in overlapping 16-byte moves (20, 24, 28 bytes) that copy stalls on the")
	f.Comment("one before it (no store forwarding), which cost lookups a fifth of their time.")
	f.Func().Params(g.recvMap()).Id("lookup").Params(jen.Id("k").Op("*").Id(g.keyT)).Params(jen.Id(g.valT), jen.Bool()).Block(
		g.readKey(jen.Id("found").Op(":=").False(), jen.List(jen.Id("v"), jen.Id("found")).Op("=").List(jen.Id("e").Dot("loadValue").Call(), jen.True()))...,
	)
}

// readKey is the body of a lock-free read of key k (a *Key): the key's
// bucket, then, until no writer came in between, a walk of its chain that
// declares found and sets v and found on a match (walkChain), and returns
// them:
//
//	<keyBucket>
//	for {
//		s := b.ReadBegin()
//		var v <Value>
//		<found declaration>
//		<walk: on the match, onMatch>
//		if b.ReadValid(s) { return v, found }
//	}
func (g *generator) readKey(found, onMatch jen.Code) []jen.Code {
	return append(keyBucket(g.lookupHash(jen.Id("k"), false)),
		jen.For().Block(
			jen.Id("s").Op(":=").Id("b").Dot("ReadBegin").Call(),
			jen.Var().Id("v").Id(g.valT),
			found,
			g.walkChain(onMatch),
			jen.If(jen.Id("b").Dot("ReadValid").Call(jen.Id("s"))).Block(jen.Return(jen.Id("v"), jen.Id("found"))),
		),
	)
}

// lookupPerCPU emits the per-CPU types' userspace Lookup, which copies every
// CPU's value (bpf_percpu_hash_copy).
func (g *generator) lookupPerCPU(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	// func (m *<Map>) Lookup(k <Key>, vals []<Value>) bool
	// A copy that turns out stale must not reach vals, so the values go
	// through a buffer: on the stack when CPUs() is small, else allocated.
	onStack := min(16, 1024/(4*g.l.ValueWords))
	buf := []jen.Code{jen.Id("buf").Op(":=").Make(jen.Index().Id(g.valT), m("cpus"))}
	if onStack > 0 {
		buf = []jen.Code{
			jen.Var().Id("small").Index(jen.Lit(onStack)).Id(g.valT),
			jen.Id("buf").Op(":=").Id("small").Index(jen.Op(":")),
			jen.If(m("cpus").Op(">").Len(jen.Id("small"))).Block(jen.Id("buf").Op("=").Make(jen.Index().Id(g.valT), m("cpus"))),
		}
	}
	f.Comment("Lookup copies every CPU's value of k into vals[:CPUs()], as BPF_MAP_LOOKUP_ELEM")
	f.Comment("does, and reports whether k is present; vals is left alone if not. It panics")
	f.Comment("if len(vals) < CPUs(). It takes no bucket lock (see the design comment).")
	// The length is checked, not just resliced: vals[:cpus] of a short slice
	// with spare capacity would write past its length without a word.
	f.Func().Params(g.recvMap()).Id("Lookup").Params(jen.Id("k").Id(g.keyT), jen.Id("vals").Index().Id(g.valT)).Bool().Block(append(append(append([]jen.Code{
		jen.If(jen.Len(jen.Id("vals")).Op("<").Add(m("cpus"))).Block(
			jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit(g.mapT+".Lookup: len(vals) = %d, want at least CPUs() = %d"), jen.Len(jen.Id("vals")), m("cpus"))),
		),
		jen.Id("vals").Op("=").Id("vals").Index(jen.Op(":").Add(m("cpus"))),
	}, buf...), keyBucket(hashCall(jen.Op("&").Id("k")))...),
		jen.For().Block(
			jen.Id("s").Op(":=").Id("b").Dot("ReadBegin").Call(),
			jen.List(jen.Id("_"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
			jen.If(jen.Id("i").Op("!=").Lit(0)).Block(m("loadValues").Call(jen.Id("i").Op("-").Lit(1), jen.Id("buf").Index(jen.Op(":").Add(m("cpus"))))),
			jen.If(jen.Op("!").Id("b").Dot("ReadValid").Call(jen.Id("s"))).Block(jen.Continue()),
			jen.If(jen.Id("i").Op("!=").Lit(0)).Block(jen.Copy(jen.Id("vals"), jen.Id("buf"))),
			jen.Return(jen.Id("i").Op("!=").Lit(0)),
		),
	)...)
}

// lookupOn emits the program-side lookup that the CPU handles of the per-CPU
// and LRU types share: the value as CPU cpu sees it (its own slot for the
// per-CPU types) and the element's index+1 (0: absent), which the LRU types
// need to set the ref bit. Nothing for hash, whose handles use Lookup.
func (g *generator) lookupOn(f *jen.File) {
	if !g.l.PerCPU && !g.l.LRU {
		return
	}
	val := jen.Id("e").Dot("loadValue").Call() // e: the element walkChain found
	if g.l.PerCPU {
		val = g.readSlot(jen.Id("cpu"), jen.Id("i").Op("-").Lit(1))
	}
	// func (m *<Map>) lookupOn(k *<Key>[, cpu int]) (v <Value>, i uint32)
	if g.l.PerCPU {
		f.Comment("lookupOn is a program's lookup of k on CPU cpu: the value it sees and the")
	} else {
		f.Comment("lookupOn is a program's lookup of k: the value it sees and the")
	}
	f.Comment("index+1 of k's element, 0 if k is absent.")
	params := []jen.Code{jen.Id("k").Op("*").Id(g.keyT)}
	if g.l.PerCPU {
		params = append(params, jen.Id("cpu").Int()) // whose slot to read
	}
	f.Func().Params(g.recvMap()).Id("lookupOn").Params(params...).Params(jen.Id(g.valT), jen.Uint32()).Block(
		g.readKey(jen.Var().Id("found").Uint32(), jen.List(jen.Id("v"), jen.Id("found")).Op("=").List(val, jen.Id("i")))...,
	)
}

// walkChain emits find's walk of bucket b for key w (of hash h), bounded, for
// a reader's hot path: at the element e (index+1 i) that matches, it runs
// match and stops.
//
//	for i, n := b.Head(), uint32(0); i != 0 && n < m.maxEntries; n++ {
//		e := m.elem(i - 1)
//		if e.matches(&w, h) { <match>; break }
//		i = atomic.LoadUint32(&e.next)
//	}
func (g *generator) walkChain(match jen.Code) jen.Code {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	return jen.Comment("find, written out: the walk makes no call.").Line().For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").List(jen.Id("b").Dot("Head").Call(), jen.Uint32().Call(jen.Lit(0))), jen.Id("i").Op("!=").Lit(0).Op("&&").Id("n").Op("<").Add(m("maxEntries")), jen.Id("n").Op("++")).Block(
		jen.Id("e").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)),
		jen.If(jen.Id("e").Dot("matches").Call(jen.Op("&").Id("w"), jen.Id("h"))).Block(match, jen.Break()),
		jen.Id("i").Op("=").Add(load(jen.Id("e").Dot("next"))),
	)
}
