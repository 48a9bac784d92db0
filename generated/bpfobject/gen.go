// Package bpfobject holds the fakes that -elf makes from a compiled BPF
// object, testdata/bpf/maps.o (its source is testdata/bpf/maps.c): one map
// of every hash-family type and a bloom filter, each with the object's key
// and value sizes, max_entries and flags as its default options
// (<Name>Options), with their generated tests, and the kernel differential
// that creates each of the object's maps in the kernel, as the object
// declares it, and compares it with its fake. The object's array and ring
// buffer are skipped. Regenerate with `go generate ./generated/...`.
package bpfobject

//go:generate go run ../../cmd/htabgen -elf ../../testdata/bpf/maps.o -tests
