package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
)

// table is a Markdown table. Its first column is left-aligned, the others
// right-aligned: they hold numbers.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.header, " | "))
	rule := make([]string, len(t.header))
	for i := range rule {
		rule[i] = "---:"
	}
	rule[0] = "---"
	fmt.Fprintf(w, "|%s|\n", strings.Join(rule, "|"))
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

// missing is what a table cell says for a measurement the input lacks.
const missing = "missing"

// value formats a summary's center times scale with prec decimals, and its
// 95 % confidence interval as ±percent of the center where the sample was
// big enough to bound it (6 runs or more). A missing summary is "missing".
func value(s benchmath.Summary, ok bool, scale float64, prec int) string {
	if !ok {
		return missing
	}
	v := fmt.Sprintf("%.*f", prec, s.Center*scale)
	// benchmath warns where it cannot bound the interval (fewer than 6 runs).
	if len(s.Warnings) == 0 && !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) && s.Center != 0 {
		half := 100 * max(s.Hi-s.Center, s.Center-s.Lo) / math.Abs(s.Center)
		v += fmt.Sprintf(" ±%.0f%%", half)
	}
	return v
}

// plain formats x with prec decimals, and "missing" for NaN (what
// results.median returns for a missing measurement).
func plain(x float64, prec int) string {
	if math.IsNaN(x) {
		return missing
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// ratio formats a/b as "1.23x", and "missing" if either is.
func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return missing
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// gain formats a ratio in the kernel's words: "12 % faster" or "5 %
// slower"; r is new over old speed.
func gain(r float64) string {
	switch {
	case math.IsNaN(r):
		return missing
	case r >= 1:
		return fmt.Sprintf("%.0f %% faster", 100*(r-1))
	default:
		return fmt.Sprintf("%.0f %% slower", 100*(1-r))
	}
}

// percent formats a gain in percent with its sign, "+12.3%".
func percent(x float64) string {
	if math.IsNaN(x) {
		return missing
	}
	return fmt.Sprintf("%+.1f%%", x)
}
