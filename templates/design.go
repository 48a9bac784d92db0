package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/spec"
)

// designComment emits the map's design, built from the layout so that it
// cannot go stale: terms, the buckets and elements with their real offsets
// (the storage's), the hash, and the concurrency rules:
//
//	// Design of <Map>: the kernel's BPF_MAP_TYPE_<TYPE> for <K>-byte keys and <V>-byte values.
//	// Terms ... Layout, in bytes ... Hash: ... Concurrency ... [Per-CPU values] [Occupancy]
func (g *generator) designComment(f *jen.File) {
	l := g.l
	terms, concurrency := g.st.design()
	first := fmt.Sprintf("Design of %s: the kernel's BPF_MAP_TYPE_%s for %d-byte keys and %d-byte values.", g.n.Map, l.Spec.Type.KernelName(), l.Spec.Key, l.Spec.Val)
	lines := []string{first}
	if l.Home != nil {
		lines = []string{
			strings.TrimSuffix(first, ".") + ",",
			"in the home layout (the default; -layout classic keeps buckets and elements",
			"apart, as the kernel does).",
		}
	}
	lines = append(lines, "", "Terms")
	lines = append(lines, terms...)
	lines = append(lines, "", "Hash: "+l.HashDescription()+".")
	switch {
	case l.CachedHash:
		lines = append(lines, "The element caches its key's hash and compares it before the key.")
	case l.LRU != nil:
		lines = append(lines, fmt.Sprintf("No cached hash: comparing the %d-byte key costs no more than comparing a hash,", l.Spec.Key),
			"and evict, which needs the victim's bucket, hashes its key again.")
	case l.Home != nil:
		lines = append(lines, fmt.Sprintf("No cached hash: comparing the %d-byte key costs no more than comparing a hash,", l.Spec.Key),
			"and an overflow slot's bucket is found by hashing its key again.")
	default:
		lines = append(lines, fmt.Sprintf("No cached hash: comparing the %d-byte key costs no more than comparing a hash.", l.Spec.Key))
	}
	lines = append(lines, "", "Concurrency")
	lines = append(lines, concurrency...)
	if pc := l.PerCPU; pc != nil {
		lines = append(lines,
			"",
			"Per-CPU values",
			fmt.Sprintf("  slots[cpu][element index], %d B each, one array per CPU: the element", pc.SlotSize),
			"  needs no pointer to its values (as the kernel's preallocated per-CPU",
			"  element has none) and CPUs never share a cache line of values. A",
			"  replace writes the slots in place.",
		)
		if pc.SlotLocks == 0 {
			lines = append(lines,
				"  Every write of a slot, CPU(i).Update's too, is made under the key's",
				"  bucket lock, and readers of the values validate the bucket's sequence,",
				"  as for the key.",
			)
		} else {
			lines = append(lines,
				"  A program's update of a present key (CPU(i).Update) takes no bucket lock:",
				"  it finds the element optimistically, takes CPU i's slot lock (one of",
				fmt.Sprintf("  %d per CPU, in that CPU's own memory), checks that the bucket did not", pc.SlotLocks),
				"  change, and writes its slot. Whoever frees an element first waits until",
				"  none of its slot locks is held, so no write lands on a reused element;",
				"  a delete waits so under its bucket lock, which is deadlock-free because",
				"  no holder of a slot lock ever waits for a bucket lock (keep it so).",
				"  Reading every CPU's value (Lookup, All, batches) holds all of the",
				"  element's slot locks, taken in CPU order, so the copy is one snapshot;",
				"  CPU(i).Lookup reads its one slot by validating that lock's sequence.",
			)
		}
	}
	if l.Batch.Occupancy {
		lines = append(lines,
			"",
			"Occupancy (-batch-lock sparse)",
			"  occ has one bit per bucket, set while the bucket is non-empty: it is set",
			"  before a bucket's first element is linked and cleared after its last is",
			"  unlinked, both under the bucket lock, so a batch walk that skips the",
			"  buckets whose bit is clear never misses a key that was there for the",
			"  whole walk; it visits only the non-empty buckets.",
		)
	}
	if fl := l.Filter; fl != nil {
		bits := htab.FilterBits(65536, fl.Hashes)
		lines = append(lines,
			"",
			fmt.Sprintf("Bloom filter in front of lookups (-bloom %d, htab.Filter)", fl.Hashes),
			fmt.Sprintf("  MaxEntries*%d/ln 2 bits, rounded up to a power of two of 512-bit blocks; a key's", fl.Hashes),
			fmt.Sprintf("  %s lie in one block (one cache miss), placed by the key's hash. For", spec.Plural(fl.Hashes, "bit")),
			fmt.Sprintf("  MaxEntries 65536: %d bits, %.2f B per entry, %.2f %% false positives when full.", bits, float64(bits)/8/65536, 100*htab.FilterFalsePositive(bits, fl.Hashes, 65536)),
			"  Lookup, CPU(i).Lookup, Delete and LookupAndDelete ask it right after the",
			"  hash and answer \"absent\" from it when they can"+map[bool]string{true: "; so does an update with", false: "."}[fl.UpdateExist],
		)
		if fl.UpdateExist {
			lines = append(lines, "  UpdateExist.")
		} else {
			lines = append(lines, "  (Not UpdateExist: an LRU update takes its element, which may evict,",
				"  before it looks the key up, as the kernel's does.)")
		}
		lines = append(lines,
			"  An insert sets the key's bits under its bucket lock, before the key is",
			"  linked, and bits are never cleared: no false negative. Deleted keys' stale",
			"  bits are shed by rebuilding the filter from the map's keys (filterKeys),",
			fmt.Sprintf("  online, when its false-positive rate would pass %.1f times a fresh filter's.", htab.RebuildRatio),
		)
	}
	lines = append(lines, "", "Order: buckets ascending, each newest first, as the kernel's.")
	for _, line := range lines {
		f.Comment(line)
	}
	f.Line()
}

// elemDiagram is the element's row of the design comment's diagram, a cell
// "| name type " per field, and the row under it with each field's offset
// under its cell: what pahole shows, from the layout's real offsets.
func elemDiagram(l *spec.Layout) (fields, offsets string) {
	var fieldRow, offRow strings.Builder
	for _, fl := range l.Elem {
		cell := fmt.Sprintf("%s %s", fl.Name, fl.GoType)
		fmt.Fprintf(&fieldRow, "| %-*s", len(cell)+1, cell)
		fmt.Fprintf(&offRow, "%-*d", len(cell)+3, fl.Offset)
	}
	return fieldRow.String(), offRow.String()
}
