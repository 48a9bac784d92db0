//go:build !amd64

package htab

import "unsafe"

// Prefetch asks the CPU to bring the cache line at p into its caches; on
// this architecture it does nothing (a hint only).
func Prefetch(p unsafe.Pointer) {}
