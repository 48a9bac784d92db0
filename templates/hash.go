package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// hashFunc emits the map's hash: the kernel's jhash of the key bytes with the
// map's seed, in the form the layout chose (static, jhash2 or jhash). All three
// give the same value; they differ in speed only (as the kernel's jhash2 beats
// its jhash on word-aligned keys: "bpf: optimize hashmap lookups when
// key_size is divisible by 4"). The static hash
// comes with its initial-state variable (hashInitVar).
//
//	// hash is the kernel's htab_map_hash(): jhash of the <K> key bytes with
//	// the map's seed. It is computed as <description>.
//	func (m *<Map>) hash(k *<Key>, w *<keyWords>) uint32 { <body> }
func (g *generator) hashFunc(f *jen.File) {
	l := g.l
	var body []jen.Code
	switch {
	case l.Hash.Kind == spec.HashJhash:
		body = g.hashJhashLoop()
	case l.Hash.Kind == spec.HashJhash2:
		body = g.hashJhash2Loop()
	default:
		g.hashInitVar(f)
		body = g.hashStatic()
	}
	if l.BloomMap != nil {
		f.Commentf("hash is the kernel's bloom filter hash before the mask: jhash of the %s", spec.Plural(l.Spec.Val, "value byte"))
		f.Comment("with the initval seed (the map's seed plus the hash function's index).")
		f.Commentf("It is computed as %s.", l.HashDescription())
		f.Func().Params(jen.Id("m").Op("*").Id(g.n.Map)).Id("hash").Params(
			jen.Id("v").Op("*").Id(g.n.Value), jen.Id("seed").Uint32(),
		).Uint32().Block(body...)
		return
	}
	f.Commentf("hash is the kernel's htab_map_hash(): jhash of the %s with the map's seed.", spec.Plural(l.Spec.Key, "key byte"))
	f.Commentf("It is computed as %s.", l.HashDescription())
	f.Func().Params(jen.Id("m").Op("*").Id(g.n.Map)).Id("hash").Params(
		jen.Id("k").Op("*").Id(g.n.Key), jen.Id("w").Op("*").Id(g.n.KeyWords),
	).Uint32().Block(body...)
}

// hashInput is what the hash reads: a map's key k (its words w at hand) with
// the map's seed, or a bloom filter map's value v with the initval seed.
type hashInput struct {
	n     int      // bytes
	bytes string   // the *[n]byte the hash reads
	seed  jen.Code // the initval
}

func (g *generator) hashInput() hashInput {
	if g.l.BloomMap != nil {
		return hashInput{g.l.Spec.Val, "v", jen.Id("seed")}
	}
	return hashInput{g.l.Spec.Key, "k", jen.Id("m").Dot("seed")}
}

// hashInit is a := 0xdeadbeef + <length> + <seed>; b, c := a, a
func (g *generator) hashInit(length jen.Code) []jen.Code {
	return g.hashInitFrom(jen.Uint32().Call(jen.Op("0xdeadbeef")).Op("+").Add(length))
}

// hashInitFrom is a := <init> + <seed>; b, c := a, a
func (g *generator) hashInitFrom(init jen.Code) []jen.Code {
	return []jen.Code{
		jen.Id("a").Op(":=").Add(init).Op("+").Add(g.hashInput().seed),
		jen.List(jen.Id("b"), jen.Id("c")).Op(":=").List(jen.Id("a"), jen.Id("a")),
	}
}

// hashStatic is jhash specialised for the key size: whole 12-byte blocks
// (unrolled, or a loop for long keys), then the 1..12-byte tail, zero-padded
// to words. It reads the key bytes themselves, with constant offsets (one
// 32-bit load each, no bounds checks), not the key words w: w is a copy the
// caller has just built, and reading it back costs a store-forwarding stall
// before the first mix. The initial state comes from a variable, see
// hashInitVar.
func (g *generator) hashStatic() []jen.Code {
	l := g.l
	in := g.hashInput()
	key := in.n
	blocks := (key - 1) / 12 // jhash mixes while more than 12 bytes remain
	body := g.hashInitFrom(jen.Id(g.n.HashInit))
	le := func(s string, off int) jen.Code {
		return jen.Qual("encoding/binary", "LittleEndian").Dot("Uint32").Call(jen.Id(s).Index(jen.Lit(off).Op(":")))
	}
	addBlock := func(s string, off int) []jen.Code {
		return append([]jen.Code{
			jen.Id("a").Op("+=").Add(le(s, off)),
			jen.Id("b").Op("+=").Add(le(s, off+4)),
			jen.Id("c").Op("+=").Add(le(s, off+8)),
		}, mix()...)
	}
	if l.Hash.Unrolled {
		for blk := 0; blk < blocks; blk++ {
			body = append(body, addBlock(in.bytes, 12*blk)...)
		}
	} else {
		// The kernel's loop: it runs exactly blocks times for this key size.
		body = append(body,
			jen.Id("s").Op(":=").Id(in.bytes).Index(jen.Op(":")),
			jen.For(jen.Len(jen.Id("s")).Op(">").Lit(12)).Block(
				append(addBlock("s", 0), jen.Id("s").Op("=").Id("s").Index(jen.Lit(12).Op(":")))...,
			),
		)
	}
	// The tail, 1..12 bytes at constant offsets of the key.
	regs := []string{"a", "b", "c"}
	for off := 12 * blocks; off < key; off += 4 {
		var word jen.Code
		switch n := key - off; {
		case n >= 4:
			word = le(in.bytes, off)
		case key >= 4:
			// The last n bytes: the top of the word that ends the key.
			word = jen.Add(le(in.bytes, key-4)).Op(">>").Lit(8 * (4 - n))
		default:
			var e *jen.Statement
			for i := 0; i < n; i++ {
				b := jen.Uint32().Call(jen.Id(in.bytes).Index(jen.Lit(off + i)))
				if i > 0 {
					b = b.Op("<<").Lit(8 * i)
				}
				if e == nil {
					e = b
				} else {
					e = e.Op("|").Add(b)
				}
			}
			word = e
		}
		body = append(body, jen.Id(regs[(off-12*blocks)/4]).Op("+=").Add(word))
	}
	body = append(body, final()...)
	return append(body, jen.Return(jen.Id("c")))
}

// hashInitVar emits, for the static hash, its initial state before the seed:
//
//	var <prefix>HashInit uint32 = 0xdeadbeef + <K>
//
// A variable, not a constant: with a constant the compiler moves the
// addition of 0xdeadbeef+K outwards through every += and -= of the unrolled
// mixes and adds it back before each rotation, a dozen extra instructions
// on the hash's critical path.
func (g *generator) hashInitVar(f *jen.File) {
	f.Commentf("%s is jhash's initial state before the seed, 0xdeadbeef + %d. It is a", g.n.HashInit, g.hashInput().n)
	f.Comment("variable so that the compiler cannot carry the constant through the unrolled")
	f.Comment("mixes (it would add it back before every rotation); never change it.")
	f.Var().Id(g.n.HashInit).Uint32().Op("=").Op("0xdeadbeef").Op("+").Lit(g.hashInput().n)
}

// hashJhash2Loop is the kernel's jhash2() over the key words, as a loop.
func (g *generator) hashJhash2Loop() []jen.Code {
	body := []jen.Code{jen.Id("s").Op(":=").Id("w").Index(jen.Op(":"))}
	if g.l.BloomMap != nil {
		body = append([]jen.Code{jen.Id("w").Op(":=").Id("v").Dot("words").Call()}, body...)
	}
	body = append(body, g.hashInit(jen.Uint32().Call(jen.Len(jen.Id("s"))).Op("<<").Lit(2))...)
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
	body := []jen.Code{jen.Id("s").Op(":=").Id(g.hashInput().bytes).Index(jen.Op(":"))}
	body = append(body, g.hashInit(jen.Uint32().Call(jen.Len(jen.Id("s"))))...)
	le := func(off int) jen.Code {
		return jen.Qual("encoding/binary", "LittleEndian").Dot("Uint32").Call(jen.Id("s").Index(jen.Lit(off).Op(":")))
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
	return jen.Qual("math/bits", "RotateLeft32").Call(jen.Id(x), jen.Lit(k))
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

// lookupHash is a reader's hash of its key k (key: k's address, as m.hash
// takes it), as h: for a static, unrolled hash of a key up to 16 bytes, the
// hash function's body written out (a call costs a lookup that hits its
// cache lines a visible share of its time), else the call:
//
//	var h uint32
//	{
//		a := <prefix>HashInit + m.seed
//		b, c := a, a
//		... (the mixes of hash)
//		h = c
//	}
//
//	or: h := m.hash(<key>, &w)
//
// With kw (an 8-byte key, already loaded as binary.LittleEndian.Uint64), the
// two words come from kw: a += uint32(kw); b += uint32(kw >> 32).
func (g *generator) lookupHash(key jen.Code, kw bool) jen.Code {
	l := g.l
	if !l.Hash.Inline {
		return jen.Id("h").Op(":=").Id("m").Dot("hash").Call(key, jen.Op("&").Id("w"))
	}
	body := g.hashStatic()
	if kw { // jhash of 8 bytes: no block, a and b take the two words, then final
		body = append(g.hashInitFrom(jen.Id(g.n.HashInit)),
			jen.Id("a").Op("+=").Uint32().Call(jen.Id("kw")),
			jen.Id("b").Op("+=").Uint32().Call(jen.Id("kw").Op(">>").Lit(32)))
		body = append(append(body, final()...), jen.Return(jen.Id("c")))
	}
	// In a block of its own, so that the mix's a, b and c do not take the
	// reader's names.
	mix := append(body[:len(body)-1:len(body)-1], jen.Id("h").Op("=").Id("c")) // all but return c
	return jen.Comment("The hash, written out (m.hash is too big to inline).").Line().
		Var().Id("h").Uint32().Line().
		Block(mix...)
}
