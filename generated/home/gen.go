// Package home holds the generated BPF_MAP_TYPE_HASH twins in the experimental
// home layout (-layout home), with their generated tests, the kernel
// differential tests, the batch ports and the benchmarks against the classic
// layout and the peers. Regenerate with `go generate ./generated/...`.
package home

//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -layout home -name HomeK8V8 -out home_k8v8.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 16 -val 8 -layout home -name HomeK16V8 -out home_k16v8.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -batch-lock sparse -name HomeK4V4Sparse -out home_k4v4_sparse.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -name HomeK4V4 -out home_k4v4.go
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -batch-lock always -name HomeK4V4Always -out home_k4v4_always.go

// ClassicK8V8 is the default layout of the same map, for the benchmarks
// (peers_bench_test.go: impl=classic).
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -name ClassicK8V8 -out classic_k8v8.go

// HomeK8V24 is the map of the kernel's test_hashmap_walk and
// test_hashmap_zero_seed in the home layout; kernel_ports_test.go uses it.
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 24 -layout home -name HomeK8V24 -out home_k8v24.go
