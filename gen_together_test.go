// Maps that compile and run together: the naming rule, files bound for one
// package, and the go tool recipe of the README in a temporary module. The
// spec matrix, every combination in one module, is internal/specmatrix's.

package htabgen

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/internal/tempmodule"
	"github.com/htabgen/htabgen/spec"
)

// TestCheckTogether: files bound for one directory must be one package and
// declare each top-level name once; other directories are other packages.
func TestCheckTogether(t *testing.T) {
	gen := func(name, typ, out, pkg string) []File {
		t.Helper()
		s := spec.Default()
		s.Type, s.Key, s.Val, s.Name, s.Out, s.Pkg, s.Tests = mapType(t, typ), 8, 8, name, out, pkg, true
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
// varies every option, -ebpf-compat and the default options among them.
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
			base.Type, base.Layout, base.Key, base.Val = mapType(t, tl.typ), spec.StorageLayout(tl.layout), key, 8
			base.Name, base.Out, base.Pkg, base.Tests = name, "zq.go", "p", true
			variants := []func(*spec.Spec){
				func(*spec.Spec) {},
				func(s *spec.Spec) { s.Lean = false },
				func(s *spec.Spec) { s.Val = 13 },
				func(s *spec.Spec) { s.Val = 68 }, // values past the unrolled loads
				func(s *spec.Spec) { s.BatchLock = "always" },
				func(s *spec.Spec) { s.BatchLock = "sparse" },
				func(s *spec.Spec) { s.Hash = "jhash" },
				func(s *spec.Spec) { s.Bloom = 3 },
				func(s *spec.Spec) { s.EbpfCompat, s.MaxEntries, s.ZeroSeed = true, 100, true },
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
	for _, val := range []int{1, 8, 13, 300} {
		for _, h := range []spec.HashKind{spec.HashStatic, spec.HashJhash, spec.HashJhash2} {
			if h == spec.HashJhash2 && val%4 != 0 {
				continue
			}
			s := spec.Default()
			s.Type, s.Val, s.Hash, s.Name, s.Out, s.Pkg, s.Tests = spec.Bloom, val, h, name, "zq.go", "p", true
			s.EbpfCompat, s.MaxEntries = val == 8, 100
			specs = append(specs, s)
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
					require.Contains(t, []string{name, name + "Key", name + "Value", name + "CPU", "New" + name,
						name + "Options", "New" + name + "Default", name + "EBPF", "New" + name + "EBPF"}, id, "%s declares an exported name outside the contract's", from)
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

// fillModuleCache runs go mod download in this checkout, once per test
// binary, as the README asks a user to before the offline recipe: it puts in
// the module cache the modules of cilium/ebpf's tests, which go mod tidy in a
// module with htabgen as a tool loads and no build of htabgen downloads.
// It needs the network only for what the cache lacks.
var fillModuleCache = sync.OnceValues(func() ([]byte, error) {
	cmd := exec.Command("go", "mod", "download")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	return cmd.CombinedOutput()
})

// requireModuleCache fails t if fillModuleCache failed.
func requireModuleCache(t *testing.T) {
	t.Helper()
	out, err := fillModuleCache()
	require.NoError(t, err, "go mod download in the checkout:\n%s", out)
}

// recipeMarker is the line of README.md after which come the three blocks of
// the go tool recipe: the module's setup (shell), the go:generate line (Go),
// and the generation (shell).
const recipeMarker = "<!-- TestGoTool runs the next three blocks as they are written. -->"

// readmeRecipe returns the three blocks that follow recipeMarker in README.md.
func readmeRecipe(t *testing.T) (setup, directive, generate string) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), recipeMarker+"\n")
	require.True(t, ok, "README.md has no line %q before the go tool recipe", recipeMarker)
	var blocks []string
	for _, lang := range []string{"sh", "go", "sh"} {
		var body string
		_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
		require.True(t, ok, "README.md: the recipe's %s block is missing", lang)
		body, rest, ok = strings.Cut(rest, "```\n")
		require.True(t, ok, "README.md: the recipe's %s block does not end", lang)
		blocks = append(blocks, body)
	}
	return blocks[0], strings.TrimSpace(blocks[1]), blocks[2]
}

// TestGoTool is the README's way to use htabgen, end to end and offline: in
// a new module, the README's recipe makes htabgen a tool from this checkout
// (go mod edit, the checkout's checksums, go mod tidy with GOPROXY=off) and
// its go:generate line, in a program that uses the map as the README shows,
// writes the map and its tests; the program builds, passes every vet check
// and runs, and the generated tests pass, also on a big-endian and a 32-bit
// architecture.
func TestGoTool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go generate in a temporary module")
	}
	requireModuleCache(t)
	root := tempmodule.Root(t)
	setup, directive, generate := readmeRecipe(t)
	require.True(t, strings.HasPrefix(directive, "//go:generate go tool htabgen "), "the recipe's Go block is one go:generate line: %q", directive)

	dir := t.TempDir()
	main := `package main

` + directive + `

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
	// The recipe as written, but for where the checkout is. GOFLAGS has
	// only -trimpath (see tempmodule.New), so that a step the recipe lacks
	// fails, and every proxy is a closed port, so that one that needs the
	// network (the checksum database) fails too.
	sh := func(script string) {
		t.Helper()
		offline := []string{"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=", "https_proxy=", "http_proxy=", "no_proxy="}
		tempmodule.Run(t, dir, append(offline, "HTABGEN="+root, "GOFLAGS=-trimpath"), "sh", "-e", "-c", script)
	}
	goCmd := tempmodule.Go(t, dir, "GOFLAGS=-trimpath")
	goCmd(nil, "mod", "init", "example.com/flows")
	sh(regexp.MustCompile(`(?m)^export HTABGEN=.*$`).ReplaceAllString(setup, ""))
	sh(generate)

	src, err := os.ReadFile(filepath.Join(dir, "conns_htab.go"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "\n// "+strings.TrimPrefix(directive, "//go:generate go tool ")+"\n", "the header carries the command")
	assert.Contains(t, string(src), "\npackage main\n", "the package is $GOPACKAGE")
	assert.FileExists(t, filepath.Join(dir, "conns_htab_test.go"))
	assert.Equal(t, "htab: key already exists\n2 true\n1 2\n", string(goCmd(nil, "run", ".")))
	goCmd(nil, "test", "-vet=all", "-run", "^Test", "./...") // every vet check, then the generated tests

	// Other architectures: the generated code and its tests on a big-endian
	// one (vet type-checks both), and run on a 32-bit one, where 64-bit
	// atomics need 8-byte alignment that Go guarantees only for some memory.
	goCmd([]string{"GOARCH=s390x"}, "vet", "./...")
	t.Run("GOARCH=386", func(t *testing.T) {
		goCmd := tempmodule.Go(t, dir, "GOFLAGS=-trimpath")
		probe := filepath.Join(t.TempDir(), "probe")
		goCmd([]string{"GOARCH=386"}, "build", "-o", probe, ".")
		var exit *exec.ExitError
		if err := exec.Command(probe).Run(); err != nil && !errors.As(err, &exit) {
			t.Skipf("this host cannot execute a 386 binary (%v); CI, which can, runs this step", err)
		}
		goCmd([]string{"GOARCH=386"}, "test", "-run", "^Test", "./...")
	})
}
