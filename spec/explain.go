package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/htabgen/htabgen/htab"
)

// Explain describes the layout the way pahole describes a struct: each field
// with its offset and size, the bucket, bytes per element and per entry, and
// the hash.
func (l *Layout) Explain() string {
	if l.BloomMap != nil {
		return l.explainBloomMap()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s map, key %d B, value %d B (lean=%v)\n\n", l.Names.Map, l.Spec.Type, l.Spec.Key, l.Spec.Val, l.Spec.Lean)
	fmt.Fprintf(&b, "struct %s {\n", l.Names.Elem)
	for _, f := range l.Elem {
		fmt.Fprintf(&b, "\t%-12s %-6s /* %5d %5d */  %s\n", f.GoType, f.Name+";", f.Offset, f.Size, f.Doc)
	}
	lines := (l.ElemSize + 63) / 64
	fmt.Fprintf(&b, "\n\t/* size: %d, cachelines: %d, members: %d */\n", l.ElemSize, lines, len(l.Elem))
	fmt.Fprintf(&b, "};\n\n")
	if l.Home != nil {
		fmt.Fprintf(&b, "home layout: slot i is bucket i and one element; roundup_pow_of_two(MaxEntries) slots, all made at creation\n")
		fmt.Fprintf(&b, "free bitmap: 1 bit per slot\n")
		fmt.Fprintf(&b, "summaries: %d B per bucket, a bit per key of its chain; a lookup whose bit is clear reads no slot\n", l.Home.SummaryBytes)
	} else {
		fmt.Fprintf(&b, "struct htab.Bucket {\n")
		fmt.Fprintf(&b, "\t%-12s %-6s /* %5d %5d */  %s\n", "uint32", "seq;", 0, 4, "sequence lock: odd while a writer holds the bucket")
		fmt.Fprintf(&b, "\t%-12s %-6s /* %5d %5d */  %s\n", "uint32", "head;", 4, 4, "index+1 of the newest element; 0: empty")
		fmt.Fprintf(&b, "\n\t/* size: %d */\n};\n\n", l.Classic.BucketSize)
	}
	if l.Batch.Occupancy {
		fmt.Fprintf(&b, "occupancy bitmap (-batch-lock sparse): 1 bit per bucket, set while it is non-empty\n")
	}
	if !l.ValuesInline() {
		fmt.Fprintf(&b, "per-CPU values: one array per CPU, %d B per element per CPU\n", 4*l.ValueWords)
	}
	fmt.Fprintf(&b, "bytes per element: %d\n", l.ElemSize)
	what := "elements + buckets"
	if l.Home != nil {
		what = "slots + summaries + free bitmap"
	}
	if l.Batch.Occupancy {
		what += " + occupancy bitmap"
	}
	cpus := []int{1}
	if !l.ValuesInline() {
		what += " + values of every CPU"
		cpus = []int{1, 2, 64}
	}
	for _, max := range l.explainSizes(1000, 65536) {
		for _, c := range cpus {
			on := ""
			if !l.ValuesInline() {
				on = fmt.Sprintf(", %s", Plural(c, "CPU"))
			}
			fmt.Fprintf(&b, "bytes per entry, full, MaxEntries %d%s (%s): %.1f\n", max, on, what, l.EntryBytes(max, c))
		}
	}
	if l.Home != nil {
		// The price of the layout: slots are a power of two, so a MaxEntries
		// just past one pays for twice as many.
		const worst = 32769
		classic := l.Spec
		classic.Layout = LayoutClassic
		if c, err := Plan(classic); err == nil {
			fmt.Fprintf(&b, "bytes per entry, full, MaxEntries %d (%s): %.1f (the worst case, just past a power of two; -layout classic: %.1f)\n",
				worst, what, l.EntryBytes(worst, 1), c.EntryBytes(worst, 1))
		}
	}
	fmt.Fprintf(&b, "hash: %s\n", l.HashDescription())
	if f := l.Filter; f != nil {
		fmt.Fprintf(&b, "bloom filter in front of lookups (-bloom %d): 512-bit blocks (one cache line a probe), %d bits a key, sized MaxEntries*%d/ln 2 rounded up to a power of two\n", f.Hashes, f.Hashes, f.Hashes)
		for _, max := range l.explainSizes(1000, 65536, 1<<20) {
			bits := htab.FilterBits(max, f.Hashes)
			fmt.Fprintf(&b, "  MaxEntries %d: %d bits, %.2f B per entry; false positives at MaxEntries: %.2f %% (a standard bloom filter of that size: %.2f %%)\n",
				max, bits, float64(bits)/8/float64(max), 100*htab.FilterFalsePositive(bits, f.Hashes, max), 100*htab.BloomFalsePositive(bits, f.Hashes, max))
		}
	}
	return b.String()
}

// explainBloomMap is Explain for -type bloom: the kernel's sizing of the bit
// array for a few MaxEntries, and the hashes.
func (l *Layout) explainBloomMap() string {
	var b strings.Builder
	k := l.BloomMap.DefaultHashes
	fmt.Fprintf(&b, "%s: bloom filter map, value %d B, %d hash functions unless Options.BloomHashes (1..%d) says otherwise\n\n", l.Names.Map, l.Spec.Val, k, MaxBloomHashes)
	fmt.Fprintf(&b, "bit array: the kernel's sizing, MaxEntries*hashes/5*7 bits rounded up to a power of two, 64 at least, 2^32 past 2^31\n")
	for _, max := range l.explainSizes(1000, 65536, 1<<20) {
		bits := htab.BloomBits(max, k)
		fmt.Fprintf(&b, "  MaxEntries %d, %d hashes: %d bits, %d bytes, %.2f B per value; false positives at MaxEntries: %.2f %%\n",
			max, k, bits, bits/8, float64(bits)/8/float64(max), 100*htab.BloomFalsePositive(bits, k, max))
	}
	fmt.Fprintf(&b, "hash i (0 <= i < hashes): %s, with the seed + i, masked to the bit array\n", l.HashDescription())
	return b.String()
}

// explainSizes are the MaxEntries Explain gives costs at: sizes, and the
// spec's own MaxEntries (-max-entries; a BPF object's max_entries).
func (l *Layout) explainSizes(sizes ...int) []int {
	if m := l.Spec.MaxEntries; m > 0 && !slices.Contains(sizes, m) {
		sizes = append(sizes, m)
		slices.Sort(sizes)
	}
	return sizes
}
