package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// lookup emits the lock-free read paths over the storage primitives: find,
// Lookup, and for the per-CPU and LRU types lookupOn and the per-CPU Lookup.
func (g *generator) lookup(f *jen.File) {
	l := g.l
	// func (m *<Map>) find(bi uint32, w *<KeyWords>, h uint32) (prev, i uint32)
	f.Add(g.code(`
// find walks bucket bi for key w (of hash h) and returns index+1 of its
// element and of the element before it (0: none). Readers must validate the
// bucket's sequence afterwards; the walk is bounded so that a chain that
// changes under a reader cannot keep it looping.
func (m *$Map) find(bi uint32, w *$KeyWords, h uint32) (prev, i uint32) {
	i = m.head(bi)
	for n := uint32(0); i != 0 && n < m.maxEntries; n++ {
		e := m.elem(i - 1)
		if e.matches(w, h) {
			return prev, i
		}
		prev, i = i, e.nextIndex()
	}
	return 0, 0
}
`))
	g.lookupOn(f)
	if l.PerCPU != nil {
		g.lookupPerCPU(f)
		return
	}
	found := g.code("v, found = e.loadValue(), true")
	fast := g.st.lookupFast()
	if fast == nil {
		// func (m *<Map>) Lookup(k <Key>) (<Value>, bool)
		// func (m *<Map>) lookup(k *<Key>) (<Value>, bool)
		f.Add(g.code(`
// Lookup returns the value of k, as BPF_MAP_LOOKUP_ELEM does. It takes no lock:
// it reads the bucket between two loads of its sequence and retries if a
// writer came in between.
func (m *$Map) Lookup(k $Key) ($Value, bool) {
	return m.lookup(&k)
}

// lookup is Lookup with the key by pointer. Lookup, small enough to be inlined,
// spares its callers a copy of the key into the arguments: for keys the compiler
// copies in overlapping 16-byte moves (20, 24, 28 bytes) that copy stalls on the
// one before it (no store forwarding), which cost lookups a fifth of their time.
func (m *$Map) lookup(k *$Key) ($Value, bool) {
	w := k.words()
	$(hash)
$(filter)	bi := h & m.mask
	$(read)
}
`, fill("hash", g.lookupHash(jen.Id("k"), false)), fill("filter", g.filterAbsent("$Value{}, false")), fill("read", g.readChain("&w", "found := false", found))))
		return
	}
	// func (m *<Map>) Lookup(k <Key>) (<Value>, bool)
	// func (m *<Map>) lookupChain(bi uint32, w *<KeyWords>, h uint32) (<Value>, bool)
	words, chainWords := "w := k.words()\n", ""
	if fast.keyWord {
		words, chainWords = "kw := binary.LittleEndian.Uint64(k[:])\n", "w := k.words()\n"
	}
	f.Add(g.code(`
// Lookup returns the value of k, as BPF_MAP_LOOKUP_ELEM does. It takes no lock:
// it reads the home slot (and, if it must, the chain) between two loads of the
// slot's sequence. The fast path, k is its bucket's newest or second newest
// element, is inline; the rest is lookupChain.
`+fast.doc+`func (m *$Map) Lookup(k $Key) ($Value, bool) {
	`+words+`$(hash)
$(afterHash)$(filter)	bi := h & m.mask
$(ruledOut)	$(fast)	`+chainWords+`return m.lookupChain(bi, &w, h)
}

// lookupChain is Lookup past the fast path: the whole sequence-checked read of
// bucket bi's chain, retried until no writer came in between.
func (m *$Map) lookupChain(bi uint32, w *$KeyWords, h uint32) ($Value, bool) {
	$(read)
}
`, fill("hash", g.lookupHash(jen.Op("&").Id("k"), fast.keyWord)), fill("afterHash", orNull(fast.afterHash)), fill("ruledOut", orNull(fast.ruledOut)), fill("fast", fast.body), fill("filter", g.filterAbsent("$Value{}, false")),
		fill("read", g.readChain("w", "found := false", found))))
}

// orNull is c, or nothing for a nil c.
func orNull(c jen.Code) jen.Code {
	if c == nil {
		return jen.Null()
	}
	return c
}

// readChain is the lock-free read of the chain of bucket bi for the key w (an
// expression of type *<KeyWords>) of hash h: until no writer came in
// between, a walk that declares found (decl) and runs onMatch at the
// element e (index+1 i) that matches, then returns v and found:
//
//	b := m.lock(bi)
//	for {
//		s := b.ReadBegin()
//		var v <Value>
//		<decl>
//		for i, n := m.head(bi), uint32(0); i != 0 && n < m.maxEntries; n++ {
//			e := m.elem(i - 1)
//			if e.matches(<w>, h) { <onMatch>; break }
//			i = e.nextIndex()
//		}
//		if b.ReadValid(s) { return v, found }
//	}
func (g *generator) readChain(w, decl string, onMatch jen.Code) jen.Code {
	return g.code(fmt.Sprintf(`b := m.lock(bi)
	for {
		s := b.ReadBegin()
		var v $Value
		%s
		// find, written out: the walk makes no call.
		for i, n := m.head(bi), uint32(0); i != 0 && n < m.maxEntries; n++ {
			e := m.elem(i - 1)
			if e.matches(%s, h) {
				$(onMatch)
				break
			}
			i = e.nextIndex()
		}
		if b.ReadValid(s) {
			return v, found
		}
	}
`, decl, w), fill("onMatch", onMatch))
}

// lookupOn emits the program-side lookup that the CPU handles of the per-CPU
// and LRU types share: the value as CPU cpu sees it (its own slot for the
// per-CPU types) and the element's index+1 (0: absent), which the LRU types
// need to set the ref bit. Nothing for hash, whose handles use Lookup.
//
//	func (m *<Map>) lookupOn(k *<Key>[, cpu int]) (<Value>, uint32)
func (g *generator) lookupOn(f *jen.File) {
	l := g.l
	if l.PerCPU == nil && l.LRU == nil {
		return
	}
	doc, params, value := "a program's lookup of k", "k *$Key", "e.loadValue()"
	if l.PerCPU != nil {
		doc, params, value = "a program's lookup of k on CPU cpu", "k *$Key, cpu int", g.readSlot("cpu", "i - 1")
	}
	f.Add(g.code(`
// lookupOn is `+doc+`: the value it sees and the
// index+1 of k's element, 0 if k is absent.
func (m *$Map) lookupOn(`+params+`) ($Value, uint32) {
	w := k.words()
	$(hash)
$(filter)	bi := h & m.mask
	$(read)
}
`, fill("hash", g.lookupHash(jen.Id("k"), false)), fill("filter", g.filterAbsent("$Value{}, 0")), fill("read", g.readChain("&w", "var found uint32", g.code("v, found = "+value+", i")))))
}

// lookupPerCPU emits the per-CPU types' userspace Lookup, which copies every
// CPU's value (bpf_percpu_hash_copy). A copy that turns out stale must not
// reach vals, so the values go through a buffer: on the stack when CPUs() is
// small, else allocated. The length is checked, not just resliced: vals[:cpus]
// of a short slice with spare capacity would write past its length without a
// word.
//
//	func (m *<Map>) Lookup(k <Key>, vals []<Value>) bool
func (g *generator) lookupPerCPU(f *jen.File) {
	f.Add(g.code(`
// Lookup copies every CPU's value of k into vals[:CPUs()], as BPF_MAP_LOOKUP_ELEM
// does, and reports whether k is present; vals is left alone if not. It panics
// if len(vals) < CPUs(). It takes no bucket lock (see the design comment).
func (m *$Map) Lookup(k $Key, vals []$Value) bool {
	if len(vals) < m.cpus {
		panic(fmt.Sprintf("$Map.Lookup: len(vals) = %d, want at least CPUs() = %d", len(vals), m.cpus))
	}
	vals = vals[:m.cpus]
	$(buf)
	w := k.words()
	h := m.hash(&k, &w)
$(filter)	bi := h & m.mask
	b := m.lock(bi)
	for {
		s := b.ReadBegin()
		_, i := m.find(bi, &w, h)
		if i != 0 {
			m.loadValues(i-1, buf[:m.cpus])
		}
		if !b.ReadValid(s) {
			continue
		}
		if i != 0 {
			copy(vals, buf)
		}
		return i != 0
	}
}
`, fill("buf", g.lookupBuffer()), fill("filter", g.filterAbsent("false"))))
}

// lookupBuffer is the per-CPU Lookup's buffer: on the stack for up to
// LookupStack CPUs, else made.
func (g *generator) lookupBuffer() jen.Code {
	if n := g.l.PerCPU.LookupStack; n > 0 {
		return g.code(fmt.Sprintf(`var small [%d]$Value
	buf := small[:]
	if m.cpus > len(small) {
		buf = make([]$Value, m.cpus)
	}
`, n))
	}
	return g.code("buf := make([]$Value, m.cpus)\n")
}
