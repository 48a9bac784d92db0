package templates

import (
	"github.com/dave/jennifer/jen"
)

// words emits the conversions between the byte arrays of the API and the
// words of the element, and the element's accessors. Small keys and values
// are straight-line code; large ones loop over whole words.
func (g *generator) words(f *jen.File) {
	l := g.l
	// func (k *<Key>) words() (w <keyWords>)
	f.Comment("words is the key as the element stores it.")
	f.Func().Params(jen.Id("k").Op("*").Id(g.n.Key)).Id("words").Params().Params(jen.Id("w").Id(g.n.KeyWords)).Block(
		append(bytesToWords("k", l.Spec.Key, l.KeyUnrolled, func(i, v jen.Code) jen.Code {
			return jen.Id("w").Index(i).Op("=").Add(v)
		}), jen.Return())...,
	)

	// func (e *<elem>) matches(w *<keyWords>, h uint32) bool
	f.Comment("matches reports whether e holds the key w (of hash h).")
	f.Comment("Any answer is only as good as the caller's bucket sequence check.")
	// The hash parameter, unused where the element caches no hash (keys this
	// small are compared directly), keeps one signature for every element.
	hashParam := jen.Id("h").Uint32()
	if !l.CachedHash {
		f.Comment("The element caches no hash: keys this small are compared directly.")
		hashParam = jen.Id("_").Uint32()
	}
	var conds []jen.Code
	if l.CachedHash {
		conds = append(conds, load(jen.Id("e").Dot("hash")).Op("==").Id("h"))
	}
	body := []jen.Code{}
	if l.KeyUnrolled {
		for i := 0; i < l.KeyWords; i++ {
			conds = append(conds, load(jen.Id("e").Dot("key").Index(jen.Lit(i))).Op("==").Id("w").Index(jen.Lit(i)))
		}
		var expr *jen.Statement
		for i, c := range conds {
			if i == 0 {
				expr = jen.Add(c)
			} else {
				expr = expr.Op("&&").Line().Add(c)
			}
		}
		body = append(body, jen.Return(expr))
	} else {
		if l.CachedHash {
			body = append(body, jen.If(jen.Op("!").Parens(conds[0])).Block(jen.Return(jen.False())))
		}
		body = append(body,
			jen.For(jen.Id("i").Op(":=").Range().Id("w")).Block(
				jen.If(load(jen.Id("e").Dot("key").Index(jen.Id("i"))).Op("!=").Id("w").Index(jen.Id("i"))).Block(jen.Return(jen.False())),
			),
			jen.Return(jen.True()),
		)
	}
	f.Func().Params(jen.Id("e").Op("*").Id(g.n.Elem)).Id("matches").Params(jen.Id("w").Op("*").Id(g.n.KeyWords), hashParam).Bool().Block(body...)

	// func (e *<elem>) setKey(w *<keyWords>, h uint32)
	f.Comment("setKey stores the key w (of hash h) into e. Only under the bucket lock.")
	setKey := []jen.Code{}
	if l.CachedHash {
		setKey = append(setKey, store(jen.Id("e").Dot("hash"), jen.Id("h")))
	}
	setKey = append(setKey, storeWords("e.key", "w", l.KeyWords, l.KeyUnrolled)...)
	f.Func().Params(jen.Id("e").Op("*").Id(g.n.Elem)).Id("setKey").Params(jen.Id("w").Op("*").Id(g.n.KeyWords), hashParam).Block(setKey...)

	// func (e *<elem>) loadKey() (k <Key>)
	f.Comment("loadKey loads e's key.")
	f.Func().Params(jen.Id("e").Op("*").Id(g.n.Elem)).Id("loadKey").Params().Params(jen.Id("k").Id(g.n.Key)).Block(
		append(wordsToBytes("k", "e.key", l.Spec.Key, l.KeyUnrolled), jen.Return())...,
	)

	g.elemHash(f)
	if !l.ValuesInline() {
		return
	}
	// func (e *<elem>) loadValue() (v <Value>)
	f.Comment("loadValue loads e's value.")
	f.Func().Params(jen.Id("e").Op("*").Id(g.n.Elem)).Id("loadValue").Params().Params(jen.Id("v").Id(g.n.Value)).Block(
		append(wordsToBytes("v", "e.val", l.Spec.Val, l.ValUnrolled), jen.Return())...,
	)
	// func (e *<elem>) setValue(v *<Value>)
	f.Comment("setValue stores v into e. Only under the bucket lock.")
	f.Func().Params(jen.Id("e").Op("*").Id(g.n.Elem)).Id("setValue").Params(jen.Id("v").Op("*").Id(g.n.Value)).Block(
		bytesToWords("v", l.Spec.Val, l.ValUnrolled, func(i, v jen.Code) jen.Code {
			return store(jen.Id("e").Dot("val").Index(i), v)
		})...,
	)
}

// field is <a>.<b> for "a.b", or <a> for "a".
func field(path string) *jen.Statement {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return jen.Id(path[:i]).Dot(path[i+1:])
		}
	}
	return jen.Id(path)
}

// bytesToWords emits set(i, word i) for every word of the n bytes of src
// (a pointer to an array): little-endian loads, the last partial word
// assembled from its bytes.
func bytesToWords(src string, n int, unrolled bool, set func(i, v jen.Code) jen.Code) []jen.Code {
	le := func(off *jen.Statement) jen.Code {
		return jen.Qual("encoding/binary", "LittleEndian").Dot("Uint32").Call(jen.Id(src).Index(off.Op(":")))
	}
	var out []jen.Code
	whole := n / 4
	if unrolled {
		for i := 0; i < whole; i++ {
			out = append(out, set(jen.Lit(i), le(jen.Lit(4*i))))
		}
	} else {
		out = append(out, jen.For(jen.Id("i").Op(":=").Range().Lit(whole)).Block(
			set(jen.Id("i"), le(jen.Lit(4).Op("*").Id("i"))),
		))
	}
	if rem := n % 4; rem > 0 {
		var tail *jen.Statement
		for j := 0; j < rem; j++ {
			b := jen.Uint32().Call(jen.Id(src).Index(jen.Lit(4*whole + j)))
			if j > 0 {
				b = b.Op("<<").Lit(8 * j)
			}
			if tail == nil {
				tail = b
			} else {
				tail = tail.Op("|").Add(b)
			}
		}
		out = append(out, set(jen.Lit(whole), tail))
	}
	return out
}

// storeWords emits atomic stores of every word of src into dst.
func storeWords(dst, src string, nWords int, unrolled bool) []jen.Code {
	if unrolled {
		var out []jen.Code
		for i := 0; i < nWords; i++ {
			out = append(out, store(field(dst).Index(jen.Lit(i)), jen.Id(src).Index(jen.Lit(i))))
		}
		return out
	}
	return []jen.Code{jen.For(jen.Id("i").Op(":=").Range().Id(src)).Block(
		store(field(dst).Index(jen.Id("i")), jen.Id(src).Index(jen.Id("i"))),
	)}
}

// wordsToBytes emits atomic loads of the words of src into the n bytes of
// the array dst: little-endian stores, the last partial word byte by byte.
func wordsToBytes(dst, src string, n int, unrolled bool) []jen.Code {
	put := func(off, word jen.Code) jen.Code {
		return jen.Qual("encoding/binary", "LittleEndian").Dot("PutUint32").Call(jen.Id(dst).Index(jen.Add(off).Op(":")), load(field(src).Index(word)))
	}
	// Whole pairs of words are stored 8 bytes at a time: the caller reads the
	// result back in 8-byte moves, and a move that spans two 4-byte stores
	// cannot be forwarded from them (a stall of about ten cycles per lookup).
	put64 := func(i int) jen.Code {
		lo := jen.Uint64().Call(load(field(src).Index(jen.Lit(i))))
		hi := jen.Uint64().Call(load(field(src).Index(jen.Lit(i + 1))))
		return jen.Qual("encoding/binary", "LittleEndian").Dot("PutUint64").Call(jen.Id(dst).Index(jen.Lit(4*i).Op(":")), lo.Op("|").Add(hi).Op("<<").Lit(32))
	}
	var out []jen.Code
	whole := n / 4
	if unrolled {
		i := 0
		for ; i+1 < whole; i += 2 {
			out = append(out, put64(i))
		}
		if i < whole {
			out = append(out, put(jen.Lit(4*i), jen.Lit(i)))
		}
	} else {
		out = append(out, jen.For(jen.Id("i").Op(":=").Range().Lit(whole)).Block(
			put(jen.Lit(4).Op("*").Id("i"), jen.Id("i")),
		))
	}
	if rem := n % 4; rem > 0 {
		out = append(out, jen.Id("t").Op(":=").Add(load(field(src).Index(jen.Lit(whole)))))
		for j := 0; j < rem; j++ {
			v := jen.Id("t")
			if j > 0 {
				v = jen.Parens(jen.Id("t").Op(">>").Lit(8 * j))
			}
			out = append(out, jen.Id(dst).Index(jen.Lit(4*whole+j)).Op("=").Byte().Call(v))
		}
	}
	return out
}

// elemHash emits the hash of the key an element holds: its cached hash, or
// the key hashed again. The LRU's eviction, the home layout's bucket of an
// overflow slot and the filter's rebuild need it. Read without the lock, the
// answer is only as good as the caller's later check.
//
//	func (m *<Map>) elemHash(e *<Elem>) uint32
func (g *generator) elemHash(f *jen.File) {
	if g.l.LRU == nil && g.l.Home == nil && g.l.Filter == nil {
		return // nothing asks
	}
	body := "\treturn atomic.LoadUint32(&e.hash)\n"
	doc := "its cached hash"
	if !g.l.CachedHash {
		body = "\tk := e.loadKey()\n\tw := k.words()\n\treturn m.hash(&k, &w)\n"
		doc = "its key hashed again (the element caches no hash)"
	}
	f.Add(g.code("\n" + g.comment("elemHash is the hash of the key e holds: "+doc+". Read without the bucket's lock, it is only as good as the caller's later check.") + `func (m *$Map) elemHash(e *$Elem) uint32 {
` + body + `}
`))
}
