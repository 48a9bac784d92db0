package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// types emits the key, value and key-word types, the element (the slot, in
// the home layout), the storage's own declarations, the map struct and the
// compile-time assertions of the element's size and offsets:
//
//	type <Key> [<K>]byte
//	type <Value> [<V>]byte
//	type <KeyWords> [<KW>]uint32
//	type <Elem> struct { <planned fields> }
//	type <Map> struct { <storage's first>; mask, seed, maxEntries, cpus, handles; <owned>; ...; count; <counters> }
func (g *generator) types(f *jen.File) {
	l := g.l
	what := "element"
	if l.Home != nil {
		what = "slot"
	}
	var fields strings.Builder
	for _, fl := range l.Elem {
		fmt.Fprintf(&fields, "\t%s %s // off %d, %d B: %s\n", fl.Name, fl.GoType, fl.Offset, fl.Size, fl.Doc)
	}
	elemDoc := fmt.Sprintf("// $Elem is one element: %d bytes, 4-byte aligned, no pointers. Lock-free\n", l.ElemSize) +
		"// readers load every field with sync/atomic; writers store them under the bucket\n" +
		"// lock with htab.StoreRelease.\n"
	switch {
	case l.Home != nil:
		elemDoc = fmt.Sprintf("// $Elem is one slot: bucket i's sequence lock and one element, %d bytes,\n", l.ElemSize) +
			"// 4-byte aligned, no pointers. Lock-free readers load every field with\n" +
			"// sync/atomic; writers store them with htab.StoreRelease under the lock of\n" +
			"// the bucket whose chain holds the element.\n"
	case l.LRU != nil:
		elemDoc += "// The node is htab.LRU's, which keeps it under its own locks.\n"
	}
	f.Add(g.code(fmt.Sprintf(`
// $Key is a key of $Map: %s, hashed and compared as they are.
type $Key [%d]byte

// $Value is a value of $Map: %s.
type $Value [%d]byte

// $KeyWords is a key as the %s stores it: little-endian words, zero-padded.
type $KeyWords [%d]uint32

`, spec.Plural(l.Spec.Key, "byte"), l.Spec.Key, spec.Plural(l.Spec.Val, "byte"), l.Spec.Val, what, l.KeyWords) +
		elemDoc + "type $Elem struct {\n" + fields.String() + "}\n"))
	g.st.declarations(f)

	first, owned, counters := g.st.mapFields()
	countDoc := "live elements, for Len"
	if l.Home != nil {
		countDoc = "live elements plus the reservations of inserts in progress"
	}
	f.Add(g.code(fmt.Sprintf(`
// $Map is a fixed-capacity hash map with the semantics of the kernel's
// BPF_MAP_TYPE_%s. Every method is safe for concurrent use.
type $Map struct {
	%s	mask       uint32  // the number of buckets less one: a hash's bucket is hash&mask
	seed       uint32  // the jhash initval: 0 with ZeroSeed, else random
	maxEntries uint32
	cpus       int     // number of CPU slots (Options.CPUs)
	handles    []$CPU  // one program-side handle per CPU
$(filter)%s$(occ)$(perCPU)
	// Written by inserts and deletes; the padding keeps them off the cache
	// line of the fields above, which every lookup reads.
	_     [%d]byte
	count atomic.Int64 // %s
%s$(compat)}
`, l.Spec.Type.KernelName(), first, owned, l.CounterPad, countDoc, counters),
		fill("compat", g.ebpfOptionsField()),
		fill("occ", when(l.Batch.Occupancy, g.code("\n\tocc htab.Occupancy // -batch-lock sparse: one bit per bucket, set while it is non-empty\n"))),
		fill("perCPU", g.perCPUFields()),
		fill("filter", g.filterField()),
	))
	f.Add(g.code(elemAssertions(l, what)))
}

// elemAssertions is the Go text of the compile-time assertions that the
// element (what: "element" or "slot") has the planned size and every field
// the planned offset, the figures the field comments, the design comment and
// -explain show:
//
//	var (
//		_ [0]struct{} = [unsafe.Sizeof(<Elem>{}) - <size>]struct{}{}
//		_ [0]struct{} = [unsafe.Offsetof(<Elem>{}.<field>) - <offset>]struct{}{}
//	)
//
// A [n]struct{} is assignable to [0]struct{} only if n == 0, and a negative
// length does not compile, so each line holds only with equality.
func elemAssertions(l *spec.Layout, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n// The %s must be %d bytes and its fields at the offsets above, as\n", what, l.ElemSize)
	b.WriteString("// planned; if this fails to compile, regenerate the map.\nvar (\n")
	fmt.Fprintf(&b, "\t_ [0]struct{} = [unsafe.Sizeof($Elem{}) - %d]struct{}{}\n", l.ElemSize)
	for _, fl := range l.Elem {
		fmt.Fprintf(&b, "\t_ [0]struct{} = [unsafe.Offsetof($Elem{}.%s) - %d]struct{}{}\n", fl.Name, fl.Offset)
	}
	b.WriteString(")\n")
	return b.String()
}

// constructor emits New<Map>, Len and the size accessors:
//
//	func New<Map>(opts htab.Options) (*<Map>, error)
//	func (m *<Map>) Len() int
//	func (m *<Map>) MaxEntries() int
//	func (m *<Map>) CPUs() int
func (g *generator) constructor(f *jen.File) {
	l := g.l
	doc := ""
	if l.Home != nil {
		doc = " All slots are allocated here, also\n// with NoPrealloc (in the home layout the slots are the bucket table)."
	}
	f.Add(g.code(fmt.Sprintf(`
// $New creates an empty map, as BPF_MAP_CREATE does. Bad options are
// htab.ErrInvalid, wrapped with the reason.%s
func $New(opts htab.Options) (*$Map, error) {
	opts, err := opts.Check(htab.%s)
	if err != nil {
		return nil, err
	}
$(lruMaxEntries)	n := htab.BucketCount(opts.MaxEntries)
$(checks)	m := &$Map{
		%s		mask:       uint32(n - 1),
		seed:       opts.Seed(),
		maxEntries: uint32(opts.MaxEntries),
		cpus:       opts.CPUs,
$(compat)	}
$(alloc)$(perCPU)$(lru)$(occ)$(filter)	m.handles = make([]$CPU, opts.CPUs)
	for i := range m.handles {
		m.handles[i] = $CPU{m, i}
	}
	return m, nil
}
`, doc, htabMapType(l.Spec.Type), g.st.newFields()),
		fill("lruMaxEntries", g.lruMaxEntries()),
		fill("checks", g.st.newChecks()),
		fill("alloc", g.st.newAlloc()),
		fill("perCPU", g.perCPUAlloc()),
		fill("lru", g.lruCreate()),
		fill("occ", when(l.Batch.Occupancy, g.code("\tm.occ = htab.NewOccupancy(n)\n"))),
		fill("filter", g.filterNew()),
		fill("compat", g.ebpfOptionsInit()),
	))
	g.defaults(f)
	g.st.length(f)
	f.Add(g.code(`
// MaxEntries is the capacity the map was created with.
func (m *$Map) MaxEntries() int {
	return int(m.maxEntries)
}

// CPUs is the number of CPU slots: Options.CPUs, or runtime.NumCPU().
func (m *$Map) CPUs() int {
	return m.cpus
}
`))
}

// htabMapType is the name of t's htab.MapType constant.
func htabMapType(t spec.MapType) string {
	return map[spec.MapType]string{spec.Hash: "Hash", spec.PerCPU: "PerCPUHash", spec.LRU: "LRUHash", spec.LRUPerCPU: "LRUPerCPUHash", spec.Bloom: "BloomFilter"}[t]
}
