package htab

// StoreRelease stores v at *p with release order: a reader that loads *p
// with sync/atomic and sees v also sees every store the writer made before.
// It is the kernel's smp_store_release, and WRITE_ONCE under a lock, which
// sync/atomic lacks: its stores are sequentially consistent, and on amd64
// each is an XCHG, a locked instruction that waits for every load and store
// before it, cache misses included. A generated map's writer stores a
// dozen words under a lock that readers check with a sequence (SeqLock), and
// none of those stores needs more than release order.
//
// On amd64 (total store order: stores are seen in program order, and never
// before the loads that precede them) a plain store is a release store, as
// the Go runtime's own atomic.StoreRel is there; the store sits in a
// function the compiler may not inline, so that it cannot move loads or
// stores across it either. Elsewhere, and when built with -race (so that the
// race detector sees the same atomic accesses on every platform), it is
// atomic.StoreUint32.
//
// Use it only where no load after it must wait for it (that takes a
// sequentially consistent store: a Dekker-style "store my flag, then read
// yours"), and only on words that every concurrent reader loads with
// sync/atomic.
func StoreRelease(p *uint32, v uint32) { storeRelease(p, v) }
