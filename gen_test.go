package htabgen

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

var headerRE = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// goldenCase is one edge of the generator's output, kept in testdata/golden.
type goldenCase struct {
	name string   // file name in testdata/golden, without .golden
	args []string // the flags, as on the command line
	s    spec.Spec
}

func goldenCases() []goldenCase {
	hash := func(key, val int, f func(*spec.Spec), args ...string) (spec.Spec, []string) {
		s := spec.Default()
		s.Type, s.Key, s.Val, s.Pkg = spec.Hash, key, val, "golden"
		if f != nil {
			f(&s)
		}
		return s, append([]string{"-type", "hash", "-key", strconv.Itoa(key), "-val", strconv.Itoa(val), "-pkg", "golden"}, args...)
	}
	var cases []goldenCase
	add := func(name string, s spec.Spec, args []string) {
		cases = append(cases, goldenCase{name, args, s})
	}
	// Key sizes around the edges: one byte, a byte tail, exactly two words
	// (no cached hash), just past it (cached hash), the unrolling limit, and
	// far past it (loops: a 4112-byte key must not be 1028 statements).
	for _, key := range []int{1, 7, 8, 9, 64, 4112} {
		s, args := hash(key, 8, nil)
		add(fmt.Sprintf("hash_k%dv8", key), s, args)
	}
	s, args := hash(8, 8, func(s *spec.Spec) { s.Hash = spec.HashJhash }, "-hash", "jhash")
	add("hash_k8v8_jhash", s, args)
	s, args = hash(8, 8, func(s *spec.Spec) { s.Hash = spec.HashJhash2 }, "-hash", "jhash2")
	add("hash_k8v8_jhash2", s, args)
	s, args = hash(7, 8, func(s *spec.Spec) { s.Hash = spec.HashJhash }, "-hash", "jhash")
	add("hash_k7v8_jhash", s, args)
	s, args = hash(8, 8, func(s *spec.Spec) { s.Lean = false }, "-lean=false")
	add("hash_k8v8_notlean", s, args)
	s, args = hash(8, 4112, nil)
	add("hash_k8v4112", s, args)
	// The batch walks of -batch-lock always and sparse (nonempty is the
	// default); sparse with a cached hash (key 16).
	s, args = hash(8, 8, func(s *spec.Spec) { s.BatchLock = spec.BatchLockAlways }, "-batch-lock", "always")
	add("hash_k8v8_batch_always", s, args)
	s, args = hash(16, 8, func(s *spec.Spec) { s.BatchLock = spec.BatchLockSparse }, "-batch-lock", "sparse")
	add("hash_k16v8_batch_sparse", s, args)
	// The classic layout (the kernel's): no cached hash (key 8), a cached hash
	// (key 9), and its batch walks.
	classic := func(s *spec.Spec) { s.Layout = spec.LayoutClassic }
	for _, key := range []int{8, 9} {
		s, args = hash(key, 8, classic, "-layout", "classic")
		add(fmt.Sprintf("hash_k%dv8_classic", key), s, args)
	}
	for _, mode := range []spec.BatchLock{spec.BatchLockAlways, spec.BatchLockSparse} {
		s, args = hash(8, 8, func(s *spec.Spec) { classic(s); s.BatchLock = mode }, "-layout", "classic", "-batch-lock", string(mode))
		add(fmt.Sprintf("hash_k8v8_classic_batch_%s", mode), s, args)
	}
	// The other types, lean and all-fields; a cached hash (key 16) for LRU's
	// evict, and a value tail (13 bytes) for the per-CPU slots. The files are
	// named after the derived map names (PerCPUK8V8 is percpu_k8v8).
	words := map[spec.MapType]string{spec.PerCPU: "percpu", spec.LRU: "lru", spec.LRUPerCPU: "lru_percpu"}
	for _, typ := range []spec.MapType{spec.PerCPU, spec.LRU, spec.LRUPerCPU} {
		for _, kv := range [][2]int{{8, 8}, {16, 13}} {
			for _, lean := range []bool{true, false} {
				s, args := hash(kv[0], kv[1], func(s *spec.Spec) { s.Type, s.Lean = typ, lean }, "-lean="+strconv.FormatBool(lean))
				args[1] = string(typ)
				name := fmt.Sprintf("%s_k%dv%d", words[typ], kv[0], kv[1])
				if !lean {
					name += "_notlean"
				}
				add(name, s, args)
			}
		}
	}
	return cases
}

// TestGolden compares the generator's output for edge specs with
// testdata/golden. After a deliberate change of the output, run
//
//	go test -run TestGolden -update .
//
// and review the diff of testdata/golden.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			files, err := Generate(c.s, "htabgen "+strings.Join(c.args, " "))
			require.NoError(t, err)
			require.Len(t, files, 1)
			got := files[0].Content
			assertWellFormed(t, got)

			path := filepath.Join("testdata", "golden", c.name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run `go test -run TestGolden -update .` to create it")
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run `go test -run TestGolden -update .` and review the diff if the change is deliberate):\n%s",
					path, firstDiff(want, got))
			}
		})
	}
}

// No golden file may be left without a case (a renamed case leaves one).
func TestGoldenNoOrphans(t *testing.T) {
	if *update {
		t.Skip("-update")
	}
	names := map[string]bool{}
	for _, c := range goldenCases() {
		names[c.name+".golden"] = true
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.True(t, names[e.Name()], "testdata/golden/%s has no case in goldenCases; delete it", e.Name())
	}
}

// assertWellFormed checks what every generated file promises: the header,
// the command line, and gofmt-clean source.
func assertWellFormed(t *testing.T, src []byte) {
	t.Helper()
	lines := strings.SplitN(string(src), "\n", 3)
	require.Len(t, lines, 3)
	assert.Regexp(t, headerRE, lines[0])
	assert.Equal(t, "// Code generated by htabgen "+Version+". DO NOT EDIT.", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "// htabgen "), "second line is the command: %q", lines[1])
	formatted, err := format.Source(src)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(formatted, src), "output is not gofmt-clean:\n%s", firstDiff(formatted, src))
}

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

// TestDeterministic: the same spec gives byte-identical files, every time.
func TestDeterministic(t *testing.T) {
	for _, c := range goldenCases() {
		s := c.s
		s.Out = filepath.Join("x", "m_htab.go")
		s.Tests = true
		cmd := "htabgen " + strings.Join(c.args, " ")
		first, err := Generate(s, cmd)
		require.NoError(t, err, c.name)
		require.Len(t, first, 2, c.name)
		assert.Equal(t, filepath.Join("x", "m_htab.go"), first[0].Path)
		assert.Equal(t, filepath.Join("x", "m_htab_test.go"), first[1].Path)
		for range 3 {
			again, err := Generate(s, cmd)
			require.NoError(t, err, c.name)
			require.Len(t, again, len(first), c.name)
			for i := range first {
				assert.Equal(t, first[i].Path, again[i].Path, c.name)
				assert.True(t, bytes.Equal(first[i].Content, again[i].Content), "%s: %s differs between two runs", c.name, first[i].Path)
			}
		}
		assertWellFormed(t, first[1].Content)
	}
}

func TestGenerateTestsNeedOut(t *testing.T) {
	s := spec.Default()
	s.Type, s.Key, s.Val, s.Pkg, s.Tests = spec.Hash, 8, 8, "main", true
	files, err := Generate(s, "htabgen")
	require.Error(t, err)
	assert.Nil(t, files)
	assert.Contains(t, err.Error(), "-tests")
	assert.Contains(t, err.Error(), "needs -out")
}

func TestGenerateTestsNeedGoOut(t *testing.T) {
	s := spec.Default()
	s.Type, s.Key, s.Val, s.Pkg, s.Tests, s.Out = spec.Hash, 8, 8, "main", true, "conns"
	files, err := Generate(s, "htabgen")
	require.ErrorContains(t, err, "-tests true: needs an -out ending in .go (got conns)")
	assert.Nil(t, files)
}

// TestGenerateCommandOneLine: the command goes into the header as one line
// comment, whatever it holds.
func TestGenerateCommandOneLine(t *testing.T) {
	s := spec.Default()
	s.Type, s.Key, s.Val, s.Pkg = spec.Hash, 8, 8, "main"
	files, err := Generate(s, "htabgen -out x*/\ny.go")
	require.NoError(t, err)
	lines := strings.SplitN(string(files[0].Content), "\n", 3)
	assert.Regexp(t, headerRE, lines[0])
	assert.Equal(t, `// htabgen -out x*/\ny.go`, lines[1])
}

// TestPathKey: two spellings of one file, relative and absolute, or through
// a symbolic link to its directory, have one key; two files have two.
func TestPathKey(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("gen", 0o755))
	require.NoError(t, os.Symlink("gen", "link"))
	abs, err := filepath.Abs(filepath.Join("gen", "a.go"))
	require.NoError(t, err)
	assert.Equal(t, PathKey("gen/a.go"), PathKey(abs))
	assert.Equal(t, PathKey("gen/a.go"), PathKey("./gen/../gen/a.go"))
	assert.Equal(t, PathKey("gen/a.go"), PathKey("link/a.go"))
	assert.NotEqual(t, PathKey("gen/a.go"), PathKey("gen/b.go"))
	assert.Equal(t, PathKey("nodir/a.go"), PathKey(filepath.Join(dir, "nodir", "a.go")), "a missing directory still compares")

	// A ".." after a link goes up from the link's target, as the system
	// resolves it: deep/../a.go is other/a.go, not ./a.go.
	require.NoError(t, os.MkdirAll(filepath.Join("other", "sub"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("other", "sub"), "deep"))
	assert.Equal(t, PathKey("other/a.go"), PathKey("deep/../a.go"))
	assert.Equal(t, PathKey(filepath.Join(dir, "other", "a.go")), PathKey(dir+"/deep/../a.go"))
	assert.NotEqual(t, PathKey("a.go"), PathKey("deep/../a.go"))
}

// TestWriteFilesThroughLinkDotDot: WriteFiles writes the file the system
// would, through a link and "..", and sees that two spellings are one file.
func TestWriteFilesThroughLinkDotDot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.MkdirAll(filepath.Join("other", "sub"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("other", "sub"), "deep"))
	require.NoError(t, WriteFiles([]File{{"deep/../a.go", []byte("a")}}))
	got, err := os.ReadFile(filepath.Join("other", "a.go"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(got))
	assert.NoFileExists(t, "a.go")

	err = WriteFiles([]File{{"deep/../b.go", []byte("1")}, {"other/b.go", []byte("2")}})
	require.EqualError(t, err, "writing other/b.go: deep/../b.go is the same file")
	err = WriteFiles([]File{{"Conns.go", []byte("1")}, {"conns.go", []byte("2")}})
	require.EqualError(t, err, "writing conns.go: Conns.go differs only in case: cmd/go refuses such files in one package, and a case-insensitive file system makes them one")
	assert.Equal(t, []string{"a.go", "sub"}, dirNames(t, "other"), "nothing written on error")
	assert.Equal(t, []string{"deep", "other"}, dirNames(t, "."), "nothing written on error")
}

// TestWriteFilesLongName: a file name at the file system's limit is written:
// the temporary and kept files' names do not grow with the target's.
func TestWriteFilesLongName(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("a", 252)+".go") // 255 bytes
	require.NoError(t, WriteFiles([]File{{long, []byte("1")}}))
	require.NoError(t, WriteFiles([]File{{long, []byte("2")}}), "replacing it keeps the old one under a short name")
	got, err := os.ReadFile(long)
	require.NoError(t, err)
	assert.Equal(t, "2", string(got))
	assert.Equal(t, []string{filepath.Base(long)}, dirNames(t, dir))
}

// TestCheckTogether: files bound for one directory must be one package and
// declare each top-level name once; other directories are other packages.
func TestCheckTogether(t *testing.T) {
	gen := func(name, typ, out, pkg string) []File {
		t.Helper()
		s := spec.Default()
		s.Type, s.Key, s.Val, s.Name, s.Out, s.Pkg, s.Tests = spec.MapType(typ), 8, 8, name, out, pkg, true
		files, err := Generate(s, "htabgen")
		require.NoError(t, err)
		return files
	}
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	ok := append(gen("Conns", "hash", at("a.go"), "flows"), gen("Flows", "lru", at("b.go"), "flows")...)
	require.NoError(t, CheckTogether(ok))
	apart := append(gen("Conns", "hash", at("a.go"), "flows"), gen("Conns", "lru", at("sub/b.go"), "other")...)
	require.NoError(t, CheckTogether(apart), "other directories are other packages")
	// Names that only overlap in their unexported prefixes, or in the case of
	// an acronym, compile together (TestNamesCompose has the rule).
	for _, pair := range [][2]string{{"Foo", "FooSlot"}, {"LRUConns", "LruConns"}, {"AB", "Ab"}} {
		files := append(gen(pair[0], "pcpu", at("a.go"), "p"), gen(pair[1], "pcpu", at("b.go"), "p")...)
		require.NoError(t, CheckTogether(files), "maps %s and %s", pair[0], pair[1])
	}

	for _, tt := range []struct {
		name  string
		files []File
		want  string
	}{
		{"a map named like another's key type", append(gen("A", "hash", at("a.go"), "p"), gen("AKey", "hash", at("b.go"), "p")...), "both declare AKey"},
		{"a map named like another's constructor", append(gen("A", "hash", at("a.go"), "p"), gen("NewA", "pcpu", at("b.go"), "p")...), "both declare NewA"},
		{"two package clauses", append(gen("A", "hash", at("a.go"), "p"), gen("B", "hash", at("b.go"), "q")...), "give both maps the same -pkg"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorContains(t, CheckTogether(tt.files), tt.want)
		})
	}
}

// TestNamesCompose: maps generated one at a time (a go:generate line each)
// into one package compile together unless their exported names collide.
// Every unexported top-level identifier of a map and of its -tests file is
// the map's prefix (its name with the first letter lowered; spec.Validate
// takes only names whose first letter lowers and raises back, so distinct
// names give distinct prefixes) and a suffix from one set, and no suffix in the set ends
// with another: else maps Foo and FooSlot could both declare fooSlotChunk
// (Foo's "SlotChunk", FooSlot's "Chunk"). The exported test functions are
// held to the same rule within each kind (Test, Benchmark, Fuzz). The matrix
// varies every implemented option; -bloom and -ebpf-compat are to join it
// when they are implemented.
func TestNamesCompose(t *testing.T) {
	const name, prefix = "Zq", "zq"
	suffixes := map[string]map[string]string{} // kind → suffix → one spec with it
	add := func(kind, suffix, from string) {
		if suffixes[kind] == nil {
			suffixes[kind] = map[string]string{}
		}
		suffixes[kind][suffix] = from
	}
	var specs []spec.Spec
	for _, tl := range []struct{ typ, layout string }{{"hash", "home"}, {"hash", "classic"}, {"pcpu", ""}, {"lru", ""}, {"lru_pcpu", ""}} {
		for _, key := range []int{4, 8, 13, 64, 65} { // 65: the hash's loop, the key's unrolled loads end at 64
			base := spec.Default()
			base.Type, base.Layout, base.Key, base.Val = spec.MapType(tl.typ), spec.StorageLayout(tl.layout), key, 8
			base.Name, base.Out, base.Pkg, base.Tests = name, "zq.go", "p", true
			variants := []func(*spec.Spec){
				func(*spec.Spec) {},
				func(s *spec.Spec) { s.Lean = false },
				func(s *spec.Spec) { s.Val = 13 },
				func(s *spec.Spec) { s.Val = 68 }, // values past the unrolled loads
				func(s *spec.Spec) { s.BatchLock = "always" },
				func(s *spec.Spec) { s.BatchLock = "sparse" },
				func(s *spec.Spec) { s.Hash = "jhash" },
			}
			if key%4 == 0 {
				variants = append(variants, func(s *spec.Spec) { s.Hash = "jhash2" })
			}
			for _, v := range variants {
				s := base
				v(&s)
				specs = append(specs, s)
			}
		}
	}
	for _, s := range specs {
		files, err := Generate(s, "htabgen")
		require.NoError(t, err, "%+v", s)
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Content, parser.SkipObjectResolution)
			require.NoError(t, err)
			from := fmt.Sprintf("%s (%+v)", f.Path, s)
			for _, id := range topLevelNames(file) {
				if !token.IsExported(id) {
					suffix, ok := strings.CutPrefix(id, prefix)
					require.True(t, ok, "%s declares %s, which does not start with the map's prefix %s", from, id, prefix)
					add("unexported", suffix, from)
					continue
				}
				kind, rest := "exported", id
				for _, k := range []string{"Test", "Benchmark", "Fuzz"} {
					if r, ok := strings.CutPrefix(id, k+name); ok && strings.HasSuffix(f.Path, "_test.go") {
						kind, rest = k, r
					}
				}
				if kind == "exported" {
					require.Contains(t, []string{name, name + "Key", name + "Value", name + "CPU", "New" + name}, id, "%s declares an exported name outside the contract's", from)
					continue
				}
				add(kind, rest, from)
			}
		}
	}
	require.NotEmpty(t, suffixes["unexported"])
	for kind, set := range suffixes {
		for a, fromA := range set {
			for b, fromB := range set {
				if a != b && strings.HasSuffix(a, b) {
					t.Errorf("%s names: suffix %q (%s) ends with suffix %q (%s): a map named %s%s would clash with one named %s",
						kind, a, fromA, b, fromB, name, strings.TrimSuffix(a, b), name)
				}
			}
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	require.NoError(t, os.WriteFile(a, []byte("old"), 0o644))
	require.NoError(t, WriteFiles([]File{{a, []byte("new a")}, {b, []byte("new b")}}))
	got, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "new a", string(got))
	got, err = os.ReadFile(b)
	require.NoError(t, err)
	assert.Equal(t, "new b", string(got))
	fi, err := os.Stat(b)
	require.NoError(t, err)
	assert.Equal(t, createdMode(t), fi.Mode().Perm())

	// A file into a missing directory fails before anything is renamed.
	err = WriteFiles([]File{{a, []byte("newer a")}, {filepath.Join(dir, "nodir", "c.go"), []byte("c")}})
	require.Error(t, err)
	got, err = os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "new a", string(got), "a.go must not change when another file fails")
	assert.Equal(t, []string{"a.go", "b.go"}, dirNames(t, dir), "no temporary file is left behind")
}

// createdMode is the mode of a file the process creates with 0666: what the
// umask leaves of it.
func createdMode(t *testing.T) os.FileMode {
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY, 0o666)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(probe)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

// TestWriteFilesKeepsMode: a file WriteFiles replaces keeps its permission
// bits (a script made executable, a file kept private); a new file gets what
// the umask leaves of 0666, as any file a program creates.
func TestWriteFilesKeepsMode(t *testing.T) {
	dir := t.TempDir()
	private, exe, fresh := filepath.Join(dir, "private.go"), filepath.Join(dir, "exe.go"), filepath.Join(dir, "new.go")
	require.NoError(t, os.WriteFile(private, []byte("old"), 0o600))
	require.NoError(t, os.WriteFile(exe, []byte("old"), 0o644))
	require.NoError(t, os.Chmod(exe, 0o755))
	require.NoError(t, WriteFiles([]File{{private, []byte("new")}, {exe, []byte("new")}, {fresh, []byte("new")}}))
	for path, want := range map[string]os.FileMode{private: 0o600, exe: 0o755, fresh: createdMode(t)} {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, want, fi.Mode().Perm(), filepath.Base(path))
	}
}

// TestWriteFilesErrorsNameTarget: an error names the file asked for, never
// the temporary file beside it, which the user did not ask for and which
// is gone by the time the message is read.
func TestWriteFilesErrorsNameTarget(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nodir", "x.go")
	err := WriteFiles([]File{{missing, []byte("x")}})
	require.EqualError(t, err, "writing "+missing+": cannot create a file in "+filepath.Dir(missing)+": no such file or directory")
	assert.ErrorIs(t, err, os.ErrNotExist)

	if os.Getuid() != 0 { // root may write anywhere
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		target := filepath.Join(ro, "x.go")
		err = WriteFiles([]File{{target, []byte("x")}})
		require.EqualError(t, err, "writing "+target+": cannot create a file in "+ro+": permission denied")
	}

	x := filepath.Join(dir, "x.go")
	rename = func(from, to string) error {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("injected failure")}
	}
	t.Cleanup(func() { rename = os.Rename })
	err = WriteFiles([]File{{x, []byte("x")}})
	require.EqualError(t, err, "writing "+x+": injected failure")
	for _, name := range dirNames(t, dir) {
		assert.Equal(t, "ro", name, "no temporary file is left behind")
	}
}

// TestWriteFilesRenameFails fails the second rename: the first file, already
// replaced, is put back, a file that did not exist is not left created, and
// no temporary file stays behind.
func TestWriteFilesRenameFails(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go"), filepath.Join(dir, "c.go")
	require.NoError(t, os.WriteFile(a, []byte("old a"), 0o600))
	require.NoError(t, os.WriteFile(c, []byte("old c"), 0o644))
	calls := 0
	rename = func(from, to string) error {
		calls++
		if calls == 3 {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	t.Cleanup(func() { rename = os.Rename })

	err := WriteFiles([]File{{a, []byte("new a")}, {b, []byte("new b")}, {c, []byte("new c")}})
	require.ErrorContains(t, err, "writing "+c+": injected failure")
	assert.Equal(t, 3, calls)
	got, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "old a", string(got), "a.go, replaced before the failure, is put back")
	fi, err := os.Stat(a)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "with its mode")
	got, err = os.ReadFile(c)
	require.NoError(t, err)
	assert.Equal(t, "old c", string(got))
	assert.Equal(t, []string{"a.go", "c.go"}, dirNames(t, dir), "b.go is not left created; no temporary or kept file stays")
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

// TestGeneratedFresh checks that every checked-in file under generated/ is
// exactly what its //go:generate line makes today. It builds the command
// once, runs every htabgen directive in a scratch copy of its package (the
// package's own files without the generated ones), and compares the
// generated files byte by byte: a stale, missing or orphaned file fails.
func TestGeneratedFresh(t *testing.T) {
	bin := buildCommand(t)
	var pkgs []string
	err := filepath.WalkDir("generated", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "gen.go" {
			pkgs = append(pkgs, filepath.Dir(path))
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, pkgs, "no generated/*/gen.go")
	for _, pkg := range pkgs {
		t.Run(filepath.ToSlash(pkg), func(t *testing.T) {
			checkFresh(t, bin, pkg)
		})
	}
}

// buildCommand builds cmd/htabgen into a temporary directory.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "htabgen")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/htabgen").CombinedOutput()
	require.NoError(t, err, "go build ./cmd/htabgen:\n%s", out)
	return bin
}

// directive is one //go:generate line that runs htabgen.
type directive struct {
	file string
	line int
	args []string // htabgen's arguments
}

func checkFresh(t *testing.T, bin, pkg string) {
	entries, err := os.ReadDir(pkg)
	require.NoError(t, err)
	scratch := t.TempDir()
	var dirs []directive
	var pkgName string
	checkedIn := map[string][]byte{} // files generated by htabgen, by name
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(pkg, e.Name()))
		require.NoError(t, err)
		if isGenerated(data) {
			checkedIn[e.Name()] = data
			continue
		}
		require.NoError(t, os.WriteFile(filepath.Join(scratch, e.Name()), data, 0o644))
		if strings.HasSuffix(e.Name(), ".go") {
			ds, name := parseDirectives(t, e.Name(), data)
			dirs = append(dirs, ds...)
			if name != "" && !strings.HasSuffix(e.Name(), "_test.go") {
				pkgName = name
			}
		}
	}
	require.NotEmpty(t, dirs, "%s has no //go:generate line running htabgen", pkg)
	require.NotEmpty(t, pkgName, "%s: no package clause found", pkg)

	for _, d := range dirs {
		cmd := exec.Command(bin, d.args...)
		cmd.Dir = scratch
		cmd.Env = append(os.Environ(),
			"GOPACKAGE="+pkgName, "GOFILE="+d.file, "GOLINE="+strconv.Itoa(d.line),
			"DOLLAR=$", "GOARCH="+runtime.GOARCH, "GOOS="+runtime.GOOS)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s/%s:%d: htabgen %s:\n%s", pkg, d.file, d.line, strings.Join(d.args, " "), out)
	}

	regen := map[string][]byte{}
	for _, name := range dirNames(t, scratch) {
		data, err := os.ReadFile(filepath.Join(scratch, name))
		require.NoError(t, err)
		if isGenerated(data) {
			regen[name] = data
		}
	}
	var names []string
	for name := range regen {
		names = append(names, name)
	}
	for name := range checkedIn {
		if _, ok := regen[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	const fix = "run `go generate ./generated/...`"
	for _, name := range names {
		path := filepath.Join(pkg, name)
		want, inRepo := checkedIn[name]
		got, made := regen[name]
		switch {
		case !inRepo:
			t.Errorf("%s is missing: its go:generate line makes it; %s", path, fix)
		case !made:
			t.Errorf("%s is generated by htabgen but no go:generate line makes it any more: delete it, or restore its line", path)
		case !bytes.Equal(got, want):
			t.Errorf("%s is stale: %s\n%s", path, fix, firstDiff(want, got))
		}
	}
}

// isGenerated reports whether a file was written by htabgen.
func isGenerated(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return headerRE.Match(line) && bytes.HasPrefix(line, []byte("// Code generated by htabgen "))
}

var packageRE = regexp.MustCompile(`^package\s+([A-Za-z_][A-Za-z0-9_]*)`)

// parseDirectives returns the htabgen directives of a Go file, and its
// package name. Like go generate, it splits on white space, honours
// double-quoted strings and expands $GOFILE, $GOLINE, $GOPACKAGE, $DOLLAR and
// environment variables; the arguments after the htabgen command (go run
// <path>/cmd/htabgen, go tool htabgen, or htabgen) are htabgen's.
func parseDirectives(t *testing.T, file string, data []byte) ([]directive, string) {
	var dirs []directive
	var pkg string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := packageRE.FindStringSubmatch(line); m != nil && pkg == "" {
			pkg = m[1]
		}
		rest, ok := strings.CutPrefix(line, "//go:generate ")
		if !ok {
			continue
		}
		words, err := splitDirective(rest)
		require.NoError(t, err, "%s:%d", file, n)
		for i, w := range words {
			w = os.Expand(w, func(v string) string {
				switch v {
				case "GOFILE":
					return file
				case "GOLINE":
					return strconv.Itoa(n)
				case "GOPACKAGE":
					return pkg
				case "DOLLAR":
					return "$"
				}
				return os.Getenv(v)
			})
			words[i] = w
		}
		// go run <path>/cmd/htabgen args..., go tool htabgen args..., htabgen args...
		for i, w := range words {
			if w == "htabgen" || strings.HasSuffix(w, "/cmd/htabgen") || strings.HasSuffix(w, "/cmd/htabgen@latest") {
				dirs = append(dirs, directive{file: file, line: n, args: words[i+1:]})
				break
			}
		}
	}
	require.NoError(t, sc.Err())
	return dirs, pkg
}

// splitDirective splits a go:generate line the way go generate does:
// on white space, with "double-quoted" Go strings as single words.
func splitDirective(s string) ([]string, error) {
	var words []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return words, nil
		}
		if s[0] == '"' {
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, fmt.Errorf("unterminated quoted string in %q", s)
			}
			w, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, err
			}
			words = append(words, w)
			s = s[end+1:]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		words = append(words, s[:i])
		s = s[i:]
	}
}

func TestSplitDirective(t *testing.T) {
	got, err := splitDirective(`go run ../../cmd/htabgen  -type hash -name "A B" -out "x\"y.go"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "run", "../../cmd/htabgen", "-type", "hash", "-name", "A B", "-out", `x"y.go`}, got)
	_, err = splitDirective(`htabgen -name "open`)
	assert.Error(t, err)
}

// TestMatrix generates every combination of the spec matrix with its tests
// into one temporary module, a package per (type, layout, hash, lean) with many maps
// each (so that maps prove they compile together), then runs go test once
// over the module, with every vet check.
func TestMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the spec matrix (generates, vets and tests a few hundred maps)")
	}
	mod := t.TempDir()

	keys := []int{1, 2, 3, 4, 7, 8, 9, 12, 13, 16, 24, 32, 64, 128}
	vals := []int{1, 8, 13, 64}
	hashes := []spec.HashKind{spec.HashStatic, spec.HashJhash2, spec.HashJhash}
	start := time.Now()
	maps, pkgs := 0, 0
	gen := func(typ spec.MapType, layout spec.StorageLayout, h spec.HashKind, lean bool, keys, vals []int) {
		pkg := fmt.Sprintf("%s_%s_%s_lean%v", typ, layout, h, lean)
		dir := filepath.Join(mod, pkg)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		pkgs++
		for _, key := range keys {
			if h == spec.HashJhash2 && key%4 != 0 {
				continue
			}
			for _, val := range vals {
				s := spec.Default()
				s.Type, s.Key, s.Val, s.Hash, s.Lean, s.Layout = typ, key, val, h, lean, layout
				s.Name = fmt.Sprintf("K%dV%d", key, val)
				s.Pkg = pkg
				s.Out = filepath.Join(dir, fmt.Sprintf("k%dv%d_htab.go", key, val))
				s.Tests = true
				cmd := fmt.Sprintf("htabgen -type %s -layout %s -key %d -val %d -hash %s -lean=%v -name %s -out k%dv%d_htab.go -tests",
					typ, layout, key, val, h, lean, s.Name, key, val)
				files, err := Generate(s, cmd)
				require.NoError(t, err, cmd)
				require.NoError(t, WriteFiles(files), cmd)
				maps++
			}
		}
	}
	for _, layout := range []spec.StorageLayout{spec.LayoutClassic, spec.LayoutHome} {
		for _, h := range hashes {
			for _, lean := range []bool{true, false} {
				gen(spec.Hash, layout, h, lean, keys, vals)
			}
		}
	}
	// The other types share the hash code; their matrix covers what they
	// add: cached hash or not (LRU's evict), value tails (per-CPU slots).
	for _, typ := range []spec.MapType{spec.PerCPU, spec.LRU, spec.LRUPerCPU} {
		for _, lean := range []bool{true, false} {
			gen(typ, spec.LayoutClassic, spec.HashStatic, lean, []int{1, 4, 8, 9, 16}, []int{1, 8, 13})
		}
	}
	goCmd := tempModule(t, mod, "matrix", "")
	t.Logf("generated %d maps in %d packages in %v", maps, pkgs, time.Since(start).Round(time.Millisecond))

	// One go invocation: every vet check (-vet=all, not go test's curated
	// few), then the generated tests (-short: fewer random operations per
	// map) and the fuzz targets' seed inputs, not the benchmarks.
	t.Logf("%s", goCmd(nil, "test", "-short", "-vet=all", "-run", "^(Test|Fuzz)", "-bench", "^$", "./..."))
}

// goRunner runs go with args, and env added to the environment, in a module
// of tempModule, fails the test if it fails, and returns its output.
type goRunner func(env []string, args ...string) []byte

// tempModule makes dir a module named name that requires htabgen from this
// checkout, with extra lines appended to its go.mod, and returns a runner of
// go commands in it. It works offline: the module cache holds every
// dependency this checkout's go.sum names, which the module copies.
func tempModule(t *testing.T, dir, name, extra string) goRunner {
	t.Helper()
	root, err := os.Getwd()
	require.NoError(t, err)
	gomod := "module " + name + "\n\ngo 1.26.0\n\nrequire github.com/htabgen/htabgen v0.0.0\n\nreplace github.com/htabgen/htabgen => " + root + "\n" + extra
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return func(env []string, args ...string) []byte {
		t.Helper()
		start := time.Now()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// -trimpath keeps temporary paths out of the build, so that an
		// unchanged generator hits the build cache on the next run.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -trimpath", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
		cmd.Env = append(cmd.Env, env...)
		line := strings.TrimSpace(strings.Join(env, " ") + " go " + strings.Join(args, " "))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s in %s:\n%s", line, dir, out)
		t.Logf("%s: %v", line, time.Since(start).Round(time.Millisecond))
		return out
	}
}

// TestGoTool is the README's way to use htabgen, end to end: a module with
// htabgen as a tool (what go get -tool writes into go.mod) and a go:generate
// line; go generate writes the map and its tests, and a program using the map
// as the README shows builds, passes every vet check and runs.
func TestGoTool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go generate in a temporary module")
	}
	dir := t.TempDir()
	goCmd := tempModule(t, dir, "example.com/flows", "\ntool github.com/htabgen/htabgen/cmd/htabgen\n")
	main := `package main

//go:generate go tool htabgen -type hash -key 16 -val 8 -name Conns -out conns_htab.go -tests

import (
	"fmt"

	"github.com/htabgen/htabgen/htab"
)

func main() {
	m, err := NewConns(htab.Options{MaxEntries: 1 << 16})
	if err != nil {
		panic(err)
	}
	k, v := ConnsKey{1}, ConnsValue{2}
	if err := m.Update(k, v, htab.UpdateNoExist); err != nil {
		panic(err)
	}
	fmt.Println(m.Update(k, v, htab.UpdateNoExist))
	got, ok := m.Lookup(k)
	fmt.Println(got[0], ok)
	for k, v := range m.All() {
		fmt.Println(k[0], v[0])
	}
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644))
	goCmd(nil, "mod", "tidy") // the tool's own requirements, as go get -tool adds them
	goCmd(nil, "generate", "./...")
	src, err := os.ReadFile(filepath.Join(dir, "conns_htab.go"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "// htabgen -type hash -key 16 -val 8 -name Conns -out conns_htab.go -tests\n")
	assert.Contains(t, string(src), "\npackage main\n", "the package is $GOPACKAGE")
	assert.FileExists(t, filepath.Join(dir, "conns_htab_test.go"))
	assert.Equal(t, "htab: key already exists\n2 true\n1 2\n", string(goCmd(nil, "run", ".")))
	goCmd(nil, "test", "-vet=all", "-run", "^Test", "./...") // every vet check, then the generated tests

	// Other architectures: the generated code and its tests on a big-endian
	// one (vet type-checks both), and run on a 32-bit one, where 64-bit
	// atomics need 8-byte alignment that Go guarantees only for some memory.
	goCmd([]string{"GOARCH=s390x"}, "vet", "./...")
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" { // runs 386 binaries
		goCmd([]string{"GOARCH=386"}, "test", "-run", "^Test", "./...")
	}
}
