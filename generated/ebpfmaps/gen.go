// Package ebpfmaps holds generated maps of every type with their
// -ebpf-compat adapters, the stand-ins for cilium/ebpf's *ebpf.Map, and the
// test that runs one body of random operations, written against an
// interface that *ebpf.Map satisfies, on the kernel's maps and on the
// adapters. Regenerate with `go generate ./generated/...`.
package ebpfmaps

// Per-CPU values of 12 bytes, which the kernel's layout pads to 16 per CPU.
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -name Hash -out hash.go -ebpf-compat
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name HashClassic -out hash_classic.go -ebpf-compat
//go:generate go run ../../cmd/htabgen -type pcpu -key 8 -val 12 -name PerCPU -out pcpu.go -ebpf-compat
//go:generate go run ../../cmd/htabgen -type lru -key 8 -val 8 -name LRU -out lru.go -ebpf-compat
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 8 -val 12 -name LRUPerCPU -out lru_pcpu.go -ebpf-compat
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -hashes 3 -name Bloom -out bloom.go -ebpf-compat
