//go:build unix

package htabgen

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file old describes, as far as
// the process may: root may give a file to anyone, others only to themselves
// and their groups, so a failure leaves f as the process created it, as
// editors that write a new file and rename it do.
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
