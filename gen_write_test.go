// Writing the generated files: paths resolved as the system resolves them,
// atomic replacement, modes kept, and nothing left behind on error.

package htabgen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
