package hash

// The maps of the batch tests (batch_test.go): 4-byte keys and values, as in the
// kernel's htab_map_batch_ops.c, once per -batch-lock mode, each with its
// generated tests, whose adapter (htabtest.Map) the batch tests drive.
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 4 -name HashK4V4 -out hash_k4v4.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 4 -batch-lock always -name HashK4V4Always -out hash_k4v4_always.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 4 -batch-lock sparse -name HashK4V4Sparse -out hash_k4v4_sparse.go -tests

// The same with a bloom filter in front of lookups (DeleteBatch and UpdateBatch
// go through it), in both layouts.
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 4 -val 4 -bloom 3 -name HashK4V4Bloom -out hash_k4v4_bloom.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout home -key 4 -val 4 -bloom 3 -name HomeK4V4Bloom -out home_k4v4_bloom.go -tests
