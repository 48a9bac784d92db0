package templates

import "github.com/dave/jennifer/jen"

// update emits the write paths: Update, Delete, LookupAndDelete. Each takes
// the key's bucket lock, so single-key operations are linearizable.
func (g *generator) update(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	hashKey := keyBucket()
	unlockReturn := func(v ...jen.Code) jen.Code {
		return jen.Block(jen.Id("b").Dot("Unlock").Call(), jen.Return(v...))
	}

	// func (m *<Map>) Update(k <Key>, v <Value>, flags htab.UpdateFlags) error
	f.Comment("Update sets the value of k, as BPF_MAP_UPDATE_ELEM does. flags is")
	f.Comment("htab.UpdateAny, UpdateNoExist (htab.ErrKeyExist if k is present) or")
	f.Comment("UpdateExist (htab.ErrKeyNotExist if absent); a new key into a full map is")
	f.Comment("htab.ErrFull. As in the kernel, a replaced key moves to the head of its bucket.")
	f.Func().Params(g.recvMap()).Id("Update").Params(
		jen.Id("k").Id(g.keyT), jen.Id("v").Id(g.valT), jen.Id("flags").Qual(htabPkg, "UpdateFlags"),
	).Error().Block(append([]jen.Code{
		jen.If(jen.Err().Op(":=").Id("flags").Dot("Check").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}, append(hashKey,
		jen.Id("b").Dot("Lock").Call(),
		jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
		jen.If(jen.Id("i").Op("!=").Lit(0).Op("&&").Id("flags").Op("==").Qual(htabPkg, "UpdateNoExist")).Add(unlockReturn(htabId("ErrKeyExist"))),
		jen.If(jen.Id("i").Op("==").Lit(0).Op("&&").Id("flags").Op("==").Qual(htabPkg, "UpdateExist")).Add(unlockReturn(htabId("ErrKeyNotExist"))),
		jen.If(jen.Id("i").Op("!=").Lit(0)).Block(
			jen.Comment("The kernel links a new copy at the head and unlinks the old one;"),
			jen.Comment("in place plus a move to the head is the same to every observer."),
			jen.Id("e").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)),
			jen.Id("e").Dot("setValue").Call(jen.Op("&").Id("v")),
			jen.If(jen.Id("prev").Op("!=").Lit(0)).Block(
				m("unlink").Call(jen.Id("b"), jen.Id("prev"), jen.Id("i")),
				m("linkHead").Call(jen.Id("b"), jen.Id("i")),
			),
			jen.Id("b").Dot("Unlock").Call(),
			jen.Return(jen.Nil()),
		),
		jen.List(jen.Id("n"), jen.Id("ok")).Op(":=").Add(m("alloc")).Call(),
		jen.If(jen.Op("!").Id("ok")).Add(unlockReturn(htabId("ErrFull"))),
		jen.Id("e").Op(":=").Add(m("elem")).Call(jen.Id("n")),
		jen.Id("e").Dot("setKey").Call(jen.Op("&").Id("w"), jen.Id("h")),
		jen.Id("e").Dot("setValue").Call(jen.Op("&").Id("v")),
		m("linkHead").Call(jen.Id("b"), jen.Id("n").Op("+").Lit(1)),
		m("count").Dot("Add").Call(jen.Lit(1)),
		jen.Id("b").Dot("Unlock").Call(),
		jen.Return(jen.Nil()),
	)...)...)

	// func (m *<Map>) Delete(k <Key>) error
	f.Comment("Delete removes k, as BPF_MAP_DELETE_ELEM does: htab.ErrKeyNotExist if absent.")
	f.Func().Params(g.recvMap()).Id("Delete").Params(jen.Id("k").Id(g.keyT)).Error().Block(append(hashKey,
		jen.Id("b").Dot("Lock").Call(),
		jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
		jen.If(jen.Id("i").Op("==").Lit(0)).Add(unlockReturn(htabId("ErrKeyNotExist"))),
		m("unlink").Call(jen.Id("b"), jen.Id("prev"), jen.Id("i")),
		jen.Id("b").Dot("Unlock").Call(),
		m("free").Call(jen.Id("i").Op("-").Lit(1)),
		jen.Return(jen.Nil()),
	)...)

	// func (m *<Map>) LookupAndDelete(k <Key>) (<Value>, error)
	f.Comment("LookupAndDelete removes k and returns its value, as")
	f.Comment("BPF_MAP_LOOKUP_AND_DELETE_ELEM does: htab.ErrKeyNotExist if absent.")
	f.Func().Params(g.recvMap()).Id("LookupAndDelete").Params(jen.Id("k").Id(g.keyT)).Params(jen.Id(g.valT), jen.Error()).Block(append(hashKey,
		jen.Id("b").Dot("Lock").Call(),
		jen.List(jen.Id("prev"), jen.Id("i")).Op(":=").Add(m("find")).Call(jen.Id("b"), jen.Op("&").Id("w"), jen.Id("h")),
		jen.If(jen.Id("i").Op("==").Lit(0)).Add(unlockReturn(jen.Id(g.valT).Values(), htabId("ErrKeyNotExist"))),
		jen.Id("v").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)).Dot("loadValue").Call(),
		m("unlink").Call(jen.Id("b"), jen.Id("prev"), jen.Id("i")),
		jen.Id("b").Dot("Unlock").Call(),
		m("free").Call(jen.Id("i").Op("-").Lit(1)),
		jen.Return(jen.Id("v"), jen.Nil()),
	)...)

	// func (m *<Map>) unlink(b *htab.Bucket, prev, i uint32)
	f.Comment("unlink takes element i (index+1) out of bucket b, whose element before it")
	f.Comment("is prev (0: i is the head). Only under b's lock.")
	f.Func().Params(g.recvMap()).Id("unlink").Params(jen.Id("b").Op("*").Qual(htabPkg, "Bucket"), jen.Id("prev"), jen.Id("i").Uint32()).Block(
		jen.Id("next").Op(":=").Add(load(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"))),
		jen.If(jen.Id("prev").Op("==").Lit(0)).Block(
			jen.Id("b").Dot("SetHead").Call(jen.Id("next")),
		).Else().Block(
			store(m("elem").Call(jen.Id("prev").Op("-").Lit(1)).Dot("next"), jen.Id("next")),
		),
	)

	// func (m *<Map>) linkHead(b *htab.Bucket, i uint32)
	f.Comment("linkHead makes element i (index+1) the head of bucket b. Only under b's lock.")
	f.Func().Params(g.recvMap()).Id("linkHead").Params(jen.Id("b").Op("*").Qual(htabPkg, "Bucket"), jen.Id("i").Uint32()).Block(
		store(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"), jen.Id("b").Dot("Head").Call()),
		jen.Id("b").Dot("SetHead").Call(jen.Id("i")),
	)
}
