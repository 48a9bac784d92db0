package kernel

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// bpf(2) commands used here (include/uapi/linux/bpf.h).
const (
	cmdLookupElem          = unix.BPF_MAP_LOOKUP_ELEM
	cmdUpdateElem          = unix.BPF_MAP_UPDATE_ELEM
	cmdDeleteElem          = unix.BPF_MAP_DELETE_ELEM
	cmdGetNextKey          = unix.BPF_MAP_GET_NEXT_KEY
	cmdLookupAndDeleteElem = unix.BPF_MAP_LOOKUP_AND_DELETE_ELEM
	cmdLookupBatch         = unix.BPF_MAP_LOOKUP_BATCH
	cmdLookupAndDeleteBat  = unix.BPF_MAP_LOOKUP_AND_DELETE_BATCH
	cmdUpdateBatch         = unix.BPF_MAP_UPDATE_BATCH
	cmdDeleteBatch         = unix.BPF_MAP_DELETE_BATCH
)

// The attr structs hold user pointers as unsafe.Pointer, not as integers, so
// that the garbage collector keeps the buffers alive and adjusts them if a
// goroutine stack moves. That needs 8-byte pointers: the assertions below stop
// the build on 32-bit architectures.

// elemAttr is the element-command part of union bpf_attr:
// map_fd u32, pad, key u64, value/next_key u64, flags u64.
type elemAttr struct {
	mapFD uint32
	_     uint32
	key   unsafe.Pointer
	value unsafe.Pointer // next_key for BPF_MAP_GET_NEXT_KEY
	flags uint64
}

// batchAttr is the batch part of union bpf_attr: in_batch u64, out_batch u64,
// keys u64, values u64, count u32, map_fd u32, elem_flags u64, flags u64.
type batchAttr struct {
	inBatch   unsafe.Pointer
	outBatch  unsafe.Pointer
	keys      unsafe.Pointer
	values    unsafe.Pointer
	count     uint32
	mapFD     uint32
	elemFlags uint64
	flags     uint64
}

// Compile-time layout checks: an index out of range stops the build.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(elemAttr{})-32]
	_ = [1]struct{}{}[unsafe.Sizeof(batchAttr{})-56]
	_ = [1]struct{}{}[unsafe.Offsetof(batchAttr{}.count)-32]
)

// bpf issues the bpf(2) command cmd with attr, a pointer to an attr struct of
// size bytes, and returns the errno, or nil.
func bpf(cmd uintptr, attr unsafe.Pointer, size uintptr) error {
	_, _, e := unix.Syscall(unix.SYS_BPF, cmd, uintptr(attr), size)
	runtime.KeepAlive(attr)
	if e != 0 {
		return e
	}
	return nil
}

func (a *elemAttr) do(cmd uintptr) error {
	return bpf(cmd, unsafe.Pointer(a), unsafe.Sizeof(*a))
}

func (a *batchAttr) do(cmd uintptr) error {
	return bpf(cmd, unsafe.Pointer(a), unsafe.Sizeof(*a))
}

// ptr is the address of b's first byte, or nil for an empty b.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}
