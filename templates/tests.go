package templates

import "github.com/dave/jennifer/jen"

// tests emits the -tests file: behaviour tests of the map against a builtin
// map, a concurrency test for the race detector, and benchmarks. It uses the
// standard library only, so it runs in any consumer module.
func (g *generator) tests(f *jen.File) {
	T := func(s string) string { return s + g.mapT }
	key, val := jen.Id(g.keyT), jen.Id(g.valT)
	opts := func(max int) jen.Code {
		return jen.Qual(htabPkg, "Options").Values(jen.Dict{jen.Id("MaxEntries"): jen.Lit(max), jen.Id("ZeroSeed"): jen.True(), jen.Id("CPUs"): jen.Lit(2)})
	}
	fatalIf := func(cond jen.Code, format string, args ...jen.Code) jen.Code {
		return jen.If(cond).Block(jen.Id("t").Dot("Fatalf").Call(append([]jen.Code{jen.Lit(format)}, args...)...))
	}

	// func testKey<Map>(i int) (k <Key>): i little-endian in the first bytes, then a pattern
	f.Commentf("testKey%s makes distinct keys from small integers.", g.mapT)
	f.Func().Id(T("testKey")).Params(jen.Id("i").Int()).Params(jen.Id("k").Add(key)).Block(
		jen.For(jen.Id("j").Op(":=").Range().Id("k")).Block(
			jen.If(jen.Id("j").Op("<").Lit(8)).Block(
				jen.Id("k").Index(jen.Id("j")).Op("=").Byte().Call(jen.Id("i").Op(">>").Parens(jen.Lit(8).Op("*").Id("j"))),
			).Else().Block(
				jen.Id("k").Index(jen.Id("j")).Op("=").Byte().Call(jen.Id("j").Op("*").Lit(31)),
			),
		),
		jen.Return(),
	)
	f.Commentf("testVal%s makes a value from an integer.", g.mapT)
	f.Func().Id(T("testVal")).Params(jen.Id("i").Int()).Params(jen.Id("v").Add(val)).Block(
		jen.For(jen.Id("j").Op(":=").Range().Id("v")).Block(
			jen.Id("v").Index(jen.Id("j")).Op("=").Byte().Call(jen.Id("i").Op("+").Id("j")),
		),
		jen.Return(),
	)

	// Test<Map>RandomOps: random operations checked against a builtin map after every step.
	f.Commentf("Test%sRandomOps runs random operations and checks every result, and the", g.mapT)
	f.Comment("whole contents at the end, against a builtin map with the kernel's rules.")
	keys := g.l.Spec.Key
	nkeys := 96
	if keys == 1 {
		nkeys = 96 // 256 keys exist; use fewer than that
	}
	f.Func().Id(T("Test")+"RandomOps").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Const().Id("maxEntries").Op("=").Lit(48),
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.mapT).Call(opts(48)),
		fatalIf(jen.Err().Op("!=").Nil(), "New: %v", jen.Err()),
		jen.Id("ref").Op(":=").Map(key).Add(val).Values(),
		jen.Id("rng").Op(":=").Qual("math/rand/v2", "New").Call(jen.Qual("math/rand/v2", "NewPCG").Call(jen.Lit(1), jen.Lit(2))),
		jen.For(jen.Id("step").Op(":=").Range().Lit(20000)).Block(
			jen.Id("k").Op(":=").Id(T("testKey")).Call(jen.Id("rng").Dot("IntN").Call(jen.Lit(nkeys))),
			jen.Id("v").Op(":=").Id(T("testVal")).Call(jen.Id("step")),
			jen.List(jen.Id("old"), jen.Id("present")).Op(":=").Id("ref").Index(jen.Id("k")),
			jen.Switch(jen.Id("rng").Dot("IntN").Call(jen.Lit(4))).Block(
				jen.Case(jen.Lit(0)).Block(
					jen.Id("flags").Op(":=").Qual(htabPkg, "UpdateFlags").Call(jen.Id("rng").Dot("IntN").Call(jen.Lit(4))),
					jen.Id("err").Op(":=").Id("m").Dot("Update").Call(jen.Id("k"), jen.Id("v"), jen.Id("flags")),
					jen.Var().Id("want").Error(),
					jen.Switch().Block(
						jen.Case(jen.Id("flags").Op(">").Qual(htabPkg, "UpdateExist")).Block(jen.Id("want").Op("=").Qual(htabPkg, "ErrInvalid")),
						jen.Case(jen.Id("flags").Op("==").Qual(htabPkg, "UpdateNoExist").Op("&&").Id("present")).Block(jen.Id("want").Op("=").Qual(htabPkg, "ErrKeyExist")),
						jen.Case(jen.Id("flags").Op("==").Qual(htabPkg, "UpdateExist").Op("&&").Op("!").Id("present")).Block(jen.Id("want").Op("=").Qual(htabPkg, "ErrKeyNotExist")),
						jen.Case(jen.Op("!").Id("present").Op("&&").Len(jen.Id("ref")).Op("==").Id("maxEntries")).Block(jen.Id("want").Op("=").Qual(htabPkg, "ErrFull")),
						jen.Default().Block(jen.Id("ref").Index(jen.Id("k")).Op("=").Id("v")),
					),
					fatalIf(jen.Op("!").Qual("errors", "Is").Call(jen.Id("err"), jen.Id("want")).Op("||").Parens(jen.Id("want").Op("==").Nil().Op("&&").Id("err").Op("!=").Nil()),
						"step %d: Update(%x, flags %d) = %v, want %v", jen.Id("step"), jen.Id("k"), jen.Id("flags"), jen.Id("err"), jen.Id("want")),
				),
				jen.Case(jen.Lit(1)).Block(
					jen.Id("err").Op(":=").Id("m").Dot("Delete").Call(jen.Id("k")),
					fatalIf(jen.Parens(jen.Id("err").Op("==").Nil()).Op("!=").Id("present"), "step %d: Delete(%x) = %v, present %v", jen.Id("step"), jen.Id("k"), jen.Id("err"), jen.Id("present")),
					jen.Delete(jen.Id("ref"), jen.Id("k")),
				),
				jen.Case(jen.Lit(2)).Block(
					jen.List(jen.Id("got"), jen.Id("err")).Op(":=").Id("m").Dot("LookupAndDelete").Call(jen.Id("k")),
					fatalIf(jen.Parens(jen.Id("err").Op("==").Nil()).Op("!=").Id("present").Op("||").Id("got").Op("!=").Id("old"), "step %d: LookupAndDelete(%x) = %x, %v; want %x, present %v", jen.Id("step"), jen.Id("k"), jen.Id("got"), jen.Id("err"), jen.Id("old"), jen.Id("present")),
					jen.Delete(jen.Id("ref"), jen.Id("k")),
				),
				jen.Default().Block(
					jen.List(jen.Id("got"), jen.Id("ok")).Op(":=").Id("m").Dot("Lookup").Call(jen.Id("k")),
					fatalIf(jen.Id("ok").Op("!=").Id("present").Op("||").Id("got").Op("!=").Id("old"), "step %d: Lookup(%x) = %x, %v; want %x, %v", jen.Id("step"), jen.Id("k"), jen.Id("got"), jen.Id("ok"), jen.Id("old"), jen.Id("present")),
				),
			),
			fatalIf(jen.Id("m").Dot("Len").Call().Op("!=").Len(jen.Id("ref")), "step %d: Len() = %d, want %d", jen.Id("step"), jen.Id("m").Dot("Len").Call(), jen.Len(jen.Id("ref"))),
		),
		jen.Comment("All and a NextKey walk both see exactly the reference's contents, in one order."),
		jen.Var().Id("order").Index().Add(key),
		jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("m").Dot("All").Call()).Block(
			fatalIf(jen.Id("ref").Index(jen.Id("k")).Op("!=").Id("v"), "All yields %x = %x, want %x", jen.Id("k"), jen.Id("v"), jen.Id("ref").Index(jen.Id("k"))),
			jen.Id("order").Op("=").Append(jen.Id("order"), jen.Id("k")),
		),
		fatalIf(jen.Len(jen.Id("order")).Op("!=").Len(jen.Id("ref")), "All yields %d keys, want %d", jen.Len(jen.Id("order")), jen.Len(jen.Id("ref"))),
		jen.Var().Id("cur").Op("*").Add(key),
		jen.For(jen.List(jen.Id("i"), jen.Id("want")).Op(":=").Range().Id("order")).Block(
			jen.List(jen.Id("next"), jen.Err()).Op(":=").Id("m").Dot("NextKey").Call(jen.Id("cur")),
			fatalIf(jen.Err().Op("!=").Nil().Op("||").Id("next").Op("!=").Id("want"), "NextKey step %d = %x, %v; want %x", jen.Id("i"), jen.Id("next"), jen.Err(), jen.Id("want")),
			jen.Id("cur").Op("=").Op("&").Id("next"),
		),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("m").Dot("NextKey").Call(jen.Id("cur")), jen.Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(htabPkg, "ErrKeyNotExist"))).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("NextKey after the last key = %v, want ErrKeyNotExist"), jen.Err()),
		),
	)

	// Test<Map>Concurrent: writers on disjoint keys, readers and iterators, under -race.
	f.Commentf("Test%sConcurrent runs writers on disjoint keys with lock-free readers and", g.mapT)
	f.Comment("iterators; run it with -race. Each writer's keys must end as it left them.")
	f.Func().Id(T("Test")+"Concurrent").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.mapT).Call(opts(64)),
		fatalIf(jen.Err().Op("!=").Nil(), "New: %v", jen.Err()),
		jen.Var().Id("wg").Qual("sync", "WaitGroup"),
		jen.For(jen.Id("w").Op(":=").Range().Lit(2)).Block(
			jen.Id("wg").Dot("Go").Call(jen.Func().Params().Block(
				jen.For(jen.Id("i").Op(":=").Range().Lit(2000)).Block(
					jen.Id("k").Op(":=").Id(T("testKey")).Call(jen.Id("w").Op("*").Lit(32).Op("+").Id("i").Op("%").Lit(32)),
					jen.If(jen.Id("i").Op("%").Lit(3).Op("==").Lit(2)).Block(
						jen.Id("_").Op("=").Id("m").Dot("Delete").Call(jen.Id("k")),
					).Else().Block(
						jen.Id("_").Op("=").Id("m").Dot("CPU").Call(jen.Id("w")).Dot("Update").Call(jen.Id("k"), jen.Id(T("testVal")).Call(jen.Id("i")), jen.Qual(htabPkg, "UpdateAny")),
					),
				),
			)),
		),
		jen.Id("wg").Dot("Go").Call(jen.Func().Params().Block(
			jen.For(jen.Id("i").Op(":=").Range().Lit(200)).Block(
				jen.Id("m").Dot("Lookup").Call(jen.Id(T("testKey")).Call(jen.Id("i").Op("%").Lit(64))),
				jen.For(jen.Range().Id("m").Dot("All").Call()).Block(),
				jen.List(jen.Id("_"), jen.Id("_")).Op("=").Id("m").Dot("NextKey").Call(jen.Nil()),
			),
		)),
		jen.Id("wg").Dot("Wait").Call(),
		jen.Comment("Writer w's last operation on key i%32 decides whether it is present."),
		jen.For(jen.Id("w").Op(":=").Range().Lit(2)).Block(
			jen.For(jen.Id("j").Op(":=").Range().Lit(32)).Block(
				jen.Id("last").Op(":=").Id("j").Op("+").Lit(32).Op("*").Parens(jen.Parens(jen.Lit(1999).Op("-").Id("j")).Op("/").Lit(32)),
				jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("m").Dot("Lookup").Call(jen.Id(T("testKey")).Call(jen.Id("w").Op("*").Lit(32).Op("+").Id("j"))),
				jen.Id("want").Op(":=").Id("last").Op("%").Lit(3).Op("!=").Lit(2),
				fatalIf(jen.Id("ok").Op("!=").Id("want").Op("||").Id("ok").Op("&&").Id("v").Op("!=").Id(T("testVal")).Call(jen.Id("last")), "writer %d key %d: got %x, %v", jen.Id("w"), jen.Id("j"), jen.Id("v"), jen.Id("ok")),
			),
		),
	)

	// Benchmark<Map>Lookup: hits on a 75% full map of 65536 entries, in random order.
	f.Commentf("Benchmark%sLookup looks up present keys of a 3/4-full map of 65536", g.mapT)
	f.Comment("entries in random order and reports lookups/s.")
	f.Func().Id(T("Benchmark")+"Lookup").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.Const().Id("n").Op("=").Lit(49152),
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.mapT).Call(opts(65536)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("b").Dot("Fatal").Call(jen.Err())),
		jen.Id("keys").Op(":=").Make(jen.Index().Add(key), jen.Lit(0), jen.Id("n")),
		jen.For(jen.Id("i").Op(":=").Range().Id("n")).Block(
			jen.Id("k").Op(":=").Id(T("testKey")).Call(jen.Id("i")),
			jen.If(jen.Id("m").Dot("Update").Call(jen.Id("k"), jen.Id(T("testVal")).Call(jen.Id("i")), jen.Qual(htabPkg, "UpdateNoExist")).Op("==").Nil()).Block(
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k")),
			),
		),
		jen.Qual("math/rand/v2", "Shuffle").Call(jen.Len(jen.Id("keys")), jen.Func().Params(jen.Id("i"), jen.Id("j").Int()).Block(
			jen.List(jen.Id("keys").Index(jen.Id("i")), jen.Id("keys").Index(jen.Id("j"))).Op("=").List(jen.Id("keys").Index(jen.Id("j")), jen.Id("keys").Index(jen.Id("i"))),
		)),
		jen.Id("i").Op(":=").Lit(0),
		jen.For(jen.Id("b").Dot("Loop").Call()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("m").Dot("Lookup").Call(jen.Id("keys").Index(jen.Id("i"))), jen.Op("!").Id("ok")).Block(
				jen.Id("b").Dot("Fatal").Call(jen.Lit("miss")),
			),
			jen.If(jen.Id("i").Op("++").Empty(), jen.Id("i").Op("==").Len(jen.Id("keys"))).Block(jen.Id("i").Op("=").Lit(0)),
		),
		jen.Id("b").Dot("ReportMetric").Call(jen.Float64().Call(jen.Id("b").Dot("N")).Op("/").Id("b").Dot("Elapsed").Call().Dot("Seconds").Call(), jen.Lit("lookups/s")),
	)
}
