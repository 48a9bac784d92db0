//go:build unix

package htabgen

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteFilesKeepsOwner: a file WriteFiles replaces keeps its owner and
// group. Giving a file to another user takes root; others check that a file
// of their own stays theirs.
func TestWriteFilesKeepsOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o640))
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 1234, 4321
		require.NoError(t, os.Chown(path, uid, gid))
	}
	require.NoError(t, WriteFiles([]File{{path, []byte("new")}}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, uid, int(st.Uid), "owner")
	assert.Equal(t, gid, int(st.Gid), "group")
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}
