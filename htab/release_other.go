//go:build !amd64 || race

package htab

import "sync/atomic"

// storeRelease is StoreRelease where a plain store is not a release store, or
// under the race detector: sequentially consistent, which is stronger.
func storeRelease(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
