// Package bloom holds generated BPF_MAP_TYPE_BLOOM_FILTER twins (-type bloom)
// for value sizes 1 to 256, multiples of 4 and not, with their generated
// tests, and the differential test against the kernel's bloom filter map.
// Regenerate with `go generate ./generated/...`.
package bloom

//go:generate go run ../../cmd/htabgen -type bloom -val 1 -name V1 -out v1.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 2 -name V2 -out v2.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 3 -name V3 -out v3.go
//go:generate go run ../../cmd/htabgen -type bloom -val 4 -name V4 -out v4.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 5 -name V5 -out v5.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 7 -name V7 -out v7.go
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -name V8 -out v8.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 12 -name V12 -out v12.go
//go:generate go run ../../cmd/htabgen -type bloom -val 13 -name V13 -out v13.go
//go:generate go run ../../cmd/htabgen -type bloom -val 16 -name V16 -out v16.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 40 -name V40 -out v40.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 64 -name V64 -out v64.go
//go:generate go run ../../cmd/htabgen -type bloom -val 100 -name V100 -out v100.go
//go:generate go run ../../cmd/htabgen -type bloom -val 256 -name V256 -out v256.go -tests

// The kernel's forms of the hash: the word loop and the byte loop.
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -hash jhash2 -name V8Jhash2 -out v8_jhash2.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 40 -hash jhash2 -name V40Jhash2 -out v40_jhash2.go
//go:generate go run ../../cmd/htabgen -type bloom -val 5 -hash jhash -name V5Jhash -out v5_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -hash jhash -name V8Jhash -out v8_jhash.go

// A default of 3 hash functions instead of the kernel's 5.
//go:generate go run ../../cmd/htabgen -type bloom -val 8 -hashes 3 -name V8Hashes3 -out v8_hashes3.go -tests
