package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A cell measured for some hashes only is left out of the table, not a crash.
func TestPrintSeed000SkipsIncompleteCells(t *testing.T) {
	runs := map[cell][]float64{
		{4, 25, "Jhash"}:  {50e6, 52e6},
		{4, 25, "Jhash2"}: {51e6},
		{4, 25, "Static"}: {55e6, 54e6, 56e6},
		{8, 25, "Jhash"}:  {40e6}, // no Jhash2 or Static run
	}
	var out strings.Builder
	printSeed000(&out, runs)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 3, "header, rule and the one complete cell:\n%s", out.String())
	assert.Contains(t, lines[2], "| 4 | 25% | 51.00 | 51.00 | 55.00 |")
}
