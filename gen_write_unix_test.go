//go:build unix

// Targets a rename would not write as asked: file kinds only a Unix file
// system has, or lets a test make without privilege.

package htabgen

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteFilesRefusesTargets: a target that a rename would not write as
// asked is refused before anything is written, with what to give instead.
func TestWriteFilesRefusesTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	sub := filepath.Join(dir, "sub.go")
	require.NoError(t, os.Mkdir(sub, 0o755))
	real := filepath.Join(dir, "real.go")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o644))
	link := filepath.Join(dir, "link.go")
	require.NoError(t, os.Symlink(real, link))
	tooLong := filepath.Join(dir, strings.Repeat("a", 256)+".go")
	first := filepath.Join(dir, "first.go")
	for _, c := range []struct{ path, want string }{
		{sub, "writing " + sub + ": is a directory: give a file name"},
		{link, "writing " + link + ": is a symbolic link: give the file it links to"},
		{fifo, "writing " + fifo + ": exists and is not a regular file"},
		{tooLong, "writing " + tooLong + ": file name too long"},
	} {
		err := WriteFiles([]File{{first, []byte("x")}, {c.path, []byte("x")}})
		assert.EqualError(t, err, c.want)
		assert.NoFileExists(t, first, "nothing is written when one target is refused")
	}
	got, err := os.ReadFile(real)
	require.NoError(t, err)
	assert.Equal(t, "old", string(got), "the link's target is untouched")
}
