package htab

import "fmt"

// UpdateFlags selects how Update treats a key that is present or absent.
// The values are the kernel's BPF_ANY, BPF_NOEXIST and BPF_EXIST.
type UpdateFlags uint64

const (
	UpdateAny     UpdateFlags = 0 // BPF_ANY: create or replace
	UpdateNoExist UpdateFlags = 1 // BPF_NOEXIST: create only; ErrKeyExist if present
	UpdateExist   UpdateFlags = 2 // BPF_EXIST: replace only; ErrKeyNotExist if absent
)

// Check returns nil for the three update flags and ErrInvalid, wrapped with the
// offending value, for anything else (the kernel rejects flags > BPF_EXIST).
func (f UpdateFlags) Check() error {
	if f > UpdateExist {
		return fmt.Errorf("%w: update flags %#x (allowed: UpdateAny, UpdateNoExist, UpdateExist)", ErrInvalid, uint64(f))
	}
	return nil
}
