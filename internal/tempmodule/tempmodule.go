// Package tempmodule runs go, offline, in temporary modules that require
// htabgen from this checkout: for the tests that generate maps and build,
// vet and test them as a user's module would.
package tempmodule

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Runner runs go with args, and env added to the environment, in a module's
// directory, fails the test if it fails, and returns its output.
type Runner func(env []string, args ...string) []byte

// Root is the directory of this checkout: the nearest directory, from the
// test's working directory up, that holds a go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test's directory")
		dir = parent
	}
}

// New makes dir a module named name that requires htabgen from this
// checkout, and returns a runner of go commands in it. It works offline: the
// module cache holds every dependency this checkout's go.sum names, which
// the module copies. -trimpath leaves the module's directory out of the
// build cache's keys, so a second run reuses what the first compiled.
func New(t testing.TB, dir, name string) Runner {
	t.Helper()
	root := Root(t)
	gomod := "module " + name + "\n\ngo 1.26.0\n\nrequire github.com/htabgen/htabgen v0.0.0\n\nreplace github.com/htabgen/htabgen => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return Go(t, dir, "GOFLAGS=-mod=mod -trimpath")
}

// Go returns a runner of go commands in dir, offline (GOPROXY=off), with
// this toolchain and no workspace, and base added to the environment before
// each call's own env.
func Go(t testing.TB, dir string, base ...string) Runner {
	return func(env []string, args ...string) []byte {
		t.Helper()
		return Run(t, dir, append(base, env...), "go", args...)
	}
}

// Run runs the program name with args in dir, offline, with env added to
// the environment (later values win), fails the test if it fails, and
// returns its output.
func Run(t testing.TB, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
	cmd.Env = append(cmd.Env, env...)
	line := strings.TrimSpace(strings.Join(env, " ") + " " + name + " " + strings.Join(args, " "))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s in %s:\n%s", line, dir, out)
	t.Logf("%s: %v", line, time.Since(start).Round(time.Millisecond))
	return out
}
