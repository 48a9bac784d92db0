package templates

import "github.com/dave/jennifer/jen"

// iteration emits NextKey, All and the bucket snapshot they share, over the
// storage primitives. The order is the kernel's: buckets in ascending index,
// each bucket newest first.
//
//	func (m *<Map>) snapshot(bi uint32, keys []<Key>, vals []<Value>) ([]<Key>, []<Value>)
//	func (m *<Map>) NextKey(k *<Key>) (<Key>, error)
//	func (m *<Map>) All() iter.Seq2[<Key>, <Value>]      per-CPU: iter.Seq2[<Key>, []<Value>]
func (g *generator) iteration(f *jen.File) {
	perCPU := g.l.PerCPU != nil
	appendValue := "vals = append(vals, e.loadValue())\n"
	if perCPU {
		appendValue = "vals = append(vals, make([]$Value, m.cpus)...)\n\t\t\tm.loadValues(i-1, vals[len(vals)-m.cpus:])\n"
	}
	f.Add(g.code(`
// snapshot appends the keys and values of bucket bi, newest first, as one
// consistent view: it rereads the bucket until no writer came in between.
func (m *$Map) snapshot(bi uint32, keys []$Key, vals []$Value) ([]$Key, []$Value) {
	k0, v0 := len(keys), len(vals)
	b := m.lock(bi)
	for {
		s := b.ReadBegin()
		keys, vals = keys[:k0], vals[:v0]
		for i, n := m.head(bi), uint32(0); i != 0 && n < m.maxEntries; n++ {
			e := m.elem(i - 1)
			keys = append(keys, e.loadKey())
			` + appendValue + `			i = e.nextIndex()
		}
		if b.ReadValid(s) {
			return keys, vals
		}
	}
}

// NextKey returns the key after k in the map's order, as BPF_MAP_GET_NEXT_KEY
// does: the first key when k is nil or absent, htab.ErrKeyNotExist after the
// last. Order: buckets in ascending index, each bucket newest first.
func (m *$Map) NextKey(k *$Key) ($Key, error) {
	start := uint32(0)
	if k != nil {
		w := k.words()
		h := m.hash(k, &w)
		bi := h & m.mask
		b := m.lock(bi)
		for {
			s := b.ReadBegin()
			_, i := m.find(bi, &w, h)
			var next uint32
			var nk $Key
			if i != 0 {
				if next = m.elem(i - 1).nextIndex(); next != 0 {
					nk = m.elem(next - 1).loadKey()
				}
			}
			if !b.ReadValid(s) {
				continue
			}
			if next != 0 {
				return nk, nil
			}
			if i != 0 {
				// k was its bucket's last: go on with the next bucket. An absent k
				// restarts from the first bucket, as in the kernel.
				start = bi + 1
			}
			break
		}
	}
	for bi := start; bi <= m.mask; bi++ {
		b := m.lock(bi)
		for {
			s := b.ReadBegin()
			i := m.head(bi)
			var nk $Key
			if i != 0 {
				nk = m.elem(i - 1).loadKey()
			}
			if !b.ReadValid(s) {
				continue
			}
			if i != 0 {
				return nk, nil
			}
			break
		}
	}
	return $Key{}, htab.ErrKeyNotExist
}
`))
	valT, yielded, doc := "$Value", "vals[j]", ""
	if perCPU {
		valT, doc = "[]$Value", "// A key's values are every CPU's, in a slice reused between steps.\n"
		// Capped at its length: an append to one key's values must not
		// overwrite the next key's before they are yielded.
		yielded = "vals[j*m.cpus:(j+1)*m.cpus:(j+1)*m.cpus]"
	}
	f.Add(g.code(`
// All yields every key and value in NextKey's order. Each bucket is read as
// one snapshot, so a key present for the whole iteration is yielded exactly
// once, even while other goroutines update the map.
` + doc + `func (m *$Map) All() iter.Seq2[$Key, ` + valT + `] {
	return func(yield func($Key, ` + valT + `) bool) {
		var keys []$Key
		var vals []$Value
		for bi := uint32(0); bi <= m.mask; bi++ {
			if m.head(bi) == 0 {
				continue
			}
			keys, vals = m.snapshot(bi, keys[:0], vals[:0])
			for j := range keys {
				if !yield(keys[j], ` + yielded + `) {
					return
				}
			}
		}
	}
}
`))
}
