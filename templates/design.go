package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// designComment emits the map's design, built from the layout so that it
// cannot go stale: terms, the bucket and element with their real offsets, the
// hash, and the concurrency rules.
func (g *generator) designComment(f *jen.File) {
	l := g.l
	elemRow, offRow := elemDiagram(l)
	element := []string{
		"  element  one key and its value. All MaxEntries elements are one array, made",
		"           at creation (with NoPrealloc: chunks made on first use).",
	}
	switch {
	case l.PerCPU && l.LRU:
		element = []string{
			"  element  one key and its LRU node; its values, one per CPU, are slots",
			"           (below). All MaxEntries elements are one array, made at creation.",
		}
	case l.PerCPU:
		element = []string{
			"  element  one key; its values, one per CPU, are slots (below). All MaxEntries",
			"           elements are one array, made at creation (with NoPrealloc: chunks",
			"           made on first use, elements and slots alike).",
		}
	case l.LRU:
		element = []string{
			"  element  one key, its value and its LRU node. All MaxEntries elements are",
			"           one array, made at creation.",
		}
	}
	lines := []string{
		fmt.Sprintf("Design of %s: the kernel's BPF_MAP_TYPE_%s for %d-byte keys and %d-byte values.", g.mapT, kernelTypeName(l.Spec.Type), l.Spec.Key, l.Spec.Val),
		"",
		"Terms",
	}
	lines = append(lines, element...)
	lines = append(lines,
		"  bucket   a sequence lock and the head of a chain of elements, newest first.",
		"           There are roundup_pow_of_two(MaxEntries) buckets; a key's bucket",
		"           is hash & mask.",
		"  index+1  how buckets and elements link elements; 0 is nil. Nothing holds a",
		"           pointer, so the garbage collector never scans the map.",
		"",
		"Layout, in bytes",
		"  bucket  | seq uint32 | head uint32 |",
		fmt.Sprintf("          0            4             %d", l.BucketSize),
		"  element "+elemRow+"|",
		"          "+offRow+fmt.Sprint(l.ElemSize),
	)
	if l.PerCPU {
		cell := fmt.Sprintf("val [%d]uint32", l.ValueWords)
		lines = append(lines,
			"  slot    | "+cell+" |   slots[cpu][i]: CPU cpu's value of element i",
			fmt.Sprintf("          %-*d%d", len(cell)+3, 0, 4*l.ValueWords),
		)
	}
	if l.LRU {
		lines = append(lines,
			"  node: htab.LRUNode, the LRU's ref bit, cpu|type, prev and next (element",
			"  indexes); the array ends with htab.LRUHeads elements whose nodes are the",
			"  LRU lists' heads",
		)
	}
	lines = append(lines,
		"",
		"  buckets[hash & mask] --> element --> element --> 0",
		"",
		"Hash: "+l.HashDescription()+".",
	)
	switch {
	case l.CachedHash:
		lines = append(lines, "The element caches its key's hash and compares it before the key.")
	case l.LRU:
		lines = append(lines, fmt.Sprintf("No cached hash: comparing the %d-byte key costs no more than comparing a hash,", l.Spec.Key),
			"and evict, which needs the victim's bucket, hashes its key again.")
	default:
		lines = append(lines, fmt.Sprintf("No cached hash: comparing the %d-byte key costs no more than comparing a hash.", l.Spec.Key))
	}
	lines = append(lines, "", "Concurrency")
	if l.SlotLocks {
		lines = append(lines,
			"  Readers (Lookup, NextKey, All) take no bucket lock (for the values, see",
			"  Per-CPU values). They load the bucket's sequence, walk the chain with",
			"  atomic loads, and keep what they read only if the sequence is unchanged",
			"  and even; else they read the bucket again.")
	} else {
		lines = append(lines,
			"  Readers (Lookup, NextKey, All) take no lock. They load the bucket's sequence,",
			"  walk the chain with atomic loads, and keep what they read only if the",
			"  sequence is unchanged and even; else they read the bucket again.")
	}
	lines = append(lines,
		"  Writers (Update, Delete, LookupAndDelete) lock the key's bucket (the",
		"  sequence is odd while they hold it) and store with htab.StoreRelease (the",
		"  kernel's WRITE_ONCE: release order, a plain store on amd64). A freed",
		"  element is reused at once; a reader that reached it through its old bucket",
		"  sees that bucket's sequence change and retries.",
	)
	switch {
	case l.LRU:
		lines = append(lines,
			"  Capacity: elements come from htab.LRU, the kernel's bpf_lru: per-CPU free",
			"  lists refilled in batches, active and inactive lists aged by a ref bit",
			"  (set by CPU(i).Lookup), eviction from the inactive tail. An update takes",
			"  its element before it locks the bucket, and inside a bucket lock a writer",
			"  only gives elements back (htab.LRU.Push, which never waits for a lock),",
			"  so evict (which locks the victim's bucket) cannot deadlock with writers.",
			"  An element given back is free before the bucket unlocks, so whoever sees",
			"  a key gone can insert another without an eviction the delete made",
			"  needless (the kernel frees after unlocking). The map is never full: an",
			"  update evicts instead (htab.ErrNoMem only if the LRU finds nothing to",
			"  evict).",
		)
		if l.PerCPU {
			lines = append(lines, "  (With UpdateExist an update takes no element: a present key is updated",
				"  in place, as the kernel's per-CPU LRU map does.)")
		}
	default:
		lines = append(lines,
			"  Capacity: a new key takes a freed element, else a never-used one; when all",
			"  MaxEntries are in use it is htab.ErrFull. A replace never needs one. A",
			"  delete frees its element before it unlocks, so whoever sees the key gone",
			"  through a single-key operation can insert another (the kernel frees",
			"  after unlocking).",
		)
	}
	if l.PerCPU {
		lines = append(lines,
			"",
			"Per-CPU values",
			fmt.Sprintf("  slots[cpu][element index], %d B each, one array per CPU: the element", 4*l.ValueWords),
			"  needs no pointer to its values (seed 002) and CPUs never share a cache",
			"  line of values. A replace writes the slots in place.",
		)
		if !l.SlotLocks {
			lines = append(lines,
				"  Every write of a slot, CPU(i).Update's too, is made under the key's",
				"  bucket lock, and readers of the values validate the bucket's sequence,",
				"  as for the key.",
			)
		}
		if l.SlotLocks {
			lines = append(lines,
				"  A program's update of a present key (CPU(i).Update) takes no bucket lock:",
				"  it finds the element optimistically, takes CPU i's slot lock (one of",
				fmt.Sprintf("  %d per CPU, in that CPU's own memory), checks that the bucket did not", slotLocksPerCPU),
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
	if l.Occupancy {
		lines = append(lines,
			"",
			"Occupancy (-batch-lock sparse)",
			"  occ has one bit per bucket, set while the bucket is non-empty: linkHead",
			"  sets it before it links a bucket's first element and unlink clears it",
			"  after it unlinks the last, both under the bucket lock, so a batch walk",
			"  that skips the buckets whose bit is clear never misses a key that was",
			"  there for the whole walk; it visits only the non-empty buckets.",
		)
	}
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
