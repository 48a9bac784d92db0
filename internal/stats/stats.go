// Package stats holds the small statistics that the benchmarks report: on a
// shared, noisy machine they give medians of repeated measurements, never
// means. (The htabbench report summarizes the benchmarks' output with
// golang.org/x/perf/benchmath.)
package stats

import "slices"

// Median is the median of xs, the mean of the two middle values when there
// is an even number of them, and 0 when xs is empty (a cell nothing measured).
// xs is left as it was.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
