package htab

import "errors"

// The errors of generated maps, one per errno of the kernel's BPF map syscalls.
// Methods return these values or wrap them, so errors.Is works on every result.
var (
	// ErrKeyNotExist (ENOENT): the key is absent. NextKey and the batch
	// lookups also return it when the iteration has reached its end.
	ErrKeyNotExist = errors.New("htab: key does not exist")
	// ErrKeyExist (EEXIST): UpdateNoExist on a key that is present.
	ErrKeyExist = errors.New("htab: key already exists")
	// ErrFull (E2BIG): a new key into a hash or per-CPU map that holds
	// MaxEntries keys. LRU maps evict instead and never return it.
	ErrFull = errors.New("htab: map is full")
	// ErrNoSpace (ENOSPC): a batch buffer too small for the first non-empty bucket.
	ErrNoSpace = errors.New("htab: batch buffer too small for a whole bucket")
	// ErrNoMem (ENOMEM): an LRU map found no element to reuse, not even by
	// evicting: every element is held by an update or delete in progress on
	// another CPU.
	// Beyond the contract's list, as the kernel's LRU maps can return it.
	ErrNoMem = errors.New("htab: no free element to evict")
	// ErrInvalid (EINVAL): bad flags, bad options or slices of the wrong length.
	ErrInvalid = errors.New("htab: invalid argument")
)
