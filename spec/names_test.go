package spec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSuffixesEndWithNoOther(t *testing.T) {
	for _, a := range Suffixes {
		for _, b := range Suffixes {
			if a != b && strings.HasSuffix(a, b) {
				t.Errorf("suffix %q ends with suffix %q: maps named X%s and X would both declare x%s", a, b, strings.TrimSuffix(a, b), a)
			}
		}
	}
}

func TestNamesForUsesEverySuffix(t *testing.T) {
	n := NamesFor("Conns")
	assert.Equal(t, Names{Map: "Conns", Key: "ConnsKey", Value: "ConnsValue", CPU: "ConnsCPU", New: "NewConns",
		Options: "ConnsOptions", NewDefault: "NewConnsDefault", EBPF: "ConnsEBPF", NewEBPF: "NewConnsEBPF", Prefix: "conns",
		Elem: "connsElem", KeyWords: "connsKeyWords", HashInit: "connsHashInit", ElemChunk: "connsElemChunk", ChunkShift: "connsChunkShift",
		Slot: "connsSlot", SlotChunk: "connsSlotChunk", SlotLocks: "connsSlotLocks", HomeBit: "connsHomeBit", IndexMask: "connsIndexMask", MaxSlots: "connsMaxSlots", ValueWords: "connsValueWords", BulkGroup: "connsBulkGroup",
		TestMap: "connsTestMap", TestBloom: "connsTestBloom", UnderTest: "connsUnderTest"}, n)
	// Every unexported field is the prefix and its suffix, in Suffixes' order.
	v := reflect.ValueOf(n)
	var got []string
	for i := range v.NumField() {
		if s := v.Field(i).String(); strings.HasPrefix(s, "conns") && v.Type().Field(i).Name != "Prefix" {
			got = append(got, strings.TrimPrefix(s, "conns"))
		}
	}
	assert.Equal(t, Suffixes, got)
	assert.Equal(t, "lRUConns", NamesFor("LRUConns").Prefix, "only the first letter is lowered")
}
