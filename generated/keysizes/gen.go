// Package keysizes holds generated BPF_MAP_TYPE_HASH twins for every key size
// 1..64 and 128, 512, 4112, and a few more above 64 (8-byte values), with the
// static, jhash2 and jhash hashes, and the tests that each generated hash
// equals htab.Jhash and that every map round-trips its keys. It also holds
// Large4112 for the port of the kernel's test_map_large, and maps with odd
// value sizes (and the classic layout) for the kernel differential test of
// odd sizes (kernel_diff_test.go). The maps that test compares are generated
// with -tests: it reaches them through their adapters (htabtest.Map), and
// the test kit's checks run on those sizes too.
// Regenerate with `go generate ./generated/keysizes/`.
package keysizes

//go:generate go run ../../cmd/htabgen -type hash -key 1 -val 8 -name K1 -out k1.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 2 -val 8 -name K2 -out k2.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 3 -val 8 -name K3 -out k3.go
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 8 -name K4 -out k4.go
//go:generate go run ../../cmd/htabgen -type hash -key 5 -val 8 -name K5 -out k5.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 6 -val 8 -name K6 -out k6.go
//go:generate go run ../../cmd/htabgen -type hash -key 7 -val 8 -name K7 -out k7.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 8 -val 8 -name K8 -out k8.go
//go:generate go run ../../cmd/htabgen -type hash -key 9 -val 8 -name K9 -out k9.go
//go:generate go run ../../cmd/htabgen -type hash -key 10 -val 8 -name K10 -out k10.go
//go:generate go run ../../cmd/htabgen -type hash -key 11 -val 8 -name K11 -out k11.go
//go:generate go run ../../cmd/htabgen -type hash -key 12 -val 8 -name K12 -out k12.go
//go:generate go run ../../cmd/htabgen -type hash -key 13 -val 8 -name K13 -out k13.go
//go:generate go run ../../cmd/htabgen -type hash -key 14 -val 8 -name K14 -out k14.go
//go:generate go run ../../cmd/htabgen -type hash -key 15 -val 8 -name K15 -out k15.go
//go:generate go run ../../cmd/htabgen -type hash -key 16 -val 8 -name K16 -out k16.go
//go:generate go run ../../cmd/htabgen -type hash -key 17 -val 8 -name K17 -out k17.go
//go:generate go run ../../cmd/htabgen -type hash -key 18 -val 8 -name K18 -out k18.go
//go:generate go run ../../cmd/htabgen -type hash -key 19 -val 8 -name K19 -out k19.go
//go:generate go run ../../cmd/htabgen -type hash -key 20 -val 8 -name K20 -out k20.go
//go:generate go run ../../cmd/htabgen -type hash -key 21 -val 8 -name K21 -out k21.go
//go:generate go run ../../cmd/htabgen -type hash -key 22 -val 8 -name K22 -out k22.go
//go:generate go run ../../cmd/htabgen -type hash -key 23 -val 8 -name K23 -out k23.go
//go:generate go run ../../cmd/htabgen -type hash -key 24 -val 8 -name K24 -out k24.go
//go:generate go run ../../cmd/htabgen -type hash -key 25 -val 8 -name K25 -out k25.go
//go:generate go run ../../cmd/htabgen -type hash -key 26 -val 8 -name K26 -out k26.go
//go:generate go run ../../cmd/htabgen -type hash -key 27 -val 8 -name K27 -out k27.go
//go:generate go run ../../cmd/htabgen -type hash -key 28 -val 8 -name K28 -out k28.go
//go:generate go run ../../cmd/htabgen -type hash -key 29 -val 8 -name K29 -out k29.go
//go:generate go run ../../cmd/htabgen -type hash -key 30 -val 8 -name K30 -out k30.go
//go:generate go run ../../cmd/htabgen -type hash -key 31 -val 8 -name K31 -out k31.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 32 -val 8 -name K32 -out k32.go
//go:generate go run ../../cmd/htabgen -type hash -key 33 -val 8 -name K33 -out k33.go
//go:generate go run ../../cmd/htabgen -type hash -key 34 -val 8 -name K34 -out k34.go
//go:generate go run ../../cmd/htabgen -type hash -key 35 -val 8 -name K35 -out k35.go
//go:generate go run ../../cmd/htabgen -type hash -key 36 -val 8 -name K36 -out k36.go
//go:generate go run ../../cmd/htabgen -type hash -key 37 -val 8 -name K37 -out k37.go
//go:generate go run ../../cmd/htabgen -type hash -key 38 -val 8 -name K38 -out k38.go
//go:generate go run ../../cmd/htabgen -type hash -key 39 -val 8 -name K39 -out k39.go
//go:generate go run ../../cmd/htabgen -type hash -key 40 -val 8 -name K40 -out k40.go
//go:generate go run ../../cmd/htabgen -type hash -key 41 -val 8 -name K41 -out k41.go
//go:generate go run ../../cmd/htabgen -type hash -key 42 -val 8 -name K42 -out k42.go
//go:generate go run ../../cmd/htabgen -type hash -key 43 -val 8 -name K43 -out k43.go
//go:generate go run ../../cmd/htabgen -type hash -key 44 -val 8 -name K44 -out k44.go
//go:generate go run ../../cmd/htabgen -type hash -key 45 -val 8 -name K45 -out k45.go
//go:generate go run ../../cmd/htabgen -type hash -key 46 -val 8 -name K46 -out k46.go
//go:generate go run ../../cmd/htabgen -type hash -key 47 -val 8 -name K47 -out k47.go
//go:generate go run ../../cmd/htabgen -type hash -key 48 -val 8 -name K48 -out k48.go
//go:generate go run ../../cmd/htabgen -type hash -key 49 -val 8 -name K49 -out k49.go
//go:generate go run ../../cmd/htabgen -type hash -key 50 -val 8 -name K50 -out k50.go
//go:generate go run ../../cmd/htabgen -type hash -key 51 -val 8 -name K51 -out k51.go
//go:generate go run ../../cmd/htabgen -type hash -key 52 -val 8 -name K52 -out k52.go
//go:generate go run ../../cmd/htabgen -type hash -key 53 -val 8 -name K53 -out k53.go
//go:generate go run ../../cmd/htabgen -type hash -key 54 -val 8 -name K54 -out k54.go
//go:generate go run ../../cmd/htabgen -type hash -key 55 -val 8 -name K55 -out k55.go
//go:generate go run ../../cmd/htabgen -type hash -key 56 -val 8 -name K56 -out k56.go
//go:generate go run ../../cmd/htabgen -type hash -key 57 -val 8 -name K57 -out k57.go
//go:generate go run ../../cmd/htabgen -type hash -key 58 -val 8 -name K58 -out k58.go
//go:generate go run ../../cmd/htabgen -type hash -key 59 -val 8 -name K59 -out k59.go
//go:generate go run ../../cmd/htabgen -type hash -key 60 -val 8 -name K60 -out k60.go
//go:generate go run ../../cmd/htabgen -type hash -key 61 -val 8 -name K61 -out k61.go
//go:generate go run ../../cmd/htabgen -type hash -key 62 -val 8 -name K62 -out k62.go
//go:generate go run ../../cmd/htabgen -type hash -key 63 -val 8 -name K63 -out k63.go
//go:generate go run ../../cmd/htabgen -type hash -key 64 -val 8 -name K64 -out k64.go
//go:generate go run ../../cmd/htabgen -type hash -key 128 -val 8 -name K128 -out k128.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 512 -val 8 -name K512 -out k512.go
//go:generate go run ../../cmd/htabgen -type hash -key 4112 -val 8 -name K4112 -out k4112.go

// Sizes above 64 are not unrolled: 128, 512 and 4112 all end in an 8-byte
// tail, so these cover the loop path's other tails (73..84: 1..12 bytes).
//go:generate go run ../../cmd/htabgen -type hash -key 65 -val 8 -name K65 -out k65.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 73 -val 8 -name K73 -out k73.go
//go:generate go run ../../cmd/htabgen -type hash -key 74 -val 8 -name K74 -out k74.go
//go:generate go run ../../cmd/htabgen -type hash -key 75 -val 8 -name K75 -out k75.go
//go:generate go run ../../cmd/htabgen -type hash -key 76 -val 8 -name K76 -out k76.go
//go:generate go run ../../cmd/htabgen -type hash -key 77 -val 8 -name K77 -out k77.go
//go:generate go run ../../cmd/htabgen -type hash -key 78 -val 8 -name K78 -out k78.go
//go:generate go run ../../cmd/htabgen -type hash -key 79 -val 8 -name K79 -out k79.go
//go:generate go run ../../cmd/htabgen -type hash -key 80 -val 8 -name K80 -out k80.go
//go:generate go run ../../cmd/htabgen -type hash -key 81 -val 8 -name K81 -out k81.go
//go:generate go run ../../cmd/htabgen -type hash -key 82 -val 8 -name K82 -out k82.go
//go:generate go run ../../cmd/htabgen -type hash -key 83 -val 8 -name K83 -out k83.go
//go:generate go run ../../cmd/htabgen -type hash -key 84 -val 8 -name K84 -out k84.go
//go:generate go run ../../cmd/htabgen -type hash -key 100 -val 8 -name K100 -out k100.go
//go:generate go run ../../cmd/htabgen -type hash -key 127 -val 8 -name K127 -out k127.go
//go:generate go run ../../cmd/htabgen -type hash -key 257 -val 8 -name K257 -out k257.go -tests

// The kernel's word loop (jhash2) and byte loop (jhash), for a few sizes.
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 8 -hash jhash2 -name K4Jhash2 -out k4_jhash2.go
//go:generate go run ../../cmd/htabgen -type hash -key 12 -val 8 -hash jhash2 -name K12Jhash2 -out k12_jhash2.go
//go:generate go run ../../cmd/htabgen -type hash -key 64 -val 8 -hash jhash2 -name K64Jhash2 -out k64_jhash2.go
//go:generate go run ../../cmd/htabgen -type hash -key 128 -val 8 -hash jhash2 -name K128Jhash2 -out k128_jhash2.go
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 8 -hash jhash -name K4Jhash -out k4_jhash.go
//go:generate go run ../../cmd/htabgen -type hash -key 12 -val 8 -hash jhash -name K12Jhash -out k12_jhash.go
//go:generate go run ../../cmd/htabgen -type hash -key 13 -val 8 -hash jhash -name K13Jhash -out k13_jhash.go
//go:generate go run ../../cmd/htabgen -type hash -key 64 -val 8 -hash jhash -name K64Jhash -out k64_jhash.go
//go:generate go run ../../cmd/htabgen -type hash -key 65 -val 8 -hash jhash -name K65Jhash -out k65_jhash.go -tests

// The byte loop's tails of 6, 10 and 11 bytes, which no other generated map
// has (K65Jhash above has 5, the spec matrix of internal/specmatrix
// the others), also with their generated tests.
//go:generate go run ../../cmd/htabgen -type hash -key 6 -val 8 -hash jhash -name K6Jhash -out k6_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 10 -val 8 -hash jhash -name K10Jhash -out k10_jhash.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 11 -val 8 -hash jhash -name K11Jhash -out k11_jhash.go -tests

// test_map_large: key {int a; char b[4096]; long long c}, 4-byte value.
//go:generate go run ../../cmd/htabgen -type hash -key 4112 -val 4 -name Large4112 -out large4112.go

// Odd value sizes, and odd keys in the classic layout, for kernel_diff_test.go.
//go:generate go run ../../cmd/htabgen -type hash -key 3 -val 13 -name K3V13 -out k3v13.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 13 -val 1 -name K13V1 -out k13v1.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 6 -val 64 -name K6V64 -out k6v64.go -tests
//go:generate go run ../../cmd/htabgen -type hash -key 4 -val 68 -name K4V68 -out k4v68.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 13 -val 13 -name K13V13Classic -out k13v13_classic.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 1 -val 3 -name K1V3Classic -out k1v3_classic.go -tests
