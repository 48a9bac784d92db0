// Command htabbench turns `go test -bench` output into tables, side by side
// with the figures the kernel published for the same benchmark. It knows two:
//
//   - the kernel's bpf-hashmap-lookup benchmark, as the generated
//     Benchmark<Map>LookupByFullness of generated/hashbench runs it, beside
//     the gains of jhash2 over jhash in the commit message of "bpf: optimize
//     hashmap lookups when key_size is divisible by 4" (5b85575ad428);
//   - BM_DumpHashMap, as generated/batchbench runs it, beside the times
//     before and after "bpf: Do not grab the bucket spinlock by default on
//     htab batch ops".
//
// For example:
//
//	go test -run '^$' -bench LookupByFullness -count 5 ./generated/hashbench/ > lookup.txt
//	go run ./cmd/htabbench lookup.txt
//	go test -run '^$' -bench DumpHashMap -count 6 ./generated/batchbench/ > batch-dump-2026-11-30.txt
//	go run ./cmd/htabbench batch-dump-2026-11-30.txt
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

// jhash2Gain is the gain of jhash2 over jhash that the kernel change
// "bpf: optimize hashmap lookups when key_size is divisible by 4" published,
// in percent, by key size and fullness (25, 50, 75, 100 %).
var jhash2Gain = map[int][4]float64{
	4: {7.0, 3.1, 4.7, 3.0}, 8: {13.2, 10.0, 10.5, 10.8}, 12: {14.0, 13.1, 15.1, 11.6},
	16: {1.0, 0.7, 1.5, 2.5}, 20: {7.4, 7.7, 6.6, 6.7}, 24: {11.8, 11.5, 10.6, 9.4},
	28: {1.3, 1.2, 3.3, -0.1}, 32: {5.7, 3.4, 2.7, 3.3}, 64: {0.1, 1.0, 0.4, 2.4},
}

var fullness = []int{25, 50, 75, 100}

// lookupLine matches
// BenchmarkK8StaticLookupByFullness/fullness=25-2  N  ns/op  X lookups/s.
var lookupLine = regexp.MustCompile(`^BenchmarkK(\d+)(Jhash2|Jhash|Static)LookupByFullness/fullness=(\d+)\S*\s+\d+\s+\S+ ns/op\s+(\S+) lookups/s`)

type cell struct {
	key, full int
	hash      string
}

// dumpLine matches BenchmarkDumpHashMap/entries=1k/lock=sparse-2  N  ns/op.
var dumpLine = regexp.MustCompile(`^BenchmarkDumpHashMap/entries=(\w+)/lock=(\w+)\S*\s+\d+\s+(\S+) ns/op`)

type dumpCell struct{ entries, lock string }

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
	lookups, dumps, err := parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "htabbench:", err)
		os.Exit(1)
	}
	switch {
	case len(dumps) > 0:
		printDumpTable(os.Stdout, dumps)
	case len(lookups) > 0:
		printLookupTable(os.Stdout, lookups)
	default:
		fmt.Fprintln(os.Stderr, "htabbench: no LookupByFullness or DumpHashMap benchmark lines in the input")
		os.Exit(1)
	}
}

// parse collects every run of the two benchmarks from go test -bench output.
func parse(in io.Reader) (map[cell][]float64, map[dumpCell][]float64, error) {
	lookups := map[cell][]float64{}
	dumps := map[dumpCell][]float64{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if d := dumpLine.FindStringSubmatch(sc.Text()); d != nil {
			if v, err := strconv.ParseFloat(d[3], 64); err == nil {
				dumps[dumpCell{d[1], d[2]}] = append(dumps[dumpCell{d[1], d[2]}], v)
			}
			continue
		}
		m := lookupLine.FindStringSubmatch(sc.Text())
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
		lookups[c] = append(lookups[c], v)
	}
	return lookups, dumps, sc.Err()
}

// printLookupTable prints lookups per second of the three hashes and the
// static hash's gain over jhash, beside the kernel's published gain; the
// last column says whether static reaches it (n/a where the kernel's gain is
// under 3 %, inside its own noise).
func printLookupTable(w io.Writer, runs map[cell][]float64) {
	fmt.Fprintln(w, "| key | full | jhash M/s | jhash2 M/s | static M/s | jhash2 gain | static gain | kernel gain | static ≥ kernel |")
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
			kernel := jhash2Gain[k][fi]
			verdict := "n/a"
			if kernel >= 3 {
				verdict = "no"
				if 100*(st/j-1) >= kernel {
					verdict = "yes"
				}
			}
			fmt.Fprintf(w, "| %d | %d%% | %.2f | %.2f | %.2f | %+.1f%% | %+.1f%% | %+.1f%% | %s |\n",
				k, full, j/1e6, j2/1e6, st/1e6, 100*(j2/j-1), 100*(st/j-1), kernel, verdict)
		}
	}
}

// dumpHashMapKernel is BM_DumpHashMap's table in the commit message of
// "bpf: Do not grab the bucket spinlock by default on htab batch ops":
// Time(ns) before and after the change, by entries (the kernel's names; its
// 1000 is our 1k).
var dumpHashMapKernel = []struct {
	name, entries string
	before, after float64
}{
	{"1", "1", 2759655, 202707}, {"10", "10", 2933722, 213441}, {"200", "200", 3171680, 478641},
	{"500", "500", 3639607, 980061}, {"1000", "1k", 4369008, 1863835}, {"5k", "5k", 11171919, 8961836},
	{"20k", "20k", 69150080, 69761497}, {"39k", "39k", 190501036, 187437830},
}

// printDumpTable prints the dump times of the three -batch-lock modes beside
// the kernel's before and after.
func printDumpTable(w io.Writer, runs map[dumpCell][]float64) {
	fmt.Fprintln(w, "| Benchmark | kernel before (ns) | kernel after (ns) | kernel gain | always (ns) | nonempty (ns) | sparse (ns) | always/nonempty | always/sparse | nonempty/sparse |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range dumpHashMapKernel {
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
