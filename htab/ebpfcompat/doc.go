// Package ebpfcompat gives htabgen's generated maps the methods of
// cilium/ebpf's *ebpf.Map, so that one generated map serves as an in-memory
// stand-in for a kernel BPF map: code written against an interface over the
// *ebpf.Map methods it calls accepts either, and tests run without root.
//
// The -ebpf-compat file of a map (<out>_ebpf.go) declares <Name>EBPF, whose
// methods forward to a Map made by NewHash, NewPerCPU or NewBloom. Map does
// what cilium/ebpf does around the bpf(2) syscall, and the generated map
// what the kernel does behind it:
//
//   - keys and values marshal by cilium/ebpf's rules (its internal/sysenc):
//     an unsafe.Pointer, an encoding.BinaryMarshaler or BinaryUnmarshaler, a
//     []byte (a *[]byte to receive one), integers, and fixed-size structs and
//     arrays in native byte order, read and written in place when their
//     memory is their encoding. A value of the wrong size is an error that
//     names the type and the size. A per-CPU value is a slice of CPUs values
//     (on update a shorter one leaves the rest zero) or, to receive one, a
//     pointer to a slice; in raw form (LookupBytes) each CPU's value is
//     padded to a multiple of 8 bytes, as in the kernel;
//   - errors satisfy the errors.Is checks of the kernel map's errors as
//     cilium/ebpf returns them (ebpf.ErrKeyNotExist and syscall.ENOENT,
//     ebpf.ErrKeyExist and EEXIST, E2BIG for a full map, EINVAL, ENOSPC for
//     a batch too small), and htab's error of the same meaning, with the same
//     messages ("lookup: key does not exist");
//   - a batch walk's position is kept where cilium/ebpf keeps a kernel
//     map's, behind the *ebpf.MapBatchCursor's unexported buffer: a cursor
//     set back to zero starts again, a copy shares the walk, and a cursor is
//     one map's;
//   - Iterate walks a kernel map or an adapter alike, as *ebpf.MapIterator.
//
// Semantics (capacity, order, batch splits, LRU eviction, per-CPU values)
// are the generated map's, which are the kernel's.
package ebpfcompat
