package htab

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMapTypeParseRoundTrips(t *testing.T) {
	for _, typ := range MapTypes {
		got, err := ParseMapType(typ.String())
		require.NoError(t, err)
		assert.Equal(t, typ, got)
		text, err := json.Marshal(typ)
		require.NoError(t, err)
		var back MapType
		require.NoError(t, json.Unmarshal(text, &back))
		assert.Equal(t, typ, back)
	}
	_, err := ParseMapType("array")
	assert.ErrorContains(t, err, `unknown map type "array" (allowed: hash, pcpu, lru, lru_pcpu, bloom)`)
	_, err = MapType(0).MarshalText()
	assert.Error(t, err, "the zero MapType is no type")
}

func TestMapTypeFacts(t *testing.T) {
	for _, tt := range []struct {
		typ                 MapType
		kernel              string
		family, perCPU, lru bool
	}{
		{Hash, "HASH", true, false, false},
		{PerCPUHash, "PERCPU_HASH", true, true, false},
		{LRUHash, "LRU_HASH", true, false, true},
		{LRUPerCPUHash, "LRU_PERCPU_HASH", true, true, true},
		{BloomFilter, "BLOOM_FILTER", false, false, false},
		{0, "MapType(0)", false, false, false},
	} {
		assert.Equal(t, tt.kernel, tt.typ.KernelName())
		assert.Equal(t, tt.family, tt.typ.IsHashFamily(), "%v", tt.typ)
		assert.Equal(t, tt.perCPU, tt.typ.IsPerCPU(), "%v", tt.typ)
		assert.Equal(t, tt.lru, tt.typ.IsLRU(), "%v", tt.typ)
		assert.Equal(t, tt.typ != 0, tt.typ.Valid())
	}
}
