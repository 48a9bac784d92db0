package templates

import "github.com/dave/jennifer/jen"

// load is atomic.LoadUint32(&<x>).
func load(x jen.Code) *jen.Statement {
	return jen.Qual(atomicPkg, "LoadUint32").Call(jen.Op("&").Add(x))
}

// store is atomic.StoreUint32(&<x>, <v>).
func store(x, v jen.Code) *jen.Statement {
	return jen.Qual(atomicPkg, "StoreUint32").Call(jen.Op("&").Add(x), v)
}

// recvMap is the receiver (m *<Map>).
func (g *generator) recvMap() *jen.Statement { return jen.Id("m").Op("*").Id(g.mapT) }

// recvElem is the receiver (e *<elem>).
func (g *generator) recvElem() *jen.Statement { return jen.Id("e").Op("*").Id(g.elemT) }

// htabId is htab.<name>.
func htabId(name string) *jen.Statement { return jen.Qual(htabPkg, name) }

// u32 is uint32(<x>).
func u32(x jen.Code) *jen.Statement { return jen.Uint32().Call(x) }

// keyBucket is the prologue of every single-key operation on key k:
//
//	w := k.words()
//	h := m.hash(&k, &w)
//	b := &m.buckets[h&m.mask]
func keyBucket() []jen.Code {
	return []jen.Code{
		jen.Id("w").Op(":=").Id("k").Dot("words").Call(),
		jen.Id("h").Op(":=").Id("m").Dot("hash").Call(jen.Op("&").Id("k"), jen.Op("&").Id("w")),
		jen.Id("b").Op(":=").Op("&").Id("m").Dot("buckets").Index(jen.Id("h").Op("&").Id("m").Dot("mask")),
	}
}
