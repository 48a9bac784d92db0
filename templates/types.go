package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// types emits the key and value types, the element, the map struct and the
// compile-time assertions of its size and offsets.
func (g *generator) types(f *jen.File) {
	l := g.l
	g.keyValueTypes(f, "element")

	// type <prefix>Elem struct { <fields> }
	f.Commentf("%s is one element: %d bytes, 4-byte aligned, no pointers. Lock-free", g.elemT, l.ElemSize)
	f.Comment("readers load every field with sync/atomic; writers store them under the bucket lock")
	f.Comment("with htab.StoreRelease.")
	if l.LRU {
		f.Comment("The node is htab.LRU's, which keeps it under its own locks.")
	}
	f.Type().Id(g.elemT).StructFunc(func(s *jen.Group) {
		for _, fl := range l.Elem {
			typ := jen.Id(fl.GoType)
			if name, ok := strings.CutPrefix(fl.GoType, "htab."); ok {
				typ = jen.Qual(htabPkg, name)
			}
			s.Id(fl.Name).Add(typ).Commentf("off %d, %d B: %s", fl.Offset, fl.Size, fl.Doc)
		}
	})

	// const <prefix>ChunkShift = <n>; type <prefix>ElemChunk [1 << <prefix>ChunkShift]<elem>
	if !l.LRU { // LRU maps are always preallocated, as in the kernel
		shift := chunkShift(l.ElemSize)
		f.Commentf("With NoPrealloc elements are allocated on first use, in chunks of 1<<%sChunkShift:", l.Prefix)
		f.Commentf("%d elements of %d bytes, %d KiB (the most, by powers of two, within 16 KiB).", 1<<shift, l.ElemSize, (1<<shift)*l.ElemSize>>10)
		f.Const().Id(l.Prefix + "ChunkShift").Op("=").Lit(shift)
		f.Type().Id(g.elemChunkT).Index(jen.Lit(1).Op("<<").Id(l.Prefix + "ChunkShift")).Id(g.elemT)
	}

	g.mapStruct(f)

	f.Add(g.textCode(elemAssertions(l, "element")))
}

// elemAssertions is the Go text (in textCode's placeholders) of the
// compile-time assertions that the element (what: "element" or "slot") has
// the planned size and every field the planned offset, the figures the
// field comments, the design comment and -explain show:
//
//	var (
//		_ [0]struct{} = [unsafe.Sizeof($Elem{}) - <size>]struct{}{}
//		_ [0]struct{} = [unsafe.Offsetof($Elem{}.<field>) - <offset>]struct{}{}
//	)
//
// A [n]struct{} is assignable to [0]struct{} only if n == 0, and a negative
// length does not compile, so each line holds only with equality.
func elemAssertions(l *spec.Layout, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n// The %s must be %d bytes and its fields at the offsets above, as\n", what, l.ElemSize)
	b.WriteString("// planned; if this fails to compile, regenerate the map.\nvar (\n")
	fmt.Fprintf(&b, "\t_ [0]struct{} = [unsafe.Sizeof($Elem{}) - %d]struct{}{}\n", l.ElemSize)
	for _, fl := range l.Elem {
		fmt.Fprintf(&b, "\t_ [0]struct{} = [unsafe.Offsetof($Elem{}.%s) - %d]struct{}{}\n", fl.Name, fl.Offset)
	}
	b.WriteString(")\n")
	return b.String()
}

// chunkShift picks chunks of about 16 KiB, at least one element.
func chunkShift(elemSize int) int {
	shift := 0
	for (2<<shift)*elemSize <= 16<<10 {
		shift++
	}
	return shift
}

func (g *generator) mapStruct(f *jen.File) {
	f.Commentf("%s is a fixed-capacity hash map with the semantics of the kernel's", g.mapT)
	f.Commentf("BPF_MAP_TYPE_%s. Every method is safe for concurrent use.", kernelTypeName(g.l.Spec.Type))
	f.Type().Id(g.mapT).Struct(append([]jen.Code{
		jen.Id("buckets").Index().Qual(htabPkg, "Bucket").Comment("roundup_pow_of_two(maxEntries) buckets"),
		jen.Id("mask").Uint32().Comment("len(buckets)-1: a hash's bucket is hash&mask"),
		jen.Id("seed").Uint32().Comment("the jhash initval: 0 with ZeroSeed, else random"),
		jen.Id("maxEntries").Uint32(),
		jen.Id("cpus").Int().Comment("number of CPU slots (Options.CPUs)"),
		jen.Id("handles").Index().Id(g.cpuT).Comment("one program-side handle per CPU"),
		jen.Line(),
		g.elemStorage(),
		g.lruField(),
		g.occField(),
	}, append(g.perCPUStorage(),
		jen.Line(),
		jen.Comment("Written by inserts and deletes; the padding keeps them off the cache"),
		jen.Comment("line of the fields above, which every lookup reads."),
		jen.Id("_").Index(jen.Lit(64)).Byte(),
		jen.Id("count").Qual(atomicPkg, "Int64").Comment("live elements, for Len"),
		g.freeElements(),
	)...)...)
}

// lruField is the LRU types' engine, which hands out free elements.
func (g *generator) lruField() jen.Code {
	if !g.l.LRU {
		return jen.Null()
	}
	return jen.Id("lru").Op("*").Qual(htabPkg, "LRU").Comment("hands out free elements, evicting when none is left (bpf_lru)")
}

// elemStorage is the map struct's element storage: one array, and for the
// types that allow NoPrealloc the chunks that replace it.
func (g *generator) elemStorage() jen.Code {
	if g.l.LRU {
		return jen.Add(
			jen.Comment("Element storage: element i is elems[i]; a bucket links index+1 so that 0 is nil."), jen.Line(),
			jen.Id("elems").Index().Id(g.elemT).Comment("all maxEntries elements, then htab.LRUHeads whose nodes are the LRU's list heads"),
		)
	}
	return jen.Add(
		jen.Comment("Element storage. Element i is elems[i] when preallocated, else"), jen.Line(),
		jen.Comment("chunks[i>>shift][i&mask]; a bucket links index+1 so that 0 is nil."), jen.Line(),
		jen.Id("elems").Index().Id(g.elemT).Comment("all maxEntries elements; nil with NoPrealloc"), jen.Line(),
		jen.Id("chunks").Index().Qual(atomicPkg, "Pointer").Types(jen.Id(g.elemChunkT)).Comment("NoPrealloc: allocated on first use"), jen.Line(),
		jen.Id("chunkMu").Qual("sync", "Mutex").Comment("serialises chunk allocation"),
	)
}

// elemAlloc is the constructor's allocation of the elements (or of the chunk
// table, with NoPrealloc).
func (g *generator) elemAlloc() jen.Code {
	prealloc := jen.Id("m").Dot("elems").Op("=").Make(jen.Index().Id(g.elemT), jen.Id("opts").Dot("MaxEntries"))
	if g.l.LRU { // Options.Check has refused NoPrealloc
		return jen.Id("m").Dot("elems").Op("=").Make(jen.Index().Id(g.elemT),
			jen.Id("opts").Dot("MaxEntries").Op("+").Qual(htabPkg, "LRUHeads").Call(jen.Id("opts").Dot("CPUs"), jen.Id("opts").Dot("NoCommonLRU")))
	}
	return jen.If(jen.Id("opts").Dot("NoPrealloc")).Block(
		jen.Id("m").Dot("chunks").Op("=").Make(
			jen.Index().Qual(atomicPkg, "Pointer").Types(jen.Id(g.elemChunkT)),
			jen.Parens(jen.Id("opts").Dot("MaxEntries").Op("-").Lit(1)).Op(">>").Id(g.l.Prefix+"ChunkShift").Op("+").Lit(1),
		),
	).Else().Block(prealloc)
}

// freeElements is the map struct's record of free elements, a free stack;
// nothing for the LRU types, whose LRU engine keeps them (lruField).
func (g *generator) freeElements() jen.Code {
	if g.l.LRU {
		return jen.Null()
	}
	return jen.Add(
		jen.Id("fresh").Qual(atomicPkg, "Uint32").Comment("elements fresh..maxEntries-1 were never used"), jen.Line(),
		jen.Id("freeHead").Qual(atomicPkg, "Uint64").Comment("freed elements: a Treiber stack, ABA tag<<32 | index+1, linked through next"),
	)
}

// htabMapType is the htab.MapType constant of the layout's type.
func (g *generator) htabMapType() *jen.Statement {
	return htabId(map[spec.MapType]string{spec.Hash: "Hash", spec.PerCPU: "PerCPUHash", spec.LRU: "LRUHash", spec.LRUPerCPU: "LRUPerCPUHash"}[g.l.Spec.Type])
}

// kernelTypeName is the suffix of the kernel's BPF_MAP_TYPE_ name for t.
func kernelTypeName(t spec.MapType) string {
	return map[spec.MapType]string{spec.Hash: "HASH", spec.PerCPU: "PERCPU_HASH", spec.LRU: "LRU_HASH", spec.LRUPerCPU: "LRU_PERCPU_HASH"}[t]
}

// constructor emits New<Map> and the size accessors.
func (g *generator) constructor(f *jen.File) {
	// func New<Map>(opts htab.Options) (*<Map>, error)
	f.Commentf("New%s creates an empty map, as BPF_MAP_CREATE does. Bad options are", g.mapT)
	f.Comment("htab.ErrInvalid, wrapped with the reason.")
	f.Func().Id("New"+g.mapT).Params(jen.Id("opts").Qual(htabPkg, "Options")).Params(jen.Op("*").Id(g.mapT), jen.Error()).Block(
		jen.List(jen.Id("opts"), jen.Err()).Op(":=").Id("opts").Dot("Check").Call(g.htabMapType()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		g.lruMaxEntries(),
		jen.Id("n").Op(":=").Qual(htabPkg, "BucketCount").Call(jen.Id("opts").Dot("MaxEntries")),
		jen.Id("m").Op(":=").Op("&").Id(g.mapT).Values(jen.Dict{
			jen.Id("buckets"):    jen.Make(jen.Index().Qual(htabPkg, "Bucket"), jen.Id("n")),
			jen.Id("mask"):       u32(jen.Id("n").Op("-").Lit(1)),
			jen.Id("seed"):       jen.Id("opts").Dot("Seed").Call(),
			jen.Id("maxEntries"): u32(jen.Id("opts").Dot("MaxEntries")),
			jen.Id("cpus"):       jen.Id("opts").Dot("CPUs"),
		}),
		g.elemAlloc(),
		g.perCPUAlloc(),
		g.lruCreate(),
		g.occInit(),
		jen.Id("m").Dot("handles").Op("=").Make(jen.Index().Id(g.cpuT), jen.Id("opts").Dot("CPUs")),
		jen.For(jen.Id("i").Op(":=").Range().Id("m").Dot("handles")).Block(
			jen.Id("m").Dot("handles").Index(jen.Id("i")).Op("=").Id(g.cpuT).Values(jen.Id("m"), jen.Id("i")),
		),
		jen.Return(jen.Id("m"), jen.Nil()),
	)

	f.Comment("Len is the number of keys in the map.")
	f.Func().Params(g.recvMap()).Id("Len").Params().Int().Block(
		jen.Return(jen.Int().Call(jen.Id("m").Dot("count").Dot("Load").Call())),
	)
	g.sizeAccessors(f)
}

// keyValueTypes emits the key and value types and the key words, as the
// element (or, in the home layout, the slot) stores the key:
//
//	type <Map>Key [<K>]byte
//	type <Map>Value [<V>]byte
//	type <prefix>KeyWords [<KW>]uint32
func (g *generator) keyValueTypes(f *jen.File, storage string) {
	l := g.l
	f.Commentf("%s is a key of %s: %s, hashed and compared as they are.", g.keyT, g.mapT, spec.Plural(l.Spec.Key, "byte"))
	f.Type().Id(g.keyT).Index(jen.Lit(l.Spec.Key)).Byte()
	f.Commentf("%s is a value of %s: %s.", g.valT, g.mapT, spec.Plural(l.Spec.Val, "byte"))
	f.Type().Id(g.valT).Index(jen.Lit(l.Spec.Val)).Byte()
	f.Commentf("%s is a key as the %s stores it: little-endian words, zero-padded.", g.keyWordsT, storage)
	f.Type().Id(g.keyWordsT).Index(jen.Lit(l.KeyWords)).Uint32()
}

// sizeAccessors emits MaxEntries and CPUs.
func (g *generator) sizeAccessors(f *jen.File) {
	f.Comment("MaxEntries is the capacity the map was created with.")
	f.Func().Params(g.recvMap()).Id("MaxEntries").Params().Int().Block(
		jen.Return(jen.Int().Call(jen.Id("m").Dot("maxEntries"))),
	)
	f.Comment("CPUs is the number of CPU slots: Options.CPUs, or runtime.NumCPU().")
	f.Func().Params(g.recvMap()).Id("CPUs").Params().Int().Block(
		jen.Return(jen.Id("m").Dot("cpus")),
	)
}

// occField is the map's occupancy bitmap field (-batch-lock sparse), else nothing.
func (g *generator) occField() jen.Code {
	if !g.l.Occupancy {
		return jen.Null()
	}
	return jen.Line().Id("occ").Qual(htabPkg, "Occupancy").Comment("-batch-lock sparse: one bit per bucket, set while it is non-empty")
}

// occInit makes the occupancy bitmap (-batch-lock sparse), else nothing.
func (g *generator) occInit() jen.Code {
	if !g.l.Occupancy {
		return jen.Null()
	}
	return jen.Id("m").Dot("occ").Op("=").Qual(htabPkg, "NewOccupancy").Call(jen.Id("n"))
}
