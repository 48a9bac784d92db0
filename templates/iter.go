package templates

import "github.com/dave/jennifer/jen"

// iteration emits NextKey, All and the bucket snapshot they share. The order is
// the kernel's: buckets in ascending index, each bucket newest first.
func (g *generator) iteration(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }

	// func (m *<Map>) snapshot(b *htab.Bucket, keys []<Key>, vals []<Value>) ([]<Key>, []<Value>)
	f.Comment("snapshot appends the keys and values of bucket b, newest first, as one")
	f.Comment("consistent view: it rereads the bucket until no writer came in between.")
	f.Func().Params(g.recvMap()).Id("snapshot").Params(
		jen.Id("b").Op("*").Qual(htabPkg, "Bucket"), jen.Id("keys").Index().Id(g.keyT), jen.Id("vals").Index().Id(g.valT),
	).Params(jen.Index().Id(g.keyT), jen.Index().Id(g.valT)).Block(
		jen.List(jen.Id("k0"), jen.Id("v0")).Op(":=").List(jen.Len(jen.Id("keys")), jen.Len(jen.Id("vals"))),
		jen.For().Block(
			jen.Id("s").Op(":=").Id("b").Dot("ReadBegin").Call(),
			jen.List(jen.Id("keys"), jen.Id("vals")).Op("=").List(jen.Id("keys").Index(jen.Op(":").Id("k0")), jen.Id("vals").Index(jen.Op(":").Id("v0"))),
			jen.Id("i").Op(":=").Id("b").Dot("Head").Call(),
			jen.For(jen.Id("n").Op(":=").Uint32().Call(jen.Lit(0)), jen.Id("i").Op("!=").Lit(0).Op("&&").Id("n").Op("<").Add(m("maxEntries")), jen.Id("n").Op("++")).Block(
				jen.Id("e").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)),
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("e").Dot("loadKey").Call()),
				g.appendValues(),
				jen.Id("i").Op("=").Add(load(jen.Id("e").Dot("next"))),
			),
			jen.If(jen.Id("b").Dot("ReadValid").Call(jen.Id("s"))).Block(jen.Return(jen.Id("keys"), jen.Id("vals"))),
		),
	)

	// func (m *<Map>) NextKey(k *<Key>) (<Key>, error)
	f.Comment("NextKey returns the key after k in the map's order, as BPF_MAP_GET_NEXT_KEY")
	f.Comment("does: the first key when k is nil or absent, htab.ErrKeyNotExist after the")
	f.Comment("last. Order: buckets in ascending index, each bucket newest first.")
	f.Func().Params(g.recvMap()).Id("NextKey").Params(jen.Id("k").Op("*").Id(g.keyT)).Params(jen.Id(g.keyT), jen.Error()).Block(
		jen.Id("start").Op(":=").Uint32().Call(jen.Lit(0)),
		jen.If(jen.Id("k").Op("!=").Nil()).Block(
			jen.Id("w").Op(":=").Id("k").Dot("words").Call(),
			jen.Id("h").Op(":=").Add(m("hash")).Call(jen.Id("k"), jen.Op("&").Id("w")),
			jen.Id("b").Op(":=").Op("&").Add(m("buckets")).Index(jen.Id("h").Op("&").Add(m("mask"))),
			jen.For().Block(
				jen.Id("s").Op(":=").Id("b").Dot("ReadBegin").Call(),
				jen.List(jen.Id("_"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
				jen.Var().Id("next").Uint32(),
				jen.Var().Id("nk").Id(g.keyT),
				jen.If(jen.Id("i").Op("!=").Lit(0)).Block(
					jen.If(jen.Id("next").Op("=").Add(load(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"))), jen.Id("next").Op("!=").Lit(0)).Block(
						jen.Id("nk").Op("=").Add(m("elem")).Call(jen.Id("next").Op("-").Lit(1)).Dot("loadKey").Call(),
					),
				),
				jen.If(jen.Op("!").Id("b").Dot("ReadValid").Call(jen.Id("s"))).Block(jen.Continue()),
				jen.If(jen.Id("next").Op("!=").Lit(0)).Block(jen.Return(jen.Id("nk"), jen.Nil())),
				jen.If(jen.Id("i").Op("!=").Lit(0)).Block(
					jen.Comment("k was its bucket's last: go on with the next bucket. An absent k"),
					jen.Comment("restarts from the first bucket, as in the kernel."),
					jen.Id("start").Op("=").Id("h").Op("&").Add(m("mask")).Op("+").Lit(1),
				),
				jen.Break(),
			),
		),
		jen.For(jen.Id("bi").Op(":=").Id("start"), jen.Id("bi").Op("<=").Add(m("mask")), jen.Id("bi").Op("++")).Block(
			jen.Id("b").Op(":=").Op("&").Add(m("buckets")).Index(jen.Id("bi")),
			jen.For().Block(
				jen.Id("s").Op(":=").Id("b").Dot("ReadBegin").Call(),
				jen.Id("i").Op(":=").Id("b").Dot("Head").Call(),
				jen.Var().Id("nk").Id(g.keyT),
				jen.If(jen.Id("i").Op("!=").Lit(0)).Block(jen.Id("nk").Op("=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)).Dot("loadKey").Call()),
				jen.If(jen.Op("!").Id("b").Dot("ReadValid").Call(jen.Id("s"))).Block(jen.Continue()),
				jen.If(jen.Id("i").Op("!=").Lit(0)).Block(jen.Return(jen.Id("nk"), jen.Nil())),
				jen.Break(),
			),
		),
		jen.Return(jen.Id(g.keyT).Values(), htabId("ErrKeyNotExist")),
	)

	// func (m *<Map>) All() iter.Seq2[<Key>, <Value>]
	f.Comment("All yields every key and value in NextKey's order. Each bucket is read as")
	f.Comment("one snapshot, so a key present for the whole iteration is yielded exactly")
	f.Comment("once, even while other goroutines update the map.")
	valT, yielded := jen.Id(g.valT), jen.Id("vals").Index(jen.Id("j"))
	if g.l.PerCPU {
		f.Comment("A key's values are every CPU's, in a slice reused between steps.")
		valT = jen.Index().Id(g.valT)
		// Capped at its length: an append to one key's values must not
		// overwrite the next key's before they are yielded.
		end := func() *jen.Statement { return jen.Parens(jen.Id("j").Op("+").Lit(1)).Op("*").Add(m("cpus")) }
		yielded = jen.Id("vals").Index(jen.Id("j").Op("*").Add(m("cpus")), end(), end())
	}
	f.Func().Params(g.recvMap()).Id("All").Params().Qual("iter", "Seq2").Types(jen.Id(g.keyT), valT).Block(
		jen.Return(jen.Func().Params(jen.Id("yield").Func().Params(jen.Id(g.keyT), valT).Bool()).Block(
			jen.Var().Id("keys").Index().Id(g.keyT),
			jen.Var().Id("vals").Index().Id(g.valT),
			jen.For(jen.Id("bi").Op(":=").Range().Add(m("buckets"))).Block(
				jen.Id("b").Op(":=").Op("&").Add(m("buckets")).Index(jen.Id("bi")),
				jen.If(jen.Id("b").Dot("Head").Call().Op("==").Lit(0)).Block(jen.Continue()),
				jen.List(jen.Id("keys"), jen.Id("vals")).Op("=").Add(m("snapshot")).Call(jen.Id("b"), jen.Id("keys").Index(jen.Op(":").Lit(0)), jen.Id("vals").Index(jen.Op(":").Lit(0))),
				jen.For(jen.Id("j").Op(":=").Range().Id("keys")).Block(
					jen.If(jen.Op("!").Id("yield").Call(jen.Id("keys").Index(jen.Id("j")), yielded)).Block(jen.Return()),
				),
			),
		)),
	)
}

// appendValues is the snapshot's copy of element e (index i-1): its value,
// or for the per-CPU types every CPU's, as one snapshot (loadValues).
func (g *generator) appendValues() jen.Code {
	if !g.l.PerCPU {
		return jen.Id("vals").Op("=").Append(jen.Id("vals"), jen.Id("e").Dot("loadValue").Call())
	}
	// vals = append(vals, make([]<Value>, m.cpus)...); m.loadValues(i-1, vals[len(vals)-m.cpus:])
	return jen.Add(
		jen.Id("vals").Op("=").Append(jen.Id("vals"), jen.Make(jen.Index().Id(g.valT), jen.Id("m").Dot("cpus")).Op("...")), jen.Line(),
		jen.Id("m").Dot("loadValues").Call(jen.Id("i").Op("-").Lit(1), jen.Id("vals").Index(jen.Len(jen.Id("vals")).Op("-").Id("m").Dot("cpus").Op(":"))),
	)
}
