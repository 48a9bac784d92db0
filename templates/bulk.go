package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// bulk emits LookupBulk, on the map and on its CPU handles: lookups of a
// slice of keys, a group at a time, that first hash every key of the group
// and prefetch what each lookup will read (the bucket: the home slot, or the
// classic bucket; then the classic head element, or the home chain's second
// element), so that the cache misses of a group overlap, as DPDK's
// rte_hash_lookup_bulk does; then each key is looked up as Lookup looks it
// up, with its hash, so each stays linearizable. A load would not do: a load
// that misses holds back everything after it once the core's window is full,
// a prefetch does not. (Measured at 2^24 entries: loads 1.0–1.3x a loop of
// Lookup, prefetches 1.4–2x.)
//
//	const <prefix>BulkGroup = 16
//	func (m *<Map>) touchBulk(keys []<Key>, ws *[G]<KeyWords>, hs *[G]uint32)
//	func (m *<Map>) LookupBulk(keys []<Key>, vals []<Value>, found []bool) int
//	func (c *<CPU>) LookupBulk(keys []<Key>, vals []<Value>, found []bool) int
func (g *generator) bulk(f *jen.File) {
	l := g.l
	// touchBulk's first loop hashes each key and touches its bucket; the
	// home layout asks the bucket's summary first, and a key it does not hold
	// is left out of maybe (most misses: they read nothing more). The second
	// loop touches what a lookup reads after the bucket, for the keys in
	// maybe: in the classic layout its head element, in the home layout
	// (whose slot is the head) the element after it, found from the bucket,
	// which the first loop prefetched: by then, mostly there. A classic key
	// whose bucket is empty there is absent, and left out: that one atomic
	// load of the head is a linearizable miss, as a summary's is, and it
	// spares the lookup (misses at 2^16 entries went from 0.75–1.24x a loop
	// of Lookup to 1.12–1.41x).
	first := `		maybe |= 1 << i
		htab.Prefetch(unsafe.Pointer(m.lock(hs[i] & m.mask)))
`
	second := `		if e := m.head(hs[i] & m.mask); e != 0 {
			htab.Prefetch(unsafe.Pointer(m.elem(e - 1)))
		} else {
			maybe &^= 1 << i
		}
`
	ask, staged, bigDecl, directParam, touchDoc := "", "", "", "", ""
	if l.Home != nil {
		// Summaries past the cache are prefetched first, for the whole group,
		// and asked in a loop of their own; smaller ones are asked at once.
		// A direct touch asks none: each key is looked up, its slot touched.
		ask = `if bi := hs[i] & m.mask; m.summary.MayHold(bi, hs[i]) {
			maybe |= 1 << i
			htab.Prefetch(unsafe.Pointer(m.lock(bi)))
		}
`
		first = `		if direct {
			maybe |= 1 << i
			htab.Prefetch(unsafe.Pointer(m.lock(hs[i] & m.mask)))
		} else if big {
			m.summary.Prefetch(hs[i] & m.mask)
		} else ` + ask
		bigDecl = "\tbig := !direct && m.mask >= htab.SummaryPrefetchBuckets-1\n"
		directParam = ", direct bool"
		touchDoc = " With direct it asks no summary and every key is looked up: for a group of hits the summaries are one more cache miss a key, and save none."
		staged = "\tif big {\n\t\tfor i := range keys {\n\t\t\t" + ask + "\t\t}\n\t}\n"
		second = `		if bi := hs[i] & m.mask; m.head(bi) != 0 {
			if n := m.elem(bi).nextIndex(); n != 0 {
				htab.Prefetch(unsafe.Pointer(m.elem(n - 1)))
			}
		}
`
	}
	f.Add(g.code("\n" + g.comment("$BulkGroup is how many keys LookupBulk hashes and touches before it looks any of them up: enough misses in flight to keep a core's miss buffers busy, few enough that the group's buckets are still in the cache when they are read.") + `const $BulkGroup = 16

` + g.comment("touchBulk hashes keys (at most $BulkGroup) into ws and hs and prefetches (htab.Prefetch) what the lookup of each will read: its bucket, then the element after the bucket's, so that the misses of the group overlap instead of following each other. Bit i of maybe is set if keys[i] must be looked up; a key left out is absent."+touchDoc) + `func (m *$Map) touchBulk(keys []$Key, ws *[$BulkGroup]$KeyWords, hs *[$BulkGroup]uint32` + directParam + `) (maybe uint32) {
` + bigDecl + `	for i := range keys {
		ws[i] = keys[i].words()
		hs[i] = m.hash(&keys[i], &ws[i])
` + first + `	}
` + staged + `	for mm := maybe; mm != 0; mm &= mm - 1 {
		i := bits.TrailingZeros32(mm)
` + second + `	}
	return maybe
}
`))
	g.bulkHashed(f)

	valsDoc, valsNeed, call := "vals[i] is keys[i]'s value (the zero value when absent)", "len(keys)", "v, ok := m.lookupHashed(&ws[i], hs[i])\n\t\t\tvals[start+i] = v"
	clearVals := "\t\tclear(vals[start : start+len(group)])\n"
	if l.PerCPU != nil {
		valsDoc = "vals[i*CPUs():(i+1)*CPUs()] are every CPU's value of keys[i] (left alone when absent)"
		valsNeed = "len(keys)*m.cpus"
		call = "ok := m.lookupAllHashed(&ws[i], hs[i], vals[(start+i)*m.cpus:(start+i+1)*m.cpus], buf)"
		clearVals = "" // left alone when absent
	}
	panics := "vals or found is shorter than keys"
	if l.PerCPU != nil {
		panics = "vals is shorter than len(keys)*CPUs() or found than keys"
	}
	want, wantArgs := "len(keys) = %d", "len(keys)"
	if l.PerCPU != nil {
		want, wantArgs = "len(keys)*CPUs() = %d and len(keys) = %d", "len(keys)*m.cpus, len(keys)"
	}
	var buf jen.Code = jen.Null()
	if l.PerCPU != nil {
		buf = g.lookupBuffer()
	}
	// The home layout's LookupBulk loops over Lookup in a map that fits in
	// the cache, and asks the summaries only while they rule keys out.
	inCache, direct, before, directArg, directNext, homeDoc := "", "", "", "", "", ""
	if l.Home != nil {
		inCache = `	if !m.touchAhead {
		// The slots are mostly in the cache: the core overlaps a loop of
		// Lookup by itself, and touching ahead would only add work.
		n := 0
		for i, k := range keys {
			if vals[i], found[i] = m.Lookup(k); found[i] {
				n++
			}
		}
		return n
	}
`
		direct = "\tdirect := false // touch without the summaries: the last group found most of its keys\n"
		before = "\t\tbefore := n\n"
		directArg = ", direct"
		directNext = "\t\tdirect = 2*(n-before) > len(group)\n"
		homeDoc = " A map whose slots take less than htab.BulkTouchBytes is mostly in the cache, and LookupBulk is a loop of Lookup there. After a group that found most of its keys the next one asks no summary: for hits they are one more cache miss each."
	}
	doc := g.comment(fmt.Sprintf("LookupBulk looks up every key of keys, as Lookup does each: found[i] is whether keys[i] is present and %s. It returns how many keys it found. It goes $BulkGroup keys at a time, hashing each group and touching what their lookups read first before it reads any, so that their cache misses overlap: on a map much larger than the cache it looks up about twice as many keys a second as a loop of Lookup.%s Each key's lookup is linearizable, as Lookup's; a group's are not one atomic read. It panics if %s.", valsDoc, homeDoc, panics))
	f.Add(g.code(fmt.Sprintf("\n%s"+`func (m *$Map) LookupBulk(keys []$Key, vals []$Value, found []bool) int {
	if len(vals) < %s || len(found) < len(keys) {
		panic(fmt.Sprintf("$Map.LookupBulk: len(vals) = %%d, len(found) = %%d, want at least %s", len(vals), len(found), %s))
	}
%s	var ws [$BulkGroup]$KeyWords
	var hs [$BulkGroup]uint32
$(buf)	n := 0
%s	for start := 0; start < len(keys); start += $BulkGroup {
		group := keys[start:min(start+$BulkGroup, len(keys))]
%s		maybe := m.touchBulk(group, &ws, &hs%s)
%s		clear(found[start : start+len(group)])
		for ; maybe != 0; maybe &= maybe - 1 {
			i := bits.TrailingZeros32(maybe)
			%s
			found[start+i] = ok
			if ok {
				n++
			}
		}
%s	}
	return n
}
`, doc, valsNeed, want, wantArgs, inCache, direct, before, directArg, clearVals, call, directNext), fill("buf", buf)))
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
	// The home layout's: Lookup's fast path, then its chain read. The fast
	// path compares a copy of the key's words, which is cheap for a small key
	// only: a big one goes straight to the chain read.
	if fast := g.st.lookupFast(); l.PerCPU == nil && fast != nil && (fast.keyWord || l.KeyWords <= 4) {
		key := "\tw := *wp\n"
		if fast.keyWord { // the key's two words as the one uint64 the fast path compares
			key = "\tkw := uint64(wp[0]) | uint64(wp[1])<<32\n"
		}
		f.Add(g.code(`
// lookupHashed is Lookup of the key wp of hash h, which touchBulk has not
// ruled out.
func (m *$Map) lookupHashed(wp *$KeyWords, h uint32) ($Value, bool) {
$(filter)	bi := h & m.mask
`+key+`$(afterHash)	$(fast)
	return m.lookupChain(bi, wp, h)
}
`, fill("filter", g.filterAbsent("$Value{}, false")), fill("afterHash", orNull(fast.afterHash)), fill("fast", fast.body)))
	} else if l.PerCPU == nil {
		f.Add(g.code(`
// lookupHashed is Lookup of the key w of hash h.
func (m *$Map) lookupHashed(w *$KeyWords, h uint32) ($Value, bool) {
$(filter)	bi := h & m.mask
	$(read)
}
`, fill("filter", g.filterAbsent("$Value{}, false")), fill("read", g.readChain("w", "found := false", g.code("v, found = e.loadValue(), true")))))
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
`, fill("filter", g.filterAbsent("$Value{}, 0")), fill("read", g.readChain("w", "var found uint32", g.code("v, found = "+value+", i")))))
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
		maybe := m.touchBulk(group, &ws, &hs)
		clear(vals[start : start+len(group)])
		clear(found[start : start+len(group)])
		for ; maybe != 0; maybe &= maybe - 1 {
			i := bits.TrailingZeros32(maybe)
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
