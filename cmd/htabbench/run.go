package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// modulePath is the module whose benchmarks htabbench runs.
const modulePath = "github.com/htabgen/htabgen"

// moduleRoot is the directory of the htabgen module that the working
// directory is in; the suites' packages are relative to it.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module (go list -m): %w", exitDetail(err))
	}
	path, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if path != modulePath {
		return "", fmt.Errorf("run htabbench inside a checkout of %s: the working directory is in module %q", modulePath, path)
	}
	return dir, nil
}

// writeHeader writes the configuration lines that head the raw output: in
// the Go benchmark format a "key: value" line configures the results after
// it, so benchstat and readResults see every result's date, commit and
// machine. go test adds goos, goarch, pkg and cpu (the CPU model) itself.
func writeHeader(w io.Writer, root, mode string) error {
	commit := "unknown"
	if out, err := gitOutput(root, "rev-parse", "--short=12", "HEAD"); err == nil {
		commit = out
		if dirty, err := gitOutput(root, "status", "--porcelain", "--untracked-files=no"); err == nil && dirty != "" {
			commit += " (with uncommitted changes)"
		}
	}
	_, err := fmt.Fprintf(w, "htabbench: %s\ndate: %s\ncommit: %s\ncores: %d\ngo: %s\n\n",
		mode, time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, runtime.NumCPU(), runtime.Version())
	return err
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// goTestArgs is the go test command line of one form of a suite.
func goTestArgs(pkg string, a runArgs) []string {
	args := []string{"test", "-run", "^$", "-bench", a.bench, "-benchtime", a.benchtime,
		"-count", strconv.Itoa(a.count), "-timeout", "0", pkg}
	return append(args, a.flags...)
}

// runSuites runs each suite's go test in a child process, in root, and
// copies its standard output to raw as it comes. The progress goes to
// progress: which suite and benchmark, how many suites are left, the time
// since the start. A failing suite stops the run; its output is in raw and
// the error quotes the end of its standard error.
func runSuites(root string, run []suite, quick bool, raw io.Writer, progress io.Writer) error {
	start := time.Now()
	tty := isTerminal(progress)
	for i, s := range run {
		runs := s.full
		if quick {
			runs = s.quick
		}
		for _, a := range runs {
			status := func(what string) string {
				return fmt.Sprintf("htabbench: suite %d of %d (%s, %d left after it), %s elapsed: %s",
					i+1, len(run), s.name, len(run)-i-1, time.Since(start).Round(time.Second), what)
			}
			if err := runGoTest(root, s.pkg, a, raw, progress, tty, status); err != nil {
				return fmt.Errorf("suite %s: %w", s.name, err)
			}
		}
	}
	fmt.Fprintf(progress, "htabbench: %d suites in %s\n", len(run), time.Since(start).Round(time.Second))
	return nil
}

// runGoTest runs one go test, copying its standard output to raw and
// putting each benchmark it finishes into the progress line.
func runGoTest(root, pkg string, a runArgs, raw, progress io.Writer, tty bool, status func(string) string) error {
	fmt.Fprintln(progress, status(commandLine(pkg, a)))
	cmd := exec.Command("go", goTestArgs(pkg, a)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), a.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(raw, line)
		if name, _, ok := strings.Cut(line, "\t"); ok && strings.HasPrefix(name, "Benchmark") {
			if tty {
				fmt.Fprintf(progress, "\r\033[K%s", status(strings.TrimSpace(name)))
			} else {
				fmt.Fprintln(progress, status(strings.TrimSpace(name)))
			}
		}
	}
	if tty {
		fmt.Fprintln(progress)
	}
	werr := cmd.Wait()
	if err := sc.Err(); err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("%s failed: %w\n%s", commandLine(pkg, a), werr, tail(stderr.String(), 20))
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// exitDetail adds a failed command's standard error to its error.
func exitDetail(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// selectSuites is the suites named in a -suites list, in their run order,
// or all of them for an empty list.
func selectSuites(list string) ([]suite, error) {
	if list == "" {
		return suites, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var run []suite
	var names []string
	for _, s := range suites {
		names = append(names, s.name)
		if want[s.name] {
			run = append(run, s)
			delete(want, s.name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("-suites: no suite %q (there are %s)", n, strings.Join(names, ", "))
	}
	return run, nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that a failed write leaves path as it was. A file that is
// replaced keeps its mode; a new one is 0644.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
