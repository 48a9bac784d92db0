package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// -bloom K: a bloom filter in front of the map's lookups (htab.Filter, one
// cache line a probe). The whole feature is the hooks below, each nothing when
// the layout has no filter; the algorithms call them at the places the
// filter must be asked or told, whatever the storage layout:
//
//	filterField        the map's field: filter *htab.Filter
//	filterNew          the constructor: m.filter = htab.NewFilter(opts.MaxEntries, <K>, m.filterKeys)
//	filterAbsent       after a key's hash h, where absent is an answer: if !m.filter.MayContain(h) { <return absent> }
//	filterUpdateExist  an update with UpdateExist, where nothing is taken before the lookup: if flags == htab.UpdateExist && !m.filter.MayContain(h) { return htab.ErrKeyNotExist }
//	filterAdd          an insert, under the bucket lock before the key is linked: m.filter.Add(h)
//	filterKeys         the walk of a rebuild (see filterKeys)

// filterField is the map struct's filter field.
func (g *generator) filterField() jen.Code {
	return when(g.l.Filter != nil, g.code("\n\tfilter *htab.Filter // -bloom: asked before every lookup; see filterKeys\n"))
}

// filterNew is the constructor's making of the filter.
func (g *generator) filterNew() jen.Code {
	if g.l.Filter == nil {
		return jen.Null()
	}
	return g.code(fmt.Sprintf("\tm.filter = htab.NewFilter(opts.MaxEntries, %d, m.filterKeys)\n", g.l.Filter.Hashes))
}

// filterAbsent is the early answer of an operation on the key of hash h that
// the filter says is absent: returns is what the operation then returns.
//
//	if !m.filter.MayContain(h) { return <returns> }
func (g *generator) filterAbsent(returns string) jen.Code {
	return when(g.l.Filter != nil, g.code("\tif !m.filter.MayContain(h) {\n\t\treturn "+returns+" // the filter: certainly absent\n\t}\n"))
}

// filterUpdateExist is an update's early answer, with UpdateExist, for a key
// the filter says is absent, where the update takes nothing before it looks
// the key up (FilterLayout.UpdateExist).
func (g *generator) filterUpdateExist() jen.Code {
	f := g.l.Filter
	return when(f != nil && f.UpdateExist, g.code("\tif flags == htab.UpdateExist && !m.filter.MayContain(h) {\n\t\treturn htab.ErrKeyNotExist // the filter: certainly absent\n\t}\n"))
}

// filterAdd is an insert's telling the filter, under the bucket lock and
// before the key is linked, so that whoever can see the key finds its bits.
func (g *generator) filterAdd() jen.Code {
	return when(g.l.Filter != nil, g.code("\tm.filter.Add(h) // before the key is linked: see htab.Filter\n"))
}

// filterKeys emits the walk of a rebuild of the filter: every key's hash,
// bucket by bucket, each bucket read between two validated loads of its
// sequence (so that a key an insert links meanwhile is seen here, or the
// insert finds the rebuild running and adds it itself; see htab.NewFilter).
// Writers are not blocked.
//
//	func (m *<Map>) filterKeys(add func(h uint32))
func (g *generator) filterKeys(f *jen.File) {
	if g.l.Filter == nil {
		return
	}
	f.Add(g.code(`
// filterKeys gives add the hash of every key in the map: the walk of a rebuild
// of the filter (htab.Filter). Each bucket is read as one consistent view,
// between two loads of its sequence, so that a key an insert links meanwhile
// is either seen here or added by the insert into the filter being built.
func (m *$Map) filterKeys(add func(h uint32)) {
	var hashes []uint32
	for bi := uint32(0); bi <= m.mask; bi++ {
		b := m.lock(bi)
		for {
			s := b.ReadBegin()
			hashes = hashes[:0]
			for i, n := m.head(bi), uint32(0); i != 0 && n < m.maxEntries; n++ {
				e := m.elem(i - 1)
				hashes = append(hashes, m.elemHash(e))
				i = e.nextIndex()
			}
			if b.ReadValid(s) {
				break
			}
		}
		for _, h := range hashes {
			add(h)
		}
	}
}
`))
}

// filterHoles are the holes of an update's Go text: filterExist (after the
// hash, the early answer to UpdateExist) and filterAdd (the insert's).
func (g *generator) filterHoles() []hole {
	return []hole{fill("filterExist", g.filterUpdateExist()), fill("filterAdd", g.filterAdd())}
}
