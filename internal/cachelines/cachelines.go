// Package cachelines checks, in tests, that memory meant for different
// owners (one CPU's values and another's) never shares a cache line.
package cachelines

import (
	"fmt"
	"unsafe"
)

// Size is the cache line size the maps pad for.
const Size = 64

// Owners records which owner each cache line was claimed for.
type Owners struct {
	lines map[uintptr]int
}

// Claim records that the size bytes at p belong to owner, and returns an
// error naming the line if any of them is on a line already claimed for
// another owner. Zero bytes claim nothing.
func (o *Owners) Claim(owner int, p unsafe.Pointer, size uintptr) error {
	if size == 0 {
		return nil
	}
	if o.lines == nil {
		o.lines = make(map[uintptr]int)
	}
	first, last := uintptr(p)/Size, (uintptr(p)+size-1)/Size
	for l := first; l <= last; l++ {
		if prev, ok := o.lines[l]; ok && prev != owner {
			return fmt.Errorf("the cache line at %#x holds bytes of owners %d and %d", l*Size, prev, owner)
		}
		o.lines[l] = owner
	}
	return nil
}

// ClaimSlice is Claim for the elements of s, its length and not its capacity:
// padding past the length may share a line.
func ClaimSlice[T any](o *Owners, owner int, s []T) error {
	if len(s) == 0 {
		return nil
	}
	return o.Claim(owner, unsafe.Pointer(&s[0]), uintptr(len(s))*unsafe.Sizeof(s[0]))
}
