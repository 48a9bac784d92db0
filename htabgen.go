// Package htabgen generates specialised Go hash maps that mirror the Linux
// kernel's BPF hash map family. Generate runs the pipeline the command runs:
// spec → plan (every layout decision) → render (one template per concern).
// The command in cmd/htabgen adds flags and writing files.
package htabgen

import (
	"errors"
	"fmt"
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
		files = append(files, File{Path: testPath(s.Out), Content: test})
	}
	return files, nil
}

// Outputs are the paths Generate writes for s: s.Out, and with s.Tests its
// test file.
func Outputs(s spec.Spec) []string {
	if s.Tests {
		return []string{s.Out, testPath(s.Out)}
	}
	return []string{s.Out}
}

// testPath is the test file beside out: x_htab.go → x_htab_test.go.
func testPath(out string) string {
	return strings.TrimSuffix(out, ".go") + "_test.go"
}

// WriteFiles writes every file atomically: all contents go to temporary files
// beside their targets first, and only when all are written are they renamed
// into place. Each file a rename replaces is kept (hard-linked, or copied)
// until the last rename succeeds, so that a rename failing halfway puts the
// files already replaced back. On error nothing is created or changed.
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
		tmp, err := writeTemp(f.Path, f.Content, 0o644)
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		temps = append(temps, tmp)
	}
	for _, f := range files {
		b, err := keep(f.Path)
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: keeping the file it replaces: %w", f.Path, err)
		}
		backups = append(backups, b)
	}
	for i, f := range files {
		if err := rename(temps[i], f.Path); err != nil {
			// Put back what the renames before this one replaced.
			for j := i - 1; j >= 0; j-- {
				if backups[j] != "" {
					os.Rename(backups[j], files[j].Path)
				} else {
					os.Remove(files[j].Path)
				}
			}
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	temps = nil // renamed into place: only the kept files are left to remove
	cleanup()
	return nil
}

// rename is os.Rename; tests replace it to fail a rename halfway.
var rename = os.Rename

// writeTemp writes content with mode perm to a new temporary file beside
// path and returns its name.
func writeTemp(path string, content []byte, perm os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
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
		name := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.orig", filepath.Base(path), rand.Uint32()))
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
	return writeTemp(path, content, fi.Mode().Perm())
}
