package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// tests emits the -tests file: behaviour tests of the map against a builtin
// map, a concurrency test for the race detector, and benchmarks. It uses the
// standard library only, so it runs in any consumer module.
func (g *generator) tests(f *jen.File) {
	T := g.testHelper
	key, val := jen.Id(g.n.Key), jen.Id(g.n.Value)
	g.testAdapters(f)

	// func <prefix>TestKey(i int) (k <Key>): i little-endian in the first bytes, then a pattern
	f.Commentf("%s makes distinct keys from small integers.", T("testKey"))
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
	f.Commentf("%s makes a value from an integer.", T("testVal"))
	f.Func().Id(T("testVal")).Params(jen.Id("i").Int()).Params(jen.Id("v").Add(val)).Block(
		jen.For(jen.Id("j").Op(":=").Range().Id("v")).Block(
			jen.Id("v").Index(jen.Id("j")).Op("=").Byte().Call(jen.Id("i").Op("+").Id("j")),
		),
		jen.Return(),
	)

	// errors.Is and slices.Equal, for the text below and in batchTests,
	// which cannot import.
	f.Commentf("%s is errors.Is.", T("testIs"))
	f.Func().Id(T("testIs")).Params(jen.List(jen.Id("err"), jen.Id("target")).Error()).Bool().Block(
		jen.Return(jen.Qual("errors", "Is").Call(jen.Id("err"), jen.Id("target"))),
	)
	f.Commentf("%s is slices.Equal.", T("testSame"))
	f.Func().Id(T("testSame")).Types(jen.Id("E").Comparable()).Params(jen.List(jen.Id("a"), jen.Id("b")).Index().Id("E")).Bool().Block(
		jen.Return(jen.Qual("slices", "Equal").Call(jen.Id("a"), jen.Id("b"))),
	)

	g.modelTests(f)
	g.storageTest(f)
	g.seedTest(f)
	g.hashTest(f)
	g.collisionTest(f)
	g.stressTest(f)

	// The 64 keys fit; an LRU map gets room to spare so that it never evicts
	// them (its CPUs cache free elements in batches of max/cpus/2).
	concurrentMax := 64
	if g.l.LRU != nil {
		concurrentMax = 1024
	}
	// Test<Map>Concurrent: writers on disjoint keys, readers and iterators, under -race.
	f.Commentf("Test%sConcurrent runs writers on disjoint keys with lock-free readers and", g.n.Map)
	f.Comment("iterators; run it with -race. Each writer's keys must end as it left them.")
	f.Func().Id("Test"+g.n.Map+"Concurrent").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(testOpts(concurrentMax)),
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
				jen.Id("m").Dot("CPU").Call(jen.Lit(1)).Dot("Lookup").Call(jen.Id(T("testKey")).Call(jen.Id("i").Op("%").Lit(64))),
				jen.For(jen.Range().Id("m").Dot("All").Call()).Block(),
				jen.List(jen.Id("_"), jen.Id("_")).Op("=").Id("m").Dot("NextKey").Call(jen.Nil()),
			),
		)),
		jen.Id("wg").Dot("Wait").Call(),
		jen.Comment("Writer w's last operation on key i%32 decides whether it is present."),
		jen.For(jen.Id("w").Op(":=").Range().Lit(2)).Block(
			jen.For(jen.Id("j").Op(":=").Range().Lit(32)).Block(
				jen.Id("last").Op(":=").Id("j").Op("+").Lit(32).Op("*").Parens(jen.Parens(jen.Lit(1999).Op("-").Id("j")).Op("/").Lit(32)),
				jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("m").Dot("CPU").Call(jen.Id("w")).Dot("Lookup").Call(jen.Id(T("testKey")).Call(jen.Id("w").Op("*").Lit(32).Op("+").Id("j"))),
				jen.Id("want").Op(":=").Id("last").Op("%").Lit(3).Op("!=").Lit(2),
				fatalIf(jen.Id("ok").Op("!=").Id("want").Op("||").Id("ok").Op("&&").Id("v").Op("!=").Id(T("testVal")).Call(jen.Id("last")), "writer %d key %d: got %x, %v", jen.Id("w"), jen.Id("j"), jen.Id("v"), jen.Id("ok")),
			),
		),
	)

	// Benchmark<Map>Lookup: hits on a 75% full map of 65536 entries, in random order.
	f.Commentf("Benchmark%sLookup looks up present keys of a 3/4-full map of 65536", g.n.Map)
	f.Comment("entries in random order and reports lookups/s; keys an LRU map evicted")
	f.Comment("while it filled are left out.")
	f.Func().Id("Benchmark"+g.n.Map+"Lookup").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.Const().Id("n").Op("=").Lit(49152),
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(testOpts(65536)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("b").Dot("Fatal").Call(jen.Err())),
		jen.Id("keys").Op(":=").Make(jen.Index().Add(key), jen.Lit(0), jen.Id("n")),
		jen.For(jen.Id("i").Op(":=").Range().Id("n")).Block(
			jen.Id("k").Op(":=").Id(T("testKey")).Call(jen.Id("i")),
			jen.If(jen.Id(T("testUpdate")).Call(jen.Id("m"), jen.Id("k"), jen.Id(T("testVal")).Call(jen.Id("i")), jen.Qual(htabPkg, "UpdateNoExist")).Op("==").Nil()).Block(
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k")),
			),
		),
		jen.Qual("math/rand/v2", "Shuffle").Call(jen.Len(jen.Id("keys")), jen.Func().Params(jen.Id("i"), jen.Id("j").Int()).Block(
			jen.List(jen.Id("keys").Index(jen.Id("i")), jen.Id("keys").Index(jen.Id("j"))).Op("=").List(jen.Id("keys").Index(jen.Id("j")), jen.Id("keys").Index(jen.Id("i"))),
		)),
		jen.Id("i").Op(":=").Lit(0),
		jen.For(jen.Id("b").Dot("Loop").Call()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Add(g.benchLookup()).Call(jen.Id("keys").Index(jen.Id("i"))), jen.Op("!").Id("ok")).Block(
				jen.Id("b").Dot("Fatal").Call(jen.Lit("miss")),
			),
			jen.Id("i").Op("++"),
			jen.If(jen.Id("i").Op("==").Len(jen.Id("keys"))).Block(jen.Id("i").Op("=").Lit(0)),
		),
		jen.Id("b").Dot("ReportMetric").Call(jen.Float64().Call(jen.Id("b").Dot("N")).Op("/").Id("b").Dot("Elapsed").Call().Dot("Seconds").Call(), jen.Lit("lookups/s")),
	)
}

// testOpts is the Options literal of the generated tests' maps: max
// entries, ZeroSeed, 2 CPUs.
func testOpts(max int) jen.Code {
	return jen.Qual(htabPkg, "Options").Values(jen.Dict{jen.Id("MaxEntries"): jen.Lit(max), jen.Id("ZeroSeed"): jen.True(), jen.Id("CPUs"): jen.Lit(2)})
}

// fatalIf is a generated test's "if cond { t.Fatalf(format, args...) }".
func fatalIf(cond jen.Code, format string, args ...jen.Code) jen.Code {
	return jen.If(cond).Block(jen.Id("t").Dot("Fatalf").Call(append([]jen.Code{jen.Lit(format)}, args...)...))
}

// testHelper is the name of the -tests file's unexported helper h (testKey,
// checkOp): the map's prefix, then h with its first letter raised
// (hashK8V8TestKey), as every unexported identifier of a map is named, so that
// the tests of two maps compile together in one package.
func (g *generator) testHelper(h string) string {
	return g.n.Prefix + strings.ToUpper(h[:1]) + h[1:]
}

// seedBench emits Benchmark<Map>Seed000: the kernel's bpf-hashmap-lookup
// method (seed 000): 65536 max entries, 25/50/75/100 % full, ZeroSeed, keys
// with word 0 = i+1 and word j = 2654435761*j, looked up in insertion order,
// all hits.
//
//	func Benchmark<Map>Seed000(b *testing.B) {
//		for _, full := range []int{25, 50, 75, 100} { b.Run(fmt.Sprintf("fullness=%d", full), ...) }
//	}
func (g *generator) seedBench(f *jen.File) {
	if g.l.Spec.Type != spec.Hash {
		return // the seed measures BPF_MAP_TYPE_HASH
	}
	key := jen.Id(g.n.Key)
	f.Commentf("Benchmark%sSeed000 is the kernel's bpf-hashmap-lookup benchmark (seed 000):", g.n.Map)
	f.Comment("a map of 65536 entries filled to 25..100 %, every key looked up in turn.")
	f.Func().Id("Benchmark" + g.n.Map + "Seed000").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("full")).Op(":=").Range().Index().Int().Values(jen.Lit(25), jen.Lit(50), jen.Lit(75), jen.Lit(100))).Block(
			jen.Id("b").Dot("Run").Call(jen.Qual("fmt", "Sprintf").Call(jen.Lit("fullness=%d"), jen.Id("full")), jen.Func().Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
				jen.Id("n").Op(":=").Lit(65536).Op("*").Id("full").Op("/").Lit(100),
				jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(jen.Qual(htabPkg, "Options").Values(jen.Dict{jen.Id("MaxEntries"): jen.Lit(65536), jen.Id("ZeroSeed"): jen.True()})),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("b").Dot("Fatal").Call(jen.Err())),
				jen.Id("keys").Op(":=").Make(jen.Index().Add(key), jen.Id("n")),
				jen.For(jen.Id("i").Op(":=").Range().Id("keys")).Block(
					jen.Var().Id("buf").Index(jen.Lit(4*(g.l.KeyWords+1))).Byte(),
					jen.Qual("encoding/binary", "LittleEndian").Dot("PutUint32").Call(jen.Id("buf").Index(jen.Op(":")), jen.Uint32().Call(jen.Id("i").Op("+").Lit(1))),
					jen.For(jen.Id("j").Op(":=").Lit(1), jen.Id("j").Op("<").Lit(g.l.Spec.Key/4), jen.Id("j").Op("++")).Block(
						jen.Qual("encoding/binary", "LittleEndian").Dot("PutUint32").Call(jen.Id("buf").Index(jen.Lit(4).Op("*").Id("j").Op(":")), jen.Lit(uint32(0x9e3779b1)).Op("*").Uint32().Call(jen.Id("j"))),
					),
					jen.Copy(jen.Id("keys").Index(jen.Id("i")).Index(jen.Op(":")), jen.Id("buf").Index(jen.Op(":"))),
					jen.Var().Id("v").Id(g.n.Value),
					jen.Id("v").Index(jen.Lit(0)).Op("=").Byte().Call(jen.Id("i")),
					jen.If(jen.Err().Op(":=").Id("m").Dot("Update").Call(jen.Id("keys").Index(jen.Id("i")), jen.Id("v"), jen.Qual(htabPkg, "UpdateAny")), jen.Err().Op("!=").Nil()).Block(jen.Id("b").Dot("Fatal").Call(jen.Err())),
				),
				jen.Id("i").Op(":=").Lit(0),
				jen.For(jen.Id("b").Dot("Loop").Call()).Block(
					jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("m").Dot("Lookup").Call(jen.Id("keys").Index(jen.Id("i"))), jen.Op("!").Id("ok")).Block(jen.Id("b").Dot("Fatal").Call(jen.Lit("miss"))),
					jen.Id("i").Op("++"),
					jen.If(jen.Id("i").Op("==").Id("n")).Block(jen.Id("i").Op("=").Lit(0)),
				),
				jen.Id("b").Dot("ReportMetric").Call(jen.Float64().Call(jen.Id("b").Dot("N")).Op("/").Id("b").Dot("Elapsed").Call().Dot("Seconds").Call(), jen.Lit("lookups/s")),
			)),
		),
	)
}

// benchLookup is the lookup the Lookup benchmark measures: the userspace
// Lookup, or for the per-CPU types (whose Lookup copies every CPU's value)
// a program's lookup on CPU 0.
func (g *generator) benchLookup() *jen.Statement {
	if g.l.PerCPU != nil {
		return jen.Id("m").Dot("CPU").Call(jen.Lit(0)).Dot("Lookup")
	}
	return jen.Id("m").Dot("Lookup")
}

// storageTest emits Test<Map>StorageHasNoPointers, the check behind the
// design's promise that the garbage collector never scans the map's storage:
// every slice of the map (its elements, buckets, slots, per-CPU values and
// their NoPrealloc chunks; not the CPU handles) holds types without pointers.
// The walk goes through the slices, arrays and atomic.Pointers that lead to
// the storage, so a NoPrealloc chunk behind an atomic.Pointer counts as
// storage too (the short array of chunk pointers is all the collector scans).
func (g *generator) storageTest(f *jen.File) {
	f.Add(jen.Id(fmt.Sprintf(storageWalk, g.n.Prefix)))
	T := g.testHelper
	typeOf := func(name string) *jen.Statement { return jen.Qual("reflect", "TypeFor").Types(jen.Id(name)).Call() }
	f.Commentf("Test%sStorageHasNoPointers checks that what the map's slices hold has no", g.n.Map)
	f.Comment("pointers, so that the garbage collector never scans it.")
	f.Func().Id("Test"+g.n.Map+"StorageHasNoPointers").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("leaves").Op(":=").Map(jen.Qual("reflect", "Type")).Bool().Values(),
		jen.Id("mt").Op(":=").Add(typeOf(g.n.Map)),
		jen.For(jen.Id("i").Op(":=").Range().Id("mt").Dot("NumField").Call()).Block(
			jen.If(jen.Id("fld").Op(":=").Id("mt").Dot("Field").Call(jen.Id("i")), jen.Id("fld").Dot("Type").Dot("Kind").Call().Op("==").Qual("reflect", "Slice").Op("&&").Id("fld").Dot("Name").Op("!=").Lit("handles")).Block(
				jen.Id(T("storageLeaves")).Call(jen.Id("fld").Dot("Type"), jen.Id("leaves")),
			),
		),
		jen.If(jen.Op("!").Id("leaves").Index(typeOf(g.n.Elem))).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("the walk of the map's slices did not reach its element type; it found %v"), jen.Id("leaves")),
		),
		jen.For(jen.Id("lt").Op(":=").Range().Id("leaves")).Block(
			jen.If(jen.Id(T("hasPointers")).Call(jen.Id("lt"))).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("%v, in the map's storage, holds pointers"), jen.Id("lt")),
			),
		),
	)
}

// storageWalk: the helpers of Test<Map>StorageHasNoPointers (%[1]s is the
// map's prefix).
const storageWalk = `
// %[1]sStorageLeaves adds to leaves what t holds once the slices, arrays
// and atomic.Pointers (NoPrealloc chunks) on the way are unwrapped.
func %[1]sStorageLeaves(t reflect.Type, leaves map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		%[1]sStorageLeaves(t.Elem(), leaves)
		return
	case reflect.Struct:
		if load, ok := reflect.PointerTo(t).MethodByName("Load"); ok && t.PkgPath() == "sync/atomic" && load.Type.Out(0).Kind() == reflect.Pointer {
			%[1]sStorageLeaves(load.Type.Out(0).Elem(), leaves) // atomic.Pointer[T]
			return
		}
	}
	leaves[t] = true
}

// %[1]sHasPointers reports whether a value of type t holds anything the
// garbage collector would follow.
func %[1]sHasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.String, reflect.Slice:
		return true
	case reflect.Array:
		return t.Len() > 0 && %[1]sHasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if %[1]sHasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
`

// seedTest emits Test<Map>Seeds: maps made with ZeroSeed hash alike, so the
// same keys come out of All in one order; maps made without it draw their
// own seeds, so 32 keys come out in different orders (that two random seeds
// give one order of 32 keys over 1024 buckets is vanishingly unlikely).
func (g *generator) seedTest(f *jen.File) {
	T := g.testHelper
	f.Commentf("Test%sSeeds checks that ZeroSeed maps iterate the same keys in one order", g.n.Map)
	f.Comment("and that maps without it, each with a random seed, do not.")
	f.Func().Id("Test"+g.n.Map+"Seeds").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("order").Op(":=").Func().Params(jen.Id("zero").Bool()).Index().Id(g.n.Key).Block(
			jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(jen.Qual(htabPkg, "Options").Values(jen.Dict{jen.Id("MaxEntries"): jen.Lit(1024), jen.Id("CPUs"): jen.Lit(2), jen.Id("ZeroSeed"): jen.Id("zero")})),
			fatalIf(jen.Err().Op("!=").Nil(), "New: %v", jen.Err()),
			jen.For(jen.Id("i").Op(":=").Range().Lit(32)).Block(
				jen.If(jen.Err().Op(":=").Id(T("testUpdate")).Call(jen.Id("m"), jen.Id(T("testKey")).Call(jen.Id("i")), jen.Id(T("testVal")).Call(jen.Id("i")), jen.Qual(htabPkg, "UpdateNoExist")), jen.Err().Op("!=").Nil()).Block(
					jen.Id("t").Dot("Fatalf").Call(jen.Lit("Update(key %d): %v"), jen.Id("i"), jen.Err()),
				),
			),
			jen.List(jen.Id("keys"), jen.Id("_")).Op(":=").Id(T("testAll")).Call(jen.Id("t"), jen.Id("m")),
			fatalIf(jen.Len(jen.Id("keys")).Op("!=").Lit(32), "All yields %d keys, want 32", jen.Len(jen.Id("keys"))),
			jen.Return(jen.Id("keys")),
		),
		jen.If(jen.Op("!").Qual("slices", "Equal").Call(jen.Id("order").Call(jen.True()), jen.Id("order").Call(jen.True()))).Block(
			jen.Id("t").Dot("Error").Call(jen.Lit("two ZeroSeed maps iterate the same keys in different orders")),
		),
		jen.If(jen.Qual("slices", "Equal").Call(jen.Id("order").Call(jen.False()), jen.Id("order").Call(jen.False()))).Block(
			jen.Id("t").Dot("Error").Call(jen.Lit("two maps without ZeroSeed iterate the same keys in one order: their seeds are not random")),
		),
	)
}

// hashTest emits Test<Map>HashIsJhash: the map's own hash, whichever -hash
// emitted it, is the kernel's jhash (htab.Jhash) of the key, all 32 bits of
// it, for keys of many byte patterns and for several seeds. The model of
// Test<Map>RandomOps compares only the bucket bits, of 64 buckets at most.
// Lookups that write the hash out in their own body (spec.InlineHashMaxKey)
// have a copy of it, so each key is also inserted into a map of 1024
// buckets with a random seed and must be found by both sides' lookups. It
// uses the model's adapters, emitted in the same file.
func (g *generator) hashTest(f *jen.File) {
	fill := strings.NewReplacer("_MAP_", g.n.Map, "_KEY_", g.n.Key, "_VAL_", g.n.Value, "_p_", g.n.Prefix)
	f.Add(jen.Id(fill.Replace(`
// Test_MAP_HashIsJhash checks that the map's hash is htab.Jhash of the key
// with the map's seed, for 512 keys (zero, all ones, then pseudo-random
// bytes) and seeds 0, 1, 0xdeadbeef and 0xffffffff; and that a map with a
// random seed finds each key, once inserted, with Lookup and CPU(0).Lookup
// (which may compute the hash in their own body).
func Test_MAP_HashIsJhash(t *testing.T) {
	m, err := New_MAP_(htab.Options{MaxEntries: 1, CPUs: 1, ZeroSeed: true})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	seeded, err := New_MAP_(htab.Options{MaxEntries: 1024, CPUs: 1})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	x := uint64(0x9e3779b97f4a7c15)
	for i := range 512 {
		var k _KEY_
		for j := range k {
			switch i {
			case 0:
			case 1:
				k[j] = 0xff
			default:
				x = x*6364136223846793005 + 1442695040888963407
				k[j] = byte(x >> 56)
			}
		}
		w := k.words()
		for _, seed := range []uint32{0, 1, 0xdeadbeef, 0xffffffff} {
			m.seed = seed
			if got, want := m.hash(&k, &w), htab.Jhash(k[:], seed); got != want {
				t.Fatalf("key %x, seed %#x: hash %#x, htab.Jhash %#x", k, seed, got, want)
			}
		}
		if err := _p_ModelUpdate(seeded, k, make([]_VAL_, seeded.CPUs()), htab.UpdateNoExist); err != nil {
			t.Fatalf("key %x: Update: %v", k, err)
		}
		_, found := _p_ModelLookup(seeded, k)
		_, cpuFound := seeded.CPU(0).Lookup(k)
		if err := seeded.Delete(k); !found || !cpuFound || err != nil {
			t.Fatalf("key %x, seed %#x: inserted, then Lookup found it: %v, CPU(0).Lookup: %v, Delete: %v", k, seeded.seed, found, cpuFound, err)
		}
	}
}
`)))
}

// collisionTest emits Test<Map>HashCollisions for maps whose elements cache
// the key's hash and compare it first: random keys almost never share a
// 32-bit hash, so only keys found to collide show that a lookup, update or
// delete goes on to compare the key. A birthday search over the test keys
// finds pairs (4 of them take about 2^17.5 keys; keys of under 3 bytes have
// too few values, and are not tested).
func (g *generator) collisionTest(f *jen.File) {
	if !g.l.CachedHash || g.l.Spec.Key < 3 {
		return
	}
	T := g.testHelper
	deleteIs := func(i jen.Code, want jen.Code, format string) jen.Code {
		return jen.If(jen.Err().Op(":=").Id("m").Dot("Delete").Call(jen.Id(T("testKey")).Call(i)), jen.Op("!").Qual("errors", "Is").Call(jen.Err(), want)).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit(format), i, jen.Err()))
	}
	key := func(i jen.Code) *jen.Statement { return jen.Id(T("testKey")).Call(i) }
	val := func(i jen.Code) *jen.Statement { return jen.Id(T("testVal")).Call(i) }
	f.Commentf("Test%sHashCollisions finds keys whose hashes are equal and checks that the", g.n.Map)
	f.Comment("map keeps them apart: both stored, each with its own value, and deleting")
	f.Comment("one leaves the other.")
	f.Func().Id("Test"+g.n.Map+"HashCollisions").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(testOpts(64)),
		fatalIf(jen.Err().Op("!=").Nil(), "New: %v", jen.Err()),
		jen.Id("first").Op(":=").Map(jen.Uint32()).Int().Values(),
		jen.Var().Id("pairs").Index().Index(jen.Lit(2)).Int(),
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Lit(1).Op("<<").Lit(20).Op("&&").Len(jen.Id("pairs")).Op("<").Lit(4), jen.Id("i").Op("++")).Block(
			jen.Id("k").Op(":=").Add(key(jen.Id("i"))),
			jen.Id("w").Op(":=").Id("k").Dot("words").Call(),
			jen.Id("h").Op(":=").Id("m").Dot("hash").Call(jen.Op("&").Id("k"), jen.Op("&").Id("w")),
			jen.If(jen.List(jen.Id("j"), jen.Id("ok")).Op(":=").Id("first").Index(jen.Id("h")), jen.Id("ok")).Block(
				jen.Id("pairs").Op("=").Append(jen.Id("pairs"), jen.Index(jen.Lit(2)).Int().Values(jen.Id("j"), jen.Id("i"))),
			).Else().Block(
				jen.Id("first").Index(jen.Id("h")).Op("=").Id("i"),
			),
		),
		fatalIf(jen.Len(jen.Id("pairs")).Op("<").Lit(4), "found %d pairs of keys with equal hashes, want 4", jen.Len(jen.Id("pairs"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("p")).Op(":=").Range().Id("pairs")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("i")).Op(":=").Range().Id("p")).Block(
				jen.If(jen.Err().Op(":=").Id(T("testUpdate")).Call(jen.Id("m"), key(jen.Id("i")), val(jen.Id("i")), jen.Qual(htabPkg, "UpdateNoExist")), jen.Err().Op("!=").Nil()).Block(
					jen.Id("t").Dot("Fatalf").Call(jen.Lit("keys %d and %d share a hash: Update(%d, UpdateNoExist) = %v"), jen.Id("p").Index(jen.Lit(0)), jen.Id("p").Index(jen.Lit(1)), jen.Id("i"), jen.Err()),
				),
			),
			jen.For(jen.List(jen.Id("_"), jen.Id("i")).Op(":=").Range().Id("p")).Block(
				jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id(T("testLookup")).Call(jen.Id("t"), jen.Id("m"), key(jen.Id("i"))),
				fatalIf(jen.Op("!").Id("ok").Op("||").Id("v").Op("!=").Add(val(jen.Id("i"))), "keys %d and %d share a hash: Lookup(%d) = %x, %v; want %x", jen.Id("p").Index(jen.Lit(0)), jen.Id("p").Index(jen.Lit(1)), jen.Id("i"), jen.Id("v"), jen.Id("ok"), val(jen.Id("i"))),
			),
			deleteIs(jen.Id("p").Index(jen.Lit(0)), jen.Nil(), "Delete(%d) = %v"),
			jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id(T("testLookup")).Call(jen.Id("t"), jen.Id("m"), key(jen.Id("p").Index(jen.Lit(1)))),
			fatalIf(jen.Op("!").Id("ok").Op("||").Id("v").Op("!=").Add(val(jen.Id("p").Index(jen.Lit(1)))), "after Delete(%d), Lookup(%d) = %x, %v; want its value", jen.Id("p").Index(jen.Lit(0)), jen.Id("p").Index(jen.Lit(1)), jen.Id("v"), jen.Id("ok")),
			deleteIs(jen.Id("p").Index(jen.Lit(0)), jen.Qual(htabPkg, "ErrKeyNotExist"), "Delete(%d) again = %v, want ErrKeyNotExist"),
			deleteIs(jen.Id("p").Index(jen.Lit(1)), jen.Nil(), "Delete(%d) = %v"),
		),
	)
}
