package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// RenderEBPF emits the -ebpf-compat file of the map of l: <Map>EBPF, the map
// with the methods of cilium/ebpf's *ebpf.Map, each forwarding to an
// ebpfcompat.Map, which does the marshaling, the errors and the batch
// cursors for every generated map. It is the only generated file that
// imports cilium/ebpf.
//
//	type <Map>EBPF struct { m *<Map>; c *ebpfcompat.Map }
//	func New<Map>EBPF(opts htab.Options) (*<Map>EBPF, error)
//	func (m *<Map>) EBPF() *<Map>EBPF
//	func (f *<Map>EBPF) Map() *<Map>
//	func (f *<Map>EBPF) Lookup(key, valueOut any) error   // ... every method of *ebpf.Map it has
func RenderEBPF(l *spec.Layout, h Header) ([]byte, error) {
	g := newGenerator(l)
	f := newFile(l, h)
	f.ImportName(packages["ebpf"], "ebpf")
	f.ImportName(packages["ebpfcompat"], "ebpfcompat")
	g.ebpfAdapter(f)
	return render(f)
}

// ebpfKinds is, for each map type, cilium/ebpf's name of it and the
// ebpfcompat constructor of its adapter.
var ebpfKinds = map[spec.MapType]struct{ mapType, adapter string }{
	spec.Hash:      {"Hash", "ebpfcompat.NewHash[$Key, $Value]"},
	spec.PerCPU:    {"PerCPUHash", "ebpfcompat.NewPerCPU[$Key, $Value]"},
	spec.LRU:       {"LRUHash", "ebpfcompat.NewHash[$Key, $Value]"},
	spec.LRUPerCPU: {"LRUCPUHash", "ebpfcompat.NewPerCPU[$Key, $Value]"},
	spec.Bloom:     {"BloomFilter", "ebpfcompat.NewBloom[$Value]"},
}

// ebpfMethods are the methods of *ebpf.Map (cilium/ebpf v0.22) that an
// adapter has, with their signatures: each forwards to ebpfcompat.Map's.
var ebpfMethods = []struct{ name, params, results, args string }{
	{"Lookup", "key, valueOut any", "error", "key, valueOut"},
	{"LookupWithFlags", "key, valueOut any, flags ebpf.MapLookupFlags", "error", "key, valueOut, flags"},
	{"LookupAndDelete", "key, valueOut any", "error", "key, valueOut"},
	{"LookupAndDeleteWithFlags", "key, valueOut any, flags ebpf.MapLookupFlags", "error", "key, valueOut, flags"},
	{"LookupBytes", "key any", "([]byte, error)", "key"},
	{"Put", "key, value any", "error", "key, value"},
	{"Update", "key, value any, flags ebpf.MapUpdateFlags", "error", "key, value, flags"},
	{"Delete", "key any", "error", "key"},
	{"NextKey", "key, nextKeyOut any", "error", "key, nextKeyOut"},
	{"NextKeyBytes", "key any", "([]byte, error)", "key"},
	{"BatchLookup", "cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions", "(int, error)", "cursor, keysOut, valuesOut, opts"},
	{"BatchLookupAndDelete", "cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions", "(int, error)", "cursor, keysOut, valuesOut, opts"},
	{"BatchUpdate", "keys, values any, opts *ebpf.BatchOptions", "(int, error)", "keys, values, opts"},
	{"BatchDelete", "keys any, opts *ebpf.BatchOptions", "(int, error)", "keys, opts"},
	{"Iterate", "", "*ebpfcompat.MapIterator", ""},
	{"Type", "", "ebpf.MapType", ""},
	{"KeySize", "", "uint32", ""},
	{"ValueSize", "", "uint32", ""},
	{"MaxEntries", "", "uint32", ""},
	{"Flags", "", "uint32", ""},
	{"Close", "", "error", ""},
	{"String", "", "string", ""},
}

// ebpfAdapter emits the adapter type, its constructors and its forwarders.
func (g *generator) ebpfAdapter(f *jen.File) {
	l := g.l
	kind := ebpfKinds[l.Spec.Type]
	keySize, what, cpus := l.Spec.Key, fmt.Sprintf("%d-byte keys and %d-byte values", l.Spec.Key, l.Spec.Val), "m.cpus"
	if l.Spec.Type == spec.Bloom {
		keySize, what, cpus = 0, fmt.Sprintf("%d-byte values", l.Spec.Val), "0"
	}
	cpuDoc := ""
	if l.PerCPU != nil {
		cpuDoc = " A per-CPU value is a slice of CPUs() values, as cilium/ebpf's is of ebpf.PossibleCPU() values: $NewEBPF makes them agree."
	}
	typeDoc := g.comment(fmt.Sprintf(`$EBPF is a $Map with the methods of cilium/ebpf's *ebpf.Map (v0.22),
so that it stands in for a kernel BPF_MAP_TYPE_%s map of %s: code written
against an interface over the *ebpf.Map methods it calls accepts both.
Keys and values marshal as cilium/ebpf marshals them, and errors satisfy
the same errors.Is checks (ebpf.ErrKeyNotExist, unix.E2BIG, ...), with the
same messages; see package ebpfcompat.%s Every method is safe for
concurrent use.`, l.Spec.Type.KernelName(), what, cpuDoc))
	newDoc := g.comment(`$NewEBPF creates an empty map, as $New does, and returns its
adapter. CPUs 0 means ebpf.PossibleCPU(), as many CPUs as cilium/ebpf gives
a kernel map.`)
	var forwarders strings.Builder
	for _, m := range ebpfMethods {
		fmt.Fprintf(&forwarders, "\n%sfunc (f *$EBPF) %s(%s) %s {\n\treturn f.c.%s(%s)\n}\n",
			g.comment(fmt.Sprintf("%s is (*ebpf.Map).%s: see ebpfcompat.Map.%s.", m.name, m.name, m.name)), m.name, m.params, m.results, m.name, m.args)
	}
	f.Add(g.code(fmt.Sprintf(`
%stype $EBPF struct {
	m *$Map
	c *ebpfcompat.Map
}

%sfunc $NewEBPF(opts htab.Options) (*$EBPF, error) {
	opts, err := ebpfcompat.PossibleCPUs(opts)
	if err != nil {
		return nil, err
	}
	m, err := $New(opts)
	if err != nil {
		return nil, err
	}
	return m.EBPF(), nil
}

// EBPF is m with the methods of *ebpf.Map: a view, which shares m's contents
// with m and every other view (as file descriptors of one kernel map do).
func (m *$Map) EBPF() *$EBPF {
	return &$EBPF{m, %s(m, ebpfcompat.Info{
		Name:       "$Map",
		Type:       ebpf.%s,
		KeySize:    %d,
		ValueSize:  %d,
		MaxEntries: uint32(m.opts.MaxEntries),
		Flags:      ebpfcompat.Flags(m.opts),
		CPUs:       %s,
	})}
}

// Map is the generated map underneath.
func (f *$EBPF) Map() *$Map {
	return f.m
}
`, typeDoc, newDoc, kind.adapter, kind.mapType, keySize, l.Spec.Val, cpus) + forwarders.String()))
}

// ebpfOptionsField is the map struct's field of the options it was created
// with, which its EBPF adapter reports (MaxEntries, Flags): only with
// -ebpf-compat.
func (g *generator) ebpfOptionsField() jen.Code {
	return when(g.l.Spec.EbpfCompat, g.code("\n\topts htab.Options // as asked for, for EBPF(): MaxEntries and the map flags\n"))
}

// ebpfOptionsInit sets that field in the constructor: to the options as
// asked for, which an LRU map's constructor keeps before it rounds
// MaxEntries (lruMaxEntries). A kernel map made from a spec answers
// MaxEntries with the spec's, although the kernel rounds it up for per-CPU
// LRU lists.
func (g *generator) ebpfOptionsInit() jen.Code {
	if !g.l.Spec.EbpfCompat {
		return jen.Null()
	}
	if g.l.LRU != nil {
		return g.code("\t\topts: asked,\n")
	}
	return g.code("\t\topts: opts,\n")
}

// defaults emits, for a spec with default options (-max-entries, or a map of
// a BPF object, -elf), the options and a constructor that needs none:
//
//	func <Map>Options() htab.Options
//	func New<Map>Default() (*<Map>, error)
func (g *generator) defaults(f *jen.File) { f.Add(g.defaultsCode()) }

func (g *generator) defaultsCode() jen.Code {
	s := g.l.Spec
	if s.MaxEntries == 0 {
		return jen.Null()
	}
	fields := []string{fmt.Sprintf("MaxEntries: %d", s.MaxEntries)}
	kernel := []string{fmt.Sprintf("max_entries %d", s.MaxEntries)}
	for _, o := range []struct {
		set          bool
		name, kernel string
	}{{s.NoPrealloc, "NoPrealloc", "BPF_F_NO_PREALLOC"}, {s.NoCommonLRU, "NoCommonLRU", "BPF_F_NO_COMMON_LRU"}, {s.ZeroSeed, "ZeroSeed", "BPF_F_ZERO_SEED"}} {
		if o.set {
			fields = append(fields, o.name+": true")
			kernel = append(kernel, o.kernel)
		}
	}
	return g.code(g.comment(fmt.Sprintf("$Options are the options the spec gives $Map, as a BPF object declares a map's max_entries and map_flags: %s.", strings.Join(kernel, ", "))) + fmt.Sprintf(`func $Options() htab.Options {
	return htab.Options{%s}
}

// $NewDefault creates an empty map with $Options().
func $NewDefault() (*$Map, error) {
	return $New($Options())
}
`, strings.Join(fields, ", ")))
}
