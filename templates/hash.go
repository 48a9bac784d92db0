package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// hashFunc emits the map's hash: the kernel's jhash of the key bytes with the
// map's seed, in the form the layout chose (static, jhash2 or jhash). All three
// give the same value; they differ in speed only (seed 000).
//
//	// hash is jhash(<key>, <K>, m.seed) computed as <description>.
//	func (m *<Map>) hash(k *<Key>, w *<keyWords>) uint32 { <body> }
func (g *generator) hashFunc(f *jen.File) {
	l := g.l
	var body []jen.Code
	switch {
	case l.Hash == spec.HashJhash:
		body = g.hashJhashLoop()
	case l.Hash == spec.HashJhash2:
		body = g.hashJhash2Loop()
	default:
		body = g.hashStatic()
	}
	f.Commentf("hash is the kernel's htab_map_hash(): jhash of the %d key bytes with the map's seed.", l.Spec.Key)
	f.Commentf("It is computed as %s.", l.HashDescription())
	f.Func().Params(g.recvMap()).Id("hash").Params(
		jen.Id("k").Op("*").Id(g.keyT), jen.Id("w").Op("*").Id(g.keyWordsT),
	).Uint32().Block(body...)
}

// hashInit is a := 0xdeadbeef + <length> + m.seed; b, c := a, a
func hashInit(length jen.Code) []jen.Code {
	return []jen.Code{
		jen.Id("a").Op(":=").Uint32().Call(jen.Op("0xdeadbeef")).Op("+").Add(length).Op("+").Id("m").Dot("seed"),
		jen.List(jen.Id("b"), jen.Id("c")).Op(":=").List(jen.Id("a"), jen.Id("a")),
	}
}

// hashStatic is jhash specialised for the key size: whole 12-byte blocks
// (unrolled, or a loop for long keys), then the 1..12-byte tail as words. The
// key words are zero-padded, so a partial last word adds exactly the bytes
// jhash's tail switch would.
func (g *generator) hashStatic() []jen.Code {
	l := g.l
	blocks := (l.Spec.Key - 1) / 12 // jhash mixes while more than 12 bytes remain
	body := hashInit(jen.Lit(l.Spec.Key))
	addBlock := func(off func(int) jen.Code) []jen.Code {
		return append([]jen.Code{
			jen.Id("a").Op("+=").Id("w").Index(off(0)),
			jen.Id("b").Op("+=").Id("w").Index(off(1)),
			jen.Id("c").Op("+=").Id("w").Index(off(2)),
		}, mix()...)
	}
	if l.HashUnrolled {
		for blk := 0; blk < blocks; blk++ {
			body = append(body, addBlock(func(j int) jen.Code { return jen.Lit(3*blk + j) })...)
		}
	} else {
		body = append(body, jen.For(
			jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Lit(3*blocks), jen.Id("i").Op("+=").Lit(3),
		).Block(addBlock(func(j int) jen.Code {
			if j == 0 {
				return jen.Id("i")
			}
			return jen.Id("i").Op("+").Lit(j)
		})...))
	}
	regs := []string{"a", "b", "c"}
	for j := 3 * blocks; j < l.KeyWords; j++ {
		body = append(body, jen.Id(regs[j-3*blocks]).Op("+=").Id("w").Index(jen.Lit(j)))
	}
	body = append(body, final()...)
	return append(body, jen.Return(jen.Id("c")))
}

// hashJhash2Loop is the kernel's jhash2() over the key words, as a loop.
func (g *generator) hashJhash2Loop() []jen.Code {
	body := []jen.Code{jen.Id("s").Op(":=").Id("w").Index(jen.Op(":"))}
	body = append(body, hashInit(jen.Uint32().Call(jen.Len(jen.Id("s"))).Op("<<").Lit(2))...)
	body = append(body,
		jen.For(jen.Len(jen.Id("s")).Op(">").Lit(3)).Block(append([]jen.Code{
			jen.Id("a").Op("+=").Id("s").Index(jen.Lit(0)),
			jen.Id("b").Op("+=").Id("s").Index(jen.Lit(1)),
			jen.Id("c").Op("+=").Id("s").Index(jen.Lit(2)),
		}, append(mix(), jen.Id("s").Op("=").Id("s").Index(jen.Lit(3).Op(":")))...)...),
		jen.Switch(jen.Len(jen.Id("s"))).Block(
			jen.Case(jen.Lit(3)).Block(jen.Id("c").Op("+=").Id("s").Index(jen.Lit(2)), jen.Fallthrough()),
			jen.Case(jen.Lit(2)).Block(jen.Id("b").Op("+=").Id("s").Index(jen.Lit(1)), jen.Fallthrough()),
			jen.Case(jen.Lit(1)).Block(append([]jen.Code{jen.Id("a").Op("+=").Id("s").Index(jen.Lit(0))}, final()...)...),
		),
		jen.Return(jen.Id("c")),
	)
	return body
}

// hashJhashLoop is the kernel's jhash() over the key bytes: a loop over
// 12-byte blocks, then the tail byte by byte.
func (g *generator) hashJhashLoop() []jen.Code {
	body := []jen.Code{jen.Id("s").Op(":=").Id("k").Index(jen.Op(":"))}
	body = append(body, hashInit(jen.Uint32().Call(jen.Len(jen.Id("s"))))...)
	le := func(off int) jen.Code {
		return jen.Qual(binaryPkg, "LittleEndian").Dot("Uint32").Call(jen.Id("s").Index(jen.Lit(off).Op(":")))
	}
	body = append(body, jen.For(jen.Len(jen.Id("s")).Op(">").Lit(12)).Block(append([]jen.Code{
		jen.Id("a").Op("+=").Add(le(0)),
		jen.Id("b").Op("+=").Add(le(4)),
		jen.Id("c").Op("+=").Add(le(8)),
	}, append(mix(), jen.Id("s").Op("=").Id("s").Index(jen.Lit(12).Op(":")))...)...))
	// switch len(s) { case 12: c += uint32(s[11]) << 24; fallthrough ... case 1: a += uint32(s[0]); final }
	var cases []jen.Code
	regs := []string{"a", "b", "c"}
	for n := 12; n >= 1; n-- {
		i := n - 1
		add := jen.Id(regs[i/4]).Op("+=").Uint32().Call(jen.Id("s").Index(jen.Lit(i)))
		if sh := 8 * (i % 4); sh > 0 {
			add = add.Op("<<").Lit(sh)
		}
		stmts := []jen.Code{add}
		if n > 1 {
			stmts = append(stmts, jen.Fallthrough())
		} else {
			stmts = append(stmts, final()...)
		}
		cases = append(cases, jen.Case(jen.Lit(n)).Block(stmts...))
	}
	body = append(body, jen.Switch(jen.Len(jen.Id("s"))).Block(cases...), jen.Return(jen.Id("c")))
	return body
}

// rol is bits.RotateLeft32(<x>, <k>).
func rol(x string, k int) *jen.Statement {
	return jen.Qual(bitsPkg, "RotateLeft32").Call(jen.Id(x), jen.Lit(k))
}

// mix is the kernel's __jhash_mix(a, b, c), inline.
func mix() []jen.Code {
	var out []jen.Code
	for _, st := range []struct {
		x, y, z string
		k       int
	}{{"a", "c", "b", 4}, {"b", "a", "c", 6}, {"c", "b", "a", 8}, {"a", "c", "b", 16}, {"b", "a", "c", 19}, {"c", "b", "a", 4}} {
		// x -= y; x ^= rol(y, k); y += z
		out = append(out,
			jen.Id(st.x).Op("-=").Id(st.y),
			jen.Id(st.x).Op("^=").Add(rol(st.y, st.k)),
			jen.Id(st.y).Op("+=").Id(st.z),
		)
	}
	return out
}

// final is the kernel's __jhash_final(a, b, c), inline.
func final() []jen.Code {
	var out []jen.Code
	for _, st := range []struct {
		x, y string
		k    int
	}{{"c", "b", 14}, {"a", "c", 11}, {"b", "a", 25}, {"c", "b", 16}, {"a", "c", 4}, {"b", "a", 14}, {"c", "b", 24}} {
		// x ^= y; x -= rol(y, k)
		out = append(out, jen.Id(st.x).Op("^=").Id(st.y), jen.Id(st.x).Op("-=").Add(rol(st.y, st.k)))
	}
	return out
}
