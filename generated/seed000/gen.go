// Package seed000 reproduces the table of seed 000 (jhash2 when the key is
// word-aligned): for each key size, the same hash map generated with the
// kernel's jhash byte loop, its jhash2 word loop, and htabgen's static hash,
// each with its generated LookupByFullness benchmark. `go run
// ./cmd/htabbench` turns their output into the seed's table (see the
// README). The maps use the
// classic layout, the kernel's, so that the hash's share of a lookup is the
// one the seed measured.
package seed000

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
