package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/htabgen/htabgen/internal/kernelfigures"
)

// The hash functions: BenchmarkPairedGain (generated/hashbench) runs the
// kernel's bpf-hashmap-lookup benchmark on maps generated with jhash,
// jhash2 and the static hash, with the builtin map, xsync and swiss over the
// same keys, in rotating rounds timed by thread CPU time.

// hashArms are the arms of BenchmarkPairedGain, as its units name them.
var hashArms = []string{"jhash", "jhash2", "static", "builtin", "xsync", "swiss"}

func hashingName(key, full string) string {
	return fmt.Sprintf("PairedGain/key=%s/fullness=%s", key, full)
}

// numeric sorts strings that hold integers by their value.
func numeric(vals []string) []string {
	slices.SortFunc(vals, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return vals
}

func writeHashing(w io.Writer, r *results) {
	fmt.Fprint(w, `Million lookups per second (hits, one goroutine, a map of 65536 entries filled to the fullness, keys of the kernel's benchmark), medians with their 95 % interval; the gains are medians of the per-round gains over jhash. "kernel" is the gain of jhash2 over jhash that the kernel change published.

`)
	t := table{header: []string{"key", "full", "jhash", "jhash2", "static", "builtin", "xsync", "swiss", "jhash2 gain", "static gain", "kernel jhash2 gain", "static / builtin", "static / swiss"}}
	for _, key := range numeric(r.params("PairedGain/", "key")) {
		for _, full := range numeric(r.params("PairedGain/key="+key+"/", "fullness")) {
			name := hashingName(key, full)
			row := []string{key, full + "%"}
			for _, arm := range hashArms {
				row = append(row, lookupsPerSecond(r, name, arm))
			}
			kernel := math.NaN()
			k, _ := strconv.Atoi(key)
			f, _ := strconv.Atoi(full)
			if i := slices.Index(kernelfigures.JhashFullness[:], f); i >= 0 {
				if g, ok := kernelfigures.Jhash2Gain[k]; ok {
					kernel = g[i]
				}
			}
			static := r.median(name, "static-ns/lookup")
			row = append(row, percent(r.median(name, "jhash2-gain-%")), percent(r.median(name, "static-gain-%")), percent(kernel),
				ratio(r.median(name, "builtin-ns/lookup"), static), ratio(r.median(name, "swiss-ns/lookup"), static))
			t.add(row...)
		}
	}
	t.write(w)
}

// lookupsPerSecond is an arm's speed in million lookups per second, from
// its ns per lookup: the interval's ends swap as they are inverted.
func lookupsPerSecond(r *results, name, arm string) string {
	s, ok := r.summary(name, arm+"-ns/lookup")
	if ok && s.Center > 0 {
		s.Center, s.Lo, s.Hi = 1e3/s.Center, 1e3/s.Hi, 1e3/s.Lo
	}
	return value(s, ok, 1, 1)
}

// chartHashing: million lookups per second against fullness, one tile per
// key size, a line per arm.
func chartHashing(r *results) ([]chart, error) {
	var plots []*plot.Plot
	for _, key := range numeric(r.params("PairedGain/", "key")) {
		fulls := numeric(r.params("PairedGain/key="+key+"/", "fullness"))
		var ss []series
		for _, arm := range hashArms {
			s := series{name: arm}
			for _, full := range fulls {
				f, _ := strconv.ParseFloat(full, 64)
				s.xy = append(s.xy, plotter.XY{X: f, Y: 1e3 / r.median(hashingName(key, full), arm+"-ns/lookup")})
			}
			ss = append(ss, s)
		}
		p, err := linePlot(axes{title: key + "-byte keys", x: "fullness (%)", y: "M lookups/s", yFromZero: true}, ss)
		if err != nil {
			return nil, err
		}
		var ticks plot.ConstantTicks
		for _, full := range fulls {
			f, _ := strconv.ParseFloat(full, 64)
			ticks = append(ticks, plot.Tick{Value: f, Label: full})
		}
		p.X.Tick.Marker = ticks
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, nil
	}
	rows := grid(plots, 3)
	return []chart{{name: "lookups-by-fullness", tiles: rows, width: legendWidth + vg.Length(len(rows[0]))*3*vg.Inch, height: vg.Length(len(rows)) * 3 * vg.Inch}}, nil
}
