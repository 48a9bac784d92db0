package lru

// The maps of the batch tests (issue 4): 4-byte keys and values, as in the
// kernel's htab_map_batch_ops.c, which runs for LRU_HASH and LRU_PERCPU_HASH
// too; once per -batch-lock mode.
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -name LruK4V4 -out lru_k4v4.go
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -batch-lock always -name LruK4V4Always -out lru_k4v4_always.go
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -batch-lock sparse -name LruK4V4Sparse -out lru_k4v4_sparse.go
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -name LruPcpuK4V4 -out lru_pcpu_k4v4.go
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -batch-lock always -name LruPcpuK4V4Always -out lru_pcpu_k4v4_always.go
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -batch-lock sparse -name LruPcpuK4V4Sparse -out lru_pcpu_k4v4_sparse.go
