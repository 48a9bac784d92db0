// Package bloombench reproduces the kernel's benchmark of hash map lookups
// with and without a bloom filter (tools/testing/selftests/bpf/benchs/
// bench_bloom_filter_map.c, from "bpf/benchs: Add benchmarks for comparing
// hashmap lookups with vs. without bloom filter"): lookups of random keys,
// almost all absent, in a full hash map of 8-byte keys and values, without a
// filter, behind a separate bloom filter map as the kernel's program does,
// and behind the map's own filter (-bloom K), for 1..10 hash functions. It
// also measures what the filter costs lookups of present keys and inserts,
// and compares the bloom filter map with github.com/bits-and-blooms/bloom/v3.
// Regenerate with `go generate ./generated/...`.
package bloombench

//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -name Plain -out plain.go
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -name Filter -out filter.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 1 -name Front1 -out front1.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 2 -name Front2 -out front2.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 3 -name Front3 -out front3.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 4 -name Front4 -out front4.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 5 -name Front5 -out front5.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 6 -name Front6 -out front6.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 7 -name Front7 -out front7.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 8 -name Front8 -out front8.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 9 -name Front9 -out front9.go
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -bloom 10 -name Front10 -out front10.go
