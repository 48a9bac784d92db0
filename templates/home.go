package templates

// -layout home (-type hash only, its default): the hash map whose buckets are
// also its elements. renderHome is the one hook (Render calls it instead of
// the classic storage, allocation, lookup, update, iteration and batch
// emitters); the hash function, the key/value word helpers and the CPU
// handles are the classic emitters, shared.
//
// The design is a hand-written k8v8 prototype (measured in bench/results/proto),
// generalised to every key and value size (words of the element, cached hash
// for keys over 8 bytes), every -hash and every -batch-lock:
//
//	slot i | seq htab.SeqLock | next uint32 | [hash uint32] | key [KW]uint32 | val [VW]uint32 |
//	next: bit 31 (home) = slot i holds bucket i's newest element;
//	      bits 0-30 = index+1 of the next older element of that chain (0 ends it).
//
// Invariant: bucket b is non-empty iff slot b has the home bit. Older elements
// of b's chain sit in slots whose own bucket is empty ("overflow" slots).
//
// The emitters below write their code as Go text with $-placeholders (the
// text is the shape of the code, so each shows its target directly); textCode
// turns that text into jennifer code, qualifying the standard packages and
// htab so that jennifer writes the imports.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// renderHome emits the whole map of a -layout home spec.
func (g *generator) renderHome(f *jen.File) {
	g.homeDesign(f)
	g.homeTypes(f)
	g.hashFunc(f)
	g.words(f)
	g.homeSlots(f)
	g.homeAlloc(f)
	g.homeLookup(f)
	g.homeUpdate(f)
	g.homeIteration(f)
	g.homeBatch(f)
	g.cpuHandles(f)
}

// textQual matches a qualified identifier of a package that code written as
// Go text (textCode: the home layout, the element assertions, the -tests
// file) uses.
var textQual = regexp.MustCompile(`(^|[^\w.])(atomic|binary|bits|runtime|iter|fmt|htab|htabtest|testing|reflect|unsafe)\.([A-Za-z_]\w*)`)

var textPkgs = map[string]string{
	"atomic": atomicPkg, "binary": binaryPkg, "bits": bitsPkg, "runtime": "runtime",
	"iter": "iter", "fmt": "fmt", "htab": htabPkg, "unsafe": "unsafe",
	"htabtest": htabtestPkg, "testing": "testing", "reflect": "reflect", // the -tests file
}

// textCode is the Go text src, with its placeholders filled in, as jennifer
// code: the qualified identifiers outside comments become jen.Qual (so that
// their imports are written), the rest is kept as it is. gofmt (which
// jennifer runs) normalises the spacing. Most of the home layout is written
// this way, and so are the element assertions of both layouts.
func (g *generator) textCode(src string) jen.Code {
	src = strings.NewReplacer(
		"$Map", g.mapT, "$Key", g.keyT, "$Value", g.valT, "$Elem", g.elemT,
		"$KW", g.keyWordsT, "$CPU", g.cpuT, "$p", g.l.Prefix,
	).Replace(src)
	st := jen.Statement{}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			st = append(st, jen.Id(text.String()))
			text.Reset()
		}
	}
	for _, line := range strings.SplitAfter(src, "\n") {
		code, comment := line, ""
		if i := strings.Index(line, "//"); i >= 0 {
			code, comment = line[:i], line[i:]
		}
		last := 0
		for _, mt := range textQual.FindAllStringSubmatchIndex(code, -1) {
			text.WriteString(code[last:mt[3]])
			flush()
			st = append(st, jen.Qual(textPkgs[code[mt[4]:mt[5]]], code[mt[6]:mt[7]]))
			last = mt[1]
		}
		text.WriteString(code[last:])
		text.WriteString(comment)
	}
	flush()
	return &st
}

// homeDesign emits the design comment of a home map:
//
//	// Design of <Map>: ... (layout, invariant, concurrency, capacity)
func (g *generator) homeDesign(f *jen.File) {
	l := g.l
	elemRow, offRow := elemDiagram(l)
	lines := []string{
		fmt.Sprintf("Design of %s: the kernel's BPF_MAP_TYPE_HASH for %d-byte keys and %d-byte values,", g.mapT, l.Spec.Key, l.Spec.Val),
		"in the home layout (the default; -layout classic keeps buckets and elements",
		"apart, as the kernel does).",
		"",
		"Terms",
		"  slot     one entry of the single array of roundup_pow_of_two(MaxEntries)",
		"           slots. Slot b is at once bucket b (its sequence lock) and the",
		"           storage of one element. All slots are made at creation, also",
		"           with NoPrealloc: in this layout the slots are the bucket table.",
		"  bucket   a chain of elements, newest first; a key's bucket is hash & mask.",
		"           Bucket b is non-empty iff slot b holds b's newest element (the",
		"           home bit of its next word). Older elements of the chain live in",
		"           slots whose own bucket is empty (overflow slots).",
		"  index+1  how elements link; 0 is nil. Nothing holds a pointer.",
		"",
		"Layout, in bytes",
		"  slot " + elemRow + "|",
		"       " + offRow + fmt.Sprint(l.ElemSize),
		"  next: bit 31 = home (this slot is its bucket's head), bits 0-30 = index+1",
		"  of the next older element.",
		"",
		"  slots[hash & mask] (newest) --> overflow slot --> overflow slot --> 0",
		"",
		"Hash: " + l.HashDescription() + ".",
		"",
		"Concurrency",
		"  Readers take no lock: they load slot b's sequence, read the head in slot b",
		"  (and the chain), and keep what they read only if the sequence is unchanged",
		"  and even. A lookup of a bucket's newest key touches one slot.",
		"  Writers lock slot b's sequence and store with htab.StoreRelease (release",
		"  order, a plain store on amd64). A new key in a non-empty bucket moves the",
		"  old head to a free slot near b; in an empty bucket it takes slot b, first",
		"  moving the overflow element there (if any) under its own bucket's lock (a",
		"  higher bucket is waited for, a lower one only tried). A replace of an",
		"  older element moves the key to the head, as the kernel does.",
		"  Capacity: an insert reserves its element in count once it holds every",
		"  lock it needs, and keeps b's lock until the key is in; past MaxEntries",
		"  it is htab.ErrFull. A free bitmap (htab.FreeSlots, one bit per slot) finds",
		"  free slots. A delete frees its slot and count before it unlocks, so",
		"  whoever sees the key gone through a single-key operation can insert",
		"  another (the kernel frees after unlocking).",
		"",
		"Order: buckets ascending, each newest first: the same as the classic layout",
		"and the kernel.",
	}
	for _, s := range lines {
		f.Comment(s)
	}
	f.Line()
}

// homeTypes emits the key, value and key-word types, the slot (named like
// the classic element, so that the words helpers apply), the map, the
// constructor and the size accessors:
//
//	type <Elem> struct { seq htab.SeqLock; next uint32; [hash uint32]; key; val }
//	type <Map> struct { slots []<Elem>; mask, seed, maxEntries; ...; count; free htab.FreeSlots }
//	func New<Map>(opts htab.Options) (*<Map>, error)
func (g *generator) homeTypes(f *jen.File) {
	l := g.l
	var fields strings.Builder
	for _, fl := range l.Elem {
		fmt.Fprintf(&fields, "\t%s %s // off %d, %d B: %s\n", fl.Name, fl.GoType, fl.Offset, fl.Size, fl.Doc)
	}
	occField, occInit := "", ""
	if l.Occupancy {
		occField = "\n\tocc htab.Occupancy // -batch-lock sparse: one bit per bucket, set while it is non-empty\n"
		occInit = "\tm.occ = htab.NewOccupancy(n)\n"
	}
	g.keyValueTypes(f, "slot")
	src := fmt.Sprintf(`
// $Elem is one slot: bucket i's sequence lock and one element, %[4]d bytes,
// 4-byte aligned, no pointers. Lock-free readers load every field with
// sync/atomic; writers store them with htab.StoreRelease under the lock of
// the bucket whose chain holds the element.
type $Elem struct {
%[5]s}

const (
	$pHome   = 1 << 31    // next: the slot holds its bucket's newest element
	$pIdx    = $pHome - 1 // next: index+1 of the next older element
	$pMaxLen = 1 << 30    // most slots: index+1 must stay clear of the home bit
)

// $Map is a fixed-capacity hash map with the semantics of the kernel's
// BPF_MAP_TYPE_HASH, in the home layout. Every method is safe for concurrent use.
type $Map struct {
	slots      []$Elem // roundup_pow_of_two(maxEntries) slots: slot b is bucket b and one element
	mask       uint32  // len(slots)-1: a hash's bucket is hash&mask
	seed       uint32  // the jhash initval: 0 with ZeroSeed, else random
	maxEntries uint32
	cpus       int    // number of CPU slots (Options.CPUs)
	handles    []$CPU // one program-side handle per CPU

	// Written by inserts and deletes; the padding keeps them off the cache
	// line of the fields above, which every lookup reads.
	_     [64]byte
	count atomic.Int64   // live elements plus the reservations of inserts in progress
	free  htab.FreeSlots // one bit per slot, set: the slot is free
%[6]s}

%[8]s
// New$Map creates an empty map, as BPF_MAP_CREATE does. Bad options are
// htab.ErrInvalid, wrapped with the reason. All slots are allocated here, also
// with NoPrealloc (in the home layout the slots are the bucket table).
func New$Map(opts htab.Options) (*$Map, error) {
	opts, err := opts.Check(htab.Hash)
	if err != nil {
		return nil, err
	}
	n := htab.BucketCount(opts.MaxEntries)
	if n > $pMaxLen {
		return nil, fmt.Errorf("%%w: hash map: MaxEntries %%d (allowed in the home layout: 1..%%d)", htab.ErrInvalid, opts.MaxEntries, $pMaxLen)
	}
	m := &$Map{
		slots:      make([]$Elem, n),
		mask:       uint32(n - 1),
		seed:       opts.Seed(),
		maxEntries: uint32(opts.MaxEntries),
		cpus:       opts.CPUs,
	}
	m.free.Init(n)
%[7]s	m.handles = make([]$CPU, opts.CPUs)
	for i := range m.handles {
		m.handles[i] = $CPU{m, i}
	}
	return m, nil
}

// Len is the number of keys in the map, counting inserts that have reserved
// their room and are about to link their key (reserve never counts past
// MaxEntries, so the cap is only a guard).
func (m *$Map) Len() int {
	return int(min(m.count.Load(), int64(m.maxEntries)))
}
`, l.Spec.Key, l.Spec.Val, l.KeyWords, l.ElemSize, fields.String(), occField, occInit, elemAssertions(l, "slot"))
	f.Add(g.textCode(src))
	g.sizeAccessors(f)
}

// homeSlots emits the slot's copy and the map's chain search (the slot's
// lock is its seq field, an htab.SeqLock):
//
//	func (e *<Elem>) copyFrom(src *<Elem>, next uint32)
//	func (m *<Map>) slotBucket(e *<Elem>) uint32
//	func (m *<Map>) find(b uint32, w *<KW>, h uint32) (prev, i uint32)
func (g *generator) homeSlots(f *jen.File) {
	l := g.l
	copyHash, bucketOf := "", ""
	if l.CachedHash {
		copyHash = "\thtab.StoreRelease(&e.hash, atomic.LoadUint32(&src.hash))\n"
		bucketOf = "\treturn atomic.LoadUint32(&e.hash) & m.mask\n"
	} else {
		bucketOf = "\tk := e.loadKey()\n\tw := k.words()\n\treturn m.hash(&k, &w) & m.mask\n"
	}
	src := `
// copyFrom copies src's element into e, with e's next word set to next. Only
// under the lock of the bucket whose chain e is (or is about to be) in.
func (e *$Elem) copyFrom(src *$Elem, next uint32) {
` + copyHash + `	for i := range src.key {
		htab.StoreRelease(&e.key[i], atomic.LoadUint32(&src.key[i]))
	}
	for i := range src.val {
		htab.StoreRelease(&e.val[i], atomic.LoadUint32(&src.val[i]))
	}
	htab.StoreRelease(&e.next, next)
}

// slotBucket is the bucket of the key slot e holds (only meaningful while the
// caller's lock keeps it still, or as a guess to be checked).
func (m *$Map) slotBucket(e *$Elem) uint32 {
` + bucketOf + `}

// find walks bucket b for key w (of hash h) and returns index+1 of its slot
// and of the slot before it in the chain (0: it is the head). Readers must
// validate slot b's sequence afterwards; the walk is bounded so that a chain
// that changes under a reader cannot keep it looping.
func (m *$Map) find(b uint32, w *$KW, h uint32) (prev, i uint32) {
	if atomic.LoadUint32(&m.slots[b].next)&$pHome == 0 {
		return 0, 0
	}
	i = b + 1
	for n := 0; i != 0 && n < len(m.slots); n++ {
		e := &m.slots[i-1]
		if e.matches(w, h) {
			return prev, i
		}
		prev, i = i, atomic.LoadUint32(&e.next)&$pIdx
	}
	return 0, 0
}
`
	f.Add(g.textCode(src))
}

// homeAlloc emits reserve, which takes room for a new key in the count, and
// release, which gives a slot back to the free bitmap (htab.FreeSlots, which
// also claims and allocates slots) with its count.
//
//	func (m *<Map>) reserve() bool
//	func (m *<Map>) release(i uint32)
func (g *generator) homeAlloc(f *jen.File) {
	f.Add(g.textCode(`
// reserve takes room for one more key in count, false if the map is full.
// It never counts past MaxEntries, not even for a moment: an insert that
// added itself and then took itself off again would make a concurrent
// insert find the map full while a delete had just made room.
func (m *$Map) reserve() bool {
	for {
		n := m.count.Load()
		if n >= int64(m.maxEntries) {
			return false
		}
		if m.count.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release frees slot i, already out of every chain, and its element's count.
// Deletes call it before they unlock, so that whoever sees the key gone can
// insert another into a full map (the kernel frees after unlocking, a window
// in which such an insert is E2BIG although the delete took effect). It only
// sets bits and counts, and waits for nothing.
func (m *$Map) release(i uint32) {
	m.free.Release(i)
	m.count.Add(-1)
}
`))
}

// homeLookup emits Lookup: the head (and the second element) inline, between
// two loads of the home slot's sequence; the rest in lookupChain.
//
//	func (m *<Map>) Lookup(k <Key>) (<Value>, bool)
//	func (m *<Map>) lookupChain(s *<Elem>, w *<KW>, h uint32) (<Value>, bool)
func (g *generator) homeLookup(f *jen.File) {
	src := `
// Lookup returns the value of k, as BPF_MAP_LOOKUP_ELEM does. It takes no lock:
// it reads the home slot (and, if it must, the chain) between two loads of the
// slot's sequence. The fast path, k is its bucket's newest or second newest
// element, is inline; the rest is lookupChain.
$WORD64func (m *$Map) Lookup(k $Key) ($Value, bool) {
$PRE$HASH
	s := &m.slots[h&m.mask]
	seq := s.seq.Load()
	nx := atomic.LoadUint32(&s.next)
	if nx&$pHome != 0 && seq&1 == 0 {
		e := s
		if $NOMATCHe {
			e = nil
			if i := nx & $pIdx; i != 0 {
				if x := &m.slots[i-1]; $MATCHx {
					e = x
				}
			}
		}
		if e != nil {
$LOADV			if s.seq.ReadValid(seq) {
				return v, true
			}
		}
	}
$TAIL}

// lookupChain is Lookup past the fast path: the whole sequence-checked read of
// the chain of home slot s, retried until no writer came in between.
func (m *$Map) lookupChain(s *$Elem, w *$KW, h uint32) ($Value, bool) {
	for {
		seq := s.seq.ReadBegin()
		var v $Value
		found := false
		nx := atomic.LoadUint32(&s.next)
		if nx&$pHome != 0 {
			e := s
			for n := 0; n < len(m.slots); n++ {
				if e.matches(w, h) {
					v, found = e.loadValue(), true
					break
				}
				i := nx & $pIdx
				if i == 0 {
					break
				}
				e = &m.slots[i-1]
				nx = atomic.LoadUint32(&e.next)
			}
		}
		if s.seq.ReadValid(seq) {
			return v, found
		}
	}
}
`
	// The generic fast path compares key words and copies the value word by
	// word. An 8-byte key at an 8-byte offset (no cached hash) is compared
	// with one 64-bit load instead, and an 8-byte value at an 8-byte offset
	// copied with one (the slot array is 8-aligned, the slot 24 bytes):
	//
	//	kw := binary.LittleEndian.Uint64(k[:])   (rotated on big-endian hosts)
	//	atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.key))) == kw
	key8, val8 := g.l.KeyWord64, g.l.ValWord64
	pre, match, nomatch, loadv := "\tw := k.words()\n", "$.matches(&w, h)", "!e.matches(&w, h)", "\t\t\tv := e.loadValue()\n"
	tail := "\treturn m.lookupChain(s, &w, h)\n"
	word64 := ""
	if key8 || val8 {
		word64 = "// An 8-byte key or value is loaded as one uint64 (htab.NativeLittleEndian:\n" +
			"// its two little-endian words, swapped on big-endian hosts); the load is\n" +
			"// aligned: the 8 bytes are at an 8-byte offset of a slot whose size is a\n" +
			"// multiple of 8, in an array that Go allocates 8-aligned.\n"
	}
	if key8 {
		pre = "\tkw := binary.LittleEndian.Uint64(k[:])\n"
		match = "atomic.LoadUint64((*uint64)(unsafe.Pointer(&$.key))) == kw"
		nomatch = "atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.key))) != kw"
		tail = "\tw := k.words()\n" + tail
	}
	if val8 {
		loadv = "\t\t\tvar v $Value\n\t\t\tx := atomic.LoadUint64((*uint64)(unsafe.Pointer(&e.val)))\n" +
			"\t\t\tif !htab.NativeLittleEndian {\n\t\t\t\tx = bits.RotateLeft64(x, 32)\n\t\t\t}\n" +
			"\t\t\tbinary.LittleEndian.PutUint64(v[:], x)\n"
	}
	src = strings.NewReplacer("$WORD64", word64, "$PRE", pre, "$NOMATCHe", nomatch,
		"$MATCHx", strings.ReplaceAll(match, "$.", "x."), "$LOADV", loadv, "$TAIL", tail).Replace(src)
	before, after, _ := strings.Cut(src, "$HASH\n")
	f.Add(g.textCode(before))
	f.Add(g.lookupHash(jen.Op("&").Id("k"), key8), jen.Line())
	if key8 {
		// After the hash, which takes the little-endian words: the slot's two
		// words, loaded as one native uint64, are swapped on big-endian hosts.
		f.Add(g.textCode("\tif !htab.NativeLittleEndian {\n\t\tkw = bits.RotateLeft64(kw, 32)\n\t}\n"))
	}
	f.Add(g.textCode(after))
}

// homeUpdate emits update (Update and the CPU handles' Update), seize,
// moveOut, Delete, LookupAndDelete and unlink:
//
//	func (m *<Map>) update(k *<Key>, v *<Value>, cpu int, flags htab.UpdateFlags) error
//	func (m *<Map>) seize(b uint32) (c, prev uint32, ok bool)
//	func (m *<Map>) moveOut(b, c, prev uint32)
//	func (m *<Map>) unlink(b, prev, i uint32) (freed uint32)
func (g *generator) homeUpdate(f *jen.File) {
	occSet, occClear := "", ""
	if g.l.Occupancy {
		occSet = "\t\t\tm.occ.Set(b)\n"
		occClear = "\t\tm.occ.Clear(b)\n"
	}
	src := `
// update is Update as on CPU cpu (a hash map's update is the same on every CPU).
func (m *$Map) update(k *$Key, v *$Value, cpu int, flags htab.UpdateFlags) error {
	_ = cpu
	if err := flags.Check(); err != nil {
		return err
	}
	w := k.words()
	h := m.hash(k, &w)
	b := h & m.mask
	hs := &m.slots[b]
	for {
		hs.seq.Lock()
		prev, i := m.find(b, &w, h)
		if i != 0 && flags == htab.UpdateNoExist {
			hs.seq.Unlock()
			return htab.ErrKeyExist
		}
		if i == 0 && flags == htab.UpdateExist {
			hs.seq.Unlock()
			return htab.ErrKeyNotExist
		}
		if i != 0 {
			if prev == 0 { // the head: in place
				hs.setValue(v)
				hs.seq.Unlock()
				return nil
			}
			// Unlink e, reuse its slot for the old head, put k at the head:
			// the kernel's move to the head, without an allocation.
			e, p := &m.slots[i-1], &m.slots[prev-1]
			htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$pHome|atomic.LoadUint32(&e.next)&$pIdx)
			e.copyFrom(hs, atomic.LoadUint32(&hs.next)&$pIdx)
			hs.setKey(&w, h)
			hs.setValue(v)
			htab.StoreRelease(&hs.next, $pHome|i)
			hs.seq.Unlock()
			return nil
		}
		// A new key. Its room in count is reserved only where the insert can
		// no longer fail or let go of b's lock: a reservation never outlives
		// the lock, so whoever finds the map full while k is not yet in it
		// (ErrFull) finds it during k's insert, which can take effect first.
		if atomic.LoadUint32(&hs.next)&$pHome != 0 {
			if !m.reserve() {
				hs.seq.Unlock()
				return htab.ErrFull
			}
			// Push the old head to an overflow slot near b.
			f := m.free.Alloc(b)
			m.slots[f].copyFrom(hs, atomic.LoadUint32(&hs.next)&$pIdx)
			hs.setKey(&w, h)
			hs.setValue(v)
			htab.StoreRelease(&hs.next, $pHome|(f+1))
			hs.seq.Unlock()
			return nil
		}
		// Empty bucket: slot b is free, or holds another bucket's overflow
		// element, which must move out first.
		c, prev, ok := m.seize(b)
		if !ok {
			hs.seq.Unlock()
			runtime.Gosched()
			continue
		}
		if !m.reserve() {
			if prev == 0 {
				m.free.Release(b)
			} else {
				m.slots[c].seq.Unlock()
			}
			hs.seq.Unlock()
			return htab.ErrFull
		}
		if prev != 0 {
			m.moveOut(b, c, prev)
		}
		hs.setKey(&w, h)
		hs.setValue(v)
		htab.StoreRelease(&hs.next, $pHome)
` + occSet + `		hs.seq.Unlock()
		return nil
	}
}

// Update sets the value of k, as BPF_MAP_UPDATE_ELEM does. flags is
// htab.UpdateAny, UpdateNoExist (htab.ErrKeyExist if k is present) or
// UpdateExist (htab.ErrKeyNotExist if absent); a new key into a full map is
// htab.ErrFull.
// As in the kernel, a replaced key moves to the head of its bucket.
func (m *$Map) Update(k $Key, v $Value, flags htab.UpdateFlags) error {
	return m.update(&k, &v, 0, flags)
}

// seize readies slot b, whose bucket b is empty and locked by the caller, to
// become the caller's. If b is free it claims it (prev 0). Else b holds an
// overflow element of bucket c: it locks c and returns c and prev, index+1
// of the slot before b in c's chain, for moveOut to move the element away
// (or the caller to unlock c). False: the caller must drop its lock and
// start over (lock order: a higher bucket is waited for, a lower one only
// tried).
func (m *$Map) seize(b uint32) (c, prev uint32, ok bool) {
	s := &m.slots[b]
	for n := 0; ; n++ {
		if m.free.Claim(b) {
			return 0, 0, true
		}
		c = m.slotBucket(s)
		if c == b {
			// Being written by b's own past owner right now (a delete releases
			// the slot before it unlocks, so not being freed).
			if n >= htab.SpinsBeforeYield {
				runtime.Gosched()
			}
			continue
		}
		cs := &m.slots[c]
		if c > b {
			cs.seq.Lock()
		} else if !cs.seq.TryLock() {
			return 0, 0, false
		}
		// Is slot b in c's chain? Find the slot before it.
		prev = 0
		if atomic.LoadUint32(&cs.next)&$pHome != 0 {
			for i, k := c+1, 0; i != 0 && k < len(m.slots); k++ {
				nx := atomic.LoadUint32(&m.slots[i-1].next) & $pIdx
				if nx == b+1 {
					prev = i
					break
				}
				i = nx
			}
		}
		if prev == 0 {
			// The element left c's chain meanwhile (its slot already released,
			// maybe reused), or the key was stale: look again.
			cs.seq.Unlock()
			if n >= htab.SpinsBeforeYield {
				runtime.Gosched()
			}
			continue
		}
		return c, prev, true
	}
}

// moveOut moves the overflow element in slot b, after slot prev (index+1) in
// bucket c's chain, to a free slot near c, and unlocks c, which seize
// locked. The caller holds b's lock and a reservation in count, which
// guarantees a free slot.
func (m *$Map) moveOut(b, c, prev uint32) {
	s, cs := &m.slots[b], &m.slots[c]
	f := m.free.Alloc(c)
	m.slots[f].copyFrom(s, atomic.LoadUint32(&s.next)&$pIdx)
	p := &m.slots[prev-1]
	htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$pHome|(f+1))
	cs.seq.Unlock()
}

// Delete removes k, as BPF_MAP_DELETE_ELEM does: htab.ErrKeyNotExist if absent.
func (m *$Map) Delete(k $Key) error {
	w := k.words()
	h := m.hash(&k, &w)
	b := h & m.mask
	hs := &m.slots[b]
	hs.seq.Lock()
	prev, i := m.find(b, &w, h)
	if i == 0 {
		hs.seq.Unlock()
		return htab.ErrKeyNotExist
	}
	freed := m.unlink(b, prev, i)
	m.release(freed) // before unlocking: see release
	hs.seq.Unlock()
	return nil
}

// LookupAndDelete removes k and returns its value, as
// BPF_MAP_LOOKUP_AND_DELETE_ELEM does: htab.ErrKeyNotExist if absent.
func (m *$Map) LookupAndDelete(k $Key) ($Value, error) {
	w := k.words()
	h := m.hash(&k, &w)
	b := h & m.mask
	hs := &m.slots[b]
	hs.seq.Lock()
	prev, i := m.find(b, &w, h)
	if i == 0 {
		hs.seq.Unlock()
		return $Value{}, htab.ErrKeyNotExist
	}
	v := m.slots[i-1].loadValue()
	freed := m.unlink(b, prev, i)
	m.release(freed) // before unlocking: see release
	hs.seq.Unlock()
	return v, nil
}

// unlink takes the element in slot i (index+1) out of bucket b, whose element
// before it is prev (0: i is the head), and returns the slot that is no longer
// used, for the caller to release before it unlocks. Only under b's lock.
func (m *$Map) unlink(b, prev, i uint32) uint32 {
	hs, e := &m.slots[b], &m.slots[i-1]
	enx := atomic.LoadUint32(&e.next) & $pIdx
	switch {
	case prev != 0: // an overflow element: unlink it
		p := &m.slots[prev-1]
		htab.StoreRelease(&p.next, atomic.LoadUint32(&p.next)&$pHome|enx)
		return i - 1
	case enx != 0: // the head of a chain: the second element moves home
		x := &m.slots[enx-1]
		hs.copyFrom(x, $pHome|atomic.LoadUint32(&x.next)&$pIdx)
		return enx - 1
	default: // the only element
		htab.StoreRelease(&hs.next, 0)
` + occClear + `		return b
	}
}
`
	f.Add(g.textCode(src))
}

// homeIteration emits snapshot, NextKey and All, in the kernel's order
// (buckets ascending, each newest first):
//
//	func (m *<Map>) snapshot(b uint32, keys []<Key>, vals []<Value>) ([]<Key>, []<Value>)
//	func (m *<Map>) NextKey(k *<Key>) (<Key>, error)
//	func (m *<Map>) All() iter.Seq2[<Key>, <Value>]
func (g *generator) homeIteration(f *jen.File) {
	src := `
// snapshot appends the keys and values of bucket b, newest first, as one
// consistent view: it rereads the bucket until no writer came in between.
func (m *$Map) snapshot(b uint32, keys []$Key, vals []$Value) ([]$Key, []$Value) {
	k0, v0 := len(keys), len(vals)
	s := &m.slots[b]
	for {
		seq := s.seq.ReadBegin()
		keys, vals = keys[:k0], vals[:v0]
		if nx := atomic.LoadUint32(&s.next); nx&$pHome != 0 {
			for i, n := b+1, 0; i != 0 && n < len(m.slots); n++ {
				e := &m.slots[i-1]
				keys = append(keys, e.loadKey())
				vals = append(vals, e.loadValue())
				i = atomic.LoadUint32(&e.next) & $pIdx
			}
		}
		if s.seq.ReadValid(seq) {
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
		b := h & m.mask
		s := &m.slots[b]
		for {
			seq := s.seq.ReadBegin()
			_, i := m.find(b, &w, h)
			var next uint32
			var nk $Key
			if i != 0 {
				if next = atomic.LoadUint32(&m.slots[i-1].next) & $pIdx; next != 0 {
					nk = m.slots[next-1].loadKey()
				}
			}
			if !s.seq.ReadValid(seq) {
				continue
			}
			if next != 0 {
				return nk, nil
			}
			if i != 0 {
				// k was its bucket's last: go on with the next bucket. An absent k
				// restarts from the first bucket, as in the kernel.
				start = b + 1
			}
			break
		}
	}
	for bi := start; bi <= m.mask; bi++ {
		s := &m.slots[bi]
		for {
			seq := s.seq.ReadBegin()
			head := atomic.LoadUint32(&s.next)&$pHome != 0
			var nk $Key
			if head {
				nk = s.loadKey()
			}
			if !s.seq.ReadValid(seq) {
				continue
			}
			if head {
				return nk, nil
			}
			break
		}
	}
	return $Key{}, htab.ErrKeyNotExist
}

// All yields every key and value in NextKey's order. Each bucket is read as
// one snapshot, so a key present for the whole iteration is yielded exactly
// once, even while other goroutines update the map.
func (m *$Map) All() iter.Seq2[$Key, $Value] {
	return func(yield func($Key, $Value) bool) {
		var keys []$Key
		var vals []$Value
		for bi := uint32(0); bi <= m.mask; bi++ {
			if atomic.LoadUint32(&m.slots[bi].next)&$pHome == 0 {
				continue
			}
			keys, vals = m.snapshot(bi, keys[:0], vals[:0])
			for j := range keys {
				if !yield(keys[j], vals[j]) {
					return
				}
			}
		}
	}
}
`
	f.Add(g.textCode(src))
}

// homeBatch emits the batch operations: the classic layout's LookupBatch,
// LookupAndDeleteBatch, UpdateBatch and DeleteBatch (batch.go), over a
// batchWalk of the home slots, where a bucket is non-empty iff its home bit
// is set.
//
//	func (m *<Map>) batchWalk(bi uint32, keys []<Key>, vals []<Value>, del bool) (total int, next uint32, err error)
func (g *generator) homeBatch(f *jen.File) {
	var find, occClear string
	switch g.l.BatchLock {
	case spec.BatchLockAlways:
	case spec.BatchLockSparse:
		find = "\t\tif bi = m.occ.Next(bi); bi > m.mask {\n\t\t\tbreak\n\t\t}\n"
		occClear = "\t\t\tm.occ.Clear(bi)\n"
	default:
		find = "\t\tif atomic.LoadUint32(&m.slots[bi].next)&$pHome == 0 {\n\t\t\tbi++\n\t\t\tcontinue\n\t\t}\n"
	}
	g.batchLookups(f)
	src := `
// batchWalk copies whole buckets from bucket bi on into keys and vals while they
// fit, and returns how many elements it copied and the next bucket to read.
// ` + g.batchFindDoc() + `
func (m *$Map) batchWalk(bi uint32, keys []$Key, vals []$Value, del bool) (total int, next uint32, err error) {
	for bi <= m.mask {
` + find + `		hs := &m.slots[bi]
		hs.seq.Lock()
		cnt := 0
		if atomic.LoadUint32(&hs.next)&$pHome != 0 {
			for i := bi + 1; i != 0; i = atomic.LoadUint32(&m.slots[i-1].next) & $pIdx {
				cnt++
			}
		}
		if cnt > len(keys)-total {
			// The bucket does not fit: it is not consumed, the cursor stays on it.
			hs.seq.Unlock()
			if total == 0 {
				return 0, bi, htab.ErrNoSpace
			}
			return total, bi, nil
		}
		if cnt != 0 {
			j := total
			for i := bi + 1; i != 0; {
				e := &m.slots[i-1]
				keys[j] = e.loadKey()
				vals[j] = e.loadValue()
				j++
				i = atomic.LoadUint32(&e.next) & $pIdx
			}
		}
		if del && cnt != 0 {
			// The whole bucket goes: it was copied under this same lock. Its
			// slots are freed before unlocking (see release); the chain is
			// unreachable now, so nothing else writes its next links before
			// release lets the slot go.
			chain := atomic.LoadUint32(&hs.next) & $pIdx
			htab.StoreRelease(&hs.next, 0)
` + occClear + `			for i := chain; i != 0; {
				nx := atomic.LoadUint32(&m.slots[i-1].next) & $pIdx
				m.release(i - 1)
				i = nx
			}
			m.release(bi)
		}
		hs.seq.Unlock()
		total += cnt
		bi++
	}
	// bi is len(m.slots) here, or the cursor passed in if it was already past
	// the end (the kernel returns ENOENT before it writes out_batch).
	return total, bi, htab.ErrKeyNotExist
}

`
	f.Add(g.textCode(src))
	g.batchUpdates(f)
}
