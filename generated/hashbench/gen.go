// Package hashbench compares the three hashes a hash map can be generated
// with, on the kernel's bpf-hashmap-lookup benchmark
// (tools/testing/selftests/bpf/benchs/bench_bpf_hashmap_lookup.c): for each
// key size of the kernel change "bpf: optimize hashmap lookups when key_size
// is divisible by 4" (commit 5b85575ad428, which made the kernel hash
// word-aligned keys with jhash2), the same map generated with the kernel's
// jhash byte loop, its jhash2 word loop and htabgen's static hash, each with
// its generated Benchmark<Map>LookupByFullness, and BenchmarkPairedGain
// (paired_linux_test.go) times the three and three peers in rotating rounds.
// `go run ./cmd/htabbench -suites hash-functions` turns that into a table
// beside the change's published gains, and a chart. The maps use the classic layout, the kernel's, so that
// the hash's share of a lookup is the one the kernel measured.
package hashbench

//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 8 -name K4Jhash -hash jhash -out k4_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 8 -name K4Jhash2 -hash jhash2 -out k4_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 8 -name K4Static -hash static -out k4_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name K8Jhash -hash jhash -out k8_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name K8Jhash2 -hash jhash2 -out k8_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name K8Static -hash static -out k8_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 12 -val 8 -name K12Jhash -hash jhash -out k12_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 12 -val 8 -name K12Jhash2 -hash jhash2 -out k12_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 12 -val 8 -name K12Static -hash static -out k12_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 16 -val 8 -name K16Jhash -hash jhash -out k16_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 16 -val 8 -name K16Jhash2 -hash jhash2 -out k16_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 16 -val 8 -name K16Static -hash static -out k16_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 20 -val 8 -name K20Jhash -hash jhash -out k20_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 20 -val 8 -name K20Jhash2 -hash jhash2 -out k20_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 20 -val 8 -name K20Static -hash static -out k20_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 24 -val 8 -name K24Jhash -hash jhash -out k24_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 24 -val 8 -name K24Jhash2 -hash jhash2 -out k24_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 24 -val 8 -name K24Static -hash static -out k24_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 28 -val 8 -name K28Jhash -hash jhash -out k28_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 28 -val 8 -name K28Jhash2 -hash jhash2 -out k28_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 28 -val 8 -name K28Static -hash static -out k28_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 32 -val 8 -name K32Jhash -hash jhash -out k32_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 32 -val 8 -name K32Jhash2 -hash jhash2 -out k32_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 32 -val 8 -name K32Static -hash static -out k32_static.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 64 -val 8 -name K64Jhash -hash jhash -out k64_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 64 -val 8 -name K64Jhash2 -hash jhash2 -out k64_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 64 -val 8 -name K64Static -hash static -out k64_static.go -tests
