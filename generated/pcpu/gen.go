// Package pcpu holds the generated BPF_MAP_TYPE_PERCPU_HASH twin for 8-byte
// keys and values, with its generated tests, the port of the kernel's
// test_hashmap_percpu, the kernel differential tests and the per-CPU counter
// benchmarks. Regenerate with `go generate ./generated/...`.
package pcpu

//go:generate go run ../../cmd/htabgen -type pcpu -key 8 -val 8 -out pcpu_k8v8.go -tests
//go:generate go run ../../cmd/htabgen -type pcpu -key 8 -val 8 -bloom 3 -name PerCPUK8V8Bloom -out pcpu_k8v8_bloom.go -tests
