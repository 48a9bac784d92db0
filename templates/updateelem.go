package templates

import "github.com/dave/jennifer/jen"

// updateElem emits Update and the update method behind it and behind the
// CPU handles' Update. The four types differ as their kernel functions do:
//
//	hash      htab_map_update_elem: replace moves the key to the bucket head.
//	pcpu      htab_percpu_map_update_elem: replace is in place.
//	lru       htab_lru_map_update_elem: an element is taken from the LRU (which
//	          may evict) before the key is looked up.
//	lru_pcpu  __htab_lru_percpu_map_update_elem: as pcpu, but the new element
//	          comes from the LRU, and only when the flags allow a new key.
func (g *generator) updateElem(f *jen.File) {
	l := g.l
	id := jen.Id
	m := func(name string) *jen.Statement { return id("m").Dot(name) }
	unlock := func() jen.Code { return id("b").Dot("Unlock").Call() }

	// The value parameters of update: hash and lru take one value; the
	// per-CPU types take every CPU's values (userspace) or one CPU's (a program).
	valParams := []jen.Code{id("v").Op("*").Id(g.valT)}
	if l.PerCPU {
		valParams = []jen.Code{id("vals").Index().Id(g.valT), id("v").Op("*").Id(g.valT)}
	}
	// setNew fills the new element n's value; replace updates element i-1's.
	setNew := jen.Id("e").Dot("setValue").Call(id("v"))
	replace := []jen.Code{id("m").Dot("elem").Call(id("i").Op("-").Lit(1)).Dot("setValue").Call(id("v"))}
	if l.PerCPU {
		setNew = m("storeValues").Call(id("n"), id("vals"), id("v"), id("cpu"), jen.True())
		replace = []jen.Code{m("storeValues").Call(id("i").Op("-").Lit(1), id("vals"), id("v"), id("cpu"), jen.False())}
	}
	flagErrors := func(onErr ...jen.Code) []jen.Code {
		ret := func(err string) jen.Code {
			return jen.Block(append(append(onErr, unlock()), jen.Return(htabId(err)))...)
		}
		return []jen.Code{
			jen.If(id("i").Op("!=").Lit(0).Op("&&").Id("flags").Op("==").Qual(htabPkg, "UpdateNoExist")).Add(ret("ErrKeyExist")),
			jen.If(id("i").Op("==").Lit(0).Op("&&").Id("flags").Op("==").Qual(htabPkg, "UpdateExist")).Add(ret("ErrKeyNotExist")),
		}
	}
	prologue := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("flags").Dot("Check").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	prologue = append(prologue, keyBucket(hashCall(id("k")))...)
	find := id("prev").Op(",").Id("i").Op(":=").Add(m("find")).Call(id("b"), jen.Op("&").Id("w"), id("h"))

	var body []jen.Code
	switch {
	case !l.LRU:
		moveToHead := jen.Null()
		if !l.PerCPU {
			moveToHead = jen.If(id("prev").Op("!=").Lit(0)).Block(
				jen.Comment("The kernel links a new copy at the head and unlinks the old one;"),
				jen.Comment("in place plus a move to the head is the same to every observer."),
				m("unlink").Call(hashBucketIndex(), id("prev"), id("i")),
				m("linkHead").Call(hashBucketIndex(), id("i")),
			)
		} else {
			find = id("_").Op(",").Id("i").Op(":=").Add(m("find")).Call(id("b"), jen.Op("&").Id("w"), id("h"))
		}
		body = append(prologue, g.slotFastPath(), id("b").Dot("Lock").Call(), find)
		body = append(body, flagErrors()...)
		body = append(body,
			jen.If(id("i").Op("!=").Lit(0)).Block(append(replace, moveToHead, unlock(), jen.Return(jen.Nil()))...),
			jen.List(id("n"), id("ok")).Op(":=").Add(m("alloc")).Call(),
			jen.If(jen.Op("!").Id("ok")).Block(unlock(), jen.Return(htabId("ErrFull"))),
			id("e").Op(":=").Add(m("elem")).Call(id("n")),
			id("e").Dot("setKey").Call(jen.Op("&").Id("w"), id("h")),
			setNew,
			m("linkHead").Call(hashBucketIndex(), id("n").Op("+").Lit(1)),
			m("count").Dot("Add").Call(jen.Lit(1)),
			unlock(),
			jen.Return(jen.Nil()),
		)
	case !l.PerCPU:
		body = append(prologue,
			jen.Comment("As the kernel does, take an element first: the LRU may evict for it,"),
			jen.Comment("even the very key being updated."),
			jen.List(id("n"), id("ok")).Op(":=").Add(m("lru")).Dot("Pop").Call(id("cpu")),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(htabId("ErrNoMem"))),
			id("e").Op(":=").Add(m("elem")).Call(id("n")),
			id("e").Dot("setKey").Call(jen.Op("&").Id("w"), id("h")),
			setNew,
			id("b").Dot("Lock").Call(),
			find,
		)
		body = append(body, flagErrors(m("lru").Dot("Push").Call(id("n")))...)
		body = append(body,
			m("linkHead").Call(hashBucketIndex(), id("n").Op("+").Lit(1)),
			jen.If(id("i").Op("==").Lit(0)).Block(m("count").Dot("Add").Call(jen.Lit(1)), unlock(), jen.Return(jen.Nil())),
			jen.Comment("A replace: the kernel sets the new element's ref bit (htab_lru_map_update_elem)."),
			id("e").Dot("node").Dot("Ref").Call(),
			jen.If(id("prev").Op("==").Lit(0)).Block(id("prev").Op("=").Id("n").Op("+").Lit(1)),
			m("unlink").Call(hashBucketIndex(), id("prev"), id("i")),
			jen.Comment("The count is unchanged: the old element goes back to the LRU as is,"),
			jen.Comment("before the unlock, as a deleted key's element does."),
			m("lru").Dot("Push").Call(id("i").Op("-").Lit(1)),
			unlock(),
			jen.Return(jen.Nil()),
		)
	default:
		find = id("_").Op(",").Id("i").Op(":=").Add(m("find")).Call(id("b"), jen.Op("&").Id("w"), id("h"))
		body = append(prologue,
			jen.Comment("An element is taken only when the flags allow a new key; the LRU may"),
			jen.Comment("evict for it."),
			jen.Var().Id("n").Uint32(),
			id("popped").Op(":=").False(),
			jen.If(id("flags").Op("!=").Qual(htabPkg, "UpdateExist")).Block(
				jen.Var().Id("ok").Bool(),
				jen.If(jen.List(id("n"), id("ok")).Op("=").Add(m("lru")).Dot("Pop").Call(id("cpu")), jen.Op("!").Id("ok")).Block(
					jen.Return(htabId("ErrNoMem")),
				),
				id("popped").Op("=").True(),
			),
			id("b").Dot("Lock").Call(),
			find,
		)
		body = append(body, flagErrors(jen.If(id("popped")).Block(m("lru").Dot("Push").Call(id("n"))))...)
		body = append(body,
			jen.If(id("i").Op("!=").Lit(0)).Block(append([]jen.Code{m("elem").Call(id("i").Op("-").Lit(1)).Dot("node").Dot("Ref").Call()}, append(replace,
				jen.If(id("popped")).Block(m("lru").Dot("Push").Call(id("n"))),
				unlock(),
				jen.Return(jen.Nil()),
			)...)...),
			id("e").Op(":=").Add(m("elem")).Call(id("n")),
			id("e").Dot("setKey").Call(jen.Op("&").Id("w"), id("h")),
			setNew,
			m("linkHead").Call(hashBucketIndex(), id("n").Op("+").Lit(1)),
			m("count").Dot("Add").Call(jen.Lit(1)),
			unlock(),
			jen.Return(jen.Nil()),
		)
	}

	// func (m *<Map>) update(k *<Key>, <values>, cpu int, flags htab.UpdateFlags) error
	switch {
	case l.LRU && l.PerCPU:
		f.Comment("update is Update as on CPU cpu, the CPU whose LRU lists provide a new")
		f.Comment("element: it sets every CPU's value from vals, or, with vals nil, CPU")
		f.Comment("cpu's from v.")
	case l.LRU:
		f.Comment("update is Update as on CPU cpu: the CPU whose LRU lists provide the new")
		f.Comment("element.")
	case l.PerCPU:
		f.Comment("update is Update as on CPU cpu: it sets every CPU's value from vals,")
		f.Comment("or, with vals nil, CPU cpu's from v.")
	default:
		f.Comment("update is Update as on CPU cpu (a hash map's update is the same on every CPU).")
	}
	f.Func().Params(g.recvMap()).Id("update").Params(append(append([]jen.Code{id("k").Op("*").Id(g.keyT)}, valParams...),
		id("cpu").Int(), id("flags").Qual(htabPkg, "UpdateFlags"))...).Error().Block(body...)

	// func (m *<Map>) Update(k <Key>, v <Value>, flags htab.UpdateFlags) error
	f.Comment("Update sets the value of k, as BPF_MAP_UPDATE_ELEM does. flags is")
	f.Comment("htab.UpdateAny, UpdateNoExist (htab.ErrKeyExist if k is present) or")
	switch {
	case l.LRU:
		f.Comment("UpdateExist (htab.ErrKeyNotExist if absent). The map is never full: the")
		f.Comment("LRU evicts (as CPU 0), possibly before the map holds MaxEntries keys, and")
		f.Comment("htab.ErrNoMem only if it finds nothing to evict.")
	default:
		f.Comment("UpdateExist (htab.ErrKeyNotExist if absent); a new key into a full map is")
		f.Comment("htab.ErrFull.")
	}
	if l.PerCPU {
		f.Comment("vals holds every CPU's value (len(vals) == CPUs(), else htab.ErrInvalid);")
		f.Comment("a present key is updated in place.")
		f.Func().Params(g.recvMap()).Id("Update").Params(
			id("k").Id(g.keyT), id("vals").Index().Id(g.valT), id("flags").Qual(htabPkg, "UpdateFlags"),
		).Error().Block(
			jen.If(jen.Len(id("vals")).Op("!=").Add(m("cpus"))).Block(jen.Return(g.errLen("vals"))),
			jen.Return(m("update").Call(jen.Op("&").Id("k"), id("vals"), jen.Nil(), jen.Lit(0), id("flags"))),
		)
		return
	}
	if !l.LRU {
		f.Comment("As in the kernel, a replaced key moves to the head of its bucket.")
	}
	f.Func().Params(g.recvMap()).Id("Update").Params(
		id("k").Id(g.keyT), id("v").Id(g.valT), id("flags").Qual(htabPkg, "UpdateFlags"),
	).Error().Block(
		jen.Return(m("update").Call(jen.Op("&").Id("k"), jen.Op("&").Id("v"), jen.Lit(0), id("flags"))),
	)
}

// errLen is the error for a per-CPU values slice of the wrong length:
// fmt.Errorf("%w: len(<name>) = %d, want CPUs() = %d", htab.ErrInvalid, len(<name>), m.cpus)
func (g *generator) errLen(name string) jen.Code {
	return jen.Qual("fmt", "Errorf").Call(jen.Lit("%w: len("+name+") = %d, want CPUs() = %d"), htabId("ErrInvalid"), jen.Len(jen.Id(name)), jen.Id("m").Dot("cpus"))
}
