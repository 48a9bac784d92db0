// The example consumer module, examples/, end to end: its go:generate lines
// make its checked-in files, and it vets, tests and benchmarks, offline.

package htabgen

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/internal/tempmodule"
)

// examplesReplace is the line of examples/go.mod that takes htabgen from the
// checkout around it.
var examplesReplace = regexp.MustCompile(`(?m)^replace github\.com/htabgen/htabgen => \.\./$`)

// TestExamples copies the examples module, as checked in (generated files
// included), into a temporary directory, with the BPF object its -elf line
// reads at the same place relative to it, and points its replace directive at
// this checkout. There, offline:
//
//   - go generate ./... over the checked-in files, as a user regenerates,
//     must leave every generated file as it is checked in and make no other;
//   - with the generated files deleted, go generate ./... must make them all
//     again, the same: none is left over from a line that is gone;
//   - go.mod and go.sum must be tidy (go mod tidy -diff), and go vet ./...,
//     go test ./... (bpfagent's tests also against the kernel's maps where
//     BPF is available; HTAB_REQUIRE_KERNEL, passed through, makes them fail
//     instead of skipping) and every benchmark once must pass.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the examples module (go generate, vet, test and benchmarks in a temporary copy)")
	}
	requireModuleCache(t)
	start := time.Now()
	root := tempmodule.Root(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "examples")
	copyTree(t, filepath.Join(root, "examples"), dir)
	object := filepath.Join("testdata", "bpf", "maps.o")
	require.NoError(t, os.MkdirAll(filepath.Join(tmp, filepath.Dir(object)), 0o755))
	data, err := os.ReadFile(filepath.Join(root, object))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, object), data, 0o644))

	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	require.Regexp(t, examplesReplace, string(gomod), "examples/go.mod takes htabgen from ../")
	gomod = examplesReplace.ReplaceAll(gomod, []byte("replace github.com/htabgen/htabgen => "+root))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644))

	checkedIn := generatedIn(t, dir)
	paths := slices.Sorted(maps.Keys(checkedIn))
	for _, pkg := range []string{"flows", "conntrack", "counters", "bpfagent"} {
		require.True(t, slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, pkg+"/") }),
			"examples/%s has no checked-in generated file", pkg)
	}

	// -mod=readonly: the checked-in go.mod and go.sum must do, as they are.
	goCmd := tempmodule.Go(t, dir, "GOFLAGS=-mod=readonly")
	compare := func(when string) {
		t.Helper()
		got := generatedIn(t, dir)
		for _, path := range slices.Sorted(maps.Keys(got)) {
			if _, ok := checkedIn[path]; !ok {
				t.Errorf("%s: go generate makes examples/%s, which is not checked in", when, path)
			}
		}
		for _, path := range paths {
			want := checkedIn[path]
			switch g, ok := got[path]; {
			case !ok:
				t.Errorf("%s: examples/%s is checked in, but no go:generate line makes it", when, path)
			case !bytes.Equal(g, want):
				t.Errorf("%s: examples/%s is stale: run `go generate ./...` in examples/\n%s", when, path, firstDiff(want, g))
			}
		}
	}
	goCmd(nil, "generate", "./...")
	compare("go generate over the checked-in files")
	for path := range checkedIn {
		require.NoError(t, os.Remove(filepath.Join(dir, path)))
	}
	goCmd(nil, "generate", "./...")
	compare("go generate with the generated files deleted")
	if t.Failed() {
		t.FailNow()
	}

	goCmd(nil, "mod", "tidy", "-diff")
	goCmd(nil, "vet", "./...")
	var env []string // HTAB_REQUIRE_KERNEL is in the environment already: say so
	if v, ok := os.LookupEnv("HTAB_REQUIRE_KERNEL"); ok {
		env = append(env, "HTAB_REQUIRE_KERNEL="+v)
	}
	t.Logf("%s", goCmd(env, "test", "-count=1", "./..."))
	goCmd(env, "test", "-count=1", "-run", "^$", "-bench", ".", "-benchtime", "1x", "./...")
	t.Logf("%d generated files, %v in all", len(checkedIn), time.Since(start).Round(time.Millisecond))
}

// copyTree copies the directory src to dst, which must not exist: its
// directories and regular files, with their permission bits.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return &fs.PathError{Op: "copy", Path: path, Err: fs.ErrInvalid} // a symbolic link, a device, ...
	})
	require.NoError(t, err)
}

// generatedIn returns the files under dir that htabgen wrote, by their
// slash-separated paths relative to dir.
func generatedIn(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if isGenerated(data) {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(rel)] = data
		}
		return nil
	})
	require.NoError(t, err)
	return files
}
