package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// batch emits the batch operations (BPF_MAP_*_BATCH): LookupBatch,
// LookupAndDeleteBatch, UpdateBatch, DeleteBatch, and the bucket walk the
// first two share. The walk is the kernel's __htab_map_lookup_and_delete_batch:
// whole buckets only, ErrNoSpace when the first non-empty bucket does not fit,
// ErrKeyNotExist from the call that reaches the end (which may carry elements).
// How it finds non-empty buckets is Layout.BatchLock:
//
//	always    lock every bucket, empty or not (the kernel before seed 003)
//	nonempty  load the head without the lock; skip the bucket if it is 0
//	sparse    jump to the next set bit of the occupancy bitmap
//
// Every value copy goes through batchValueCopy and batchValueArg, and the
// values slice's length through batchValuesLen: the places that differ for
// per-CPU types (CPUs() values per key), with the LookupBatch doc's
// wording. The home layout shares all but batchWalk (homeBatch).
func (g *generator) batch(f *jen.File) {
	g.batchLookups(f)
	g.batchWalk(f)
	g.batchUpdates(f)
}

// batchLookups emits LookupBatch, LookupAndDeleteBatch and batch, which
// checks their arguments and calls the layout's batchWalk.
func (g *generator) batchLookups(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	keysT := jen.Index().Id(g.keyT)
	valsT := jen.Index().Id(g.valT)
	valsLen := g.batchValuesLen()

	// func (m *<Map>) LookupBatch(c *htab.Cursor, keys []<Key>, vals []<Value>) (int, error)
	perKey := "vals[i] is the value of keys[i]"
	if g.l.PerCPU {
		perKey = "vals[i*CPUs()+j] is the value of keys[i] on CPU j"
	}
	f.Comment("LookupBatch copies the next elements of the walk that c remembers into keys")
	f.Commentf("and vals (%s), as BPF_MAP_LOOKUP_BATCH does, and returns", perKey)
	f.Comment("how many. A zero Cursor starts at the first bucket; nil also does, and is not")
	f.Comment("advanced. A call returns whole buckets only: htab.ErrNoSpace (and nothing)")
	f.Comment("when the first non-empty bucket holds more than len(keys) elements; the call")
	f.Comment("that reaches the last bucket returns htab.ErrKeyNotExist, possibly with")
	f.Comment("elements, and so do later calls. A call with no room returns 0 and does nothing.")
	f.Func().Params(g.recvMap()).Id("LookupBatch").Params(
		jen.Id("c").Op("*").Qual(htabPkg, "Cursor"), jen.Id("keys").Add(keysT), jen.Id("vals").Add(valsT),
	).Params(jen.Int(), jen.Error()).Block(
		jen.Return(m("batch").Call(jen.Id("c"), jen.Id("keys"), jen.Id("vals"), jen.False())),
	)

	// func (m *<Map>) LookupAndDeleteBatch(c *htab.Cursor, keys []<Key>, vals []<Value>) (int, error)
	f.Comment("LookupAndDeleteBatch is LookupBatch that also deletes what it returns, as")
	f.Comment("BPF_MAP_LOOKUP_AND_DELETE_BATCH does. Each bucket is copied and emptied")
	f.Comment("under its lock, so every element it deletes is returned exactly once.")
	f.Func().Params(g.recvMap()).Id("LookupAndDeleteBatch").Params(
		jen.Id("c").Op("*").Qual(htabPkg, "Cursor"), jen.Id("keys").Add(keysT), jen.Id("vals").Add(valsT),
	).Params(jen.Int(), jen.Error()).Block(
		jen.Return(m("batch").Call(jen.Id("c"), jen.Id("keys"), jen.Id("vals"), jen.True())),
	)

	// func (m *<Map>) batch(c *htab.Cursor, keys []<Key>, vals []<Value>, del bool) (int, error)
	f.Comment("batch checks the arguments of a lookup batch, walks, and advances c.")
	f.Func().Params(g.recvMap()).Id("batch").Params(
		jen.Id("c").Op("*").Qual(htabPkg, "Cursor"), jen.Id("keys").Add(keysT), jen.Id("vals").Add(valsT), jen.Id("del").Bool(),
	).Params(jen.Int(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("vals")).Op("!=").Add(valsLen)).Block(
			jen.Return(jen.Lit(0), errInvalidf("batch of %d keys needs %d values, got %d", jen.Len(jen.Id("keys")), valsLen, jen.Len(jen.Id("vals")))),
		),
		jen.If(jen.Len(jen.Id("keys")).Op("==").Lit(0)).Block(
			jen.Comment("The kernel returns before it reads or writes the cursor."),
			jen.Return(jen.Lit(0), jen.Nil()),
		),
		jen.Id("bi").Op(":=").Uint32().Call(jen.Lit(0)),
		jen.If(jen.Id("c").Op("!=").Nil()).Block(jen.Id("bi").Op("=").Id("c").Dot("Bucket").Call()),
		jen.List(jen.Id("n"), jen.Id("next"), jen.Err()).Op(":=").Add(m("batchWalk")).Call(jen.Id("bi"), jen.Id("keys"), jen.Id("vals"), jen.Id("del")),
		jen.If(jen.Id("c").Op("!=").Nil()).Block(
			jen.Id("c").Dot("Advance").Call(jen.Id("next"), jen.Err().Op("==").Add(htabId("ErrKeyNotExist"))),
		),
		jen.Return(jen.Id("n"), jen.Err()),
	)

}

// batchWalk emits the classic layout's batchWalk: the kernel's bucket walk.
func (g *generator) batchWalk(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	keysT := jen.Index().Id(g.keyT)
	valsT := jen.Index().Id(g.valT)

	// func (m *<Map>) batchWalk(bi uint32, keys []<Key>, vals []<Value>, del bool) (total int, next uint32, err error)
	f.Comment("batchWalk copies whole buckets from bucket bi on into keys and vals while they")
	f.Comment("fit, and returns how many elements it copied and the next bucket to read.")
	f.Comment(g.batchFindDoc())
	f.Func().Params(g.recvMap()).Id("batchWalk").Params(
		jen.Id("bi").Uint32(), jen.Id("keys").Add(keysT), jen.Id("vals").Add(valsT), jen.Id("del").Bool(),
	).Params(jen.Id("total").Int(), jen.Id("next").Uint32(), jen.Err().Error()).Block(
		jen.For(jen.Id("bi").Op("<=").Add(m("mask"))).BlockFunc(func(body *jen.Group) {
			g.batchFindBucket(body)
			body.Id("b").Op(":=").Op("&").Add(m("buckets")).Index(jen.Id("bi"))
			body.Id("b").Dot("Lock").Call()
			body.Id("head").Op(":=").Id("b").Dot("Head").Call()
			body.Id("cnt").Op(":=").Lit(0)
			body.For(jen.Id("i").Op(":=").Id("head"), jen.Id("i").Op("!=").Lit(0), jen.Id("i").Op("=").Add(load(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next")))).Block(
				jen.Id("cnt").Op("++"),
			)
			body.If(jen.Id("cnt").Op(">").Len(jen.Id("keys")).Op("-").Id("total")).Block(
				jen.Comment("The bucket does not fit: it is not consumed, the cursor stays on it."),
				jen.Id("b").Dot("Unlock").Call(),
				jen.If(jen.Id("total").Op("==").Lit(0)).Block(jen.Return(jen.Lit(0), jen.Id("bi"), htabId("ErrNoSpace"))),
				jen.Return(jen.Id("total"), jen.Id("bi"), jen.Nil()),
			)
			body.Id("j").Op(":=").Id("total")
			body.For(jen.Id("i").Op(":=").Id("head"), jen.Id("i").Op("!=").Lit(0), jen.Empty()).Block(
				jen.Id("e").Op(":=").Add(m("elem")).Call(jen.Id("i").Op("-").Lit(1)),
				jen.Id("keys").Index(jen.Id("j")).Op("=").Id("e").Dot("loadKey").Call(),
				g.batchValueCopy(jen.Id("j"), jen.Id("e"), jen.Id("i").Op("-").Lit(1)),
				jen.Id("j").Op("++"),
				jen.Id("i").Op("=").Add(load(jen.Id("e").Dot("next"))),
			)
			freeChain := jen.For(jen.Id("i").Op(":=").Id("head"), jen.Id("i").Op("!=").Lit(0), jen.Empty()).Block(
				jen.Id("nx").Op(":=").Add(load(m("elem").Call(jen.Id("i").Op("-").Lit(1)).Dot("next"))),
				m("free").Call(jen.Id("i").Op("-").Lit(1)),
				jen.Id("i").Op("=").Id("nx"),
			)
			body.If(jen.Id("del").Op("&&").Id("head").Op("!=").Lit(0)).BlockFunc(func(del *jen.Group) {
				del.Comment("The whole bucket goes: it was copied under this same lock.")
				del.Id("b").Dot("SetHead").Call(jen.Lit(0))
				if g.l.Occupancy {
					del.Add(m("occ")).Dot("Clear").Call(jen.Id("bi"))
				}
				del.Comment("Free under the lock, as Delete does (see Capacity in the design")
				del.Comment("comment). The chain is unreachable now; a freed element may be")
				del.Comment("reused at once, so its next link is read before it is freed.")
				del.Add(freeChain)
			})
			body.Id("b").Dot("Unlock").Call()
			body.Id("total").Op("+=").Id("cnt")
			body.Id("bi").Op("++")
		}),
		jen.Comment("bi is len(m.buckets) here, or the cursor passed in if it was already past"),
		jen.Comment("the end (the kernel returns ENOENT before it writes out_batch)."),
		jen.Return(jen.Id("total"), jen.Id("bi"), htabId("ErrKeyNotExist")),
	)

}

// batchUpdates emits UpdateBatch and DeleteBatch, which loop over Update and
// Delete in any layout.
func (g *generator) batchUpdates(f *jen.File) {
	m := func(name string) *jen.Statement { return jen.Id("m").Dot(name) }
	keysT := jen.Index().Id(g.keyT)
	valsT := jen.Index().Id(g.valT)
	valsLen := g.batchValuesLen()

	// func (m *<Map>) UpdateBatch(keys []<Key>, vals []<Value>, flags htab.UpdateFlags) (int, error)
	f.Comment("UpdateBatch stores vals under keys in order, as BPF_MAP_UPDATE_BATCH does, and")
	if g.l.LRU {
		f.Comment("returns how many it stored: it stops at the first error (htab.ErrNoMem, ...).")
	} else {
		f.Comment("returns how many it stored: it stops at the first error (htab.ErrFull, ...).")
	}
	f.Comment("flags must be htab.UpdateAny: the kernel's generic_map_update_batch takes")
	f.Comment("only BPF_F_LOCK in elem_flags, so BPF_NOEXIST and BPF_EXIST are EINVAL")
	f.Comment("there, before anything is stored and even for no keys (as Linux 6.18")
	f.Comment("answers); here they are htab.ErrInvalid likewise.")
	f.Func().Params(g.recvMap()).Id("UpdateBatch").Params(
		jen.Id("keys").Add(keysT), jen.Id("vals").Add(valsT), jen.Id("flags").Qual(htabPkg, "UpdateFlags"),
	).Params(jen.Int(), jen.Error()).Block(
		jen.If(jen.Id("flags").Op("!=").Add(htabId("UpdateAny"))).Block(
			jen.Return(jen.Lit(0), errInvalidf("batch update flags %#x: the kernel's BPF_MAP_UPDATE_BATCH takes only BPF_ANY", jen.Uint64().Call(jen.Id("flags")))),
		),
		jen.If(jen.Len(jen.Id("vals")).Op("!=").Add(valsLen)).Block(
			jen.Return(jen.Lit(0), errInvalidf("batch of %d keys needs %d values, got %d", jen.Len(jen.Id("keys")), valsLen, jen.Len(jen.Id("vals")))),
		),
		jen.For(jen.Id("i").Op(":=").Range().Id("keys")).Block(
			jen.If(jen.Err().Op(":=").Add(m("Update")).Call(jen.Id("keys").Index(jen.Id("i")), g.batchValueArg(jen.Id("i")), jen.Id("flags")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id("i"), jen.Err()),
			),
		),
		jen.Return(jen.Len(jen.Id("keys")), jen.Nil()),
	)

	// func (m *<Map>) DeleteBatch(keys []<Key>) (int, error)
	f.Comment("DeleteBatch deletes keys in order, as BPF_MAP_DELETE_BATCH does, and returns")
	f.Comment("how many it deleted: it stops at the first absent key (htab.ErrKeyNotExist).")
	f.Func().Params(g.recvMap()).Id("DeleteBatch").Params(jen.Id("keys").Add(keysT)).Params(jen.Int(), jen.Error()).Block(
		jen.For(jen.Id("i").Op(":=").Range().Id("keys")).Block(
			jen.If(jen.Err().Op(":=").Add(m("Delete")).Call(jen.Id("keys").Index(jen.Id("i"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id("i"), jen.Err()),
			),
		),
		jen.Return(jen.Len(jen.Id("keys")), jen.Nil()),
	)
}

// batchFindDoc says how the walk finds its next non-empty bucket.
func (g *generator) batchFindDoc() string {
	switch g.l.BatchLock {
	case spec.BatchLockAlways:
		return "-batch-lock always: every bucket is locked, empty or not (the kernel before seed 003)."
	case spec.BatchLockSparse:
		return "-batch-lock sparse: the occupancy bitmap leads to the next non-empty bucket, 64 buckets a word."
	}
	return "-batch-lock nonempty: an empty bucket is seen without its lock and skipped (seed 003)."
}

// batchFindBucket emits, at the top of the walk's loop, what moves bi to the
// next bucket worth locking (nothing for always):
//
//	nonempty: if m.buckets[bi].Head() == 0 { bi++; continue }
//	sparse:   if bi = m.occ.Next(bi); bi > m.mask { break }
//
// A bucket that fills after it was passed is missed, as in the kernel; a key
// present for the whole walk never is (see htab.Occupancy for sparse).
func (g *generator) batchFindBucket(body *jen.Group) {
	switch g.l.BatchLock {
	case spec.BatchLockAlways:
	case spec.BatchLockSparse:
		body.If(jen.Id("bi").Op("=").Id("m").Dot("occ").Dot("Next").Call(jen.Id("bi")), jen.Id("bi").Op(">").Id("m").Dot("mask")).Block(jen.Break())
	default:
		body.If(jen.Id("m").Dot("buckets").Index(jen.Id("bi")).Dot("Head").Call().Op("==").Lit(0)).Block(
			jen.Id("bi").Op("++"),
			jen.Continue(),
		)
	}
}

// batchValuesLen is the length vals must have for len(keys) keys.
// Per-CPU types: len(keys)*m.cpus.
func (g *generator) batchValuesLen() *jen.Statement {
	if g.l.PerCPU {
		return jen.Len(jen.Id("keys")).Op("*").Id("m").Dot("cpus")
	}
	return jen.Len(jen.Id("keys"))
}

// batchValueCopy copies the value of element e (index idx, not index+1) into
// slot j of the lookup batch's vals. Only under the element's bucket lock.
//
//	hash, lru: vals[j] = e.loadValue()
//	per-CPU:   m.loadValues(idx, vals[j*m.cpus:(j+1)*m.cpus]), CPU c's value
//	           into vals[j*m.cpus+c] (loadValues is in percpu.go)
func (g *generator) batchValueCopy(j, e, idx jen.Code) jen.Code {
	if g.l.PerCPU {
		return jen.Id("m").Dot("loadValues").Call(idx, jen.Id("vals").Index(
			jen.Add(j).Op("*").Id("m").Dot("cpus").Op(":").Parens(jen.Add(j).Op("+").Lit(1)).Op("*").Id("m").Dot("cpus")))
	}
	return jen.Id("vals").Index(j).Op("=").Add(e).Dot("loadValue").Call()
}

// batchValueArg is the value argument of Update for key i of an update batch:
// vals[i], or for per-CPU types vals[i*m.cpus:(i+1)*m.cpus].
func (g *generator) batchValueArg(i jen.Code) jen.Code {
	if g.l.PerCPU {
		return jen.Id("vals").Index(jen.Add(i).Op("*").Id("m").Dot("cpus").Op(":").Parens(jen.Add(i).Op("+").Lit(1)).Op("*").Id("m").Dot("cpus"))
	}
	return jen.Id("vals").Index(i)
}

// errInvalidf is fmt.Errorf("%w: <format>", htab.ErrInvalid, <args>...).
func errInvalidf(format string, args ...jen.Code) jen.Code {
	return jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit("%w: " + format), htabId("ErrInvalid")}, args...)...)
}
