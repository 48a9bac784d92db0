package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/htabgen/htabgen/internal/kernelfigures"
)

// Bloom filters: BenchmarkBloomLookups (generated/bloombench) is the
// kernel's bench_bloom_filter_map hashmap-with-bloom-filter benchmark: 2
// goroutines look up random keys (almost all absent) in a hash map as full
// as its capacity, with no filter, with a bloom filter map asked first (the
// kernel's pattern) and with the map's own filter (-bloom K), in
// alternating rounds.

func bloomName(hashes, entries string) string {
	return fmt.Sprintf("BloomLookups/hashes=%s/entries=%s", hashes, entries)
}

func writeBloom(w io.Writer, r *results) {
	fmt.Fprint(w, `Lookups with the filter against without, in the kernel's words, beside the gains the kernel published; "none" is the speed without a filter, million lookups per second of both goroutines.

`)
	t := table{header: []string{"hashes", "entries", "none (M/s)", "kernel pattern", "-bloom K front", "kernel (published)"}}
	for _, h := range numeric(r.params("BloomLookups/", "hashes")) {
		for _, n := range numeric(r.params("BloomLookups/hashes="+h+"/", "entries")) {
			name := bloomName(h, n)
			hi, _ := strconv.Atoi(h)
			ni, _ := strconv.Atoi(n)
			published := math.NaN()
			if g, ok := kernelfigures.BloomGain[hi][ni]; ok {
				published = 1 + g/100
			}
			s, ok := r.summary(name, "none-lookups/s")
			t.add(h, n, value(s, ok, 1e-6, 1), gain(r.median(name, "kernel/none")), gain(r.median(name, "front/none")), gain(published))
		}
	}
	t.write(w)
}

// chartBloom: the speed-up over no filter against entries, one tile per
// number of hash functions: the kernel's pattern, the map's own filter, and
// the kernel's published gain (dashed).
func chartBloom(r *results) ([]chart, error) {
	var plots []*plot.Plot
	for _, h := range numeric(r.params("BloomLookups/", "hashes")) {
		hi, _ := strconv.Atoi(h)
		kernel, front, published := series{name: "kernel pattern"}, series{name: "-bloom front"}, series{name: "kernel (published)", dashed: true}
		for _, n := range numeric(r.params("BloomLookups/hashes="+h+"/", "entries")) {
			x, _ := strconv.ParseFloat(n, 64)
			kernel.xy = append(kernel.xy, plotter.XY{X: x, Y: r.median(bloomName(h, n), "kernel/none")})
			front.xy = append(front.xy, plotter.XY{X: x, Y: r.median(bloomName(h, n), "front/none")})
			// The published 1305 % (8 hashes, 500k entries; its row
			// suggests 130.5) would flatten the tile: the table prints it.
			if g, ok := kernelfigures.BloomGain[hi][int(x)]; ok && g < 1000 {
				published.xy = append(published.xy, plotter.XY{X: x, Y: 1 + g/100})
			}
		}
		p, err := linePlot(axes{title: h + " hash functions", x: "entries", y: "speed-up over no filter", logX: true, yFromZero: true}, []series{kernel, front, published})
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	cols := min(len(plots), 5)
	rows := grid(plots, cols)
	return []chart{{name: "bloom-speedup", tiles: rows, width: legendWidth + vg.Length(cols)*3.2*vg.Inch, height: vg.Length(len(rows)) * 3 * vg.Inch}}, nil
}
