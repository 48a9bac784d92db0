package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cell measured for some hashes only is left out of the table, not a crash.
func TestPrintLookupTableSkipsIncompleteCells(t *testing.T) {
	runs := map[cell][]float64{
		{4, 25, "Jhash"}:  {50e6, 52e6},
		{4, 25, "Jhash2"}: {51e6},
		{4, 25, "Static"}: {55e6, 54e6, 56e6},
		{8, 25, "Jhash"}:  {40e6}, // no Jhash2 or Static run
	}
	var out strings.Builder
	printLookupTable(&out, runs)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 3, "header, rule and the one complete cell:\n%s", out.String())
	assert.Contains(t, lines[2], "| 4 | 25% | 51.00 | 51.00 | 55.00 |")
}

// parse reads the generated lookup benchmark's lines (by the name
// templates/tests.go gives it) and batchbench's dump lines, and nothing else.
func TestParse(t *testing.T) {
	const out = `goos: linux
goarch: amd64
pkg: github.com/htabgen/htabgen/generated/hashbench
BenchmarkK4JhashLookupByFullness/fullness=25-2         	  100	  16021 ns/op	  62416000 lookups/s
BenchmarkK4StaticLookupByFullness/fullness=25-2        	  100	  15000 ns/op	  66000000 lookups/s
BenchmarkK4StaticLookupByFullness/fullness=25-2        	  100	  15000 ns/op	  68000000 lookups/s
BenchmarkK4StaticOther/fullness=25-2                   	  100	  15000 ns/op	  99000000 lookups/s
BenchmarkDumpHashMap/entries=1k/lock=sparse-2          	  200	  57200 ns/op
PASS
`
	lookups, dumps, err := parse(strings.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, map[cell][]float64{
		{4, 25, "Jhash"}:  {62416000},
		{4, 25, "Static"}: {66000000, 68000000},
	}, lookups)
	assert.Equal(t, map[dumpCell][]float64{{"1k", "sparse"}: {57200}}, dumps)
}
