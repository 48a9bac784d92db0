package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseJSONELF: a spec file's object with "elf" reads as a Spec with ELF
// and Maps and the options given, which ForMap applies to each map of the
// object that has them; the fields the object declares are errors, and a
// Spec with ELF or Maps is no map.
func TestParseJSONELF(t *testing.T) {
	specs, err := ParseJSON([]byte(`[
		{"elf": "prog.o"},
		{"elf": "bpf/prog.o", "maps": ["conns", "seen"], "pkg": "flows", "hash": "jhash", "lean": false,
		 "batch-lock": "always", "bloom": 2, "ebpf-compat": true, "tests": true}
	]`))
	require.NoError(t, err)
	require.Len(t, specs, 2)
	want := Default()
	want.ELF = "prog.o"
	assert.Equal(t, want, specs[0])
	obj := specs[1]
	assert.Equal(t, Spec{
		ELF: "bpf/prog.o", Maps: []string{"conns", "seen"}, Pkg: "flows", Hash: HashJhash, Lean: false,
		BatchLock: BatchLockAlways, Bloom: 2, EbpfCompat: true, Tests: true, Hashes: 5,
	}, obj)
	for _, s := range specs {
		var se *Error
		require.ErrorAs(t, s.Validate(), &se, "a Spec with ELF is no map")
		assert.Equal(t, "elf", se.Option)
	}

	// ForMap: the object's options onto a map of the object.
	lru := Default()
	lru.Type, lru.Key, lru.Val, lru.Name, lru.Out, lru.MaxEntries, lru.NoCommonLRU = LRU, 16, 8, "Conns", "conns_htab.go", 512, true
	got := obj.ForMap(lru)
	want = lru
	want.Pkg, want.Hash, want.Lean, want.BatchLock, want.Bloom, want.EbpfCompat, want.Tests = "flows", HashJhash, false, BatchLockAlways, 2, true, true
	assert.Equal(t, want, got)
	assert.NoError(t, got.Validate())
	bloom := Default()
	bloom.Type, bloom.Val, bloom.Name, bloom.Out, bloom.MaxEntries, bloom.Hashes = Bloom, 4, "Seen", "seen_htab.go", 100, 3
	got = obj.ForMap(bloom)
	want = bloom
	want.Pkg, want.Hash, want.EbpfCompat, want.Tests = "flows", HashJhash, true, true
	assert.Equal(t, want, got, "lean, batch-lock and bloom are not a bloom filter map's")
	assert.NoError(t, got.Validate())

	m := Default()
	m.Type, m.Key, m.Val, m.Maps = Hash, 8, 8, []string{"conns"}
	var se *Error
	require.ErrorAs(t, m.Validate(), &se)
	assert.Equal(t, "maps", se.Option)

	for _, tt := range []struct{ name, json, want string }{
		{"type", `[{"elf": "prog.o", "type": "hash"}]`, `map 0: "type": not with "elf": the BPF object declares each map's type, key and value sizes, max_entries and flags, and the map's name and file come from its name; with "elf" the fields are elf, maps, pkg, hash, lean, batch-lock, bloom, ebpf-compat, tests`},
		{"key", `[{"elf": "prog.o", "key": 8}]`, `map 0: "key": not with "elf"`},
		{"val", `[{"elf": "prog.o", "val": 8}]`, `map 0: "val": not with "elf"`},
		{"name", `[{"elf": "prog.o", "name": "X"}]`, `map 0: "name": not with "elf"`},
		{"out", `[{"elf": "prog.o", "out": "x.go"}]`, `map 0: "out": not with "elf"`},
		{"hashes", `[{"elf": "prog.o", "hashes": 3}]`, `map 0: "hashes": not with "elf"`},
		{"layout", `[{"elf": "prog.o", "layout": "classic"}]`, `map 0: "layout": not with "elf"`},
		{"max-entries", `[{"elf": "prog.o", "max-entries": 10}]`, `map 0: "max-entries": not with "elf"`},
		{"no-prealloc", `[{"elf": "prog.o", "no-prealloc": false}]`, `map 0: "no-prealloc": not with "elf"`},
		{"no-common-lru", `[{"elf": "prog.o", "no-common-lru": true}]`, `map 0: "no-common-lru": not with "elf"`},
		{"zero-seed", `[{"elf": "prog.o", "zero-seed": true}]`, `map 0: "zero-seed": not with "elf"`},
		{"empty elf", `[{"elf": ""}]`, `map 0: "elf": "": a compiled BPF object whose maps to generate, relative to the spec file's directory, such as bpf_bpfel.o`},
		{"elf not a string", `[{"elf": 1}]`, `map 0: "elf": 1: want a string: a compiled BPF object`},
		{"maps not an array", `[{"elf": "prog.o", "maps": "conns"}]`, `map 0: "maps": "conns": want an array of strings: the names of the maps of the "elf" object to generate, such as ["conns"]; without it, every map`},
		{"maps empty", `[{"elf": "prog.o", "maps": []}]`, `map 0: "maps": []: name the maps to generate, or leave "maps" out for every map`},
		{"maps null", `[{"elf": "prog.o", "maps": null}]`, `map 0: "maps": null: want an array of strings`},
		{"maps without elf", `[{"type": "hash", "key": 8, "val": 8, "maps": ["conns"]}]`, `map 0: "maps": ["conns"]: goes with "elf": it picks maps of the BPF object that "elf" names`},
		{"empty pkg", `[{"elf": "prog.o", "pkg": ""}]`, `map 0: "pkg": "": a Go package name, such as flows, or no -pkg for $GOPACKAGE, else main`},
		{"bad pkg", `[{"elf": "prog.o", "pkg": "a-b"}]`, `map 0: "pkg": "a-b": a Go package name, such as flows`},
		{"bad hash", `[{"elf": "prog.o", "hash": "fast"}]`, `map 0: "hash": "fast": one of static, jhash2, jhash`},
		{"bad batch-lock", `[{"elf": "prog.o", "batch-lock": "never"}]`, `map 0: "batch-lock": "never": one of nonempty, always, sparse`},
		{"bad bloom", `[{"elf": "prog.o", "bloom": 16}]`, `map 0: "bloom": 16: number of hash functions of the bloom filter in front of lookups, 0 (off) or 1..15`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := ParseJSON([]byte(tt.json))
			assert.Nil(t, specs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
