package main

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/htabgen/htabgen/internal/kernelfigures"
)

// Element size: BenchmarkEntryMemory (generated/elemsize) measures each
// map type generated lean (the default) and with every field
// (-lean=false): the element's size, and the heap a full map of 65536
// entries holds per entry, with 2 CPUs for the per-CPU and LRU maps.
// BenchmarkPeersMemory (generated/hash) is the same per-entry figure for a
// k8v8 map of each peer.

func memoryName(m, impl string) string { return fmt.Sprintf("EntryMemory/map=%s/impl=%s", m, impl) }

func writeMemory(w io.Writer, r *results) {
	fmt.Fprint(w, `Bytes per element and per entry, keys and values of 8 bytes. "kernel old/new" are the element sizes the kernel series published (LRU maps: unchanged, the element with its LRU node); htab's element is the generated struct (for LRU maps with its node), its entry everything a full map of 65536 holds over its entries.

`)
	t := table{header: []string{"map", "kernel old", "kernel new", "kernel saving", "htab all fields", "htab lean", "htab saving", "B/entry all fields", "B/entry lean"}}
	for _, e := range kernelfigures.ElemSizes {
		if !r.has("EntryMemory/map=" + e.Map + "/") {
			continue
		}
		fat, lean := r.median(memoryName(e.Map, "fat"), "B/elem"), r.median(memoryName(e.Map, "lean"), "B/elem")
		t.add(e.Label, fmt.Sprintf("%d B", e.Old), fmt.Sprintf("%d B", e.New), saving(float64(e.New), float64(e.Old)),
			byteSize(fat), byteSize(lean), saving(lean, fat),
			plain(r.median(memoryName(e.Map, "fat"), "B/entry"), 1), plain(r.median(memoryName(e.Map, "lean"), "B/entry"), 1))
	}
	t.write(w)
}

func byteSize(x float64) string {
	if math.IsNaN(x) {
		return missing
	}
	return fmt.Sprintf("%.0f B", x)
}

// saving is 1 - now/before, in percent.
func saving(now, before float64) string {
	if math.IsNaN(now) || math.IsNaN(before) || before == 0 {
		return missing
	}
	return fmt.Sprintf("%.1f%%", 100*(1-now/before))
}

// chartMemory: bytes per entry of each map type, lean against all fields,
// and of a k8v8 hash map of htab and of each peer.
func chartMemory(r *results) ([]chart, error) {
	var cats []string
	var fat, lean []float64
	for _, e := range kernelfigures.ElemSizes {
		if r.has("EntryMemory/map=" + e.Map + "/") {
			cats = append(cats, e.Map)
			fat = append(fat, r.median(memoryName(e.Map, "fat"), "B/entry"))
			lean = append(lean, r.median(memoryName(e.Map, "lean"), "B/entry"))
		}
	}
	var plots []*plot.Plot
	width := legendWidth
	if len(cats) > 0 {
		width += max(3*vg.Inch, vg.Length(len(cats))*0.8*vg.Inch)
		p, err := barPlot(axes{title: "htab map types (8-byte keys and values)", y: "bytes per entry"}, cats,
			[]barGroup{{"all fields (-lean=false)", fat}, {"lean", lean}})
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	impls := r.params("PeersMemory/", "impl")
	if len(impls) > 0 {
		width += max(3*vg.Inch, vg.Length(len(impls))*0.6*vg.Inch)
		vals := make([]float64, len(impls))
		for i, impl := range impls {
			vals[i] = r.median("PeersMemory/impl="+impl, "bytes/entry")
		}
		p, err := barPlot(axes{title: "k8v8 hash map, 65536 entries", y: "bytes per entry"}, impls, []barGroup{{"bytes per entry", vals}})
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	return []chart{{name: "bytes-per-entry", tiles: [][]*plot.Plot{plots}, width: width, height: 4 * vg.Inch}}, nil
}
