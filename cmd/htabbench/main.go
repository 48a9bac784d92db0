// Command htabbench turns `go test -bench` output into the tables of the
// seeds, side by side with the published figures. It knows seed 000 and
// seed 003:
//
//	go test -run '^$' -bench LookupByFullness -count 5 ./generated/seed000/ > seed000.txt
//	go run ./cmd/htabbench seed000.txt
//	go test -run '^$' -bench DumpHashMap -count 6 ./generated/batchbench/ > batch-dump.txt
//	go run ./cmd/htabbench batch-dump.txt
//
// Each cell is the median of the runs; gains are ratios measured in one run.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/htabgen/htabgen/internal/stats"
)

// seed000Gain is the published gain of jhash2 over jhash (seed 000's table),
// by key size and fullness.
var seed000Gain = map[int][4]float64{
	4: {7.0, 3.1, 4.7, 3.0}, 8: {13.2, 10.0, 10.5, 10.8}, 12: {14.0, 13.1, 15.1, 11.6},
	16: {1.0, 0.7, 1.5, 2.5}, 20: {7.4, 7.7, 6.6, 6.7}, 24: {11.8, 11.5, 10.6, 9.4},
	28: {1.3, 1.2, 3.3, -0.1}, 32: {5.7, 3.4, 2.7, 3.3}, 64: {0.1, 1.0, 0.4, 2.4},
}

var fullness = []int{25, 50, 75, 100}

// benchLine matches BenchmarkK8StaticLookupByFullness/fullness=25-2  N  ns/op  X lookups/s
// (Seed000 was the benchmark's name before; bench/results keeps runs under it).
var benchLine = regexp.MustCompile(`^BenchmarkK(\d+)(Jhash2|Jhash|Static)(?:LookupByFullness|Seed000)/fullness=(\d+)\S*\s+\d+\s+\S+ ns/op\s+(\S+) lookups/s`)

type cell struct {
	key, full int
	hash      string
}

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "htabbench:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	runs := map[cell][]float64{}
	dumps := map[dumpCell][]float64{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if d := dumpLine.FindStringSubmatch(sc.Text()); d != nil {
			if v, err := strconv.ParseFloat(d[3], 64); err == nil {
				dumps[dumpCell{d[1], d[2]}] = append(dumps[dumpCell{d[1], d[2]}], v)
			}
			continue
		}
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key, _ := strconv.Atoi(m[1])
		full, _ := strconv.Atoi(m[3])
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			continue
		}
		c := cell{key, full, m[2]}
		runs[c] = append(runs[c], v)
	}
	if len(dumps) > 0 {
		printSeed003(os.Stdout, dumps)
		return
	}
	if len(runs) == 0 {
		fmt.Fprintln(os.Stderr, "htabbench: no LookupByFullness (seed 000) or DumpHashMap benchmark lines in the input")
		os.Exit(1)
	}
	printSeed000(os.Stdout, runs)
}

func printSeed000(w io.Writer, runs map[cell][]float64) {
	fmt.Fprintln(w, "| key | full | jhash M/s | jhash2 M/s | static M/s | jhash2 gain | static gain | seed gain | static ≥ seed |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
	keys := []int{4, 8, 12, 16, 20, 24, 28, 32, 64}
	for _, k := range keys {
		for fi, full := range fullness {
			j := stats.Median(runs[cell{k, full, "Jhash"}])
			j2 := stats.Median(runs[cell{k, full, "Jhash2"}])
			st := stats.Median(runs[cell{k, full, "Static"}])
			if j == 0 || j2 == 0 || st == 0 {
				continue
			}
			seed := seed000Gain[k][fi]
			verdict := "n/a"
			if seed >= 3 {
				verdict = "no"
				if 100*(st/j-1) >= seed {
					verdict = "yes"
				}
			}
			fmt.Fprintf(w, "| %d | %d%% | %.2f | %.2f | %.2f | %+.1f%% | %+.1f%% | %+.1f%% | %s |\n",
				k, full, j/1e6, j2/1e6, st/1e6, 100*(j2/j-1), 100*(st/j-1), seed, verdict)
		}
	}
}

// dumpLine matches BenchmarkDumpHashMap/entries=1k/lock=sparse-2  N  ns/op.
var dumpLine = regexp.MustCompile(`^BenchmarkDumpHashMap/entries=(\w+)/lock=(\w+)\S*\s+\d+\s+(\S+) ns/op`)

type dumpCell struct{ entries, lock string }

// seed003 is seed 003's BM_DumpHashMap table: Time(ns) before and after the
// fix, by entries (the seed's names; 1000 is our 1k).
var seed003 = []struct {
	name, entries string
	before, after float64
}{
	{"1", "1", 2759655, 202707}, {"10", "10", 2933722, 213441}, {"200", "200", 3171680, 478641},
	{"500", "500", 3639607, 980061}, {"1000", "1k", 4369008, 1863835}, {"5k", "5k", 11171919, 8961836},
	{"20k", "20k", 69150080, 69761497}, {"39k", "39k", 190501036, 187437830},
}

func printSeed003(w io.Writer, runs map[dumpCell][]float64) {
	fmt.Fprintln(w, "| Benchmark | kernel before (ns) | kernel after (ns) | kernel gain | always (ns) | nonempty (ns) | sparse (ns) | always/nonempty | always/sparse | nonempty/sparse |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range seed003 {
		a := stats.Median(runs[dumpCell{r.entries, "always"}])
		n := stats.Median(runs[dumpCell{r.entries, "nonempty"}])
		s := stats.Median(runs[dumpCell{r.entries, "sparse"}])
		if a == 0 || n == 0 || s == 0 {
			continue
		}
		fmt.Fprintf(w, "| BM_DumpHashMap/%s | %.0f | %.0f | %.1fx | %.0f | %.0f | %.0f | %.1fx | %.0fx | %.1fx |\n",
			r.name, r.before, r.after, r.before/r.after, a, n, s, a/n, a/s, n/s)
	}
}
