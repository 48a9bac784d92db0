package htab

import (
	"fmt"
	"strings"
)

// MapType is a kind of BPF map: the one enumeration of map kinds that the
// generator (its -type flag and spec files) and the generated maps (their
// option checks) share. The zero value is no type.
type MapType uint8

const (
	Hash          MapType = iota + 1 // BPF_MAP_TYPE_HASH, -type hash
	PerCPUHash                       // BPF_MAP_TYPE_PERCPU_HASH, -type pcpu
	LRUHash                          // BPF_MAP_TYPE_LRU_HASH, -type lru
	LRUPerCPUHash                    // BPF_MAP_TYPE_LRU_PERCPU_HASH, -type lru_pcpu
	BloomFilter                      // BPF_MAP_TYPE_BLOOM_FILTER, -type bloom
)

// MapTypes lists every type, in the order help texts show them.
var MapTypes = []MapType{Hash, PerCPUHash, LRUHash, LRUPerCPUHash, BloomFilter}

var mapTypeNames = [...]struct{ flag, kernel string }{
	Hash:          {"hash", "HASH"},
	PerCPUHash:    {"pcpu", "PERCPU_HASH"},
	LRUHash:       {"lru", "LRU_HASH"},
	LRUPerCPUHash: {"lru_pcpu", "LRU_PERCPU_HASH"},
	BloomFilter:   {"bloom", "BLOOM_FILTER"},
}

// Valid reports whether t is one of MapTypes.
func (t MapType) Valid() bool { return t >= Hash && t <= BloomFilter }

// String is the type as the -type flag spells it: hash, pcpu, lru,
// lru_pcpu, bloom.
func (t MapType) String() string {
	if !t.Valid() {
		return fmt.Sprintf("MapType(%d)", uint8(t))
	}
	return mapTypeNames[t].flag
}

// KernelName is the kernel's name of the type, BPF_MAP_TYPE_ without the
// prefix: HASH, PERCPU_HASH, LRU_HASH, LRU_PERCPU_HASH, BLOOM_FILTER.
func (t MapType) KernelName() string {
	if !t.Valid() {
		return t.String()
	}
	return mapTypeNames[t].kernel
}

// ParseMapType is the type that s (as the -type flag spells it) names.
func ParseMapType(s string) (MapType, error) {
	for _, t := range MapTypes {
		if s == t.String() {
			return t, nil
		}
	}
	names := make([]string, len(MapTypes))
	for i, t := range MapTypes {
		names[i] = t.String()
	}
	return 0, fmt.Errorf("unknown map type %q (allowed: %s)", s, strings.Join(names, ", "))
}

// MarshalText is the type's String, for encoding/json and the like.
func (t MapType) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("htab: cannot marshal %v", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText is ParseMapType.
func (t *MapType) UnmarshalText(text []byte) error {
	v, err := ParseMapType(string(text))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// IsHashFamily reports whether t is one of the four hash maps (not bloom).
func (t MapType) IsHashFamily() bool { return t >= Hash && t <= LRUPerCPUHash }

// IsPerCPU reports whether each key holds one value per CPU.
func (t MapType) IsPerCPU() bool { return t == PerCPUHash || t == LRUPerCPUHash }

// IsLRU reports whether the map evicts by the kernel's LRU algorithm.
func (t MapType) IsLRU() bool { return t == LRUHash || t == LRUPerCPUHash }
