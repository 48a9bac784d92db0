package hash

// HashK8V24 is the map of the kernel's test_hashmap_walk and
// test_hashmap_zero_seed (8-byte key, 24-byte value); kernel_ports_test.go uses it.
//go:generate go run ../../cmd/htabgen -type hash -layout classic -key 8 -val 24 -name HashK8V24 -out hash_k8v24.go
