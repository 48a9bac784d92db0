package htabgen

import (
	"go/build"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/spec"
)

// TestOutputsAreWhatGenerateWrites checks the registry of output files: the
// paths Outputs lists for a spec are the ones Generate returns, map first.
func TestOutputsAreWhatGenerateWrites(t *testing.T) {
	for _, tests := range []bool{false, true} {
		s := spec.Default()
		s.Type, s.Key, s.Val, s.Pkg, s.Out, s.Tests = spec.LRU, 8, 8, "p", "dir/conns_htab.go", tests
		files, err := Generate(s, "htabgen")
		require.NoError(t, err)
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		want := []Output{{"map", "dir/conns_htab.go"}}
		if tests {
			want = append(want, Output{"tests", "dir/conns_htab_test.go"})
		}
		assert.Equal(t, want, Outputs(s))
		var wantPaths []string
		for _, o := range want {
			wantPaths = append(wantPaths, o.Path)
		}
		assert.Equal(t, wantPaths, paths)
	}
}

// TestWriteFilesLeavesUnchangedFiles checks that a file whose content would
// not change is not written again (its modification time stays), while a
// changed one beside it is.
func TestWriteFilesLeavesUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	same, changed := filepath.Join(dir, "same.go"), filepath.Join(dir, "changed.go")
	require.NoError(t, WriteFiles([]File{{same, []byte("package p\n")}, {changed, []byte("package p\n")}}))
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{same, changed} {
		require.NoError(t, os.Chtimes(p, old, old))
	}
	require.NoError(t, WriteFiles([]File{{same, []byte("package p\n")}, {changed, []byte("package p // changed\n")}}))
	fi, err := os.Stat(same)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "an unchanged file was written again: mtime %v", fi.ModTime())
	fi, err = os.Stat(changed)
	require.NoError(t, err)
	assert.False(t, fi.ModTime().Equal(old), "a changed file kept its old mtime")
	got, err := os.ReadFile(changed)
	require.NoError(t, err)
	assert.Equal(t, "package p // changed\n", string(got))
	assert.ElementsMatch(t, []string{"same.go", "changed.go"}, dirNames(t, dir), "no temporary file left behind")
}

// TestAdapterKeepsBuildConstraint: the adapter's file is built exactly when
// the map's is, by Go's reading of file names.
func TestAdapterKeepsBuildConstraint(t *testing.T) {
	for out, want := range map[string]string{
		"conns_htab.go":             "conns_htab_ebpf.go",
		"gen/conns_test.go":         "gen/conns_ebpf_test.go",
		"conns_linux.go":            "conns_ebpf_linux.go",
		"conns_amd64.go":            "conns_ebpf_amd64.go",
		"conns_linux_arm64.go":      "conns_ebpf_linux_arm64.go",
		"conns_linux_arm64_test.go": "conns_ebpf_linux_arm64_test.go",
		"linux_amd64.go":            "linux_ebpf_amd64.go", // Go ignores what comes before the first _
		"linux.go":                  "linux_ebpf.go",
		"conns_unix.go":             "conns_unix_ebpf.go", // unix is a build tag, not a file name suffix
		"conns_.go":                 "conns__ebpf.go",
	} {
		got := insertBeforeBuildSuffix(out, "_ebpf")
		assert.Equal(t, want, got, out)
		for _, ctxt := range []build.Context{
			{GOOS: "linux", GOARCH: "amd64"}, {GOOS: "linux", GOARCH: "arm64"},
			{GOOS: "darwin", GOARCH: "arm64"}, {GOOS: "windows", GOARCH: "amd64"},
		} {
			ctxt.Compiler = "gc"
			ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("package p\n")), nil }
			mapBuilt, err := ctxt.MatchFile("", filepath.Base(out))
			require.NoError(t, err)
			adapterBuilt, err := ctxt.MatchFile("", filepath.Base(got))
			require.NoError(t, err)
			assert.Equal(t, mapBuilt, adapterBuilt, "%s and %s on %s/%s", out, got, ctxt.GOOS, ctxt.GOARCH)
		}
	}
}
