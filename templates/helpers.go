package templates

import "github.com/dave/jennifer/jen"

// load is atomic.LoadUint32(&<x>).
func load(x jen.Code) *jen.Statement {
	return jen.Qual(atomicPkg, "LoadUint32").Call(jen.Op("&").Add(x))
}

// store is htab.StoreRelease(&<x>, <v>): every word a generated map shares
// is stored under a lock and loaded with sync/atomic by readers that validate
// a sequence, which needs release order, not a locked instruction.
func store(x, v jen.Code) *jen.Statement {
	return jen.Qual(htabPkg, "StoreRelease").Call(jen.Op("&").Add(x), v)
}

// recvMap is the receiver (m *<Map>).
func (g *generator) recvMap() *jen.Statement { return jen.Id("m").Op("*").Id(g.mapT) }

// recvElem is the receiver (e *<elem>).
func (g *generator) recvElem() *jen.Statement { return jen.Id("e").Op("*").Id(g.elemT) }

// htabId is htab.<name>.
func htabId(name string) *jen.Statement { return jen.Qual(htabPkg, name) }

// u32 is uint32(<x>).
func u32(x jen.Code) *jen.Statement { return jen.Uint32().Call(x) }

// keyBucket is the prologue of every single-key operation on key k, with
// hash the statement that sets h (hashCall, or the lookups' written-out hash):
//
//	w := k.words()
//	h := m.hash(&k, &w)
//	b := &m.buckets[h&m.mask]
func keyBucket(hash jen.Code) []jen.Code {
	return []jen.Code{
		jen.Id("w").Op(":=").Id("k").Dot("words").Call(),
		hash,
		jen.Id("b").Op(":=").Op("&").Id("m").Dot("buckets").Index(hashBucketIndex()),
	}
}

// hashCall is h := m.hash(<key>, &w), key a *Key.
func hashCall(key jen.Code) jen.Code {
	return jen.Id("h").Op(":=").Id("m").Dot("hash").Call(key, jen.Op("&").Id("w"))
}

// inChunk is &<chunks>[i>><p>ChunkShift].Load()[i&(1<<<p>ChunkShift-1)]:
// item i of a NoPrealloc map's chunked array (chunks, a slice of atomic
// chunk pointers).
func inChunk(chunks jen.Code, p string) jen.Code {
	shift := jen.Id(p + "ChunkShift")
	return jen.Op("&").Add(chunks).Index(jen.Id("i").Op(">>").Add(shift)).Dot("Load").Call().Index(
		jen.Id("i").Op("&").Parens(jen.Lit(1).Op("<<").Add(shift).Op("-").Lit(1)))
}
