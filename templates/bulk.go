package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// bulk emits LookupBulk, on the map and on its CPU handles: lookups of a
// slice of keys, a group at a time, that first hash every key of the group
// and load the first word each lookup will read (the bucket's sequence: the
// home slot, or the classic bucket, and then the classic head element), so
// that the cache misses of a group overlap, as DPDK's rte_hash_lookup_bulk
// does with prefetches; then each key is looked up as Lookup looks it up,
// with its hash, so each stays linearizable.
//
//	const <prefix>BulkGroup = 16
//	func (m *<Map>) touchBulk(keys []<Key>, ws *[G]<KeyWords>, hs *[G]uint32)
//	func (m *<Map>) LookupBulk(keys []<Key>, vals []<Value>, found []bool) int
//	func (c *<CPU>) LookupBulk(keys []<Key>, vals []<Value>, found []bool) int
func (g *generator) bulk(f *jen.File) {
	l := g.l
	second := ""
	if l.Classic != nil {
		// The classic layout's head element is a second, dependent miss:
		// once the buckets are in, touch the heads.
		second = `	for i := range keys {
		if e := m.head(hs[i] & m.mask); e != 0 {
			m.elem(e - 1).nextIndex()
		}
	}
`
	}
	f.Add(g.code("\n" + g.comment("$BulkGroup is how many keys LookupBulk hashes and touches before it looks any of them up: enough misses in flight to keep a core's miss buffers busy, few enough that the group's buckets are still in the cache when they are read.") + `const $BulkGroup = 16

` + g.comment("touchBulk hashes keys (at most $BulkGroup) into ws and hs and loads the first word that the lookup of each will read, discarding it: a prefetch, so that the misses of the group overlap instead of following each other.") + `func (m *$Map) touchBulk(keys []$Key, ws *[$BulkGroup]$KeyWords, hs *[$BulkGroup]uint32) {
	for i := range keys {
		ws[i] = keys[i].words()
		hs[i] = m.hash(&keys[i], &ws[i])
		m.lock(hs[i] & m.mask).Load()
	}
` + second + `}
`))
	g.bulkHashed(f)

	valsDoc, valsNeed, call := "vals[i] is keys[i]'s value (the zero value when absent)", "len(keys)", "v, ok := m.lookupHashed(&ws[i], hs[i])\n\t\t\tvals[start+i] = v"
	if l.PerCPU != nil {
		valsDoc = "vals[i*CPUs():(i+1)*CPUs()] are every CPU's value of keys[i] (left alone when absent)"
		valsNeed = "len(keys)*m.cpus"
		call = "ok := m.lookupAllHashed(&ws[i], hs[i], vals[(start+i)*m.cpus:(start+i+1)*m.cpus], buf)"
	}
	var buf jen.Code = jen.Null()
	if l.PerCPU != nil {
		buf = g.lookupBuffer()
	}
	doc := g.comment(fmt.Sprintf("LookupBulk looks up every key of keys, as Lookup does each: found[i] is whether keys[i] is present and %s. It returns how many keys it found. It goes $BulkGroup keys at a time, hashing each group and touching what their lookups read first before it reads any, so that their cache misses overlap: on a map much larger than the cache it looks up several times as many keys a second as a loop of Lookup. Each key's lookup is linearizable, as Lookup's; a group's are not one atomic read. It panics if vals is shorter than %s or found than len(keys).", valsDoc, strings.ReplaceAll(valsNeed, "m.cpus", "CPUs()")))
	f.Add(g.code(fmt.Sprintf("\n%s"+`func (m *$Map) LookupBulk(keys []$Key, vals []$Value, found []bool) int {
	if len(vals) < %s || len(found) < len(keys) {
		panic(fmt.Sprintf("$Map.LookupBulk: len(vals) = %%d, len(found) = %%d, want at least %s = %%d and len(keys) = %%d", len(vals), len(found), %s, len(keys)))
	}
	var ws [$BulkGroup]$KeyWords
	var hs [$BulkGroup]uint32
	$(buf)
	n := 0
	for start := 0; start < len(keys); start += $BulkGroup {
		group := keys[start:min(start+$BulkGroup, len(keys))]
		m.touchBulk(group, &ws, &hs)
		for i := range group {
			%s
			found[start+i] = ok
			if ok {
				n++
			}
		}
	}
	return n
}
`, doc, valsNeed, valsNeed, valsNeed, call), fill("buf", buf)))
	g.bulkCPU(f)
}

// bulkHashed emits the lookups that LookupBulk runs with a key's words and
// hash already made, the bodies of Lookup (lookupHashed; for the per-CPU
// types lookupAllHashed, every CPU's value) and of the program side
// (lookupOnHashed, for the per-CPU and LRU types) after the hash:
//
//	func (m *<Map>) lookupHashed(w *<KeyWords>, h uint32) (<Value>, bool)
//	func (m *<Map>) lookupAllHashed(w *<KeyWords>, h uint32, vals, buf []<Value>) bool
//	func (m *<Map>) lookupOnHashed(w *<KeyWords>, h uint32[, cpu int]) (<Value>, uint32)
func (g *generator) bulkHashed(f *jen.File) {
	l := g.l
	if l.PerCPU == nil {
		f.Add(g.code(`
// lookupHashed is Lookup of the key w of hash h.
func (m *$Map) lookupHashed(w *$KeyWords, h uint32) ($Value, bool) {
$(filter)	bi := h & m.mask
	$(read)
}
`, fill("filter", g.filterAbsent("$Value{}, false")), fill("read", g.readChain("w", "found := false", g.code("v, found = e.loadValue(), true\n")))))
	} else {
		f.Add(g.code(`
// lookupAllHashed is Lookup of the key w of hash h: every CPU's value into
// vals, through buf (both CPUs() long), if w is present.
func (m *$Map) lookupAllHashed(w *$KeyWords, h uint32, vals, buf []$Value) bool {
$(filter)	bi := h & m.mask
	b := m.lock(bi)
	for {
		s := b.ReadBegin()
		_, i := m.find(bi, w, h)
		if i != 0 {
			m.loadValues(i-1, buf[:m.cpus])
		}
		if !b.ReadValid(s) {
			continue
		}
		if i != 0 {
			copy(vals, buf[:m.cpus])
		}
		return i != 0
	}
}
`, fill("filter", g.filterAbsent("false"))))
	}
	if l.PerCPU == nil && l.LRU == nil {
		return
	}
	params, value := "", "e.loadValue()"
	if l.PerCPU != nil {
		params, value = ", cpu int", g.readSlot("cpu", "i - 1")
	}
	f.Add(g.code(`
// lookupOnHashed is lookupOn of the key w of hash h.
func (m *$Map) lookupOnHashed(w *$KeyWords, h uint32`+params+`) ($Value, uint32) {
$(filter)	bi := h & m.mask
	$(read)
}
`, fill("filter", g.filterAbsent("$Value{}, 0")), fill("read", g.readChain("w", "var found uint32", g.code("v, found = "+value+", i\n")))))
}

// bulkCPU emits the program side's LookupBulk: as Lookup on the handle does
// each key (this CPU's value; for LRU types, the ref bit set).
func (g *generator) bulkCPU(f *jen.File) {
	l := g.l
	doc, body := "as the map's LookupBulk (a plain hash map's program side is its userspace side)", "\treturn c.m.LookupBulk(keys, vals, found)\n"
	if l.PerCPU != nil || l.LRU != nil {
		doc = "as this handle's Lookup does each key"
		args, ref := "&ws[i], hs[i]", ""
		if l.PerCPU != nil {
			args = "&ws[i], hs[i], c.cpu"
			doc += " (this CPU's value)"
		}
		if l.LRU != nil {
			ref = "\t\t\tif e != 0 {\n\t\t\t\tm.elem(e - 1).node.Ref()\n\t\t\t}\n"
			doc += ", setting the ref bit of each key found"
		}
		body = fmt.Sprintf(`	if len(vals) < len(keys) || len(found) < len(keys) {
		panic(fmt.Sprintf("$CPU.LookupBulk: len(vals) = %%d, len(found) = %%d, want at least len(keys) = %%d", len(vals), len(found), len(keys)))
	}
	m := c.m
	var ws [$BulkGroup]$KeyWords
	var hs [$BulkGroup]uint32
	n := 0
	for start := 0; start < len(keys); start += $BulkGroup {
		group := keys[start:min(start+$BulkGroup, len(keys))]
		m.touchBulk(group, &ws, &hs)
		for i := range group {
			v, e := m.lookupOnHashed(%s)
%s			vals[start+i], found[start+i] = v, e != 0
			if e != 0 {
				n++
			}
		}
	}
	return n
`, args, ref)
	}
	f.Add(g.code("\n" + g.comment("LookupBulk is bpf_map_lookup_elem of every key of keys from a program on this CPU, "+doc+": found[i] is whether keys[i] is present and vals[i] its value. It returns how many it found, and panics if vals or found is shorter than keys.") + `func (c *$CPU) LookupBulk(keys []$Key, vals []$Value, found []bool) int {
` + body + `}
`))
}
