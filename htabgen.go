// Package htabgen generates specialised Go hash maps that mirror the Linux
// kernel's BPF hash map family. Generate runs the pipeline the command runs:
// spec → plan (every layout decision) → render (one template per concern).
// WriteFiles writes what it returns, all or none; the command in
// cmd/htabgen adds the flags, spec files and -elf.
package htabgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/htabgen/htabgen/spec"
	"github.com/htabgen/htabgen/templates"
)

// Version is htabgen's version, written into every generated file.
const Version = "v0.1.0"

// File is one generated file.
type File struct {
	Path    string // where it goes; "" means standard output
	Content []byte
}

// Generate plans and renders every file of s (Outputs): the map, its test
// file when s.Tests and its adapter when s.EbpfCompat. command is the command line written into each
// header.
func Generate(s spec.Spec, command string) ([]File, error) {
	l, err := spec.Plan(s)
	if err != nil {
		return nil, err
	}
	h := templates.Header{Version: Version, Command: command}
	var files []File
	for _, kind := range outputKinds {
		if !kind.wanted(s) {
			continue
		}
		if kind.check != nil {
			if err := kind.check(s); err != nil {
				return nil, err
			}
		}
		src, err := kind.render(l, h)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: kind.path(s.Out), Content: src})
	}
	return files, nil
}

// Output is one file that Generate writes for a spec.
type Output struct {
	Kind string // "map" (the map, at the spec's out), "tests" (<out>_test.go) or "ebpf" (<out>_ebpf.go, the _ebpf before a _test or _GOOS suffix: x_ebpf_test.go, x_ebpf_linux.go)
	Path string
}

// Outputs are the files Generate writes for s, in order, the map first.
func Outputs(s spec.Spec) []Output {
	var out []Output
	for _, kind := range outputKinds {
		if kind.wanted(s) {
			out = append(out, Output{kind.name, kind.path(s.Out)})
		}
	}
	return out
}

// outputKinds is the registry of the files a spec can have: the one place
// that says when a file is written, where, and by which template. Generate,
// Outputs (and through it the command's checks of a spec file) read it.
var outputKinds = []struct {
	name   string
	wanted func(spec.Spec) bool
	check  func(spec.Spec) error // nil, or why s cannot have the file
	path   func(out string) string
	render func(*spec.Layout, templates.Header) ([]byte, error)
}{
	{
		name:   "map",
		wanted: func(spec.Spec) bool { return true },
		path:   func(out string) string { return out },
		render: templates.Render,
	},
	{
		name:   "tests",
		wanted: func(s spec.Spec) bool { return s.Tests },
		check: func(s spec.Spec) error {
			if s.Out == "" {
				return &spec.Error{Option: "tests", Value: true, Allowed: "needs -out: the tests go to <out>_test.go"}
			}
			if !strings.HasSuffix(s.Out, ".go") {
				return &spec.Error{Option: "tests", Value: true, Allowed: fmt.Sprintf("needs an -out ending in .go (got %s): the tests compile with the map, and Go compiles only .go files", s.Out)}
			}
			return nil
		},
		// The test file beside out: x_htab.go → x_htab_test.go.
		path:   func(out string) string { return strings.TrimSuffix(out, ".go") + "_test.go" },
		render: templates.RenderTests,
	},
	{
		name:   "ebpf",
		wanted: func(s spec.Spec) bool { return s.EbpfCompat },
		check: func(s spec.Spec) error {
			if s.Out == "" {
				return &spec.Error{Option: "ebpf-compat", Value: true, Allowed: "needs -out: the adapter goes to <out>_ebpf.go"}
			}
			if !strings.HasSuffix(s.Out, ".go") {
				return &spec.Error{Option: "ebpf-compat", Value: true, Allowed: fmt.Sprintf("needs an -out ending in .go (got %s): the adapter compiles with the map, and Go compiles only .go files", s.Out)}
			}
			return nil
		},
		// The adapter beside out, built when the map is: x_htab.go →
		// x_htab_ebpf.go, a map in a test file, x_test.go, → x_ebpf_test.go
		// (the adapter uses the map, which only the package's tests see),
		// and x_linux.go → x_ebpf_linux.go.
		path:   func(out string) string { return insertBeforeBuildSuffix(out, "_ebpf") },
		render: templates.RenderEBPF,
	},
}

// insertBeforeBuildSuffix inserts s into the file name path before the
// elements Go reads as its build constraint (_GOOS, _GOARCH, _GOOS_GOARCH,
// then _test; see go/build), so that the new file is built exactly when
// path is. Go reads only the name's last two elements, and they stay.
func insertBeforeBuildSuffix(path, s string) string {
	stem := strings.TrimSuffix(path, ".go")
	stem, test := strings.CutSuffix(stem, "_test")
	dir, name := filepath.Split(stem)
	_, constrained, _ := strings.Cut(name, "_") // Go ignores what comes before the first _
	elems := strings.Split(constrained, "_")
	keep := 0
	for keep < 2 && keep < len(elems) && isOSOrArch(elems[len(elems)-1-keep]) {
		keep++
	}
	if keep > 0 {
		tail := "_" + strings.Join(elems[len(elems)-keep:], "_")
		name = strings.TrimSuffix(name, tail) + s + tail
	} else {
		name += s
	}
	if test {
		name += "_test"
	}
	return dir + name + ".go"
}

// isOSOrArch reports whether Go reads elem, as the last element of a file
// name, as a GOOS or GOARCH constraint. It asks go/build, with a system and
// an architecture that no file name names, so that the ports are those of
// the Go that built htabgen.
func isOSOrArch(elem string) bool {
	ctxt := build.Context{GOOS: "none", GOARCH: "none", Compiler: "gc",
		OpenFile: func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }}
	built, err := ctxt.MatchFile("", "x_"+elem+".go")
	return err == nil && !built
}

// WriteFiles writes every file atomically: all contents go to temporary files
// beside their targets first, and only when all are written are they renamed
// into place. Each file a rename replaces is kept (hard-linked, or copied)
// until the last rename succeeds, so that a rename failing halfway puts the
// files already replaced back. On error nothing is created or changed.
//
// Every path is resolved once here, as the system resolves it (PathKey),
// and everything is done at that resolved path: the checks, the temporary file
// and the rename agree on which file is written.
func WriteFiles(files []File) error {
	var temps, backups []string
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
		for _, b := range backups {
			if b != "" {
				os.Remove(b)
			}
		}
	}
	// Refuse up front what a rename could only half do: two files to one
	// path, or a target that exists and is not a regular file. A file that
	// is replaced keeps its mode (an executable, a private file) and, as far
	// as the process may give it, its owner.
	targets := make([]string, len(files))
	for i, f := range files {
		targets[i] = PathKey(f.Path)
	}
	if c := FindCollision(targets); c != nil {
		first, second := files[c.First].Path, files[c.Second].Path
		if c.CaseOnly {
			return fmt.Errorf("writing %s: %s differs only in case: %s", second, first, CaseOnlyReason)
		}
		return fmt.Errorf("writing %s: %s is the same file", second, first)
	}
	replaced := make([]fs.FileInfo, len(files))
	for i, f := range files {
		fi, err := os.Lstat(targets[i])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // a new file
		case err != nil: // a name too long, a directory that cannot be read
			return fmt.Errorf("writing %s: %w", f.Path, withoutPaths(err))
		case fi.IsDir():
			return fmt.Errorf("writing %s: is a directory: give a file name", f.Path)
		case fi.Mode()&fs.ModeSymlink != 0:
			// A rename would replace the link, not write its target.
			return fmt.Errorf("writing %s: is a symbolic link: give the file it links to", f.Path)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("writing %s: exists and is not a regular file", f.Path)
		}
		replaced[i] = fi
	}
	// A file that already holds what it would get is left alone (not even
	// its modification time changes), so that go generate rewrites only what
	// it changes.
	var todo []File
	var todoTargets []string
	var todoReplaced []fs.FileInfo
	for i, f := range files {
		if replaced[i] != nil && replaced[i].Size() == int64(len(f.Content)) {
			if old, err := os.ReadFile(targets[i]); err == nil && bytes.Equal(old, f.Content) {
				continue
			}
		}
		todo, todoTargets, todoReplaced = append(todo, f), append(todoTargets, targets[i]), append(todoReplaced, replaced[i])
	}
	files, targets, replaced = todo, todoTargets, todoReplaced
	for i, f := range files {
		tmp, err := writeTemp(targets[i], filepath.Dir(f.Path), f.Content, replaced[i])
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		temps = append(temps, tmp)
	}
	for i, f := range files {
		b, err := keep(targets[i])
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: keeping the file it replaces: %w", f.Path, withoutPaths(err))
		}
		backups = append(backups, b)
	}
	for i, f := range files {
		if err := rename(temps[i], targets[i]); err != nil {
			// Put back what the renames before this one replaced.
			for j := i - 1; j >= 0; j-- {
				if backups[j] != "" {
					os.Rename(backups[j], targets[j])
				} else {
					os.Remove(targets[j])
				}
			}
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, withoutPaths(err))
		}
	}
	temps = nil // renamed into place: only the kept files are left to remove
	cleanup()
	return nil
}

// PathKey is the file a write to path changes, as one string however path is
// written: absolute, with the symbolic links of its directory resolved by the
// system's rules. Those apply a ".." after a link to the link's target
// (other/sub/.. where deep links to other/sub, not deep/..), so the directory
// part is resolved as written, never first cleaned as text. Where the
// directory does not exist, the path cleaned as text (a write there fails).
func PathKey(path string) string {
	if !filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			path = wd + string(filepath.Separator) + path
		}
	}
	dir, base := filepath.Split(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(real, base)
	}
	return filepath.Clean(path)
}

// Collision is two outputs, by index, that would write one file: the same
// PathKey, or (CaseOnly) keys whose file names differ only in case.
type Collision struct {
	First, Second int
	CaseOnly      bool
}

// CaseOnlyReason says why names that differ only in case collide.
const CaseOnlyReason = "cmd/go refuses such files in one package, and a case-insensitive file system makes them one"

// FindCollision returns the first collision among keys (PathKeys), or nil.
func FindCollision(keys []string) *Collision {
	seen := map[string]int{} // key with its file name in lower case → index
	for i, key := range keys {
		dir, base := filepath.Split(key)
		folded := dir + strings.ToLower(base)
		if j, dup := seen[folded]; dup {
			return &Collision{First: j, Second: i, CaseOnly: keys[j] != key}
		}
		seen[folded] = i
	}
	return nil
}

// CheckTogether reports whether files that go to one directory, and so to
// one Go package, would fail to compile together: different package clauses,
// or one top-level identifier declared by two files (maps named Conns and
// ConnsKey both declare ConnsKey; unexported identifiers cannot clash, see
// TestNamesCompose).
func CheckTogether(files []File) error {
	type origin struct{ path, pkg string }
	type decl struct{ dir, name string }
	pkgs := map[string]origin{} // directory → first file there
	decls := map[decl]origin{}  // identifier in a directory → file declaring it
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Content, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		dir := filepath.Dir(PathKey(f.Path))
		pkg := file.Name.Name
		first, ok := pkgs[dir]
		if !ok {
			first = origin{f.Path, pkg}
			pkgs[dir] = first
		}
		if first.pkg != pkg {
			return fmt.Errorf("%s (package %s) and %s (package %s) are in one directory: give both maps the same -pkg", first.path, first.pkg, f.Path, pkg)
		}
		for _, name := range topLevelNames(file) {
			if other, dup := decls[decl{dir, name}]; dup && other.path != f.Path {
				return fmt.Errorf("%s and %s both declare %s in package %s: give the maps names that do not overlap", other.path, f.Path, name, pkg)
			}
			decls[decl{dir, name}] = origin{f.Path, pkg}
		}
	}
	return nil
}

// topLevelNames are the package-level identifiers file declares: types,
// functions, variables and constants (not methods, which belong to their
// type, nor _ and init, which may repeat).
func topLevelNames(file *ast.File) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && id.Name != "init" {
			names = append(names, id.Name)
		}
	}
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					add(sp.Name)
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						add(id)
					}
				}
			}
		}
	}
	return names
}

// rename is os.Rename; tests replace it to fail a rename halfway.
var rename = os.Rename

// tempName is a new hidden name in dir for a file of WriteFiles's own. It is
// short whatever the target's name, which may itself be up to the file
// system's limit (255 bytes).
func tempName(dir, suffix string) string {
	return filepath.Join(dir, fmt.Sprintf(".htabgen-%08x%s", rand.Uint32(), suffix))
}

// writeTemp writes content to a new temporary file beside path and returns
// its name; shownDir is path's directory as the user wrote it, for errors. A file that will replace old gets old's mode and owner; a new
// file gets 0666 less the umask, as any file a program creates. Its errors
// do not name the temporary file, which the user never asked for and which
// is gone when they read it.
func writeTemp(path, shownDir string, content []byte, old fs.FileInfo) (string, error) {
	dir := filepath.Dir(path)
	var tmp *os.File
	var err error
	for range 10 { // another process may take the free name first
		tmp, err = os.OpenFile(tempName(dir, ".tmp"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("cannot create a file in %s: %w", shownDir, withoutPaths(err))
	}
	_, err = tmp.Write(content)
	if err == nil && old != nil {
		keepOwner(tmp, old) // first: a chown may clear mode bits
		err = tmp.Chmod(old.Mode().Perm())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", withoutPaths(err)
	}
	return tmp.Name(), nil
}

// withoutPaths is err without the paths an *fs.PathError or *os.LinkError
// names (temporary files, in WriteFiles): the system's reason alone, still
// matching errors.Is(err, fs.ErrNotExist) and the like.
func withoutPaths(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// keep saves the file at path, if there is one, under a temporary name beside
// it and returns that name ("" if path does not exist): a hard link where the
// file system has them, else a copy with the same mode.
func keep(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for range 10 { // another process may take the free name first
		name := tempName(filepath.Dir(path), ".orig")
		err := os.Link(path, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return writeTemp(path, filepath.Dir(path), content, fi)
}
