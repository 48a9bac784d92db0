// Package batchbench reproduces BM_DumpHashMap, the benchmark of the kernel
// change "bpf: Do not grab the bucket spinlock by default on htab batch ops"
// (batch walks skip empty buckets without locking them): a hash map of
// max_entries 50,000 holding 1 to 39,000 entries, dumped whole with
// LookupBatch, once per -batch-lock mode (always: the kernel before the
// change; nonempty: the change; sparse: the occupancy bitmap). It also
// measures what the bitmap costs lookups and updates, sparse against
// nonempty. See bench/HISTORY.md for the commands and the results.
// The maps use the classic layout, whose bucket array is the kernel's.
package batchbench

//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -batch-lock always -name Always -out always.go
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -batch-lock nonempty -name NonEmpty -out nonempty.go -tests
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 8 -batch-lock sparse -name Sparse -out sparse.go -tests
