package lru

// The maps of the batch tests (batch_test.go): 4-byte keys and values, as in the
// kernel's htab_map_batch_ops.c, which runs for LRU_HASH and LRU_PERCPU_HASH
// too; once per -batch-lock mode, each with its generated tests, whose
// adapter (htabtest.Map) the batch tests drive.
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -name LRUK4V4 -out lru_k4v4.go -tests
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -batch-lock always -name LRUK4V4Always -out lru_k4v4_always.go -tests
//go:generate go run ../../cmd/htabgen -type lru -key 4 -val 4 -batch-lock sparse -name LRUK4V4Sparse -out lru_k4v4_sparse.go -tests
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -name LRUPerCPUK4V4 -out lru_pcpu_k4v4.go -tests
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -batch-lock always -name LRUPerCPUK4V4Always -out lru_pcpu_k4v4_always.go -tests
//go:generate go run ../../cmd/htabgen -type lru_pcpu -key 4 -val 4 -batch-lock sparse -name LRUPerCPUK4V4Sparse -out lru_pcpu_k4v4_sparse.go -tests
