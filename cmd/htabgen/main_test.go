package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/spec"
)

// TestMain lets the scripts run the command as "htabgen": testscript re-runs
// this test binary, which calls run exactly as main does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"htabgen": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command-line tests in testdata/*.txtar. Besides the
// standard commands, the scripts have
//
//	exits N prog args...   run prog; its exit status must be N
//	dirlist DIR            print every file and directory under DIR, dot files
//	                       included, one path a line, sorted
//
// and the environment variables REPO (the module's root, for go.mod replace
// directives) and the Go caches, so that `go vet` can compile output.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		goEnv[name] = strings.TrimSpace(string(out))
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOFLAGS", "-mod=mod")
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOWORK", "off")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"dirlist": cmdDirlist,
		},
	})
}

// cmdExits runs a program like exec and checks its exact exit status, which
// exec cannot: 1 (I/O error) and 2 (usage error) must not be confused.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N prog args...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdDirlist lists a directory tree, so that a script can check that no file
// was created, and no temporary file was left behind.
func cmdDirlist(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dirlist DIR")
	}
	root := ts.MkAbs(args[0])
	var names []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, rel)
		return nil
	})
	ts.Check(err)
	sort.Strings(names)
	out := ts.Stdout() // even when empty: replaces the previous command's stdout
	for _, n := range names {
		fmt.Fprintln(out, n)
	}
}

// failWriter fails every write, as a closed pipe or a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutErrors: whatever goes to standard output, a failed write is an
// I/O error (exit 1) that says why.
func TestStdoutErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-type", "hash", "-key", "8", "-val", "8"},
		{"-type", "hash", "-key", "8", "-val", "8", "-explain"},
		{"-version"},
	} {
		var stderr strings.Builder
		if got := run(args, failWriter{}, &stderr); got != exitIO {
			t.Errorf("%v: exit %d, want %d", args, got, exitIO)
		}
		if want := "htabgen: no space left on device\n"; stderr.String() != want {
			t.Errorf("%v: stderr %q, want %q", args, stderr.String(), want)
		}
	}
}

// TestCommandLine: the header's command line quotes what a shell would split
// or what would break the line, and leaves the rest as typed.
func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"-type", "hash", "-out", "a b.go", "-name", "", "-out", "x*/\ny.go", "-pkg=flows", "-out=ünï.go", "-key=8"})
	want := `htabgen -type hash -out "a b.go" -name "" -out "x*/\ny.go" -pkg=flows -out=ünï.go -key=8`
	if got != want {
		t.Errorf("commandLine = %s\nwant          %s", got, want)
	}
}

// testObject is the repository's BPF object of testdata/bpf/maps.c.
const testObject = "../../testdata/bpf/maps.o"

// TestObjectMapsOptions: -elf's options (-pkg, -ebpf-compat, -tests) reach
// every map of the object, whatever its type, and the skipped maps are
// listed on standard error, one line each.
func TestObjectMapsOptions(t *testing.T) {
	s := spec.Default()
	s.ELF, s.Maps = testObject, []string{"conns", "seen", "events"}
	s.Pkg, s.EbpfCompat, s.Tests = "flows", true, true
	var stderr strings.Builder
	specs, labels, err := objectMaps(testObject, s, &stderr)
	require.NoError(t, err)
	assert.Equal(t, []string{"Conns", "Seen"}, labels)
	require.Len(t, specs, 2)
	for _, m := range specs {
		assert.Equal(t, "flows", m.Pkg, m.Name)
		assert.True(t, m.EbpfCompat, m.Name)
		assert.True(t, m.Tests, m.Name)
		assert.Empty(t, m.ELF, m.Name)
		assert.Nil(t, m.Maps, m.Name)
		assert.NoError(t, m.Validate(), m.Name)
	}
	assert.Equal(t, 4096, specs[0].MaxEntries, "the object's options stay")
	assert.Equal(t, 3, specs[1].Hashes, "the object's options stay")
	assert.Equal(t, "htabgen: "+testObject+": skipping map events (ringbuf): htabgen generates hash, percpu_hash, lru_hash, lru_percpu_hash and bloom_filter maps\n", stderr.String())
}

// TestExpandELF: a spec file's object with "elf" becomes the object's maps,
// the object found relative to the spec file's directory, with its options
// applied to each map that has them ("ebpf-compat" to all, "bloom" and
// "lean" not to the bloom filter map); the file's other maps stay, and the
// labels name each map for errors.
func TestExpandELF(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "specs")
	require.NoError(t, os.Mkdir(dir, 0o755))
	obj, err := os.ReadFile(testObject)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prog.o"), obj, 0o644))
	specs, err := spec.ParseJSON([]byte(`[
		{"type": "hash", "key": 8, "val": 8, "name": "First"},
		{"elf": "prog.o", "maps": ["seen", "conns"], "ebpf-compat": true, "tests": true, "pkg": "flows",
		 "hash": "jhash", "lean": false, "batch-lock": "sparse", "bloom": 3}
	]`))
	require.NoError(t, err)
	specFile := filepath.Join(dir, "maps.json")
	var stderr strings.Builder
	specs, labels, objects, err := expandELF(specFile, specs, &stderr)
	require.NoError(t, err)
	assert.Empty(t, stderr.String())
	obj1 := filepath.Join(dir, "prog.o")
	assert.Equal(t, []string{"0", "1 (" + obj1 + ": Conns)", "1 (" + obj1 + ": Seen)"}, labels)
	assert.Equal(t, []source{{obj1, "the BPF object of map 1"}}, objects)
	require.Len(t, specs, 3)
	assert.Equal(t, "First", specs[0].Name)
	assert.False(t, specs[0].EbpfCompat)

	conns, seen := specs[1], specs[2]
	assert.Equal(t, spec.LRU, conns.Type)
	assert.True(t, conns.EbpfCompat)
	assert.True(t, conns.Tests)
	assert.Equal(t, "flows", conns.Pkg)
	assert.Equal(t, spec.HashJhash, conns.Hash)
	assert.False(t, conns.Lean)
	assert.Equal(t, spec.BatchLockSparse, conns.BatchLock)
	assert.Equal(t, 3, conns.Bloom)
	assert.Equal(t, 4096, conns.MaxEntries)

	assert.Equal(t, spec.Bloom, seen.Type)
	assert.True(t, seen.EbpfCompat)
	assert.True(t, seen.Tests)
	assert.Equal(t, spec.HashJhash, seen.Hash)
	assert.True(t, seen.Lean, "a bloom filter map has no -lean")
	assert.Equal(t, spec.BatchLockNonEmpty, seen.BatchLock, "a bloom filter map has no -batch-lock")
	assert.Zero(t, seen.Bloom, "a bloom filter map has no -bloom")
	for _, m := range specs {
		assert.NoError(t, m.Validate(), m.Name)
	}

	// A missing object stays an I/O error, whose message names the map.
	specs, err = spec.ParseJSON([]byte(`[{"elf": "gone.o"}]`))
	require.NoError(t, err)
	_, _, _, err = expandELF(specFile, specs, &stderr)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.EqualError(t, err, specFile+": map 0: open "+filepath.Join(dir, "gone.o")+": no such file or directory")
}
