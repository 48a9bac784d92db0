package hash

// The same maps in the home layout, the default of -type hash (the flag is
// spelled out to pair them with the classic maps), which the package's tests
// and benchmarks run beside the classic ones: HomeK8V8 and HomeK8V24 in the
// kernel differential test and the selftest ports, the k4v4 maps in the batch
// tests (one per -batch-lock mode, each with its generated tests), HomeK16V8 (cached hash) in its own
// differential test, HomeK8V8 in the peers benchmarks (impl=htab; the classic
// HashK8V8 is impl=classic).
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -layout home -name HomeK8V8 -out home_k8v8.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 16 -val 8 -layout home -name HomeK16V8 -out home_k16v8.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 24 -layout home -name HomeK8V24 -out home_k8v24.go
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -name HomeK4V4 -out home_k4v4.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -batch-lock always -name HomeK4V4Always -out home_k4v4_always.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 4 -layout home -batch-lock sparse -name HomeK4V4Sparse -out home_k4v4_sparse.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -layout home -bloom 3 -name HomeK8V8Bloom -out home_k8v8_bloom.go -tests
