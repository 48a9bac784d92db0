package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// htabtestPkg is the test kit the -tests file calls: the checks live there,
// once, generic over its adapter interface htabtest.Map.
const htabtestPkg = htabPkg + "/htabtest"

// tests emits the -tests file: an adapter through which htab/htabtest's
// checks reach the map (<prefix>TestMap), one Test or Fuzz function per
// check, and the benchmarks. It uses the standard library, htab and
// htab/htabtest only, so it runs in any consumer module.
//
//	type <prefix>TestMap struct{ *<prefix>UnderTest } // <Map>, implements htabtest.Map[<Key>, <Value>]
//	func Test<Map>RandomOps(t *testing.T) { htabtest.RandomOps(t, <prefix>TestMap{}) }
//	...
//	func Benchmark<Map>Lookup(b *testing.B) { ... }
func (g *generator) tests(f *jen.File) {
	f.ImportName(htabtestPkg, "htabtest")
	if g.l.BloomMap != nil {
		g.bloomMapTests(f)
		return
	}
	g.testAdapter(f)
	f.Add(g.code(testFuncs))
	if g.l.CachedHash && g.l.Spec.Key >= 3 {
		// Only where elements cache the hash: elsewhere htabtest's check skips.
		f.Add(g.code(collisionTestFunc))
	}
	if g.l.Filter != nil {
		f.Add(g.code(filterTestFuncs))
	}
	g.lookupBench(f)
	g.fullnessBench(f)
}

// filterTestFuncs: for maps with a bloom filter in front of their lookups.
const filterTestFuncs = `
// Filter is the bloom filter in front of the map's lookups.
func (a $TestMap) Filter() *htab.Filter { return a.filter }

// Test$MapFilterChurn checks that the bloom filter in front of the map's
// lookups never hides a key and keeps its false-positive rate down through
// churn (htabtest.FilterChurn); run it with -race.
func Test$MapFilterChurn(t *testing.T) { htabtest.FilterChurn(t, $TestMap{}) }
`

// bloomMapTests emits the -tests file of a -type bloom map: its adapter,
// <prefix>TestBloom (htabtest.BloomMap), a test per bloom check, and the
// Push and Peek benchmarks.
//
//	type <prefix>TestBloom struct{ *<prefix>UnderTest } // <Map>, implements htabtest.BloomMap[<Value>]
//	func Test<Map>Model(t *testing.T) { htabtest.BloomModel(t, <prefix>TestBloom{}) }
func (g *generator) bloomMapTests(f *jen.File) {
	f.Add(g.code(fmt.Sprintf(`
// $TestBloom is $Map as the bloom checks of htab/htabtest reach it
// (htabtest.BloomMap). The zero $TestBloom stands for the kind.
type $TestBloom struct{ *$UnderTest }

// $UnderTest is $Map under the name the adapter embeds it by: embedded
// as $Map, the field would clash with the adapter's method of that name
// (a filter named Push, or New).
type $UnderTest = $Map

// New makes a filter with opts, as $New does.
func (a $TestBloom) New(opts htab.Options) (htabtest.BloomMap[$Value], error) {
	m, err := $New(opts)
	if err != nil {
		return nil, err
	}
	return $TestBloom{m}, nil
}

// DefaultHashes is the -hashes the filter was generated with.
func (a $TestBloom) DefaultHashes() int { return %d }

// Seed is the initval of the filter's hash 0.
func (a $TestBloom) Seed() uint32 { return a.seed }

// Hash is the filter's hash of v with initval seed, before the mask.
func (a $TestBloom) Hash(v $Value, seed uint32) uint32 { return a.hash(&v, seed) }

// Test$MapModel checks the filter against the kernel's rules
// (htabtest.BloomModel): its size, its hash, and every Peek.
func Test$MapModel(t *testing.T) { htabtest.BloomModel(t, $TestBloom{}) }

// Test$MapOptions checks the options the filter refuses (htabtest.BloomOptions).
func Test$MapOptions(t *testing.T) { htabtest.BloomOptions(t, $TestBloom{}) }

// Test$MapConcurrent checks that a pushed value peeks true from every
// goroutine (htabtest.BloomConcurrent); run it with -race.
func Test$MapConcurrent(t *testing.T) { htabtest.BloomConcurrent(t, $TestBloom{}) }

// Test$MapFalsePositives checks the false-positive rate against the theory
// (htabtest.BloomFalsePositives).
func Test$MapFalsePositives(t *testing.T) { htabtest.BloomFalsePositives(t, $TestBloom{}) }

// Benchmark$MapPush and Benchmark$MapPeek push into, and peek at, a filter
// of 1,000,000 entries and 3 hashes, half full; Peek probes pushed values and
// random ones alternately.
func Benchmark$MapPush(b *testing.B) {
	m, err := $New(htab.Options{MaxEntries: 1000000, BloomHashes: 3})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		m.Push(htabtest.Value[$Value](i))
		i++
	}
}

func Benchmark$MapPeek(b *testing.B) {
	m, err := $New(htab.Options{MaxEntries: 1000000, BloomHashes: 3})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 500000 {
		m.Push(htabtest.Value[$Value](i))
	}
	i := 0
	for b.Loop() {
		m.Peek(htabtest.Value[$Value](i * 7919))
		i++
	}
}
`, g.l.BloomMap.DefaultHashes)))
}

// testAdapter emits <prefix>TestMap, the map as htabtest.Map sees it: the
// map embedded (its Len, MaxEntries, CPUs, NextKey and batch methods are
// already the interface's), the program side as htabtest.CPU, the internals
// the checks need (seed, mask, the hash), and, for the hash and LRU types,
// the single-value methods with a key's values as a slice of one (the
// per-CPU types' methods already take one value per CPU), and, in the home
// layout, the switch of LookupBulk's touching ahead. Info, which
// differs by type and element, is jennifer; the rest is fixed text.
func (g *generator) testAdapter(f *jen.File) {
	f.Add(g.code(adapterCommon))
	if g.l.PerCPU == nil {
		f.Add(g.code(adapterSingleValue))
	}
	if g.l.Home != nil {
		f.Add(g.code(`
// SetTouchAhead makes LookupBulk touch each group's slots before it reads
// them (on) or loop over Lookup (off), whatever the map's size
// (htabtest.TouchAhead).
func (a $TestMap) SetTouchAhead(on bool) { a.touchAhead = on }
`))
	}
	typeFor := func(name string) jen.Code { return jen.Qual("reflect", "TypeFor").Types(jen.Id(name)).Call() }
	f.Comment("Info is what kind of map this is.")
	f.Func().Params(jen.Id("a").Id(g.n.Prefix+"TestMap")).Id("Info").Params().Qual(htabtestPkg, "Info").Block(
		jen.Return(jen.Qual(htabtestPkg, "Info").Values(jen.Dict{
			jen.Id("Type"):       jen.Qual(htabPkg, htabMapType(g.l.Spec.Type)),
			jen.Id("CachedHash"): jen.Lit(g.l.CachedHash),
			jen.Id("Struct"):     typeFor(g.n.Map),
			jen.Id("Elem"):       typeFor(g.n.Elem),
		})),
	)
}

// adapterCommon: the adapter's type and the methods every map's adapter
// has alike.
const adapterCommon = `
// $TestMap is $Map as the checks of htab/htabtest reach it
// (htabtest.Map): the map's own methods, with a key's values as a slice,
// its CPU handles, and the internals the checks need. The zero $TestMap
// stands for the kind: the checks make their maps with New.
type $TestMap struct{ *$UnderTest }

// $UnderTest is $Map under the name the adapters embed it by: embedded
// as $Map, the field would clash with the adapter's method of that name
// (a map named Lookup, or New).
type $UnderTest = $Map

// New makes a map with opts, as New$Map does.
func (a $TestMap) New(opts htab.Options) (htabtest.Map[$Key, $Value], error) {
	m, err := New$Map(opts)
	if err != nil {
		return nil, err
	}
	return $TestMap{m}, nil
}

// CPU is the map's CPU(i).
func (a $TestMap) CPU(i int) htabtest.CPU[$Key, $Value] { return a.$UnderTest.CPU(i) }

// Seed and SetSeed are the map's hash seed, the jhash initval.
func (a $TestMap) Seed() uint32 { return a.seed }

func (a $TestMap) SetSeed(seed uint32) { a.seed = seed }

// Buckets is how many buckets a hash picks from; Degenerate makes it one,
// so that every key falls in bucket 0.
func (a $TestMap) Buckets() int { return int(a.mask) + 1 }

func (a $TestMap) Degenerate() { a.mask = 0 }

// Hash is the map's own hash of k.
func (a $TestMap) Hash(k $Key) uint32 {
	w := k.words()
	return a.hash(&k, &w)
}
`

// adapterSingleValue: the hash and LRU types, whose methods take one value;
// the adapter's take a slice of one.
const adapterSingleValue = `
// Lookup, LookupAndDelete, Update and All are the map's, with a key's value
// as vals[0].
func (a $TestMap) Lookup(k $Key, vals []$Value) (ok bool) {
	vals[0], ok = a.$UnderTest.Lookup(k)
	return ok
}

func (a $TestMap) LookupAndDelete(k $Key, vals []$Value) (err error) {
	vals[0], err = a.$UnderTest.LookupAndDelete(k)
	return err
}

func (a $TestMap) Update(k $Key, vals []$Value, flags htab.UpdateFlags) error {
	return a.$UnderTest.Update(k, vals[0], flags)
}

func (a $TestMap) All() iter.Seq2[$Key, []$Value] {
	return func(yield func($Key, []$Value) bool) {
		for k, v := range a.$UnderTest.All() {
			if !yield(k, []$Value{v}) {
				return
			}
		}
	}
}
`

// testFuncs: one test per check of htabtest (HashCollisions apart).
const testFuncs = `
// Test$MapRandomOps checks random operations on maps of several options
// against a model of the kernel's map (htabtest.RandomOps).
func Test$MapRandomOps(t *testing.T) { htabtest.RandomOps(t, $TestMap{}) }

// Fuzz$MapOps checks the operations its input encodes against the model
// (htabtest.RunOps).
func Fuzz$MapOps(f *testing.F) { htabtest.FuzzOps(f, $TestMap{}) }

// Test$MapConcurrentValues checks that concurrent readers see only values
// written for their keys, whole (htabtest.ConcurrentValues); run it with
// -race.
func Test$MapConcurrentValues(t *testing.T) { htabtest.ConcurrentValues(t, $TestMap{}) }

// Test$MapConcurrent checks that writers on disjoint keys lose no write
// (htabtest.Concurrent); run it with -race.
func Test$MapConcurrent(t *testing.T) { htabtest.Concurrent(t, $TestMap{}) }

// Test$MapLookupBulk checks LookupBulk, on the map and its CPU handles,
// against Lookup, also amid writers (htabtest.LookupBulk); run it with -race.
func Test$MapLookupBulk(t *testing.T) { htabtest.LookupBulk(t, $TestMap{}) }

// Test$MapBatch checks the batch operations against All (htabtest.Batch).
func Test$MapBatch(t *testing.T) { htabtest.Batch(t, $TestMap{}) }

// Test$MapSeeds checks that ZeroSeed maps hash alike and others do not
// (htabtest.Seeds).
func Test$MapSeeds(t *testing.T) { htabtest.Seeds(t, $TestMap{}) }

// Test$MapHashIsJhash checks the map's hash against htab.Jhash
// (htabtest.HashIsJhash).
func Test$MapHashIsJhash(t *testing.T) { htabtest.HashIsJhash(t, $TestMap{}) }

// Test$MapStorageHasNoPointers checks that the garbage collector has
// nothing to scan in the map's storage (htabtest.StorageHasNoPointers).
func Test$MapStorageHasNoPointers(t *testing.T) { htabtest.StorageHasNoPointers(t, $TestMap{}) }
`

// collisionTestFunc: for maps whose elements cache the hash.
const collisionTestFunc = `
// Test$MapHashCollisions checks that keys with equal hashes are kept apart
// (htabtest.HashCollisions).
func Test$MapHashCollisions(t *testing.T) { htabtest.HashCollisions(t, $TestMap{}) }
`

// lookupBench emits Benchmark<Map>Lookup: hits on a 75% full map of 65536
// entries, in random order; the userspace Lookup, or for the per-CPU types
// (whose Lookup copies every CPU's value) a program's lookup on CPU 0.
func (g *generator) lookupBench(f *jen.File) {
	key, val := jen.Id(g.n.Key), jen.Id(g.n.Value)
	v := jen.Qual(htabtestPkg, "Value").Types(val).Call(jen.Id("i"))
	lookup := jen.Id("m").Dot("Lookup")
	if g.l.PerCPU != nil {
		v = jen.Qual(htabtestPkg, "Spread").Call(v, jen.Id("m").Dot("CPUs").Call())
		lookup = jen.Id("m").Dot("CPU").Call(jen.Lit(0)).Dot("Lookup")
	}
	f.Commentf("Benchmark%sLookup looks up present keys of a 3/4-full map of 65536", g.n.Map)
	f.Comment("entries in random order and reports lookups/s; keys an LRU map evicted")
	f.Comment("while it filled are left out.")
	f.Func().Id("Benchmark"+g.n.Map+"Lookup").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.Const().Id("n").Op("=").Lit(49152),
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("New"+g.n.Map).Call(jen.Qual(htabPkg, "Options").Values(jen.Dict{jen.Id("MaxEntries"): jen.Lit(65536), jen.Id("ZeroSeed"): jen.True(), jen.Id("CPUs"): jen.Lit(2)})),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("b").Dot("Fatal").Call(jen.Err())),
		jen.Id("keys").Op(":=").Make(jen.Index().Add(key), jen.Lit(0), jen.Id("n")),
		jen.For(jen.Id("i").Op(":=").Range().Id("n")).Block(
			jen.Id("k").Op(":=").Qual(htabtestPkg, "Key").Types(key).Call(jen.Id("i")),
			jen.If(jen.Id("m").Dot("Update").Call(jen.Id("k"), v, jen.Qual(htabPkg, "UpdateNoExist")).Op("==").Nil()).Block(
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k")),
			),
		),
		jen.Qual("math/rand/v2", "Shuffle").Call(jen.Len(jen.Id("keys")), jen.Func().Params(jen.Id("i"), jen.Id("j").Int()).Block(
			jen.List(jen.Id("keys").Index(jen.Id("i")), jen.Id("keys").Index(jen.Id("j"))).Op("=").List(jen.Id("keys").Index(jen.Id("j")), jen.Id("keys").Index(jen.Id("i"))),
		)),
		jen.Id("i").Op(":=").Lit(0),
		jen.For(jen.Id("b").Dot("Loop").Call()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Add(lookup).Call(jen.Id("keys").Index(jen.Id("i"))), jen.Op("!").Id("ok")).Block(
				jen.Id("b").Dot("Fatal").Call(jen.Lit("miss")),
			),
			jen.Id("i").Op("++"),
			jen.If(jen.Id("i").Op("==").Len(jen.Id("keys"))).Block(jen.Id("i").Op("=").Lit(0)),
		),
		jen.Id("b").Dot("ReportMetric").Call(jen.Float64().Call(jen.Id("b").Dot("N")).Op("/").Id("b").Dot("Elapsed").Call().Dot("Seconds").Call(), jen.Lit("lookups/s")),
	)
}

// fullnessBench emits Benchmark<Map>LookupByFullness, the kernel's
// bpf-hashmap-lookup benchmark (tools/testing/selftests/bpf/benchs, as "bpf:
// optimize hashmap lookups when key_size is divisible by 4" ran it): 65536
// max entries, 25/50/75/100 %
// full, ZeroSeed, keys with word 0 = i+1 and word j = 2654435761*j, looked
// up in insertion order, all hits. Only BPF_MAP_TYPE_HASH has it.
//
//	func Benchmark<Map>LookupByFullness(b *testing.B) {
//		for _, full := range []int{25, 50, 75, 100} { b.Run(fmt.Sprintf("fullness=%d", full), ...) }
//	}
func (g *generator) fullnessBench(f *jen.File) {
	if g.l.Spec.Type != spec.Hash {
		return // the kernel's benchmark measures BPF_MAP_TYPE_HASH
	}
	key := jen.Id(g.n.Key)
	f.Commentf("Benchmark%sLookupByFullness is the kernel's bpf-hashmap-lookup benchmark", g.n.Map)
	f.Comment("(bench bpf-hashmap-lookup): a map of 65536 entries filled to 25..100 %, every")
	f.Comment("key looked up in turn.")
	f.Func().Id("Benchmark" + g.n.Map + "LookupByFullness").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
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
