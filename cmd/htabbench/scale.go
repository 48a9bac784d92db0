package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Lookups at scale: BenchmarkScale (generated/hash) fills k8v8 maps of 2^16
// entries and up to 25, 50 and 100 % and times hits and misses in random order,
// every map in each round: htab's two layouts (home, the default, and
// classic), each also through LookupBulk (-bulk), the builtin map, swiss
// and xsync. Its units are "<map>-hit-ns", "<map>-miss-ns" and, per map,
// bytes per entry, fill time and the time of one runtime.GC() with the map
// live; the ratios ("home/builtin-hit") are medians of each round's ratio.

var scaleMaps = []string{"home", "home-bulk", "classic", "classic-bulk", "builtin", "swiss", "xsync"}

// scaleStorage are the maps that hold entries (the -bulk arms read the
// same maps).
var scaleStorage = []string{"home", "classic", "builtin", "swiss", "xsync"}

func scaleName(entries, full string) string {
	return fmt.Sprintf("Scale/entries=%s/full=%s", entries, full)
}

// scaleRows is each (entries, full) of the input, smallest map first.
func scaleRows(r *results) [][2]string {
	var rows [][2]string
	entries := r.params("Scale/", "entries")
	// "2^16": sort by the exponent.
	exps := make([]string, len(entries))
	for i, e := range entries {
		exps[i] = strings.TrimPrefix(e, "2^")
	}
	for _, e := range numeric(exps) {
		for _, f := range numeric(r.params("Scale/entries=2^"+e+"/", "full")) {
			rows = append(rows, [2]string{"2^" + e, f})
		}
	}
	return rows
}

func writeScale(w io.Writer, r *results) {
	rows := scaleRows(r)
	for _, probe := range []string{"hit", "miss"} {
		fmt.Fprintf(w, "Lookups that %s, ns per lookup (medians over the rounds), and the ratios of throughput (medians of each round's ratio).\n\n",
			map[string]string{"hit": "find their key", "miss": "do not find their key"}[probe])
		t := table{header: append(append([]string{"entries", "full"}, scaleMaps...), "home / builtin", "home / swiss", "home-bulk / home", "classic-bulk / classic")}
		for _, row := range rows {
			name := scaleName(row[0], row[1])
			cells := []string{row[0], row[1] + "%"}
			for _, m := range scaleMaps {
				cells = append(cells, plain(r.median(name, m+"-"+probe+"-ns"), 1))
			}
			for _, u := range []string{"home/builtin", "home/swiss", "home-bulk/single", "classic-bulk/single"} {
				cells = append(cells, ratio(r.median(name, u+"-"+probe), 1)) // already a ratio
			}
			t.add(cells...)
		}
		t.write(w)
	}
	fmt.Fprint(w, "Bytes per entry held, fill time (ns per insert) and the time of one runtime.GC() with the map live (µs), per map.\n\n")
	header := []string{"entries", "full"}
	for _, m := range scaleStorage {
		header = append(header, m+" B/entry")
	}
	for _, m := range scaleStorage {
		header = append(header, m+" fill ns")
	}
	for _, m := range scaleStorage {
		header = append(header, m+" GC µs")
	}
	t := table{header: header}
	for _, row := range rows {
		name := scaleName(row[0], row[1])
		cells := []string{row[0], row[1] + "%"}
		for _, u := range []struct {
			unit string
			prec int
		}{{"B/entry", 1}, {"fill-ns/insert", 0}, {"gc-µs", 0}} {
			for _, m := range scaleStorage {
				cells = append(cells, plain(r.median(name, m+"-"+u.unit), u.prec))
			}
		}
		t.add(cells...)
	}
	t.write(w)
}

// writeScaleRatios is the README's table of lookups at scale: the home
// layout's ratios only, hits and misses side by side (the report's tables
// have every map's times).
func writeScaleRatios(w io.Writer, r *results) {
	fmt.Fprint(w, "The home layout's throughput over the builtin map's and swiss's, and LookupBulk's over a loop of Lookup (medians of each round's ratio):\n\n")
	t := table{header: []string{"entries", "full", "hits / builtin", "hits / swiss", "hits, bulk / loop", "misses / builtin", "misses / swiss", "misses, bulk / loop"}}
	for _, row := range scaleRows(r) {
		name := scaleName(row[0], row[1])
		cells := []string{row[0], row[1] + "%"}
		for _, probe := range []string{"hit", "miss"} {
			for _, u := range []string{"home/builtin", "home/swiss", "home-bulk/single"} {
				cells = append(cells, ratio(r.median(name, u+"-"+probe), 1))
			}
		}
		t.add(cells...)
	}
	t.write(w)
}

// chartScale: ns per lookup against the map's size, hits and misses at 50
// and 100 % full, a line per map.
func chartScale(r *results) ([]chart, error) {
	rows := scaleRows(r)
	if len(rows) == 0 {
		return nil, nil
	}
	var plots []*plot.Plot
	for _, probe := range []struct{ unit, title string }{{"hit", "hits"}, {"miss", "misses"}} {
		for _, full := range numeric(r.params("Scale/", "full")) {
			var ss []series
			for _, m := range scaleMaps {
				s := series{name: m}
				for _, row := range rows {
					if row[1] != full {
						continue
					}
					exp, _ := strconv.Atoi(strings.TrimPrefix(row[0], "2^"))
					s.xy = append(s.xy, plotter.XY{X: math.Exp2(float64(exp)), Y: r.median(scaleName(row[0], full), m+"-"+probe.unit+"-ns")})
				}
				ss = append(ss, s)
			}
			p, err := linePlot(axes{title: fmt.Sprintf("%s, %s%% full", probe.title, full), x: "entries (max)", y: "ns per lookup", powTwoX: true, yFromZero: true}, ss)
			if err != nil {
				return nil, err
			}
			plots = append(plots, p)
		}
	}
	cols := len(r.params("Scale/", "full"))
	tiles := grid(plots, cols)
	return []chart{{name: "lookups-by-size", tiles: tiles, width: legendWidth + vg.Length(cols)*4.5*vg.Inch, height: vg.Length(len(tiles)) * 3.5 * vg.Inch}}, nil
}
