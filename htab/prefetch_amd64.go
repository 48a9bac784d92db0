package htab

import "unsafe"

// Prefetch asks the CPU to bring the cache line at p into its caches, and
// goes on at once: unlike a load, it holds nothing back while the line is on
// its way, so that the misses of many prefetches overlap. A hint: p need not
// be valid memory for the program to be correct (an invalid p is ignored).
//
//go:noescape
func Prefetch(p unsafe.Pointer)
