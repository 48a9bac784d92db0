// Package elemsize measures element and entry sizes, the lean element
// against the all-fields one, as the kernel patch series "bpf: htab: Reduce
// memory use of hash maps" tabulates them (split htab_elem per map type; no
// cached hash for keys of at most 8 bytes): every type with 8-byte keys and
// values, lean (the series' "new size") and with the all-fields element
// (-lean=false, the "old size"), and the 4-byte-key maps of the kernel's
// htab-mem benchmark. Its benchmarks measure bytes per entry and the htab-mem
// workloads. The hash maps use the classic layout (the kernel's element and
// bucket arrays, which the series' table sizes).
// Regenerate with `go generate ./generated/...`.
package elemsize

//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name HashLean -out hash_lean.go
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -name HashFat -lean=false -out hash_fat.go
//go:generate go run ../../cmd/htabgen -type pcpu -key 8 -val 8 -name PerCPULean -out pcpu_lean.go
//go:generate go run ../../cmd/htabgen -type pcpu -key 8 -val 8 -name PerCPUFat -lean=false -out pcpu_fat.go
//go:generate go run ../../cmd/htabgen -type lru -key 8 -val 8 -name LRULean -out lru_lean.go
//go:generate go run ../../cmd/htabgen -type lru -key 8 -val 8 -name LRUFat -lean=false -out lru_fat.go
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 8 -val 8 -name LRUPerCPULean -out lru_pcpu_lean.go
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 8 -val 8 -name LRUPerCPUFat -lean=false -out lru_pcpu_fat.go
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 8 -name MemLean -out mem_lean.go
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 8 -name MemFat -lean=false -out mem_fat.go
