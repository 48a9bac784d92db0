package main

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/htabgen/htabgen/internal/kernelfigures"
)

// Batch dumps: BenchmarkDumpHashMap (generated/batchbench) is the kernel's
// BM_DumpHashMap, a dump with batch lookups of a map of 50k holding 1 to
// 39k entries, for each -batch-lock mode: always (lock every bucket, the
// kernel before the change), nonempty (lock the buckets that hold entries,
// the kernel after) and sparse (find them without reading every bucket).

var dumpLocks = []string{"always", "nonempty", "sparse"}

func dumpName(entries, lock string) string {
	return fmt.Sprintf("DumpHashMap/entries=%s/lock=%s", entries, lock)
}

func writeDump(w io.Writer, r *results) {
	fmt.Fprint(w, `Time to dump the map, ns (medians with their 95 % interval), beside BM_DumpHashMap before and after the kernel change.

`)
	t := table{header: []string{"entries", "kernel before", "kernel after", "kernel gain", "always", "nonempty", "sparse", "always / nonempty", "always / sparse"}}
	for _, k := range kernelfigures.DumpHashMaps {
		if !r.has("DumpHashMap/entries=" + k.Entries + "/") {
			continue
		}
		row := []string{k.Kernel, fmt.Sprintf("%.0f", k.Before), fmt.Sprintf("%.0f", k.After), fmt.Sprintf("%.1fx", k.Before/k.After)}
		for _, lock := range dumpLocks {
			s, ok := r.summary(dumpName(k.Entries, lock), "ns/op")
			row = append(row, value(s, ok, 1, 0))
		}
		always := r.median(dumpName(k.Entries, "always"), "ns/op")
		row = append(row, ratio(always, r.median(dumpName(k.Entries, "nonempty"), "ns/op")), ratio(always, r.median(dumpName(k.Entries, "sparse"), "ns/op")))
		t.add(row...)
	}
	t.write(w)
}

// chartDump: dump time against the entries held, log-log, each lock mode
// and the kernel's two published lines (dashed).
func chartDump(r *results) ([]chart, error) {
	var ss []series
	for _, lock := range dumpLocks {
		s := series{name: "htab " + lock}
		for _, k := range kernelfigures.DumpHashMaps {
			if r.has("DumpHashMap/entries=" + k.Entries + "/") {
				s.xy = append(s.xy, plotter.XY{X: float64(k.N), Y: r.median(dumpName(k.Entries, lock), "ns/op") / 1e3})
			}
		}
		ss = append(ss, s)
	}
	if len(finite(ss[0].xy, true, true)) == 0 {
		return nil, nil
	}
	before, after := series{name: "kernel before (published)", dashed: true}, series{name: "kernel after (published)", dashed: true}
	for _, k := range kernelfigures.DumpHashMaps {
		before.xy = append(before.xy, plotter.XY{X: float64(k.N), Y: k.Before / 1e3})
		after.xy = append(after.xy, plotter.XY{X: float64(k.N), Y: k.After / 1e3})
	}
	ss = append(ss, before, after)
	p, err := linePlot(axes{title: "Dumping a map of 50k with batch lookups", x: "entries held", y: "µs per dump", logX: true, logY: true}, ss)
	if err != nil {
		return nil, err
	}
	return []chart{{name: "batch-dump", tiles: [][]*plot.Plot{{p}}, width: legendWidth + 5*vg.Inch, height: 4 * vg.Inch}}, nil
}
