package cachelines

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestClaim(t *testing.T) {
	buf := make([]byte, 5*Size)
	start := uintptr(unsafe.Pointer(&buf[0]))
	line0 := (start+Size-1)/Size*Size - start // offset of the first line boundary in buf
	at := func(off uintptr) unsafe.Pointer { return unsafe.Pointer(&buf[line0+off]) }

	var o Owners
	require.NoError(t, o.Claim(0, at(0), Size))   // line 0
	require.NoError(t, o.Claim(0, at(10), 20))    // line 0 again, same owner
	require.NoError(t, o.Claim(1, at(Size), 1))   // line 1
	require.NoError(t, o.Claim(2, at(Size+5), 0)) // no bytes, no line
	require.Error(t, o.Claim(2, at(Size-1), 2))   // lines 0 and 1, neither 2's
	require.NoError(t, o.Claim(1, at(2*Size-8), Size))
	require.ErrorContains(t, o.Claim(0, at(2*Size+8), 4), "owners 1 and 0") // line 2 is 1's now
}

func TestClaimSlice(t *testing.T) {
	var o Owners
	a := make([]uint64, 8, 16) // 64 bytes used, 64 more of capacity
	require.NoError(t, ClaimSlice(&o, 0, a))
	require.NoError(t, ClaimSlice(&o, 1, a[:0]))
	require.Error(t, ClaimSlice(&o, 1, a[7:8]))
}
