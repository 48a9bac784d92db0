// The generator's output: golden files of edge specs (-update rewrites them),
// determinism, and what every generated file promises.

package htabgen

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
				args[1] = typ.String()
				name := fmt.Sprintf("%s_k%dv%d", words[typ], kv[0], kv[1])
				if !lean {
					name += "_notlean"
				}
				add(name, s, args)
			}
		}
	}
	// A bloom filter in front of lookups, in both layouts and an LRU type
	// (whose UpdateExist it does not answer); and the bloom filter map,
	// word-aligned or not.
	s, args = hash(8, 8, func(s *spec.Spec) { s.Bloom = 3 }, "-bloom", "3")
	add("hash_k8v8_bloom3", s, args)
	s, args = hash(16, 8, func(s *spec.Spec) { classic(s); s.Bloom = 1 }, "-layout", "classic", "-bloom", "1")
	add("hash_k16v8_classic_bloom1", s, args)
	s, args = hash(8, 8, func(s *spec.Spec) { s.Type, s.Bloom = spec.LRU, 3 }, "-bloom", "3")
	args[1] = "lru"
	add("lru_k8v8_bloom3", s, args)
	for _, val := range []int{8, 13} {
		s := spec.Default()
		s.Type, s.Val, s.Pkg = spec.Bloom, val, "golden"
		add(fmt.Sprintf("bloom_v%d", val), s, []string{"-type", "bloom", "-val", strconv.Itoa(val), "-pkg", "golden"})
	}
	// The -ebpf-compat adapter of each kind of map (the map's file gains
	// the options it was created with), and default options.
	compat := func(s *spec.Spec) { s.EbpfCompat, s.Out = true, "m.go" }
	s, args = hash(8, 8, compat, "-ebpf-compat", "-out", "m.go")
	add("hash_k8v8_compat", s, args)
	s, args = hash(8, 12, func(s *spec.Spec) { compat(s); s.Type = spec.PerCPU }, "-ebpf-compat", "-out", "m.go")
	args[1] = "pcpu"
	add("percpu_k8v12_compat", s, args)
	bloom := spec.Default()
	bloom.Type, bloom.Val, bloom.Pkg = spec.Bloom, 8, "golden"
	compat(&bloom)
	add("bloom_v8_compat", bloom, []string{"-type", "bloom", "-val", "8", "-pkg", "golden", "-ebpf-compat", "-out", "m.go"})
	s, args = hash(8, 8, func(s *spec.Spec) { s.Type, s.MaxEntries, s.NoCommonLRU, s.ZeroSeed = spec.LRU, 4096, true, true },
		"-max-entries", "4096", "-no-common-lru", "-zero-seed")
	args[1] = "lru"
	add("lru_k8v8_defaults", s, args)
	return cases
}

// goldenFiles are the golden file names of c's files, in Generate's order:
// the map's, then the adapter's (-ebpf-compat), <name>_ebpf.
func goldenFiles(c goldenCase) []string {
	names := []string{c.name + ".golden"}
	if c.s.EbpfCompat {
		names = append(names, c.name+"_ebpf.golden")
	}
	return names
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
			names := goldenFiles(c)
			require.Len(t, files, len(names))
			for i, f := range files {
				got := f.Content
				assertWellFormed(t, got)
				path := filepath.Join("testdata", "golden", names[i])
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, got, 0o644))
					continue
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run `go test -run TestGolden -update .` to create it")
				if !bytes.Equal(got, want) {
					t.Errorf("output differs from %s (run `go test -run TestGolden -update .` and review the diff if the change is deliberate):\n%s",
						path, firstDiff(want, got))
				}
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
		for _, name := range goldenFiles(c) {
			names[name] = true
		}
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

// TestDeterministic: the same spec gives byte-identical files, every time.
func TestDeterministic(t *testing.T) {
	for _, c := range goldenCases() {
		s := c.s
		s.Out = filepath.Join("x", "m_htab.go")
		s.Tests = true
		cmd := "htabgen " + strings.Join(c.args, " ")
		first, err := Generate(s, cmd)
		require.NoError(t, err, c.name)
		require.Len(t, first, len(Outputs(s)), c.name)
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
