//go:build amd64 && !race

package htab

// storeRelease is StoreRelease on amd64 without -race: a plain store, out of
// the compiler's reach (noinline), which x86's total store order makes a
// release store.
//
//go:noinline
func storeRelease(p *uint32, v uint32) { *p = v }
