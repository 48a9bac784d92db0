// Command htabbench runs the benchmarks that reproduce the tables of the
// kernel changes htabgen is built on, and the comparisons with the maps a Go
// user would pick instead, and turns their output into one report: Markdown
// tables beside the kernel's published figures, and charts (PNG and SVG).
//
//	go run ./cmd/htabbench              # everything, about 25 minutes on 2 cores: bench/report/
//	go run ./cmd/htabbench -quick       # fewer sizes, short runs, under 2 minutes: bench/report-quick/
//	go run ./cmd/htabbench -from bench/report/raw.txt   # redraw the tables and charts from saved output
//	go run ./cmd/htabbench -suites scale,peers          # some suites only
//
// Each suite is a `go test -bench` run of one package of generated/ in a
// child process; its output is kept, unchanged, in the output directory's
// raw.txt, in the Go benchmark format, so that benchstat compares any two
// runs. The report reads it with golang.org/x/perf/benchfmt and summarizes
// each measurement as the median of its runs with a 95 % confidence
// interval (golang.org/x/perf/benchmath); the charts are drawn with
// gonum.org/v1/plot. The report names the date, commit and machine of the
// measurement, and lists every measurement it looked for and did not find;
// then htabbench exits with status 1.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A section of the report: what one suite's benchmarks show.
type section struct {
	suite, title, intro string
	write               func(io.Writer, *results)
	charts              func(*results) ([]chart, error)
	prefixes            []string // the benchmarks it reads, as result names start
}

var sections = []section{
	{
		suite: "hash-functions", title: "Hash functions: jhash, jhash2 and the static hash",
		intro: `The table of the kernel change "bpf: optimize hashmap lookups when key_size is divisible by 4" (commit 5b85575ad428), which made the kernel hash word-aligned keys with jhash2: its bpf-hashmap-lookup benchmark on maps generated with each hash (-hash jhash, jhash2, static; the classic layout, the kernel's), with the peers over the same keys.`,
		write: writeHashing, charts: chartHashing, prefixes: []string{"PairedGain/"},
	},
	{
		suite: "element-size", title: "Element size: lean elements",
		intro: `The table of the kernel series "bpf: htab: Reduce memory use of hash maps": no cached hash for keys of at most 8 bytes, no LRU or per-CPU fields where the map type does not use them.`,
		write: writeMemory, charts: chartMemory, prefixes: []string{"EntryMemory/"},
	},
	{
		suite: "batch-dump", title: "Batch dumps that skip empty buckets",
		intro: `The table of the kernel change "bpf: Do not grab the bucket spinlock by default on htab batch ops".`,
		write: writeDump, charts: chartDump, prefixes: []string{"DumpHashMap/"},
	},
	{
		suite: "bloom-filter", title: "Bloom filters in front of lookups",
		intro: `The table of the kernel change "bpf/benchs: Add benchmarks for comparing hashmap lookups with vs. without bloom filter".`,
		write: writeBloom, charts: chartBloom, prefixes: []string{"BloomLookups/"},
	},
	{
		suite: "peers", title: "Against the peers",
		intro: `A k8v8 map of 65536 entries: htab (the default home layout) and classic (the kernel's layout) against the builtin map, xsync.Map, cockroachdb/swiss and a map behind a sync.RWMutex.`,
		write: writePeers, prefixes: []string{"PeersLookup/", "PeersMixed/", "PeersMemory/"},
	},
	{
		suite: "lru", title: "LRU against golang-lru and otter",
		intro: `The LRU map (the kernel's LRU algorithm) against hashicorp/golang-lru (an exact LRU) and otter (not an LRU: its own admission and eviction policy), on a Zipf cache-aside load.`,
		write: writeLRU, prefixes: []string{"LRUSpeed/", "LRUHitRatio/"},
	},
	{
		suite: "scale", title: "Lookups at scale",
		intro: `k8v8 maps from 2^16 entries up, 25, 50 and 100 % full, in paired rounds of 2^20 lookups a map (hits, then misses), each pass after a read of 64 MiB that empties the cache: htab's two layouts, each in a loop of Lookup and through LookupBulk, the builtin map, swiss and xsync.`,
		write: writeScale, charts: chartScale, prefixes: []string{"Scale/"},
	},
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "htabbench:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("htabbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "fewer sizes and short runs (under 2 minutes on 2 cores): shows the pipeline works, not figures to quote")
	from := fs.String("from", "", "make the report from this saved output (go test -bench format) instead of running the benchmarks")
	out := fs.String("out", "", "directory for raw.txt, README.md (the report) and the charts (default bench/report, with -quick bench/report-quick, with -from the file's directory)")
	readme := fs.String("readme", "", "also write the kernel changes' tables and the charts into this Markdown file, between the lines "+readmeBegin+" and "+readmeEnd)
	only := fs.String("suites", "", "comma-separated suites to run or report (default all): "+suiteNames())
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: htabbench [-quick] [-from FILE] [-out DIR] [-suites LIST] [-readme FILE]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: the input is -from FILE", fs.Arg(0))}
	}
	if *quick && *from != "" {
		return usageError{errors.New("-quick runs the benchmarks and -from reads saved output: give one")}
	}
	if *quick && *readme != "" {
		return usageError{errors.New("-readme writes a full run's figures into the file: not with -quick")}
	}
	selected, err := selectSuites(*only)
	if err != nil {
		return usageError{err}
	}

	var raw []byte
	dir := *out
	if *from != "" {
		if raw, err = os.ReadFile(*from); err != nil {
			return err
		}
		if dir == "" {
			dir = filepath.Dir(*from)
		}
	} else {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		if dir == "" {
			dir = filepath.Join(root, "bench", "report")
			if *quick {
				dir = filepath.Join(root, "bench", "report-quick")
			}
		}
		if raw, err = runAndKeep(root, dir, selected, *quick, stderr); err != nil {
			return err
		}
	}

	r, err := readResults(bytes.NewReader(raw), *from)
	if err != nil {
		return err
	}
	if *readme != "" && r.config["htabbench"] != "full" {
		return fmt.Errorf("-readme %s: the input is not a full run (htabbench: %q): a README shows a full run's figures", *readme, r.config["htabbench"])
	}
	var report bytes.Buffer
	var charts []chart
	for _, s := range reportSections(selected) {
		c, err := writeSection(&report, r, s, "##", "")
		if err != nil {
			return err
		}
		charts = append(charts, c...)
	}
	if len(r.missing) > 0 {
		fmt.Fprintf(&report, "## Missing\n\nThese measurements were looked for and are not in the input:\n\n")
		for _, m := range r.missing {
			fmt.Fprintf(&report, "- %s\n", m)
		}
		fmt.Fprintln(&report)
	}
	doc := append([]byte(reportHeader(r, args)), report.Bytes()...)
	if _, err := stdout.Write(doc); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "README.md"), doc); err != nil {
		return err
	}
	paths, err := writeCharts(dir, charts)
	if err != nil {
		return err
	}
	if *readme != "" {
		if err := writeReadme(*readme, dir, r, reportSections(selected), args); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "htabbench: wrote %s, and charts as PNG and SVG: %d files\n", filepath.Join(dir, "README.md"), len(paths))
	if len(r.missing) > 0 {
		return fmt.Errorf("measurements missing from the input: %d (listed at the end of the report)", len(r.missing))
	}
	return nil
}

// runAndKeep runs the suites and keeps their output as dir/raw.txt. While
// they run it is dir/raw.txt.partial: a failed run leaves the last complete
// raw.txt as it was.
func runAndKeep(root, dir string, run []suite, quick bool, progress io.Writer) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	partial := filepath.Join(dir, "raw.txt.partial")
	f, err := os.Create(partial)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := io.MultiWriter(f, &buf)
	mode := "full"
	if quick {
		mode = "quick"
	}
	err = writeHeader(w, root, mode)
	if err == nil {
		err = runSuites(root, run, quick, w, progress)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w\n(the output so far is in %s)", err, partial)
	}
	return buf.Bytes(), os.Rename(partial, filepath.Join(dir, "raw.txt"))
}

// reportSections are the sections of the selected suites.
func reportSections(selected []suite) []section {
	var out []section
	for _, s := range sections {
		for _, sel := range selected {
			if sel.name == s.suite {
				out = append(out, s)
			}
		}
	}
	return out
}

// writeSection writes one section: its title (a heading of level
// heading), what it reproduces, the command that measured it, then its
// tables and its charts (at imgDir/name.svg), or, if the input has none of
// its benchmarks, a line that says so (and the benchmarks count as
// missing).
func writeSection(w io.Writer, r *results, s section, heading, imgDir string) ([]chart, error) {
	fmt.Fprintf(w, "%s %s\n\n%s\n\n", heading, s.title, s.intro)
	for _, su := range suites {
		if su.name == s.suite {
			runs := su.full
			if r.config["htabbench"] == "quick" {
				runs = su.quick
			}
			var cmds []string
			for _, a := range runs {
				cmds = append(cmds, "`"+commandLine(su.pkg, a)+"`")
			}
			fmt.Fprintf(w, "Measured with %s, %s.\n\n", strings.Join(cmds, " and "), r.where())
		}
	}
	found := false
	for _, p := range s.prefixes {
		found = found || r.has(p)
	}
	if !found {
		fmt.Fprintf(w, "Not in the input: none of %s.\n\n", strings.Join(s.prefixes, ", "))
		for _, p := range s.prefixes {
			r.summary(strings.TrimSuffix(p, "/"), "(any)")
		}
		return nil, nil
	}
	s.write(w, r)
	if s.charts == nil {
		return nil, nil
	}
	charts, err := s.charts(r)
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		fmt.Fprintf(w, "![%s](%s.svg)\n\n", s.title, path.Join(imgDir, c.name))
	}
	return charts, nil
}

// The lines that enclose the results htabbench -readme writes into a file.
const (
	readmeBegin = "<!-- htabbench results -->"
	readmeEnd   = "<!-- end htabbench results -->"
)

// readmeSections are the sections -readme copies: the kernel changes'
// tables, and the ratios and chart of lookups at scale.
var readmeSections = []string{"hash-functions", "element-size", "batch-dump", "bloom-filter", "scale"}

// writeReadme replaces what lies between readmeBegin and readmeEnd in the
// file with the report's kernel sections, their charts linked from dir,
// and a link to the whole report. The file must hold both lines.
func writeReadme(file, dir string, r *results, selected []section, args []string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	before, rest, ok1 := bytes.Cut(doc, []byte(readmeBegin))
	_, after, ok2 := bytes.Cut(rest, []byte(readmeEnd))
	if !ok1 || !ok2 {
		return fmt.Errorf("-readme %s: the file must hold the lines %s and %s, in that order, around the place for the results", file, readmeBegin, readmeEnd)
	}
	absFile, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(absFile), absDir)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\n%s Written by `%s`; every table, with the peers', is in [%s](%s).\n\n",
		readmeBegin, r.measuredAt(), commandOf(args), path.Join(rel, "README.md"), path.Join(rel, "README.md"))
	for _, s := range selected {
		if !slices.Contains(readmeSections, s.suite) {
			continue
		}
		if s.suite == "scale" { // its tables are wide: the ratios and the chart
			fmt.Fprintf(&b, "### %s\n\n%s\n\n", s.title, s.intro)
			writeScaleRatios(&b, r)
			fmt.Fprintf(&b, "![%s](%s.svg)\n\n", s.title, path.Join(rel, "lookups-by-size"))
			continue
		}
		if _, err := writeSection(&b, r, s, "###", rel); err != nil {
			return err
		}
	}
	b.WriteString(readmeEnd)
	return writeFileAtomic(file, slices.Concat(before, b.Bytes(), after))
}

// reportHeader is the report's title, where and when it was measured, and
// the command that made it.
func reportHeader(r *results, args []string) string {
	cmd := commandOf(args)
	mode := ""
	if r.config["htabbench"] == "quick" {
		mode = "\n\nA -quick run: fewer sizes and short runs, to show the pipeline works; not figures to quote."
	}
	return fmt.Sprintf("# htabgen benchmark report\n\n%s Written by `%s`; the raw output, in the Go benchmark format (benchstat reads it), is raw.txt.%s\n\n",
		r.measuredAt(), cmd, mode)
}

// commandLine is the shell command of one form of a suite: its
// environment, then go test with its arguments quoted where a shell needs it.
func commandLine(pkg string, a runArgs) string {
	parts := append([]string{}, a.env...)
	parts = append(parts, "go")
	for _, arg := range goTestArgs(pkg, a) {
		if strings.ContainsAny(arg, "^$|()*") {
			arg = "'" + arg + "'"
		}
		parts = append(parts, arg)
	}
	return strings.Join(parts, " ")
}

// commandOf is the command line htabbench ran with.
func commandOf(args []string) string {
	return strings.Join(append([]string{"go run ./cmd/htabbench"}, args...), " ")
}

func suiteNames() string {
	var names []string
	for _, s := range suites {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}
