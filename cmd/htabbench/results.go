package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// results is go test -bench output, read with benchfmt: every measurement
// by benchmark name (without "Benchmark" and the GOMAXPROCS suffix) and
// unit (as the benchmark printed it), and the file configuration that the
// run recorded (date, commit, machine). Tables and charts ask it for
// summaries; what they ask for and it does not hold is remembered as
// missing, so that a report says which measurements it lacks instead of
// printing zeros.
type results struct {
	values  map[string]map[string][]float64
	names   []string // in the order of the input
	config  map[string]string
	missing []string
}

// readResults reads go test -bench output. Lines that are not results
// (test logs, PASS, ok) are skipped, as benchstat skips them; a malformed
// result line is an error that names its place.
func readResults(in io.Reader, fileName string) (*results, error) {
	r := &results{values: map[string]map[string][]float64{}, config: map[string]string{}}
	br := benchfmt.NewReader(in, fileName)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, c := range rec.Config {
				if _, ok := r.config[c.Key]; !ok && c.File {
					r.config[c.Key] = string(c.Value)
				}
			}
			name := benchName(rec.Name)
			units := r.values[name]
			if units == nil {
				units = map[string][]float64{}
				r.values[name] = units
				r.names = append(r.names, name)
			}
			// As the benchmark printed it: benchfmt tidies some units
			// ("ns/op" to "sec/op") and keeps the original beside.
			for _, v := range rec.Values {
				unit, val := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, val = v.OrigUnit, v.OrigValue
				}
				units[unit] = append(units[unit], val)
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// benchName is a result's name without its GOMAXPROCS suffix.
func benchName(n benchfmt.Name) string {
	base, parts := n.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		if p[0] != '-' {
			b.Write(p)
		}
	}
	return b.String()
}

// summary is the median of name's measurements in unit and its 95 %
// confidence interval (benchmath, no assumption about the distribution;
// with fewer than 6 runs the interval is unbounded). If there are none, it
// records the pair as missing and returns false.
func (r *results) summary(name, unit string) (benchmath.Summary, bool) {
	vals := r.values[name][unit]
	if len(vals) == 0 {
		key := name + " " + unit
		if !slices.Contains(r.missing, key) {
			r.missing = append(r.missing, key)
		}
		return benchmath.Summary{}, false
	}
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95), true
}

// median is summary's center, and NaN (which charts leave out) if missing.
func (r *results) median(name, unit string) float64 {
	s, ok := r.summary(name, unit)
	if !ok {
		return math.NaN()
	}
	return s.Center
}

// has reports whether any result's name starts with prefix, without
// recording anything as missing: a table asks it whether its benchmark ran
// at all.
func (r *results) has(prefix string) bool {
	for _, n := range r.names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// params lists, in the order of the input, the distinct values of key in
// the names that start with prefix: the sizes or fullnesses a run measured
// (a quick run measures fewer than a full one). A name holds key as a
// "/key=value" part.
func (r *results) params(prefix, key string) []string {
	var vals []string
	for _, n := range r.names {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		for _, part := range strings.Split(n, "/")[1:] {
			if v, ok := strings.CutPrefix(part, key+"="); ok && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// measuredAt is the sentence that says where and when the input was
// measured: date, commit and machine, as the run recorded them in its
// header (see writeHeader), and the CPU model that go test prints.
func (r *results) measuredAt() string {
	return "Measured " + r.where() + "."
}

// where is the date, commit and machine of the input.
func (r *results) where() string {
	get := func(k string) string {
		if v := r.config[k]; v != "" {
			return v
		}
		return "unknown"
	}
	return fmt.Sprintf("%s at commit %s on %s (%s cores, %s/%s, %s)",
		get("date"), get("commit"), strings.TrimSpace(get("cpu")), get("cores"), get("goos"), get("goarch"), get("go"))
}
