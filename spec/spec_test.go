package spec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashSpec is a hash map in the classic layout, the kernel's, whose element
// and bucket most tables here pin; TestLayoutHome covers the default.
func hashSpec(key, val int) Spec {
	s := Default()
	s.Type, s.Key, s.Val, s.Layout = Hash, key, val, LayoutClassic
	return s
}

func TestDefault(t *testing.T) {
	s := Default()
	assert.Equal(t, HashStatic, s.Hash)
	assert.True(t, s.Lean)
	assert.Equal(t, 5, s.Hashes)
	assert.Equal(t, BatchLockNonEmpty, s.BatchLock)
	assert.Equal(t, 0, s.Bloom)
	assert.False(t, s.Tests)
	assert.False(t, s.EbpfCompat)
}

func TestValidateOK(t *testing.T) {
	with := func(f func(*Spec)) Spec {
		s := hashSpec(8, 8)
		f(&s)
		return s
	}
	tests := []struct {
		name string
		s    Spec
	}{
		{"hash k8v8", hashSpec(8, 8)},
		{"key 1", hashSpec(1, 8)},
		{"key max", hashSpec(MaxKeySize, 8)},
		{"val 1", hashSpec(8, 1)},
		{"val max", hashSpec(8, MaxValueSize)},
		{"jhash2 word-aligned", with(func(s *Spec) { s.Hash = HashJhash2; s.Key = 12 })},
		{"jhash any key", with(func(s *Spec) { s.Hash = HashJhash; s.Key = 7 })},
		{"lean false", with(func(s *Spec) { s.Lean = false })},
		{"batch-lock always", with(func(s *Spec) { s.BatchLock = BatchLockAlways })},
		{"batch-lock sparse", with(func(s *Spec) { s.BatchLock = BatchLockSparse })},
		{"bloom 1 on hash", with(func(s *Spec) { s.Bloom = 1 })},
		{"bloom 15 on lru", with(func(s *Spec) { s.Type = LRU; s.Bloom = 15 })},
		{"bloom 3 on lru_pcpu", with(func(s *Spec) { s.Type = LRUPerCPU; s.Bloom = 3 })},
		{"pcpu val max", with(func(s *Spec) { s.Type = PerCPU; s.Val = MaxPerCPUValSize })},
		{"lru_pcpu", with(func(s *Spec) { s.Type = LRUPerCPU })},
		{"bloom type", with(func(s *Spec) { s.Type = Bloom; s.Key = 0 })},
		{"bloom hashes 1", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Hashes = 1 })},
		{"bloom hashes 15", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Hashes = 15 })},
		{"ebpf-compat", with(func(s *Spec) { s.EbpfCompat = true })},
		{"name", with(func(s *Spec) { s.Name = "Conns" })},
		{"pkg", with(func(s *Spec) { s.Pkg = "flows" })},
		{"pkg main", with(func(s *Spec) { s.Pkg = "main" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, tt.s.Validate())
		})
	}
}

func TestValidateErrors(t *testing.T) {
	with := func(f func(*Spec)) Spec {
		s := hashSpec(8, 8)
		f(&s)
		return s
	}
	tests := []struct {
		name    string
		s       Spec
		option  string
		allowed []string // substrings of Allowed: what is allowed
	}{
		{"missing type", with(func(s *Spec) { s.Type = 0 }), "type", []string{"required", "hash, pcpu, lru, lru_pcpu, bloom"}},
		{"bad type", with(func(s *Spec) { s.Type = 200 }), "type", []string{"hash, pcpu, lru, lru_pcpu, bloom"}},
		{"key 0", hashSpec(0, 8), "key", []string{"1..65535"}},
		{"key negative", hashSpec(-1, 8), "key", []string{"1..65535"}},
		{"key 65536", hashSpec(65536, 8), "key", []string{"1..65535"}},
		{"val 0", hashSpec(8, 0), "val", []string{"1..1048576"}},
		{"val 1048577", hashSpec(8, MaxValueSize+1), "val", []string{"1..1048576"}},
		{"pcpu val 32769", with(func(s *Spec) { s.Type = PerCPU; s.Val = 32769 }), "val", []string{"1..32768", "pcpu"}},
		{"lru_pcpu val 32769", with(func(s *Spec) { s.Type = LRUPerCPU; s.Val = 32769 }), "val", []string{"1..32768"}},
		{"bloom with key", with(func(s *Spec) { s.Type = Bloom }), "key", []string{"applies only to -type hash, pcpu, lru, lru_pcpu"}},
		{"bloom val 0", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Val = 0 }), "val", []string{"1..1048576"}},
		{"jhash2 key 7", with(func(s *Spec) { s.Hash = HashJhash2; s.Key = 7 }), "hash", []string{"multiple of 4", "static or jhash"}},
		{"jhash2 key 9", with(func(s *Spec) { s.Hash = HashJhash2; s.Key = 9 }), "hash", []string{"multiple of 4"}},
		{"bad hash", with(func(s *Spec) { s.Hash = "fnv" }), "hash", []string{"static, jhash2, jhash"}},
		{"bad batch-lock", with(func(s *Spec) { s.BatchLock = "bogus" }), "batch-lock", []string{"nonempty, always, sparse"}},
		{"hashes on hash", with(func(s *Spec) { s.Hashes = 3 }), "hashes", []string{"applies only to -type bloom"}},
		{"hashes 0 on bloom", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Hashes = 0 }), "hashes", []string{"1..15"}},
		{"hashes 16 on bloom", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Hashes = 16 }), "hashes", []string{"1..15"}},
		{"bloom on bloom", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Bloom = 3 }), "bloom", []string{"applies only to -type hash, pcpu, lru, lru_pcpu"}},
		{"bloom 16", with(func(s *Spec) { s.Bloom = 16 }), "bloom", []string{"1..15"}},
		{"bloom negative", with(func(s *Spec) { s.Bloom = -1 }), "bloom", []string{"1..15"}},
		{"lean false on bloom", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.Lean = false }), "lean", []string{"applies only to -type hash, pcpu, lru, lru_pcpu"}},
		{"batch-lock on bloom", with(func(s *Spec) { s.Type = Bloom; s.Key = 0; s.BatchLock = BatchLockAlways }), "batch-lock", []string{"applies only to"}},
		{"name lowercase", with(func(s *Spec) { s.Name = "conns" }), "name", []string{"exported Go identifier"}},
		{"name not identifier", with(func(s *Spec) { s.Name = "My-Map" }), "name", []string{"exported Go identifier"}},
		{"name keyword-ish digit", with(func(s *Spec) { s.Name = "9Map" }), "name", []string{"exported Go identifier"}},
		// Kelvin sign: lowers to k, as K does, so Konns and \u212Aonns would share a prefix.
		{"name Kelvin sign", with(func(s *Spec) { s.Name = "\u212Aonns" }), "name", []string{"lower-case form that maps back"}},
		// Mathematical bold A: upper case with no lower-case form; its prefix would be exported.
		{"name without lower case", with(func(s *Spec) { s.Name = "\U0001D400x" }), "name", []string{"lower-case form that maps back"}},
		{"pkg invalid", with(func(s *Spec) { s.Pkg = "my-pkg" }), "pkg", []string{"Go package name"}},
		{"pkg keyword", with(func(s *Spec) { s.Pkg = "func" }), "pkg", []string{"Go package name"}},
		{"pkg blank", with(func(s *Spec) { s.Pkg = "_" }), "pkg", []string{"Go package name"}},
		{"out blank", with(func(s *Spec) { s.Out = "  " }), "out", []string{"not blank"}},
		{"out with a newline", with(func(s *Spec) { s.Out = "a\nb.go" }), "out", []string{`"a\nb.go"`, "control characters"}},
		{"out .go", with(func(s *Spec) { s.Out = "gen/.go" }), "out", []string{`not start with "."`, "Go ignores"}},
		{"out underscore", with(func(s *Spec) { s.Out = "_conns.go" }), "out", []string{`not start with "_"`, "Go ignores"}},
		{"max-entries negative", with(func(s *Spec) { s.MaxEntries = -1 }), "max-entries", []string{"1..2147483648", "0 for none"}},
		{"max-entries 2^31+1", with(func(s *Spec) { s.MaxEntries = 1<<31 + 1 }), "max-entries", []string{"1..2147483648"}},
		{"zero-seed without max-entries", with(func(s *Spec) { s.ZeroSeed = true }), "zero-seed", []string{"needs -max-entries"}},
		{"no-prealloc without max-entries", with(func(s *Spec) { s.NoPrealloc = true }), "no-prealloc", []string{"needs -max-entries"}},
		{"no-prealloc on lru", with(func(s *Spec) { s.Type, s.MaxEntries, s.NoPrealloc = LRU, 8, true }), "no-prealloc", []string{"applies only to -type hash, pcpu"}},
		{"no-common-lru on hash", with(func(s *Spec) { s.MaxEntries, s.NoCommonLRU = 8, true }), "no-common-lru", []string{"applies only to -type lru, lru_pcpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			require.Error(t, err)
			var se *Error
			require.True(t, errors.As(err, &se), "want a *spec.Error, got %T: %v", err, err)
			assert.Equal(t, tt.option, se.Option)
			msg := err.Error()
			// "-key 0: ..." for a bad value, "-type: required ..." for none.
			named := strings.HasPrefix(msg, "-"+tt.option+" ") || strings.HasPrefix(msg, "-"+tt.option+": ")
			assert.True(t, named, "message %q does not start with the flag -%s", msg, tt.option)
			for _, a := range tt.allowed {
				assert.Contains(t, msg, a, "message should say what is allowed")
			}
		})
	}
}

// ValidateGiven judges what a user wrote: -key and -val are required, an
// option given for a type it does not apply to is refused even at its
// default value, and an explicitly empty -name is refused.
func TestValidateGiven(t *testing.T) {
	with := func(f func(*Spec)) Spec {
		s := hashSpec(8, 8)
		s.Layout = ""
		f(&s)
		return s
	}
	same := func(*Spec) {}
	bloom := func(s *Spec) { s.Type, s.Key = Bloom, 0 }
	tests := []struct {
		name  string
		s     Spec
		given []string // besides -type
		want  string   // the error; "" for none
	}{
		{"key and val given", with(same), []string{"key", "val"}, ""},
		{"key missing", with(func(s *Spec) { s.Key = 0 }), []string{"val"}, "-key: required (key size in bytes, 1..65535)"},
		{"val missing", with(func(s *Spec) { s.Val = 0 }), []string{"key"}, "-val: required (value size in bytes, 1..1048576 for -type hash)"},
		{"pcpu val missing", with(func(s *Spec) { s.Type, s.Val = PerCPU, 0 }), []string{"key"}, "-val: required (value size in bytes, 1..32768 for -type pcpu)"},
		{"key 0 given", with(func(s *Spec) { s.Key = 0 }), []string{"key", "val"}, "-key 0: key size in bytes, 1..65535"},
		{"bloom without key", with(bloom), []string{"val"}, ""},
		{"bloom with key 0", with(bloom), []string{"key", "val"}, "-key 0: applies only to -type hash, pcpu, lru, lru_pcpu"},
		{"hashes at its default on hash", with(same), []string{"key", "val", "hashes"}, "-hashes 5: applies only to -type bloom"},
		{"hashes on bloom", with(bloom), []string{"val", "hashes"}, ""},
		{"lean true on bloom", with(bloom), []string{"val", "lean"}, "-lean true: applies only to -type hash, pcpu, lru, lru_pcpu"},
		{"batch-lock nonempty on bloom", with(bloom), []string{"val", "batch-lock"}, "-batch-lock nonempty: applies only to -type hash, pcpu, lru, lru_pcpu"},
		{"hashes on lru_pcpu", with(func(s *Spec) { s.Type = LRUPerCPU }), []string{"key", "val", "hashes"}, "-hashes 5: applies only to -type bloom"},
		// classic is every type's layout: given, the value decides.
		{"layout classic on lru", with(func(s *Spec) { s.Type, s.Layout = LRU, LayoutClassic }), []string{"key", "val", "layout"}, ""},
		{"layout home on lru", with(func(s *Spec) { s.Type, s.Layout = LRU, LayoutHome }), []string{"key", "val", "layout"}, "-layout home: applies only to -type hash"},
		{"name given empty", with(same), []string{"key", "val", "name"}, `-name "": an exported Go identifier, such as Conns, or no -name for the derived name (HashK8V8)`},
		{"name given", with(func(s *Spec) { s.Name = "Conns" }), []string{"key", "val", "name"}, ""},
		{"type missing", with(func(s *Spec) { s.Type = 0 }), []string{"key", "val"}, "-type: required (one of hash, pcpu, lru, lru_pcpu, bloom)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			given := map[string]bool{"type": true}
			for _, name := range tt.given {
				given[name] = true
			}
			err := tt.s.ValidateGiven(given)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			var se *Error
			assert.ErrorAs(t, err, &se)
		})
	}
	// Without knowing what was given (a Spec made in Go), the values decide.
	assert.NoError(t, with(same).Validate(), "-hashes 5 is the default")
}

func TestErrorMessage(t *testing.T) {
	err := &Error{Option: "key", Value: 0, Allowed: "key size in bytes, 1..65535"}
	assert.Equal(t, "-key 0: key size in bytes, 1..65535", err.Error())
}

// TestErrorForms: an Error says its option as the flag, with an empty value
// or one with spaces quoted as a shell needs it, or as a spec file's field,
// its value in JSON.
func TestErrorForms(t *testing.T) {
	for _, tt := range []struct {
		err         Error
		flag, field string
	}{
		{Error{Option: "key", Value: 0, Allowed: "a"}, `-key 0: a`, `"key": 0: a`},
		{Error{Option: "key", Allowed: "required"}, `-key: required`, `"key": required`},
		{Error{Option: "hash", Value: HashKind(""), Allowed: "a"}, `-hash "": a`, `"hash": "": a`},
		{Error{Option: "out", Value: "a b.go", Allowed: "a"}, `-out "a b.go": a`, `"out": "a b.go": a`},
		{Error{Option: "type", Value: LRU, Allowed: "a"}, `-type lru: a`, `"type": "lru": a`},
		{Error{Option: "maps", Value: []string{"conns"}, Allowed: "a"}, `-maps [conns]: a`, `"maps": ["conns"]: a`},
		{Error{Option: "tests", Value: true, Allowed: "a"}, `-tests true: a`, `"tests": true: a`},
	} {
		e := tt.err
		assert.Equal(t, tt.flag, e.Error())
		assert.Equal(t, tt.field, AsField(&e).Error())
	}
}

func TestPlanBloom(t *testing.T) {
	s := Default()
	s.Type, s.Val, s.Hashes = Bloom, 13, 7
	l, err := Plan(s)
	require.NoError(t, err)
	require.NotNil(t, l.BloomMap)
	assert.Equal(t, 7, l.BloomMap.DefaultHashes)
	assert.Equal(t, 4, l.ValueWords)
	assert.True(t, l.Hash.Unrolled, "the static hash of a 13-byte value is unrolled")
	assert.Nil(t, l.Classic)
	assert.Nil(t, l.Home)
	assert.Nil(t, l.Filter)
	assert.Equal(t, "static: jhash unrolled for 13 bytes (3 word loads, then a 1-byte tail)", l.HashDescription())
	assert.Equal(t, "BloomV13", l.Names.Map)

	s.Hash = HashJhash2
	assert.ErrorContains(t, s.Validate(), "jhash2 needs a value size that is a multiple of 4 (got 13)")
	s.Val = 12
	assert.NoError(t, s.Validate())

	for _, typ := range []MapType{Hash, PerCPU, LRU, LRUPerCPU} {
		s := hashSpec(8, 8)
		s.Type, s.Bloom = typ, 3
		l, err := Plan(s)
		require.NoError(t, err, "%v", typ)
		require.NotNil(t, l.Filter, "%v", typ)
		assert.Equal(t, 3, l.Filter.Hashes)
		assert.Equal(t, typ != LRU, l.Filter.UpdateExist, "%v: lru takes an element before it looks the key up", typ)
		plain := s
		plain.Bloom = 0
		lp, err := Plan(plain)
		require.NoError(t, err)
		assert.Nil(t, lp.Filter)
		assert.Greater(t, l.EntryBytes(65536, 2), lp.EntryBytes(65536, 2), "%v: the filter costs memory", typ)
	}
}

func TestPlanRejectsInvalid(t *testing.T) {
	l, err := Plan(hashSpec(0, 8))
	require.Error(t, err)
	assert.Nil(t, l)
	assert.Contains(t, err.Error(), "-key 0")
}

// field is the part of Field that the layout tests compare.
type field struct {
	Name   string
	GoType string
	Offset int
	Size   int
}

func fieldsOf(l *Layout) []field {
	var fs []field
	for _, f := range l.Elem {
		fs = append(fs, field{f.Name, f.GoType, f.Offset, f.Size})
	}
	return fs
}

func TestPlanElem(t *testing.T) {
	lean := func(key, val int) Spec { return hashSpec(key, val) }
	full := func(key, val int) Spec { s := hashSpec(key, val); s.Lean = false; return s }
	tests := []struct {
		name       string
		s          Spec
		fields     []field
		size       int
		cachedHash bool
	}{
		{
			name: "k8v8 lean: next, key, val",
			s:    lean(8, 8),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"key", "[2]uint32", 4, 8},
				{"val", "[2]uint32", 12, 8},
			},
			size: 20,
		},
		{
			name: "k1v1 lean: one word each",
			s:    lean(1, 1),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"key", "[1]uint32", 4, 4},
				{"val", "[1]uint32", 8, 4},
			},
			size: 12,
		},
		{
			name: "k4v8 lean",
			s:    lean(4, 8),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"key", "[1]uint32", 4, 4},
				{"val", "[2]uint32", 8, 8},
			},
			size: 16,
		},
		{
			name: "k7v13 lean: words rounded up, no cached hash",
			s:    lean(7, 13),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"key", "[2]uint32", 4, 8},
				{"val", "[4]uint32", 12, 16},
			},
			size: 28,
		},
		{
			name: "k9v8 lean: cached hash past 8 bytes",
			s:    lean(9, 8),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"hash", "uint32", 4, 4},
				{"key", "[3]uint32", 8, 12},
				{"val", "[2]uint32", 20, 8},
			},
			size:       28,
			cachedHash: true,
		},
		{
			name: "k64v64 lean",
			s:    lean(64, 64),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"hash", "uint32", 4, 4},
				{"key", "[16]uint32", 8, 64},
				{"val", "[16]uint32", 72, 64},
			},
			size:       136,
			cachedHash: true,
		},
		{
			name: "k8v8 all fields",
			s:    full(8, 8),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"hash", "uint32", 4, 4},
				{"lru", "[3]uint32", 8, 12},
				{"pcpu", "uint32", 20, 4},
				{"key", "[2]uint32", 24, 8},
				{"val", "[2]uint32", 32, 8},
			},
			size:       40,
			cachedHash: true,
		},
		{
			name: "k1v1 all fields",
			s:    full(1, 1),
			fields: []field{
				{"next", "uint32", 0, 4},
				{"hash", "uint32", 4, 4},
				{"lru", "[3]uint32", 8, 12},
				{"pcpu", "uint32", 20, 4},
				{"key", "[1]uint32", 24, 4},
				{"val", "[1]uint32", 28, 4},
			},
			size:       32,
			cachedHash: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Plan(tt.s)
			require.NoError(t, err)
			assert.Equal(t, tt.fields, fieldsOf(l))
			assert.Equal(t, tt.size, l.ElemSize)
			assert.Equal(t, tt.cachedHash, l.CachedHash)
			assert.Equal(t, 8, l.Classic.BucketSize)
			assert.True(t, l.ValuesInline(), "hash maps keep the value in the element")
			for _, f := range l.Elem {
				assert.NotEqual(t, "node", f.Name, "hash maps have no LRU nodes")
			}
			// Offsets are contiguous, 4-byte aligned, and the size is their end.
			off := 0
			for _, f := range l.Elem {
				assert.Equal(t, off, f.Offset, "field %s", f.Name)
				assert.Zero(t, f.Offset%4, "field %s is not 4-byte aligned", f.Name)
				assert.NotEmpty(t, f.Doc, "field %s says why it exists", f.Name)
				off += f.Size
			}
			assert.Equal(t, off, l.ElemSize)
		})
	}
}

// The lean element drops the cached hash for keys up to NoCacheHashMaxKey
// bytes and keeps it for every longer key.
func TestPlanCachedHashThreshold(t *testing.T) {
	for key := 1; key <= 20; key++ {
		l, err := Plan(hashSpec(key, 8))
		require.NoError(t, err)
		assert.Equal(t, key > NoCacheHashMaxKey, l.CachedHash, "key %d", key)

		s := hashSpec(key, 8)
		s.Lean = false
		l, err = Plan(s)
		require.NoError(t, err)
		assert.True(t, l.CachedHash, "key %d, lean=false always caches the hash", key)
	}
}

func TestPlanWords(t *testing.T) {
	tests := []struct{ bytes, words int }{
		{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 2}, {7, 2}, {8, 2}, {9, 3}, {12, 3}, {13, 4},
		{16, 4}, {24, 6}, {63, 16}, {64, 16}, {65, 17}, {4112, 1028}, {MaxKeySize, 16384},
	}
	for _, tt := range tests {
		l, err := Plan(hashSpec(tt.bytes, tt.bytes))
		require.NoError(t, err)
		assert.Equal(t, tt.words, l.KeyWords, "key %d", tt.bytes)
		assert.Equal(t, tt.words, l.ValueWords, "val %d", tt.bytes)
	}
	l, err := Plan(hashSpec(8, MaxValueSize))
	require.NoError(t, err)
	assert.Equal(t, MaxValueSize/4, l.ValueWords)
}

func TestPlanUnroll(t *testing.T) {
	tests := []struct {
		key, val                       int
		hash                           HashKind
		hashUnrolled, keyUnr, valUnrol bool
	}{
		{1, 1, HashStatic, true, true, true},
		{8, 8, HashStatic, true, true, true},
		{61, 64, HashStatic, true, true, true},
		{64, 64, HashStatic, true, true, true},
		{65, 65, HashStatic, false, false, false},
		{68, 8, HashStatic, false, false, true},
		{8, 68, HashStatic, true, true, false},
		{4112, 8, HashStatic, false, false, true},
		// Only the static hash is unrolled; the kernel's hashes are loops.
		{8, 8, HashJhash, false, true, true},
		{8, 8, HashJhash2, false, true, true},
		{64, 8, HashJhash2, false, true, true},
	}
	for _, tt := range tests {
		s := hashSpec(tt.key, tt.val)
		s.Hash = tt.hash
		l, err := Plan(s)
		require.NoError(t, err)
		assert.Equal(t, tt.hash, l.Hash.Kind)
		assert.Equal(t, tt.hashUnrolled, l.Hash.Unrolled, "key %d val %d %s: HashUnrolled", tt.key, tt.val, tt.hash)
		assert.Equal(t, tt.keyUnr, l.KeyUnrolled, "key %d val %d %s: KeyUnrolled", tt.key, tt.val, tt.hash)
		assert.Equal(t, tt.valUnrol, l.ValUnrolled, "key %d val %d %s: ValUnrolled", tt.key, tt.val, tt.hash)
	}
}

// TestPlanFastPaths: which lookups write the hash out (HashInline) and which
// home slots load an 8-byte key or value as one uint64 (KeyWord64, ValWord64).
func TestPlanFastPaths(t *testing.T) {
	tests := []struct {
		key, val   int
		hash       HashKind
		lean, home bool
		inline     bool
		key64      bool
		val64      bool
	}{
		{8, 8, HashStatic, true, true, true, true, true},    // slot seq, next, key, val: 24 bytes
		{8, 8, HashStatic, true, false, true, false, false}, // classic: never
		{8, 8, HashJhash2, true, true, false, false, true},  // a looping hash reads the key's words
		{8, 8, HashStatic, false, true, true, false, false}, // cached hash; element 44 bytes
		{5, 8, HashStatic, true, true, true, false, true},   // a 5-byte key padded to 8 is not one load
		{8, 5, HashStatic, true, true, true, true, false},   // nor a 5-byte value
		{4, 8, HashStatic, true, true, true, false, false},  // val at offset 12
		{16, 8, HashStatic, true, true, true, false, false}, // cached hash from 9 bytes
		{17, 8, HashStatic, true, true, false, false, true}, // hash not inline: longer than InlineHashMaxKey
		{64, 8, HashStatic, true, false, false, false, false},
	}
	for _, tt := range tests {
		s := hashSpec(tt.key, tt.val)
		s.Hash, s.Lean = tt.hash, tt.lean
		if tt.home {
			s.Layout = LayoutHome
		}
		l, err := Plan(s)
		require.NoError(t, err)
		name := fmt.Sprintf("key %d val %d %s lean %v home %v", tt.key, tt.val, tt.hash, tt.lean, tt.home)
		assert.Equal(t, tt.inline, l.Hash.Inline, "%s: HashInline", name)
		assert.Equal(t, tt.key64, l.Home != nil && l.Home.KeyWord64, "%s: KeyWord64", name)
		assert.Equal(t, tt.val64, l.Home != nil && l.Home.ValWord64, "%s: ValWord64", name)
	}
}

func TestPlanNames(t *testing.T) {
	tests := []struct {
		name                               string // -name, "" to derive
		key, val                           int
		typeName, keyT, valT, cpuT, prefix string
	}{
		{"", 8, 8, "HashK8V8", "HashK8V8Key", "HashK8V8Value", "HashK8V8CPU", "hashK8V8"},
		{"", 13, 1, "HashK13V1", "HashK13V1Key", "HashK13V1Value", "HashK13V1CPU", "hashK13V1"},
		{"Conns", 16, 8, "Conns", "ConnsKey", "ConnsValue", "ConnsCPU", "conns"},
		{"LRUConns", 16, 8, "LRUConns", "LRUConnsKey", "LRUConnsValue", "LRUConnsCPU", "lRUConns"},
		{"K13V8", 13, 8, "K13V8", "K13V8Key", "K13V8Value", "K13V8CPU", "k13V8"},
		{"ABC", 8, 8, "ABC", "ABCKey", "ABCValue", "ABCCPU", "aBC"},
		{"X", 8, 8, "X", "XKey", "XValue", "XCPU", "x"},
		{"Ä", 8, 8, "Ä", "ÄKey", "ÄValue", "ÄCPU", "ä"},
	}
	for _, tt := range tests {
		s := hashSpec(tt.key, tt.val)
		s.Name = tt.name
		l, err := Plan(s)
		require.NoError(t, err, "name %q", tt.name)
		assert.Equal(t, tt.typeName, l.Names.Map)
		assert.Equal(t, tt.keyT, l.Names.Key)
		assert.Equal(t, tt.valT, l.Names.Value)
		assert.Equal(t, tt.cpuT, l.Names.CPU)
		assert.Equal(t, tt.prefix, l.Names.Prefix)
		assert.Equal(t, s, l.Spec)
	}
}

func TestTypeName(t *testing.T) {
	tests := []struct {
		s    Spec
		want string
	}{
		{Spec{Type: Hash, Key: 8, Val: 8}, "HashK8V8"},
		{Spec{Type: Hash, Key: 1, Val: 1048576}, "HashK1V1048576"},
		{Spec{Type: PerCPU, Key: 8, Val: 8}, "PerCPUK8V8"},
		{Spec{Type: PerCPU, Key: 16, Val: 8}, "PerCPUK16V8"},
		{Spec{Type: LRU, Key: 8, Val: 8}, "LRUK8V8"},
		{Spec{Type: LRU, Key: 16, Val: 8}, "LRUK16V8"},
		{Spec{Type: LRUPerCPU, Key: 8, Val: 8}, "LRUPerCPUK8V8"},
		{Spec{Type: Bloom, Val: 8}, "BloomV8"},
		{Spec{Type: Hash, Key: 8, Val: 8, Name: "Conns"}, "Conns"},
		{Spec{Type: Bloom, Val: 8, Name: "Seen"}, "Seen"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.s.TypeName(), "%+v", tt.s)
	}
	for _, typ := range MapTypes {
		assert.NotEmpty(t, derivedNames[typ], "type %s has no word for derived names", typ)
	}
}

func TestParseJSON(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		specs, err := ParseJSON([]byte(`[{"type":"hash","key":16,"val":8}]`))
		require.NoError(t, err)
		require.Len(t, specs, 1)
		want := Default()
		want.Type, want.Key, want.Val = Hash, 16, 8
		assert.Equal(t, want, specs[0])
	})
	t.Run("every field", func(t *testing.T) {
		specs, err := ParseJSON([]byte(`[
			{"type":"lru","key":16,"val":8,"name":"Conns","pkg":"flows","out":"conns_htab.go",
			 "hash":"jhash2","lean":false,"bloom":3,"batch-lock":"always","ebpf-compat":true,"tests":true,
			 "max-entries":4096,"no-common-lru":true,"zero-seed":true},
			{"type":"bloom","val":4,"hashes":7}
		]`))
		require.NoError(t, err)
		require.Len(t, specs, 2)
		assert.Equal(t, Spec{
			Type: LRU, Key: 16, Val: 8, Name: "Conns", Pkg: "flows", Out: "conns_htab.go",
			Hash: HashJhash2, Lean: false, Bloom: 3, Hashes: 5, BatchLock: BatchLockAlways,
			EbpfCompat: true, Tests: true, MaxEntries: 4096, NoCommonLRU: true, ZeroSeed: true,
		}, specs[0])
		want := Default()
		want.Type, want.Val, want.Hashes = Bloom, 4, 7
		assert.Equal(t, want, specs[1])
	})
	tests := []struct {
		name string
		json string
		want []string // substrings of the error
	}{
		{"unknown field", `[{"type":"hash","key":8,"val":8,"size":3}]`, []string{"map 0", `unknown field "size"`}},
		{"unknown field in second map", `[{"type":"hash","key":8,"val":8},{"type":"hash","key":8,"val":8,"Lean ":true}]`, []string{"map 1", "unknown field"}},
		{"empty array", `[]`, []string{"empty array"}},
		{"not an array", `{"type":"hash","key":8,"val":8}`, []string{"JSON array"}},
		{"malformed", `[{"type":"hash",`, []string{"line 1, column 16", "want a JSON array"}},
		{"empty input", ``, []string{"unexpected end of JSON input", "want a JSON array"}},
		{"wrong field type", `[{"type":"hash","key":"8","val":8}]`, []string{"map 0", "key"}},
		{"invalid spec", `[{"type":"hash","key":0,"val":8}]`, []string{"map 0", `"key": 0`, "1..65535"}},
		{"invalid second spec", `[{"type":"hash","key":8,"val":8},{"type":"hash","key":7,"val":8,"hash":"jhash2"}]`, []string{"map 1", `"hash": "jhash2"`, "multiple of 4"}},
		{"missing type", `[{"key":8,"val":8}]`, []string{"map 0", `"type": required`}},
		{"missing key", `[{"type":"hash","val":8}]`, []string{`map 0: "key": required (key size in bytes, 1..65535)`}},
		{"missing val", `[{"type":"hash","key":8}]`, []string{`map 0: "val": required (value size in bytes, 1..1048576 for -type hash)`}},
		{"hashes at its default on hash", `[{"type":"hash","key":8,"val":8,"hashes":5}]`, []string{`map 0: "hashes": 5: applies only to -type bloom`}},
		{"lean true on bloom", `[{"type":"bloom","val":8,"lean":true}]`, []string{`map 0: "lean": true: applies only to`}},
		{"name empty", `[{"type":"hash","key":8,"val":8,"name":""}]`, []string{`map 0: "name": "": an exported Go identifier`}},
		{"trailing data", `[{"type":"hash","key":8,"val":8}] x`, []string{"line 1, column 35", "after top-level value"}},
		{"field given twice", `[{"type":"hash","key":8,"val":8,"key":3}]`, []string{"map 0", `field "key" given twice`}},
		{"field in another case", `[{"type":"hash","Key":8,"val":8}]`, []string{"map 0", `unknown field "Key"`, `case-sensitive`, `"key"`}},
		{"field in capitals", `[{"TYPE":"hash","key":8,"val":8}]`, []string{"map 0", `unknown field "TYPE"`}},
		{"dashed field in another case", `[{"type":"hash","key":8,"val":8,"Batch-Lock":"always"}]`, []string{"map 0", `"batch-lock"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := ParseJSON([]byte(tt.json))
			require.Error(t, err)
			assert.Nil(t, specs)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// A value of the wrong JSON type, or null, reads like the flags' errors:
	// the field, the value as written and what the field takes; a syntax
	// error says where it is.
	exact := []struct {
		name, json, want string
	}{
		{"bool as a string", `[{"type":"hash","key":8,"val":8,"lean":"maybe"}]`, `map 0: "lean": "maybe": want true or false`},
		{"bool as a number", `[{"type":"hash","key":8,"val":8,"tests":1}]`, `map 0: "tests": 1: want true or false`},
		{"number as a string", `[{"type":"hash","key":"16","val":8}]`, `map 0: "key": "16": want a number: key size in bytes, 1..65535`},
		{"fraction", `[{"type":"hash","key":16.5,"val":8}]`, `map 0: "key": 16.5: want a whole number without fraction or exponent: key size in bytes, 1..65535`},
		{"whole number with a fraction", `[{"type":"hash","key":8.0,"val":8}]`, `map 0: "key": 8.0: want a whole number without fraction or exponent: key size in bytes, 1..65535`},
		{"number past int", `[{"type":"hash","key":99999999999999999999,"val":8}]`, `map 0: "key": 99999999999999999999: key size in bytes, 1..65535`},
		{"exponent past int", `[{"type":"hash","key":1e20,"val":8}]`, `map 0: "key": 1e20: want a whole number without fraction or exponent: key size in bytes, 1..65535`},
		{"val as an array", `[{"type":"hash","key":8,"val":[8]}]`, `map 0: "val": [8]: want a number: value size in bytes, 1..1048576 (per-CPU types 1..32768)`},
		{"string as a bool", `[{"type":true,"key":8,"val":8}]`, `map 0: "type": true: want a string: one of hash, pcpu, lru, lru_pcpu, bloom`},
		{"string as an object", `[{"type":"hash","key":8,"val":8},{"type":"hash","key":8,"val":8,"batch-lock":{"a": 1}}]`, `map 1: "batch-lock": {"a": 1}: want a string: one of nonempty, always, sparse`},
		{"null name", `[{"type":"hash","key":8,"val":8,"name":null}]`, `map 0: "name": null: want a string: an exported Go identifier, such as Conns`},
		{"null lean", `[{"type":"hash","key":8,"val":8,"lean":null}]`, `map 0: "lean": null: want true or false`},
		{"null key", `[{"type":"hash","key":null,"val":8}]`, `map 0: "key": null: want a number: key size in bytes, 1..65535`},
		{"null map", `[null]`, `map 0: null: want a JSON object such as {"type":"lru","key":16,"val":8}`},
		{"null second map", `[{"type":"hash","key":8,"val":8}, null]`, `map 1: null: want a JSON object such as {"type":"lru","key":16,"val":8}`},
		{"number for a map", `[{"type":"hash","key":8,"val":8}, 5]`, `map 1: 5: want a JSON object such as {"type":"lru","key":16,"val":8}`},
		{"null file", `null`, `null: want a JSON array of objects such as {"type":"lru","key":16,"val":8}`},
		{"object file", `{"type":"hash"}`, `a JSON object: want a JSON array of objects such as {"type":"lru","key":16,"val":8}`},
		{"trailing garbage", "[{\"type\":\"hash\",\"key\":8,\"val\":8}]\n x", `line 2, column 2: invalid character 'x' after top-level value (want a JSON array of objects such as {"type":"lru","key":16,"val":8})`},
		{"cut short", "[\n  {\"type\":\"hash\",", `line 2, column 17: unexpected end of JSON input (want a JSON array of objects such as {"type":"lru","key":16,"val":8})`},
	}
	for _, tt := range exact {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := ParseJSON([]byte(tt.json))
			assert.Nil(t, specs)
			assert.EqualError(t, err, tt.want)
		})
	}
	t.Run("spec errors stay *Error", func(t *testing.T) {
		_, err := ParseJSON([]byte(`[{"type":"hash","key":8,"val":0}]`))
		var se *Error
		require.True(t, errors.As(err, &se))
		assert.Equal(t, "val", se.Option)
	})
}

func TestExplain(t *testing.T) {
	l, err := Plan(hashSpec(9, 8))
	require.NoError(t, err)
	got := l.Explain()
	for _, want := range []string{
		"HashK9V8: hash map, key 9 B, value 8 B (lean=true)",
		"struct hashK9V8Elem {",
		"next;  /*     0     4 */",
		"hash;  /*     4     4 */",
		"key;   /*     8    12 */",
		"val;   /*    20     8 */",
		"/* size: 28, cachelines: 1, members: 4 */",
		"struct htab.Bucket {",
		"/* size: 8 */",
		"bytes per element: 28",
		// 1000 entries: 1024 buckets of 8 B over 1000 entries.
		"MaxEntries 1000 (elements + buckets): 36.2",
		"MaxEntries 65536 (elements + buckets): 36.0",
		"hash: static: jhash unrolled for 9 bytes (2 word loads, then a 1-byte tail)",
	} {
		assert.Contains(t, got, want)
	}

	s := hashSpec(8, 8)
	s.Lean = false
	l, err = Plan(s)
	require.NoError(t, err)
	got = l.Explain()
	assert.Contains(t, got, "(lean=false)")
	assert.Contains(t, got, "lru;   /*     8    12 */")
	assert.Contains(t, got, "/* size: 40, cachelines: 1, members: 6 */")
	assert.Contains(t, got, "hash: static: jhash unrolled for 8 bytes (2 word loads)")

	l, err = Plan(hashSpec(100, 8))
	require.NoError(t, err)
	assert.Contains(t, l.Explain(), "cachelines: 2")
}

// -explain says "1 byte", not "1 bytes", wherever it gives a size in words.
func TestExplainSingular(t *testing.T) {
	for _, tt := range []struct {
		key, val int
		hash     HashKind
		want     []string
	}{
		{1, 1, HashJhash, []string{"the 1 key byte, little-endian", "the 1 value byte, little-endian", "hash: jhash: the kernel's byte loop over 1 byte\n"}},
		{1, 8, HashStatic, []string{"hash: static: jhash unrolled for 1 byte (0 word loads, then a 1-byte tail)\n"}},
		{4, 1, HashJhash2, []string{"hash: jhash2: the kernel's word loop over 1 word\n", "the 4 key bytes"}},
	} {
		s := hashSpec(tt.key, tt.val)
		s.Hash = tt.hash
		l, err := Plan(s)
		require.NoError(t, err)
		got := l.Explain()
		for _, want := range tt.want {
			assert.Contains(t, got, want)
		}
		assert.NotRegexp(t, `\b1 (key |value )?(byte|word)s\b`, got)
	}
}

func TestHashDescription(t *testing.T) {
	tests := []struct {
		key  int
		hash HashKind
		want string
	}{
		{8, HashStatic, "static: jhash unrolled for 8 bytes (2 word loads)"},
		{7, HashStatic, "static: jhash unrolled for 7 bytes (1 word load, then a 3-byte tail)"},
		{64, HashStatic, "static: jhash unrolled for 64 bytes (16 word loads)"},
		{4112, HashStatic, "static: jhash over 1028 words in 12-byte blocks (key longer than 64 bytes is not unrolled)"},
		{12, HashJhash2, "jhash2: the kernel's word loop over 3 words"},
		{7, HashJhash, "jhash: the kernel's byte loop over 7 bytes"},
	}
	for _, tt := range tests {
		s := hashSpec(tt.key, 8)
		s.Hash = tt.hash
		l, err := Plan(s)
		require.NoError(t, err)
		assert.Equal(t, tt.want, l.HashDescription())
	}
}

func TestEntryBytes(t *testing.T) {
	l, err := Plan(hashSpec(8, 8))
	require.NoError(t, err)
	assert.InDelta(t, 20+8.0, l.EntryBytes(1024, 1), 1e-9)
	assert.InDelta(t, 20+8*1024/1000.0, l.EntryBytes(1000, 1), 1e-9)
	assert.InDelta(t, 20+8.0, l.EntryBytes(1, 1), 1e-9, "1 entry, 1 bucket")
	assert.InDelta(t, 20+8*4/3.0, l.EntryBytes(3, 1), 1e-9, "3 entries, 4 buckets")
	assert.InDelta(t, 20+8.0, l.EntryBytes(1, 4), 1e-9, "cpus do not matter for inline values")
	sparse := hashSpec(8, 8)
	sparse.BatchLock = BatchLockSparse
	ls, err := Plan(sparse)
	require.NoError(t, err)
	assert.InDelta(t, 20+8.0+1/8.0, ls.EntryBytes(65536, 1), 1e-9, "sparse: one bit per bucket more")
	assert.InDelta(t, 20+8.0+8, ls.EntryBytes(1, 1), 1e-9, "sparse: the bitmap is whole words")
}

// The feature table must name every option the way the flags do and list
// only real types.
func TestFeatures(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Features {
		assert.False(t, seen[f.Name], "feature %s listed twice", f.Name)
		seen[f.Name] = true
		assert.NotEmpty(t, f.Usage, f.Name)
		assert.NotEmpty(t, f.Types, f.Name)
		for _, typ := range f.Types {
			assert.Contains(t, MapTypes, typ, f.Name)
		}
		// The defaults are not "set".
		d := Default()
		d.Type = f.Types[0]
		if d.Type != Bloom {
			d.Key = 8
		}
		d.Val = 8
		if f.Name != "key" {
			assert.False(t, f.IsSet(d), "%s is set in Default()", f.Name)
		}
	}
}

// Each type's lean element holds only what that type needs; the all-fields
// element (-lean=false) has every type's fields, as the kernel's htab_elem
// had before "bpf: htab: Reduce memory use of hash maps".
func TestPlanTypes(t *testing.T) {
	typed := func(typ MapType, key, val int, lean bool) Spec {
		s := hashSpec(key, val)
		s.Type, s.Lean = typ, lean
		return s
	}
	names := func(l *Layout) []string {
		var out []string
		for _, f := range l.Elem {
			out = append(out, f.Name)
		}
		return out
	}
	tests := []struct {
		name                   string
		s                      Spec
		fields                 []string
		elemSize, lruNode      int
		perCPU, lru, slotLocks bool
		entry1CPU, entry2CPUs  float64 // EntryBytes(65536, 1) and (65536, 2)
	}{
		{"pcpu k8v8 lean: no value, no pointer to one", typed(PerCPU, 8, 8, true), []string{"next", "key"}, 12, 0, true, false, true, 12 + 8 + 8, 12 + 8 + 16},
		{"pcpu k16v8 lean: cached hash past 8 bytes", typed(PerCPU, 16, 8, true), []string{"next", "hash", "key"}, 24, 0, true, false, true, 24 + 8 + 8, 24 + 8 + 16},
		{"pcpu k8v8 all fields", typed(PerCPU, 8, 8, false), []string{"next", "hash", "lru", "pcpu", "key"}, 32, 0, true, false, true, 32 + 8 + 8, 32 + 8 + 16},
		{"lru k8v8 lean: no cached hash, the node last", typed(LRU, 8, 8, true), []string{"next", "key", "val", "node"}, 36, 16, false, true, false, 36 + 8, 36 + 8},
		{"lru k16v8 lean", typed(LRU, 16, 8, true), []string{"next", "hash", "key", "val", "node"}, 48, 16, false, true, false, 48 + 8, 48 + 8},
		{"lru k8v8 all fields", typed(LRU, 8, 8, false), []string{"next", "hash", "lru", "pcpu", "key", "val", "node"}, 56, 16, false, true, false, 56 + 8, 56 + 8},
		{"lru_pcpu k8v8 lean: slots, no slot locks", typed(LRUPerCPU, 8, 8, true), []string{"next", "key", "node"}, 28, 16, true, true, false, 28 + 8 + 8, 28 + 8 + 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Plan(tt.s)
			require.NoError(t, err)
			assert.Equal(t, tt.fields, names(l))
			assert.Equal(t, tt.elemSize, l.ElemSize)
			if tt.lruNode > 0 {
				last := l.Elem[len(l.Elem)-1]
				assert.Equal(t, Field{"node", "htab.LRUNode", l.ElemSize - tt.lruNode, tt.lruNode, last.Doc}, last)
			}
			assert.Equal(t, tt.perCPU, l.PerCPU != nil)
			assert.Equal(t, !tt.perCPU, l.ValuesInline())
			assert.Equal(t, tt.lru, l.LRU != nil)
			assert.Equal(t, tt.slotLocks, l.PerCPU != nil && l.PerCPU.SlotLocks > 0)
			assert.InDelta(t, tt.entry1CPU, l.EntryBytes(65536, 1), 1e-9)
			assert.InDelta(t, tt.entry2CPUs, l.EntryBytes(65536, 2), 1e-9)
		})
	}
}

// -layout home, the default of -type hash: hash only, two values, and the
// slot starts with the bucket's sequence lock; classic plans the kernel's
// element, and is the only (and default) layout of the other types.
func TestLayoutHome(t *testing.T) {
	s := hashSpec(8, 8)
	for _, home := range []StorageLayout{"", LayoutHome} {
		s.Layout = home
		assert.Equal(t, LayoutHome, s.StorageLayout())
		l, err := Plan(s)
		require.NoError(t, err)
		assert.NotNil(t, l.Home)
		require.Len(t, l.Elem, 4)
		assert.Equal(t, []string{"seq", "next", "key", "val"}, []string{l.Elem[0].Name, l.Elem[1].Name, l.Elem[2].Name, l.Elem[3].Name})
		assert.Equal(t, 24, l.ElemSize)
		assert.InDelta(t, 24+1+1/8.0, l.EntryBytes(65536, 1), 1e-9, "slots, summaries and the free bitmap")
		assert.InDelta(t, 25*65536/32769.0+65536/8/32769.0, l.EntryBytes(32769, 1), 1e-9, "just past a power of two: twice the slots")
		assert.Contains(t, l.Explain(), "MaxEntries 32769 (slots + summaries + free bitmap): 50.2 (the worst case, just past a power of two; -layout classic: 36.0)")
	}

	s.Layout = LayoutClassic
	l, err := Plan(s)
	require.NoError(t, err)
	assert.Nil(t, l.Home)
	assert.Equal(t, "next", l.Elem[0].Name)
	assert.NotContains(t, l.Explain(), "worst case")

	// Default options on demand (a BPF object's BPF_F_NO_PREALLOC) make
	// classic the default, the layout whose memory follows the entries;
	// -layout home still wins.
	s.Layout, s.MaxEntries, s.NoPrealloc = "", 1024, true
	assert.Equal(t, LayoutClassic, s.StorageLayout())
	s.Layout = LayoutHome
	assert.Equal(t, LayoutHome, s.StorageLayout())
	s.MaxEntries, s.NoPrealloc = 0, false

	for _, typ := range []MapType{PerCPU, LRU, LRUPerCPU} {
		for _, classic := range []StorageLayout{"", LayoutClassic} {
			s := hashSpec(8, 8)
			s.Type, s.Layout = typ, classic
			assert.Equal(t, LayoutClassic, s.StorageLayout(), "%s", typ)
			require.NoError(t, s.Validate(), "%s: -layout %q", typ, classic)
			l, err := Plan(s)
			require.NoError(t, err)
			assert.Nil(t, l.Home, "%s", typ)
		}
	}

	s.Layout = "open"
	var se *Error
	require.ErrorAs(t, s.Validate(), &se)
	assert.Equal(t, "layout", se.Option)
	assert.Contains(t, se.Allowed, "classic, home")
	for _, typ := range []MapType{PerCPU, LRU, LRUPerCPU} {
		s := hashSpec(8, 8)
		s.Type, s.Layout = typ, LayoutHome
		require.ErrorAs(t, s.Validate(), &se, "%s", typ)
		assert.Equal(t, "layout", se.Option)
		assert.Equal(t, "applies only to -type hash", se.Allowed)
	}
}

// EntryBytes must not overflow where int is 32 bits (GOARCH=386): a home
// map of 1 MiB values has 65536 slots of over 1 MiB at MaxEntries 65536,
// 2^36 bytes. The wants are computed in float64 from the layout's sizes.
func TestEntryBytesLarge(t *testing.T) {
	for _, layout := range []StorageLayout{LayoutHome, LayoutClassic} {
		s := hashSpec(8, MaxValueSize)
		s.Layout = layout
		l, err := Plan(s)
		require.NoError(t, err)
		for _, max := range []int{1000, 32769, 65536} {
			slots := float64(roundUpPow2(max))
			want := float64(l.ElemSize) + slots*8/float64(max) // classic: elements + buckets
			if l.Home != nil {
				want = (slots*float64(l.ElemSize+1) + slots/8) / float64(max) // slots + summaries + free bitmap
			}
			assert.InDelta(t, want, l.EntryBytes(max, 1), 1e-6, "%s, MaxEntries %d", layout, max)
		}
	}
	s := hashSpec(8, MaxPerCPUValSize)
	s.Type = PerCPU
	l, err := Plan(s)
	require.NoError(t, err)
	cpus := 1 << 16 // more than any machine has, but the arithmetic must hold
	want := float64(l.ElemSize) + 4*float64(l.ValueWords)*float64(cpus) + 8
	assert.InDelta(t, want, l.EntryBytes(65536, cpus), 1e-6, "pcpu, %d CPUs", cpus)
}
