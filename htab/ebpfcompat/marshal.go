package ebpfcompat

// Marshaling keys and values as cilium/ebpf does (its internal/sysenc and
// marshalers.go, MIT licensed), so that a value that cilium/ebpf accepts or
// refuses for a kernel map is accepted or refused here, with the same words.

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"unsafe"
)

// marshalInput is a key or value as an operation reads it: an
// unsafe.Pointer is read in place, anything else marshaled.
func marshalInput(data any, size int) ([]byte, error) {
	if p, ok := data.(unsafe.Pointer); ok {
		return unsafe.Slice((*byte)(p), size), nil
	}
	return marshal(data, size)
}

// marshal is data as size bytes in native byte order: an
// encoding.BinaryMarshaler marshals itself; a []byte or a string is its
// bytes; integers and fixed-size types (pointers to them, structs, arrays
// and slices of them) are their encoding/binary form, read in place when
// that form is their memory. A result of another size is an error naming
// the type and the size.
func marshal(data any, size int) ([]byte, error) {
	if data == nil {
		return nil, errors.New("can't marshal a nil value")
	}
	var buf []byte
	var err error
	switch value := data.(type) {
	case encoding.BinaryMarshaler:
		buf, err = value.MarshalBinary()
	case string:
		buf = unsafe.Slice(unsafe.StringData(value), len(value))
	case []byte:
		buf = value
	case int16:
		buf = binary.NativeEndian.AppendUint16(nil, uint16(value))
	case uint16:
		buf = binary.NativeEndian.AppendUint16(nil, value)
	case int32:
		buf = binary.NativeEndian.AppendUint32(nil, uint32(value))
	case uint32:
		buf = binary.NativeEndian.AppendUint32(nil, value)
	case int64:
		buf = binary.NativeEndian.AppendUint64(nil, uint64(value))
	case uint64:
		buf = binary.NativeEndian.AppendUint64(nil, value)
	default:
		if mem := backingMemory(data); len(mem) == size {
			return mem, nil
		}
		if isNilPointer(data) { // encoding/binary would panic
			return nil, fmt.Errorf("can't marshal a nil %T", data)
		}
		buf, err = binary.Append(nil, binary.NativeEndian, value)
	}
	if err != nil {
		return nil, err
	}
	if len(buf) != size {
		return nil, fmt.Errorf("%T doesn't marshal to %d bytes", data, size)
	}
	return buf, nil
}

// unmarshal decodes buf, in native byte order, into data: an
// encoding.BinaryUnmarshaler, a *string, a *[]byte (replaced by a copy of
// buf), or a pointer to (or a slice of) fixed-size types.
func unmarshal(data any, buf []byte) error {
	switch value := data.(type) {
	case encoding.BinaryUnmarshaler:
		return value.UnmarshalBinary(buf)
	case *string:
		*value = string(buf)
		return nil
	case *[]byte:
		*value = slices.Clone(buf)
		return nil
	}
	if mem := backingMemory(data); len(mem) == len(buf) {
		copy(mem, buf)
		return nil
	}
	if isNilPointer(data) {
		return fmt.Errorf("can't unmarshal into a nil %T", data)
	}
	n, err := binary.Decode(buf, binary.NativeEndian, data)
	if err != nil {
		return err
	}
	if n != len(buf) {
		return fmt.Errorf("unmarshaling %T doesn't consume all data", data)
	}
	return nil
}

// output is where an operation writes a result of size bytes for dst, and
// whether dst still has to be decoded from it: dst's own memory where that
// can be (an unsafe.Pointer, or the memory of a pointer or slice whose
// encoding/binary form it is), else a new zeroed buffer. A BinaryUnmarshaler
// always gets a new buffer.
func output(dst any, size int) (buf []byte, decode bool) {
	if p, ok := dst.(unsafe.Pointer); ok {
		return unsafe.Slice((*byte)(p), size), false
	}
	if _, ok := dst.(encoding.BinaryUnmarshaler); ok {
		return make([]byte, size), true
	}
	return sliceOutput(dst, size)
}

// sliceOutput is where size bytes for dst go: dst's own memory if that is
// its encoding/binary form, else a new buffer to decode from. Batches use
// it as it is (their outputs are slices).
func sliceOutput(dst any, size int) (buf []byte, decode bool) {
	if mem := backingMemory(dst); len(mem) == size {
		return mem, false
	}
	return make([]byte, size), true
}

// decodeOutput finishes what output began: it decodes buf into dst unless
// buf is dst's own memory.
func decodeOutput(dst any, buf []byte, decode bool) error {
	if !decode {
		return nil
	}
	return unmarshal(dst, buf)
}

// backingMemory is the memory of data when that memory is data's
// encoding/binary form (a non-nil pointer to, or a slice of, a type with no
// padding, no pointers and no unexported fields); else nil.
func backingMemory(data any) []byte {
	switch p := data.(type) { // the common keys and values, without reflection
	case nil:
		return nil
	case *uint64:
		return memOf(p)
	case *int64:
		return memOf(p)
	case *uint32:
		return memOf(p)
	case *int32:
		return memOf(p)
	case *uint16:
		return memOf(p)
	case *int16:
		return memOf(p)
	case *uint8:
		return memOf(p)
	case []byte:
		return p
	}
	value := reflect.ValueOf(data)
	var elem reflect.Type
	switch value.Kind() {
	case reflect.Pointer:
		if value.IsNil() {
			return nil
		}
		if elem = value.Type().Elem(); elem.Kind() == reflect.Slice {
			value = value.Elem()
			elem = elem.Elem()
		}
	case reflect.Slice:
		elem = value.Type().Elem()
	default:
		return nil
	}
	if !isItsEncoding(elem) {
		return nil
	}
	size := int(elem.Size())
	if value.Kind() == reflect.Slice {
		size *= value.Len()
	}
	if size == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(value.UnsafePointer()), size)
}

// memOf is the memory of *p, the integer's bytes in native order, or nil
// for a nil p.
func memOf[T uint64 | int64 | uint32 | int32 | uint16 | int16 | uint8](p *T) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

var itsEncoding sync.Map // reflect.Type → bool

// isItsEncoding reports whether a value of type t is in memory what
// encoding/binary encodes it as: a fixed size with no padding (binary.Size
// of it equals its size) and no unexported fields (encoding/binary writes
// those as zeroes). Cached: cilium/ebpf asks it of every key and value.
func isItsEncoding(t reflect.Type) bool {
	if v, ok := itsEncoding.Load(t); ok {
		return v.(bool)
	}
	ok := binary.Size(reflect.New(t).Interface()) == int(t.Size()) && !hasUnexportedFields(t)
	itsEncoding.Store(t, ok)
	return ok
}

// isNilPointer reports whether data is a nil pointer, which cilium/ebpf
// hands to encoding/binary, which panics; here it is an error.
func isNilPointer(data any) bool {
	v := reflect.ValueOf(data)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

var unexportedFields sync.Map // reflect.Type → bool

// hasUnexportedFields reports whether typ has fields encoding/binary would
// skip or refuse (it writes zeroes for _ fields, which are fine).
func hasUnexportedFields(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return hasUnexportedFields(typ.Elem())
	case reflect.Struct:
		if v, ok := unexportedFields.Load(typ); ok {
			return v.(bool)
		}
		found := false
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() && f.Name != "_" || hasUnexportedFields(f.Type) {
				found = true
				break
			}
		}
		unexportedFields.Store(typ, found)
		return found
	default:
		return false
	}
}

// sliceLen is the length of slice, which must be a slice.
func sliceLen(slice any) (int, error) {
	v := reflect.ValueOf(slice)
	if v.Kind() != reflect.Slice {
		return 0, fmt.Errorf("%T is not a slice", slice)
	}
	return v.Len(), nil
}

// align8 is n rounded up to a multiple of 8: the stride of a per-CPU value
// in the kernel's layout, round_up(value_size, 8).
func align8(n int) int { return (n + 7) &^ 7 }

// appendPerCPU appends slice (at most cpus values) to buf in the kernel's
// per-CPU layout: each value marshaled to size bytes and padded to stride,
// the CPUs past the slice's end zero.
func appendPerCPU(buf []byte, slice any, cpus, size, stride int) ([]byte, error) {
	if reflect.TypeOf(slice) == nil || reflect.TypeOf(slice).Kind() != reflect.Slice {
		return nil, errors.New("per-CPU value requires slice")
	}
	v := reflect.ValueOf(slice)
	if v.Len() > cpus {
		return nil, errors.New("per-CPU value greater than number of CPUs")
	}
	buf = slices.Grow(buf, stride*cpus)
	for i := range v.Len() {
		b, err := marshal(v.Index(i).Interface(), size)
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
		buf = append(buf, make([]byte, stride-size)...)
	}
	return append(buf, make([]byte, (cpus-v.Len())*stride)...), nil
}

// marshalBatchPerCPU is a batch of n per-CPU values, given as one slice of
// n*cpus values (key i's value on CPU j at i*cpus+j), in the kernel's layout.
func marshalBatchPerCPU(slice any, n, cpus, size int) ([]byte, error) {
	if reflect.TypeOf(slice) == nil || reflect.TypeOf(slice).Kind() != reflect.Slice {
		return nil, errors.New("batch value requires a slice")
	}
	v := reflect.ValueOf(slice)
	if v.Len() != n*cpus {
		return nil, fmt.Errorf("per-CPU slice has incorrect length, expected %d, got %d", n*cpus, v.Len())
	}
	stride := align8(size)
	buf := make([]byte, 0, n*stride*cpus)
	for i := range n {
		var err error
		buf, err = appendPerCPU(buf, v.Slice(i*cpus, (i+1)*cpus).Interface(), cpus, size, stride)
		if err != nil {
			return nil, fmt.Errorf("batch %d: %w", i, err)
		}
	}
	return buf, nil
}

// perCPUSlice is where a per-CPU value goes: slice itself (the caller sized
// it), or for a pointer to a slice a new slice of cpus values (new values
// for a slice of pointers) stored through the pointer.
func perCPUSlice(sliceOrPtr any, cpus int) (any, error) {
	if sliceOrPtr == nil {
		return nil, errors.New("per-cpu value: nil interface")
	}
	v := reflect.ValueOf(sliceOrPtr)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("per-cpu value: nil %T", sliceOrPtr)
	}
	t := v.Type()
	if t.Kind() == reflect.Slice {
		return sliceOrPtr, nil
	}
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Slice {
		return nil, errors.New("per-cpu value requires a slice or a pointer to slice")
	}
	slice := reflect.MakeSlice(t.Elem(), cpus, cpus)
	v.Elem().Set(slice)
	if elem := t.Elem().Elem(); elem.Kind() == reflect.Pointer {
		for i := range cpus {
			slice.Index(i).Set(reflect.New(elem.Elem()))
		}
	}
	return slice.Interface(), nil
}

// unmarshalPerCPU decodes buf, cpus values in the kernel's layout, into
// slice, which must hold exactly cpus values (or pointers to them).
func unmarshalPerCPU(slice any, cpus, size int, buf []byte) error {
	t := reflect.TypeOf(slice)
	if t == nil || t.Kind() != reflect.Slice {
		return errors.New("per-CPU value requires a slice")
	}
	v := reflect.ValueOf(slice)
	if v.Len() != cpus {
		return fmt.Errorf("per-CPU slice has incorrect length, expected %d, got %d", cpus, v.Len())
	}
	isPtr := t.Elem().Kind() == reflect.Pointer
	stride := align8(size)
	for i := range cpus {
		e := v.Index(i)
		var dst any
		if isPtr {
			if !e.Elem().CanAddr() {
				return errors.New("per-CPU slice elements cannot be nil")
			}
			dst = e.Elem().Addr().Interface()
		} else {
			dst = e.Addr().Interface()
		}
		if err := unmarshal(dst, buf[:size]); err != nil {
			return fmt.Errorf("cpu %d: %w", i, err)
		}
		buf = buf[stride:]
	}
	return nil
}

// unmarshalBatchPerCPU decodes buf, n per-CPU values in the kernel's
// layout, into slice, which must hold n*cpus values.
func unmarshalBatchPerCPU(slice any, n, cpus, size int, buf []byte) error {
	t := reflect.TypeOf(slice)
	if t == nil || t.Kind() != reflect.Slice {
		return errors.New("batch requires a slice")
	}
	v := reflect.ValueOf(slice)
	if v.Len() != n*cpus {
		// (cilium/ebpf names the two numbers the other way round.)
		return fmt.Errorf("per-CPU slice has incorrect length, expected %d, got %d", v.Len(), n*cpus)
	}
	full := cpus * align8(size)
	for i := range n {
		if err := unmarshalPerCPU(v.Slice(i*cpus, (i+1)*cpus).Interface(), cpus, size, buf[:full]); err != nil {
			return fmt.Errorf("batch %d: %w", i, err)
		}
		buf = buf[full:]
	}
	return nil
}
