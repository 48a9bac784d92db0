package templates

import "github.com/dave/jennifer/jen"

// update emits the write paths: Update, Delete, LookupAndDelete. Each takes
// the key's bucket lock, and frees what it frees before it unlocks (see
// freeDeleted), so single-key operations are linearizable; the per-CPU
// program update of a present key writes its own CPU's slot under that
// slot's lock instead.
func (g *generator) update(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	hashKey := keyBucket(hashCall(jen.Op("&").Id("k")))
	unlockReturn := func(v ...jen.Code) jen.Code {
		return jen.Block(jen.Id("b").Dot("Unlock").Call(), jen.Return(v...))
	}

	g.updateElem(f)

	// func (m *<Map>) Delete(k <Key>) error
	f.Comment("Delete removes k, as BPF_MAP_DELETE_ELEM does: htab.ErrKeyNotExist if absent.")
	f.Func().Params(g.recvMap()).Id("Delete").Params(jen.Id("k").Id(g.keyT)).Error().Block(append(hashKey,
		jen.Id("b").Dot("Lock").Call(),
		jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
		jen.If(jen.Id("i").Op("==").Lit(0)).Add(unlockReturn(htabId("ErrKeyNotExist"))),
		m("unlink").Call(hashBucketIndex(), jen.Id("prev"), jen.Id("i")),
		g.freeDeleted(jen.Id("i").Op("-").Lit(1)),
		jen.Return(jen.Nil()),
	)...)

	// func (m *<Map>) LookupAndDelete(k <Key>) (<Value>, error)
	f.Comment("LookupAndDelete removes k and returns its value, as")
	f.Comment("BPF_MAP_LOOKUP_AND_DELETE_ELEM does: htab.ErrKeyNotExist if absent.")
	if g.l.PerCPU {
		// func (m *<Map>) LookupAndDelete(k <Key>, vals []<Value>) error
		f.Comment("vals receives every CPU's value: len(vals) >= CPUs(), else htab.ErrInvalid.")
		f.Func().Params(g.recvMap()).Id("LookupAndDelete").Params(jen.Id("k").Id(g.keyT), jen.Id("vals").Index().Id(g.valT)).Error().Block(append(append([]jen.Code{
			jen.If(jen.Len(jen.Id("vals")).Op("<").Add(m("cpus"))).Block(jen.Return(g.errLen("vals"))),
		}, hashKey...),
			jen.Id("b").Dot("Lock").Call(),
			jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
			jen.If(jen.Id("i").Op("==").Lit(0)).Add(unlockReturn(htabId("ErrKeyNotExist"))),
			m("loadValues").Call(jen.Id("i").Op("-").Lit(1), jen.Id("vals")),
			m("unlink").Call(hashBucketIndex(), jen.Id("prev"), jen.Id("i")),
			g.freeDeleted(jen.Id("i").Op("-").Lit(1)),
			jen.Return(jen.Nil()),
		)...)
	} else {
		f.Func().Params(g.recvMap()).Id("LookupAndDelete").Params(jen.Id("k").Id(g.keyT)).Params(jen.Id(g.valT), jen.Error()).Block(append(hashKey,
			jen.Id("b").Dot("Lock").Call(),
			jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
			jen.If(jen.Id("i").Op("==").Lit(0)).Add(unlockReturn(jen.Id(g.valT).Values(), htabId("ErrKeyNotExist"))),
			jen.Id("v").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)).Dot("loadValue").Call(),
			m("unlink").Call(hashBucketIndex(), jen.Id("prev"), jen.Id("i")),
			g.freeDeleted(jen.Id("i").Op("-").Lit(1)),
			jen.Return(jen.Id("v"), jen.Nil()),
		)...)
	}

	// func (m *<Map>) unlink(bi, prev, i uint32)
	f.Comment("unlink takes element i (index+1) out of bucket bi, whose element before it")
	f.Comment("is prev (0: i is the head). Only under the bucket's lock.")
	f.Func().Params(g.recvMap()).Id("unlink").Params(jen.List(jen.Id("bi"), jen.Id("prev"), jen.Id("i")).Uint32()).Block(
		jen.Id("next").Op(":=").Add(load(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"))),
		jen.If(jen.Id("prev").Op("==").Lit(0)).BlockFunc(func(gr *jen.Group) {
			gr.Add(m("buckets")).Index(jen.Id("bi")).Dot("SetHead").Call(jen.Id("next"))
			if g.l.Occupancy {
				// The bucket's bit goes after its last element (-batch-lock sparse).
				gr.If(jen.Id("next").Op("==").Lit(0)).Block(m("occ").Dot("Clear").Call(jen.Id("bi")))
			}
		}).Else().Block(
			store(m("elem").Call(jen.Id("prev").Op("-").Lit(1)).Dot("next"), jen.Id("next")),
		),
	)

	// func (m *<Map>) linkHead(bi, i uint32)
	f.Comment("linkHead makes element i (index+1) the head of bucket bi. Only under the")
	f.Comment("bucket's lock.")
	f.Func().Params(g.recvMap()).Id("linkHead").Params(jen.List(jen.Id("bi"), jen.Id("i")).Uint32()).BlockFunc(func(gr *jen.Group) {
		gr.Id("b").Op(":=").Op("&").Add(m("buckets")).Index(jen.Id("bi"))
		if !g.l.Occupancy {
			gr.Add(store(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"), jen.Id("b").Dot("Head").Call()))
			gr.Id("b").Dot("SetHead").Call(jen.Id("i"))
			return
		}
		// -batch-lock sparse: the bucket's bit is set before its first element.
		gr.Id("head").Op(":=").Id("b").Dot("Head").Call()
		gr.If(jen.Id("head").Op("==").Lit(0)).Block(m("occ").Dot("Set").Call(jen.Id("bi")))
		gr.Add(store(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"), jen.Id("head")))
		gr.Id("b").Dot("SetHead").Call(jen.Id("i"))
	})
}

// hashBucketIndex is h&m.mask: the bucket of the key whose hash is h.
func hashBucketIndex() *jen.Statement { return jen.Id("h").Op("&").Id("m").Dot("mask") }

// freeDeleted ends a delete of element i from the locked bucket b: it frees
// i, then unlocks b. Freeing under the lock makes the element free before
// anyone can see the key gone, so whoever sees that through a single-key
// operation can insert another key into a full map (hash and per-CPU: no
// ErrFull; LRU: no eviction of another key, and no ErrNoMem in a map of one
// element). The kernel frees after unlocking, a window in which such an
// insert fails although the delete took effect. An LRU map may free under a
// bucket lock because htab.LRU.Push never waits for a lock.
func (g *generator) freeDeleted(i jen.Code) jen.Code {
	return jen.Add(jen.Id("m").Dot("free").Call(i), jen.Line(), jen.Id("b").Dot("Unlock").Call())
}
