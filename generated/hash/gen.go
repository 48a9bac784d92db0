// Package hash holds the generated BPF_MAP_TYPE_HASH twins for 8-byte keys and
// values in both storage layouts: the Home* maps in the default home layout
// (gen_home.go) and the Hash* maps in the classic layout (-layout classic, the
// kernel's), with their generated tests, the kernel differential tests and
// the selftest ports (run on both layouts), and the benchmarks against the
// peers. Regenerate with `go generate ./generated/...`.
package hash

//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name HashK8V8 -out hash_k8v8.go -tests

// With a bloom filter in front of lookups (-bloom 3): the same tests, the
// filter's own (FilterChurn), and the kernel differentials of the package.
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -bloom 3 -name HashK8V8Bloom -out hash_k8v8_bloom.go -tests
