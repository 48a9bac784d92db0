package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden.md from the fixture")

// fixture is go test -bench output of every suite, recorded from a -quick
// run and cut down to a few cells of each benchmark.
const fixture = "testdata/fixture.txt"

// charts are the files a full input draws.
var charts = []string{"lookups-by-fullness", "bytes-per-entry", "batch-dump", "bloom-speedup", "lookups-by-size"}

// report runs htabbench -from input into a new directory and returns the
// report, the directory and run's error.
func report(t *testing.T, input string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"-from", input, "-out", dir}, &stdout, &stderr)
	return stdout.String(), dir, err
}

// The report of the fixture is the golden one: every table, every cell.
func TestReportGolden(t *testing.T) {
	got, dir, err := report(t, fixture)
	require.NoError(t, err, "the fixture holds every measurement the tables ask for")
	got = strings.ReplaceAll(got, dir, "OUT")
	file, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, got, strings.ReplaceAll(string(file), dir, "OUT"), "README.md is what was printed")
	golden := filepath.Join("testdata", "report.golden.md")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "go test ./cmd/htabbench -update rewrites the golden file")
	for _, section := range sections {
		assert.Contains(t, got, "## "+section.title)
	}
	assert.NotContains(t, got, missing)
	assert.Contains(t, got, "Measured 2026-12-02", "the date the fixture was recorded")
	assert.Contains(t, got, "Oxide Virtual Turin-like Processor (2 cores", "the machine")
}

// Every chart is written as a PNG that decodes and an SVG that is XML.
func TestChartsAreValid(t *testing.T) {
	_, dir, err := report(t, fixture)
	require.NoError(t, err)
	for _, name := range charts {
		f, err := os.Open(filepath.Join(dir, name+".png"))
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, name+".png")
		assert.Greater(t, img.Bounds().Dx(), 300, name+".png")

		svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		require.NoError(t, err)
		d := xml.NewDecoder(bytes.NewReader(svg))
		var root string
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, name+".svg")
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		assert.Equal(t, "svg", root, name+".svg")
	}
}

// A measurement the fixture lacks is reported as missing, in its cell and
// in the list at the end, and makes htabbench fail; it is never a zero.
func TestMissingIsReported(t *testing.T) {
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	var kept []string
	dropped := 0
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "BenchmarkDumpHashMap/entries=1k/lock=sparse") {
			dropped++
			continue
		}
		kept = append(kept, line)
	}
	require.NotZero(t, dropped, "the fixture has the lines this test drops")
	input := filepath.Join(t.TempDir(), "input.txt")
	require.NoError(t, os.WriteFile(input, []byte(strings.Join(kept, "\n")), 0o644))

	got, _, err := report(t, input)
	require.ErrorContains(t, err, "measurements missing from the input: 1 ")
	assert.Contains(t, got, "- DumpHashMap/entries=1k/lock=sparse ns/op")
	var row string
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "| 1000 |") {
			row = line
		}
	}
	cells := strings.Split(strings.Trim(row, "| "), " | ")
	require.Len(t, cells, 9, row)
	assert.Equal(t, missing, cells[6], "the sparse cell: %s", row)
	assert.Equal(t, missing, cells[8], "always / sparse: %s", row)
	assert.NotEqual(t, missing, cells[5], "nonempty is there: %s", row)
}

// A benchmark that is not in the input at all makes its section say so.
func TestAbsentSectionIsReported(t *testing.T) {
	input := filepath.Join(t.TempDir(), "input.txt")
	require.NoError(t, os.WriteFile(input, []byte("goos: linux\nBenchmarkDumpHashMap/entries=1/lock=always-2 1 100 ns/op\n"), 0o644))
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"-from", input, "-out", dir, "-suites", "batch-dump,scale"}, &stdout, &stderr)
	require.ErrorContains(t, err, "missing")
	assert.Contains(t, stdout.String(), "Not in the input: none of Scale/.")
	assert.Contains(t, stdout.String(), "| 1 | 2759655 | 202707 | 13.6x | 100 | missing | missing |")
	assert.NotContains(t, stdout.String(), "## Hash functions", "sections of other suites are left out")
}

func TestBadInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-suites", "scale,nope"}, `no suite "nope" (there are hash-functions, element-size, batch-dump, bloom-filter, peers, lru, scale)`},
		{[]string{"-quick", "-from", fixture}, "give one"},
		{[]string{"-quick", "-readme", "README.md"}, "not with -quick"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"-from", filepath.Join(dir, "none.txt")}, "no such file"},
	} {
		err := run(tt.args, &stdout, &stderr)
		assert.ErrorContains(t, err, tt.want, "%v", tt.args)
	}
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("BenchmarkX-2 notanumber 5 ns/op\n"), 0o644))
	err := run([]string{"-from", bad, "-out", dir}, &stdout, &stderr)
	require.ErrorContains(t, err, "bad.txt:1", "a malformed result names its line")
	_, err = os.Stat(filepath.Join(dir, "README.md"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written from bad input")
}

// A cell shows the 95 % interval only where benchmath can bound it: 6 runs
// or more. Lookups per second come from ns per lookup, inverted, interval
// and all.
func TestIntervals(t *testing.T) {
	r, err := readResults(strings.NewReader(`BenchmarkPairedGain/key=8/fullness=25-2 1 0 ns/op 20 jhash-ns/lookup
BenchmarkPairedGain/key=8/fullness=25-2 1 0 ns/op 25 jhash-ns/lookup
`+strings.Repeat("BenchmarkPairedGain/key=8/fullness=50-2 1 0 ns/op 20 jhash-ns/lookup\n", 5)+
		"BenchmarkPairedGain/key=8/fullness=50-2 1 0 ns/op 40 jhash-ns/lookup\n"), "in")
	require.NoError(t, err)
	assert.Equal(t, "44.4", lookupsPerSecond(r, "PairedGain/key=8/fullness=25", "jhash"), "2 runs: the median, no interval")
	// 6 runs of 20, 20, 20, 20, 20, 40 ns: median 20 ns (50 M/s); the
	// interval is the runs' range, 25 to 50 M/s: 50 % below the median.
	assert.Equal(t, "50.0 ±50%", lookupsPerSecond(r, "PairedGain/key=8/fullness=50", "jhash"))
	assert.Empty(t, r.missing)
	assert.Equal(t, missing, lookupsPerSecond(r, "PairedGain/key=8/fullness=75", "jhash"))
	assert.Equal(t, []string{"PairedGain/key=8/fullness=75 jhash-ns/lookup"}, r.missing)
}

// -readme rewrites the block between its two lines and nothing else, with
// the charts' paths relative to the file; the same input twice gives the
// same file. A quick run's figures are refused, and so is a file without the
// block, which is left as it was.
func TestReadme(t *testing.T) {
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	full := filepath.Join(t.TempDir(), "full.txt")
	require.NoError(t, os.WriteFile(full, bytes.Replace(raw, []byte("htabbench: quick"), []byte("htabbench: full"), 1), 0o644))

	dir := t.TempDir()
	out := filepath.Join(dir, "bench", "report")
	readme := filepath.Join(dir, "README.md")
	const before, after = "# Title\n\nintro\n\n", "\n\n## Next\n\ntext\n"
	require.NoError(t, os.WriteFile(readme, []byte(before+readmeBegin+"\nold figures\n"+readmeEnd+after), 0o644))
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"-from", full, "-out", out, "-readme", readme}, &stdout, &stderr))
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	doc := string(got)
	assert.True(t, strings.HasPrefix(doc, before+readmeBegin), doc[:100])
	assert.True(t, strings.HasSuffix(doc, readmeEnd+after))
	assert.NotContains(t, doc, "old figures")
	assert.Contains(t, doc, "### Batch dumps that skip empty buckets")
	assert.Contains(t, doc, "| 1000 | 4369008 | 1863835 | 2.3x |")
	assert.Contains(t, doc, "| 2^16 | 100% | 0.85x | 0.61x | 1.45x | 0.54x | 0.49x | 1.47x |", "the home layout's ratios at scale")
	assert.Contains(t, doc, "![Lookups at scale](bench/report/lookups-by-size.svg)")
	assert.Contains(t, doc, "[bench/report/README.md](bench/report/README.md)")
	assert.NotContains(t, doc, "## Against the peers", "the peers' tables stay in the report")

	require.NoError(t, run([]string{"-from", full, "-out", out, "-readme", readme}, &stdout, &stderr))
	again, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, doc, string(again))

	assert.ErrorContains(t, run([]string{"-from", fixture, "-out", out, "-readme", readme}, &stdout, &stderr), "not a full run")
	plain := filepath.Join(dir, "PLAIN.md")
	require.NoError(t, os.WriteFile(plain, []byte("no block\n"), 0o644))
	assert.ErrorContains(t, run([]string{"-from", full, "-out", out, "-readme", plain}, &stdout, &stderr), "must hold the lines")
	left, err := os.ReadFile(plain)
	require.NoError(t, err)
	assert.Equal(t, "no block\n", string(left))
}
