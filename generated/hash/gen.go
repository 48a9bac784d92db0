// Package hash holds the generated BPF_MAP_TYPE_HASH twin for 8-byte keys and
// values, with its generated tests, the kernel differential tests and the
// benchmarks against the peers. Regenerate with `go generate ./generated/...`.
package hash

//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -name HashK8V8 -out hash_k8v8.go -tests
