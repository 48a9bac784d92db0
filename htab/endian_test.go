package htab

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNativeLittleEndian(t *testing.T) {
	assert.Equal(t, binary.NativeEndian.Uint16([]byte{1, 0}) == 1, NativeLittleEndian)
}
