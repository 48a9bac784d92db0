// Helpers the generator's tests share: the generated header, a first-difference
// report of two files, and a directory's listing.

package htabgen

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/spec"
)

var headerRE = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// firstDiff shows the first differing line of two files, with context.
func firstDiff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g || i >= len(wl) || i >= len(gl) {
			return fmt.Sprintf("first difference at line %d (want %d lines, got %d):\n-want: %q\n+got:  %q", i+1, len(wl), len(gl), w, g)
		}
	}
	return "(no difference)"
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// mapType is the map type that the -type flag's value s names.
func mapType(t *testing.T, s string) spec.MapType {
	t.Helper()
	typ, err := spec.ParseType(s)
	require.NoError(t, err)
	return typ
}
