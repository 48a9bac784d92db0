// Package htabgen generates specialised Go hash maps that mirror the Linux
// kernel's BPF hash map family. Generate runs the pipeline the command runs:
// spec → plan (every layout decision) → render (one template per concern).
// The command in cmd/htabgen adds flags and writing files.
package htabgen

import (
	"fmt"
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

// Generate plans and renders the map of s, and its test file when s.Tests.
// command is the command line written into the header.
func Generate(s spec.Spec, command string) ([]File, error) {
	l, err := spec.Plan(s)
	if err != nil {
		return nil, err
	}
	h := templates.Header{Version: Version, Command: command}
	src, err := templates.Render(l, h)
	if err != nil {
		return nil, err
	}
	files := []File{{Path: s.Out, Content: src}}
	if s.Tests {
		if s.Out == "" {
			return nil, &spec.Error{Option: "tests", Value: true, Allowed: "needs -out: the tests go to <out>_test.go"}
		}
		test, err := templates.RenderTests(l, h)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: sibling(s.Out, "_test.go"), Content: test})
	}
	return files, nil
}

// sibling is out with its .go suffix replaced by suffix: x_htab.go → x_htab_test.go.
func sibling(out, suffix string) string {
	return strings.TrimSuffix(out, ".go") + suffix
}

// WriteFiles writes every file atomically: all contents go to temporary files
// beside their targets first, and only when all are written are they renamed
// into place. On error nothing is created or changed.
func WriteFiles(files []File) error {
	var temps []string
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	// Refuse up front what a rename could only half do: two files to one
	// path, or a target that exists and is not a regular file.
	seen := map[string]bool{}
	for _, f := range files {
		if seen[filepath.Clean(f.Path)] {
			return fmt.Errorf("writing %s: two maps go to the same file", f.Path)
		}
		seen[filepath.Clean(f.Path)] = true
		if fi, err := os.Lstat(f.Path); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("writing %s: exists and is not a regular file", f.Path)
		}
	}
	for _, f := range files {
		dir := filepath.Dir(f.Path)
		tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*.tmp")
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		temps = append(temps, tmp.Name())
		_, err = tmp.Write(f.Content)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.Path); err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}
