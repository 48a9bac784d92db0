// Package lru holds the generated BPF_MAP_TYPE_LRU_HASH and
// BPF_MAP_TYPE_LRU_PERCPU_HASH twins for 8-byte keys and values (the maps of
// the kernel's test_lru_map.c), with their generated tests, the ports of
// test_lru_map.c, the kernel differential tests and the LRU benchmarks.
// Regenerate with `go generate ./generated/...`.
package lru

//go:generate go run ../../cmd/htabgen -type lru -key 8 -val 8 -out lru_k8v8.go -tests
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 8 -val 8 -out lru_pcpu_k8v8.go -tests
//go:generate go run ../../cmd/htabgen -type lru -key 8 -val 8 -bloom 3 -name LRUK8V8Bloom -out lru_k8v8_bloom.go -tests
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 8 -val 8 -bloom 3 -name LRUPerCPUK8V8Bloom -out lru_pcpu_k8v8_bloom.go -tests
