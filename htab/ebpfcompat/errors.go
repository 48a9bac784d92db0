package ebpfcompat

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/htabgen/htabgen/htab"
)

// enotsupp is the kernel's ENOTSUPP (524), which bpf(2) returns for a
// command the map has no operation for (a batch on a bloom filter); it has
// no name in package syscall, being internal to the kernel.
const enotsupp = syscall.Errno(524)

// ErrClosed is the error of every operation on an adapter after Close: EBADF,
// as bpf(2) answers for a closed file descriptor.
var ErrClosed error = syscall.EBADF

// mapError is an errno as cilium/ebpf returns it: its message, and
// errors.Is true for the errno, for cilium/ebpf's sentinel of that errno if
// it has one, and for the htab error of the same meaning.
type mapError struct {
	msg  string
	errs []error
}

func (e *mapError) Error() string   { return e.msg }
func (e *mapError) Unwrap() []error { return e.errs }

var (
	errKeyNotExist  = &mapError{ebpf.ErrKeyNotExist.Error(), []error{ebpf.ErrKeyNotExist, syscall.ENOENT, htab.ErrKeyNotExist}}
	errKeyExist     = &mapError{ebpf.ErrKeyExist.Error(), []error{ebpf.ErrKeyExist, syscall.EEXIST, htab.ErrKeyExist}}
	errFull         = &mapError{"key too big for map: " + syscall.E2BIG.Error(), []error{syscall.E2BIG, htab.ErrFull}}
	errInvalid      = &mapError{syscall.EINVAL.Error(), []error{syscall.EINVAL, htab.ErrInvalid}}
	errNoSpace      = &mapError{syscall.ENOSPC.Error(), []error{syscall.ENOSPC, htab.ErrNoSpace}}
	errNoMem        = &mapError{syscall.ENOMEM.Error(), []error{syscall.ENOMEM, htab.ErrNoMem}}
	errOpNotSupp    = &mapError{syscall.EOPNOTSUPP.Error(), []error{syscall.EOPNOTSUPP}}
	errNotSupported = &mapError{ebpf.ErrNotSupported.Error(), []error{ebpf.ErrNotSupported, enotsupp}}
	errClosed       = &mapError{syscall.EBADF.Error(), []error{ErrClosed}}

	// cilium/ebpf's lookup error, made once: it is returned on hot paths.
	errLookupKeyNotExist = fmt.Errorf("lookup: %w", errKeyNotExist)
)

// errno is err, an error of a generated map, as the kernel's errno for it
// reaches a cilium/ebpf caller (after its wrapMapError).
func errno(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, htab.ErrKeyNotExist):
		return errKeyNotExist
	case errors.Is(err, htab.ErrKeyExist):
		return errKeyExist
	case errors.Is(err, htab.ErrFull):
		return errFull
	case errors.Is(err, htab.ErrNoSpace):
		return errNoSpace
	case errors.Is(err, htab.ErrNoMem):
		return errNoMem
	case errors.Is(err, htab.ErrInvalid):
		return errInvalid
	}
	return err
}
