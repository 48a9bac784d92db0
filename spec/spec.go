// Package spec is the model of what htabgen generates: the Spec a user writes
// (flags or JSON), its validation against the kernel's limits, and Plan, which
// makes every layout decision (element fields and offsets, which hash, what is
// unrolled) before any code is emitted. Templates read only the resulting Layout.
package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/htabgen/htabgen/htab"
)

// MapType is a kind of BPF map: the runtime's htab.MapType, so that the
// generator and the generated code name map types with one enumeration.
type MapType = htab.MapType

// The map types, by the names the generator uses.
const (
	Hash      = htab.Hash          // -type hash: BPF_MAP_TYPE_HASH
	PerCPU    = htab.PerCPUHash    // -type pcpu: BPF_MAP_TYPE_PERCPU_HASH
	LRU       = htab.LRUHash       // -type lru: BPF_MAP_TYPE_LRU_HASH
	LRUPerCPU = htab.LRUPerCPUHash // -type lru_pcpu: BPF_MAP_TYPE_LRU_PERCPU_HASH
	Bloom     = htab.BloomFilter   // -type bloom: BPF_MAP_TYPE_BLOOM_FILTER
)

// MapTypes lists every type in the order help texts show them.
var MapTypes = htab.MapTypes

// HashKind is how the generated map hashes its keys.
type HashKind string

const (
	// HashStatic is jhash specialised at generation time for the exact key
	// size: word loads, unrolled up to 64-byte keys (UnrollWords; longer keys
	// loop over 12-byte blocks), then the byte tail. Same value as the kernel.
	HashStatic HashKind = "static"
	// HashJhash2 is the kernel's jhash2() word loop (key size a multiple of 4).
	HashJhash2 HashKind = "jhash2"
	// HashJhash is the kernel's jhash() byte loop.
	HashJhash HashKind = "jhash"
)

// BatchLock is how batch operations treat buckets they walk.
type BatchLock string

const (
	// BatchLockNonEmpty skips empty buckets without taking their lock, as
	// the kernel does since "bpf: Do not grab the bucket spinlock by default
	// on htab batch ops".
	BatchLockNonEmpty BatchLock = "nonempty"
	// BatchLockAlways locks every bucket, as the kernel did before the fix.
	BatchLockAlways BatchLock = "always"
	// BatchLockSparse is nonempty plus an occupancy bitmap (htab.Occupancy)
	// that writers keep, so that batch walks jump from one non-empty bucket
	// to the next: a dump costs in proportion to the entries, not the buckets.
	// An extension of the contract.
	BatchLockSparse BatchLock = "sparse"
)

// StorageLayout is how a hash map stores its buckets and elements.
type StorageLayout string

const (
	// LayoutClassic is the kernel's shape: a bucket array of seqlocks and
	// chain heads, and a separate element array. The only layout of the
	// per-CPU and LRU types, and the hash type's choice when memory must
	// follow the entries in use (NoPrealloc) or MaxEntries is far from a
	// power of two.
	LayoutClassic StorageLayout = "classic"
	// LayoutHome (-type hash only, its default) stores each bucket's newest
	// element in the bucket itself ("home slot"), so that a lookup of a
	// bucket's head touches one slot (mostly one cache line); older elements live in the home
	// slots of empty buckets. Same order, capacity and errors as classic;
	// roundup_pow_of_two(MaxEntries) slots, all made at creation.
	LayoutHome StorageLayout = "home"
)

// HomeMaxSlots is the most slots, and so entries, the home layout has:
// bit 31 of a slot's next word marks its bucket's head, so index+1 has 31
// bits.
const HomeMaxSlots = 1 << 30

// StorageLayout returns the layout s generates: s.Layout, or when that is
// empty the type's default (home for hash, classic for the others and for a
// hash map whose default options are NoPrealloc or more entries than the
// home layout holds).
func (s Spec) StorageLayout() StorageLayout {
	switch {
	case s.Layout != "":
		return s.Layout
	case s.Type == Hash && s.NoPrealloc:
		// Declared on demand (a BPF object's BPF_F_NO_PREALLOC), memory
		// follows the entries in use, which only classic does.
		return LayoutClassic
	case s.Type == Hash && s.MaxEntries > HomeMaxSlots:
		// Declared bigger than the home layout goes (a BPF object's
		// max_entries up to the kernel's 2^31): classic holds it.
		return LayoutClassic
	case s.Type == Hash:
		return LayoutHome
	default:
		return LayoutClassic
	}
}

// htabgen's limits on key and value sizes: tighter than the kernel's
// (kernel/bpf/hashtab.c, htab_map_alloc_check, takes larger keys and
// values), because a map of such elements is not one a generated Go type
// serves well; but per-CPU values stop where the kernel's do, at
// PCPU_MIN_UNIT_SIZE.
const (
	MaxKeySize       = 65535
	MaxValueSize     = 1 << 20
	MaxPerCPUValSize = 32768
	MaxBloomHashes   = htab.MaxBloomHashes
)

// Spec is one map to generate: the flags of the command, or one object of a
// -spec JSON file (same names).
type Spec struct {
	Type       MapType   `json:"type"`
	Key        int       `json:"key"`
	Val        int       `json:"val"`
	Name       string    `json:"name"`
	Pkg        string    `json:"pkg"`
	Out        string    `json:"out"`
	Hash       HashKind  `json:"hash"`
	Lean       bool      `json:"lean"`
	Bloom      int       `json:"bloom"`
	Hashes     int       `json:"hashes"`
	BatchLock  BatchLock `json:"batch-lock"`
	EbpfCompat bool      `json:"ebpf-compat"`
	Tests      bool      `json:"tests"`
	// The map's default options, the attributes a BPF object declares for
	// it (-elf): MaxEntries > 0 gives the map NOptions() and NewNDefault().
	MaxEntries  int  `json:"max-entries"`
	NoPrealloc  bool `json:"no-prealloc"`
	NoCommonLRU bool `json:"no-common-lru"`
	ZeroSeed    bool `json:"zero-seed"`
	// Layout is the storage layout; "" means the type's default (see
	// Spec.StorageLayout).
	Layout StorageLayout `json:"layout"`
	// ELF, in a spec file's object, names a compiled BPF object: the spec
	// file's object then stands for the BPF object's maps (those Maps
	// names, or all), its options applied to each (ForMap), and the command
	// expands it (htabgen.ELFSpecs). A Spec with ELF or Maps is no map:
	// Validate refuses it.
	ELF  string   `json:"elf"`
	Maps []string `json:"maps"`
}

// ELFFields are the fields of a spec file's object with "elf": the object
// and its maps, and the options that apply to each map. The rest (type,
// sizes, name, file, max_entries, flags) are the object's.
var ELFFields = []string{"elf", "maps", "pkg", "hash", "lean", "batch-lock", "bloom", "ebpf-compat", "tests"}

// ForMap is m, one map of the BPF object that s names, with the options of
// s: pkg, hash, ebpf-compat and tests for every map, and lean, batch-lock
// and bloom for the hash-family ones, the only ones that have them.
func (s Spec) ForMap(m Spec) Spec {
	m.Pkg, m.Hash, m.EbpfCompat, m.Tests = s.Pkg, s.Hash, s.EbpfCompat, s.Tests
	if m.Type.IsHashFamily() {
		m.Lean, m.BatchLock, m.Bloom = s.Lean, s.BatchLock, s.Bloom
	}
	return m
}

// CheckForMaps refuses the options of s, a spec file's object with "elf",
// that ForMap gives only to hash-family maps when none of maps, the object's
// maps it chose, is one: such an option would be given and apply to nothing,
// as it may not for a map of one type.
func (s Spec) CheckForMaps(maps []Spec) error {
	if slices.ContainsFunc(maps, func(m Spec) bool { return m.Type.IsHashFamily() }) {
		return nil
	}
	names := make([]string, len(maps))
	for i, m := range maps {
		names[i] = m.TypeName()
	}
	for _, f := range Features {
		if (f.Name == "lean" || f.Name == "batch-lock" || f.Name == "bloom") && f.IsSet(s) {
			return &Error{Option: f.Name, Value: f.Value(s), Field: true, Allowed: fmt.Sprintf(
				"applies to %s maps, and the object's maps here are bloom filters (%s): leave it out", joinList(f.Types), strings.Join(names, ", "))}
		}
	}
	return nil
}

// Default returns a Spec with every option at its default and no type or sizes.
func Default() Spec {
	return Spec{Hash: HashStatic, Lean: true, Hashes: 5, BatchLock: BatchLockNonEmpty}
}

// Error is a spec error: it names the option, the value given and what is allowed.
type Error struct {
	Option  string // flag name without the dash, as in JSON
	Value   any    // nil: the option was not given
	Allowed string
	// Field says the option as a spec file's field, with its value in
	// JSON ("key": 0), where the flag's form is -key 0.
	Field bool
}

func (e *Error) Error() string {
	name := "-" + e.Option
	if e.Field {
		name = strconv.Quote(e.Option)
	}
	if e.Value == nil {
		return fmt.Sprintf("%s: %s", name, e.Allowed)
	}
	if e.Field {
		v := e.Value
		if s, ok := v.(fmt.Stringer); ok {
			v = s.String()
		}
		value, _ := json.Marshal(v)
		return fmt.Sprintf("%s: %s: %s", name, value, e.Allowed)
	}
	value := fmt.Sprint(e.Value)
	if value == "" || strings.ContainsFunc(value, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
		value = strconv.Quote(value) // as a shell would need it written
	}
	return fmt.Sprintf("%s %s: %s", name, value, e.Allowed)
}

// AsField makes err's spec error, if it has one, say its option as a spec
// file's field (Error.Field): for errors of a map that a spec file wrote.
func AsField(err error) error {
	var se *Error
	if errors.As(err, &se) {
		se.Field = true
	}
	return err
}

// allowed says what each option takes, in the words of its errors: those of
// Validate, and those of ParseJSON for a value of the wrong JSON type.
var allowed = map[string]string{
	"type":          "one of " + joinTypes(),
	"key":           fmt.Sprintf("key size in bytes, 1..%d", MaxKeySize),
	"val":           fmt.Sprintf("value size in bytes, 1..%d (per-CPU types 1..%d)", MaxValueSize, MaxPerCPUValSize),
	"name":          "an exported Go identifier, such as Conns",
	"pkg":           "a Go package name, such as flows",
	"out":           "the output file, such as conns_htab.go",
	"hash":          "one of static, jhash2, jhash",
	"lean":          "true or false",
	"bloom":         fmt.Sprintf("number of hash functions of the bloom filter in front of lookups, 0 (off) or 1..%d", MaxBloomHashes),
	"hashes":        fmt.Sprintf("number of hash functions, 1..%d", MaxBloomHashes),
	"batch-lock":    "one of nonempty, always, sparse",
	"ebpf-compat":   "true or false",
	"tests":         "true or false",
	"max-entries":   fmt.Sprintf("the default MaxEntries of NOptions() and NewNDefault(), 1..%d, or 0 for none", int64(htab.MaxMaxEntries)),
	"no-prealloc":   "true or false",
	"no-common-lru": "true or false",
	"zero-seed":     "true or false",
	"layout":        "one of classic, home",
	"elf":           "a compiled BPF object whose maps to generate, relative to the spec file's directory, such as bpf_bpfel.o",
	"maps":          `the names of the maps of the "elf" object to generate, such as ["conns"]; without it, every map`,
}

// Validate checks s against the kernel's limits and the options that apply to
// its type; an option that does not apply is an error when set away from its
// default. It reports the first problem as an *Error.
func (s Spec) Validate() error { return s.validate(nil) }

// ValidateGiven is Validate for what a user wrote, as flags or as a spec
// file's object: given holds the options written (flag names, which are the
// JSON names). -key (but for bloom) and -val must be among them; an option
// given for a type it does not apply to is an error even at its default
// value (-type hash -hashes 5); and so is -name given empty, which would
// otherwise mean the derived name.
func (s Spec) ValidateGiven(given map[string]bool) error {
	if given == nil {
		given = map[string]bool{}
	}
	return s.validate(given)
}

// validate is Validate, and with a non-nil given ValidateGiven.
func (s Spec) validate(given map[string]bool) error {
	bad := func(opt string, v any, allowed string) error { return &Error{Option: opt, Value: v, Allowed: allowed} }
	missing := func(opt string) bool { return given != nil && !given[opt] }
	if s.ELF != "" {
		return bad("elf", s.ELF, "a spec file's object that names a BPF object stands for the object's maps: expand it into them first (htabgen.ELFSpecs)")
	}
	if s.Maps != nil {
		return bad("maps", s.Maps, `goes with "elf": it picks maps of the BPF object that "elf" names`)
	}
	if !s.Type.Valid() {
		if s.Type == 0 {
			return bad("type", nil, "required ("+allowed["type"]+")")
		}
		return bad("type", s.Type, allowed["type"])
	}
	for _, f := range Features {
		set := f.IsSet(s) || given[f.Name] && !f.ValueDecides
		if set && !slices.Contains(f.Types, s.Type) {
			return bad(f.Name, f.Value(s), fmt.Sprintf("applies only to -type %s", joinList(f.Types)))
		}
	}
	// (-key on a bloom filter was rejected by the feature table above.)
	if s.Type != Bloom && missing("key") {
		return bad("key", nil, "required ("+allowed["key"]+")")
	}
	if s.Type != Bloom && (s.Key < 1 || s.Key > MaxKeySize) {
		return bad("key", s.Key, allowed["key"])
	}
	maxVal := MaxValueSize
	if s.Type.IsPerCPU() {
		maxVal = MaxPerCPUValSize
	}
	valAllowed := fmt.Sprintf("value size in bytes, 1..%d for -type %s", maxVal, s.Type)
	if missing("val") {
		return bad("val", nil, "required ("+valAllowed+")")
	}
	if s.Val < 1 || s.Val > maxVal {
		return bad("val", s.Val, valAllowed)
	}
	switch s.Hash {
	case HashStatic, HashJhash:
	case HashJhash2:
		if s.Type != Bloom && s.Key%4 != 0 {
			return bad("hash", s.Hash, fmt.Sprintf("jhash2 needs a key size that is a multiple of 4 (got %d); use static or jhash", s.Key))
		}
		if s.Type == Bloom && s.Val%4 != 0 {
			return bad("hash", s.Hash, fmt.Sprintf("jhash2 needs a value size that is a multiple of 4 (got %d); use static or jhash", s.Val))
		}
	default:
		return bad("hash", s.Hash, allowed["hash"])
	}
	switch s.BatchLock {
	case BatchLockNonEmpty, BatchLockAlways, BatchLockSparse:
	default:
		return bad("batch-lock", s.BatchLock, allowed["batch-lock"])
	}
	switch s.Layout {
	case "", LayoutClassic, LayoutHome:
	default:
		return bad("layout", s.Layout, allowed["layout"])
	}
	if s.Hashes < 1 || s.Hashes > MaxBloomHashes {
		return bad("hashes", s.Hashes, allowed["hashes"])
	}
	if s.Bloom < 0 || s.Bloom > MaxBloomHashes {
		return bad("bloom", s.Bloom, allowed["bloom"])
	}
	if s.MaxEntries < 0 || int64(s.MaxEntries) > htab.MaxMaxEntries {
		return bad("max-entries", s.MaxEntries, allowed["max-entries"])
	}
	// The flags are defaults too: without a MaxEntries there are none.
	for _, flag := range []struct {
		name string
		set  bool
	}{{"no-prealloc", s.NoPrealloc}, {"no-common-lru", s.NoCommonLRU}, {"zero-seed", s.ZeroSeed}} {
		if flag.set && s.MaxEntries == 0 {
			return bad(flag.name, true, "needs -max-entries: it is one of the default options that NOptions() returns")
		}
	}
	// Given empty, a string option would silently mean its default.
	for _, empty := range []struct{ opt, value, dflt string }{
		{"name", s.Name, "the derived name (" + s.TypeName() + ")"},
		{"pkg", s.Pkg, "$GOPACKAGE, else main"},
		{"out", s.Out, "standard output (a spec file: <name in lower case>_htab.go)"},
		{"layout", string(s.Layout), "the type's layout"},
	} {
		if given[empty.opt] && empty.value == "" {
			return bad(empty.opt, "", fmt.Sprintf("%s, or no -%s for %s", allowed[empty.opt], empty.opt, empty.dflt))
		}
	}
	if err := checkOut(s.Out); err != nil {
		return err
	}
	if s.Name != "" && (!token.IsIdentifier(s.Name) || !token.IsExported(s.Name)) {
		return bad("name", s.Name, allowed["name"])
	}
	if s.Name != "" && !caseRoundTrips(s.Name) {
		return bad("name", s.Name, "a name whose first letter has a lower-case form that maps back to it (the map's unexported names start with it lowered), such as Conns")
	}
	if s.Pkg != "" && (!token.IsIdentifier(s.Pkg) || s.Pkg == "_") {
		return bad("pkg", s.Pkg, allowed["pkg"])
	}
	return nil
}

// checkOut rejects an output file name that would be lost: blank, or with
// a control character (which a terminal or a shell script mangles), or a
// .go file whose name starts with . or _, which Go ignores (and so would
// its test file).
func checkOut(out string) error {
	if out == "" {
		return nil // standard output
	}
	if strings.TrimSpace(out) == "" || strings.ContainsFunc(out, unicode.IsControl) {
		return &Error{Option: "out", Value: out, Allowed: "a file name, not blank and without control characters, such as conns_htab.go"}
	}
	base := filepath.Base(out)
	if strings.HasSuffix(base, ".go") && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
		return &Error{Option: "out", Value: out, Allowed: fmt.Sprintf("a file name that does not start with %q: Go ignores .go files whose names start with . or _, such as conns_htab.go", base[:1])}
	}
	return nil
}

// caseRoundTrips reports whether name's first letter lowers to a lower-case
// letter that raises back to it. The map's unexported identifiers start with
// that lowered letter (Layout.Prefix), so this keeps two names from sharing a
// prefix (K and the Kelvin sign U+212A both lower to k) and keeps the prefix
// unexported (𝐀 has no lower-case form).
func caseRoundTrips(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	l := unicode.ToLower(r)
	return unicode.IsLower(l) && unicode.ToUpper(l) == r
}

// TypeName is the Go name of the map type: -name, or derived from the type and
// sizes with Go's initialisms (HashK8V8, PerCPUK16V8, LRUPerCPUK8V8, BloomV8).
func (s Spec) TypeName() string {
	if s.Name != "" {
		return s.Name
	}
	name := derivedNames[s.Type]
	if s.Type != Bloom {
		name += fmt.Sprintf("K%d", s.Key)
	}
	return name + fmt.Sprintf("V%d", s.Val)
}

// derivedNames is each type's word in derived map names, with Go's initialisms.
var derivedNames = map[MapType]string{
	Hash:      "Hash",
	PerCPU:    "PerCPU",
	LRU:       "LRU",
	LRUPerCPU: "LRUPerCPU",
	Bloom:     "Bloom",
}

// ParseType is the map type that the -type flag's value (or a spec file's
// "type") names, or an *Error saying which types there are.
func ParseType(s string) (MapType, error) {
	t, err := htab.ParseMapType(s)
	if err != nil {
		return 0, &Error{Option: "type", Value: s, Allowed: allowed["type"]}
	}
	return t, nil
}

// specExample is the shape of a -spec file's map, for its errors.
const specExample = `{"type":"lru","key":16,"val":8}`

// ParseJSON reads a -spec file: a JSON array of objects with the fields of
// Spec. Absent fields take their defaults; unknown fields are an error, and
// so is null, for a map or a field. An object with "elf" has only
// ELFFields and stands for maps of a BPF object, which the caller expands
// (ForMap). Its errors name a map by its index ("map 1: ...") and an option
// as the file's field (Error.Field), not the file, which the caller names.
func ParseJSON(data []byte) ([]Spec, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("a JSON %s: want a JSON array of objects such as %s", strings.Fields(te.Value)[0], specExample)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("%s: %w", position(data, se.Offset), err)
		}
		return nil, fmt.Errorf("%w (want a JSON array of objects such as %s)", err, specExample)
	}
	if raw == nil {
		return nil, fmt.Errorf("null: want a JSON array of objects such as %s", specExample)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty array: nothing to generate")
	}
	specs := make([]Spec, len(raw))
	for i, r := range raw {
		s, err := parseMap(r)
		if err != nil {
			return nil, fmt.Errorf("map %d: %w", i, err)
		}
		specs[i] = s
	}
	return specs, nil
}

// position is where byte offset of data is, as line and column (in bytes),
// both from 1.
func position(data []byte, offset int64) string {
	before := data[:min(max(offset, 0), int64(len(data)))]
	line := 1 + bytes.Count(before, []byte("\n"))
	column := len(before) - bytes.LastIndexByte(before, '\n') - 1
	return fmt.Sprintf("line %d, column %d", line, max(column, 1))
}

// parseMap reads one map's object and validates it.
func parseMap(r json.RawMessage) (Spec, error) {
	fields, err := objectFields(r)
	if err != nil {
		return Spec{}, err
	}
	if raw, ok := fields["type"]; ok {
		// Named as the flag names it, not as encoding/json would.
		var name string
		if json.Unmarshal(raw, &name) == nil {
			if _, err := ParseType(name); err != nil {
				return Spec{}, AsField(err)
			}
		}
	}
	s := Default()
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		// The decoder says "cannot unmarshal string into Go struct field
		// Spec.key of type int": Go's words, without the value. Say it as
		// the flags do, with the value as written in the file.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && fields[te.Field] != nil {
			return Spec{}, wrongType(te.Field, fields[te.Field])
		}
		return Spec{}, err
	}
	given := map[string]bool{}
	for name := range fields {
		given[name] = true
	}
	validate := s.ValidateGiven
	if given["elf"] {
		validate = s.ValidateELF
	}
	if err := validate(given); err != nil {
		return Spec{}, AsField(err)
	}
	return s, nil
}

// ValidateELF checks s as a spec file's object that names a BPF object,
// given holding the fields written (as ValidateGiven's): only ELFFields, and
// values that some map takes. What each map takes is checked when the object
// is expanded into its maps (ForMap, then Validate).
func (s Spec) ValidateELF(given map[string]bool) error {
	for _, name := range specFieldNames {
		if given[name] && !slices.Contains(ELFFields, name) {
			return fmt.Errorf(`%q: not with "elf": the BPF object declares each map's type, key and value sizes, max_entries and flags, and the map's name and file come from its name; with "elf" the fields are %s`, name, strings.Join(ELFFields, ", "))
		}
	}
	bad := func(opt string, v any) error { return &Error{Option: opt, Value: v, Allowed: allowed[opt]} }
	switch {
	case s.ELF == "":
		return bad("elf", "")
	case given["maps"] && len(s.Maps) == 0:
		return &Error{Option: "maps", Value: []string{}, Allowed: `name the maps to generate, or leave "maps" out for every map`}
	case given["pkg"] && s.Pkg == "":
		return &Error{Option: "pkg", Value: "", Allowed: allowed["pkg"] + ", or no -pkg for $GOPACKAGE, else main"}
	case s.Pkg != "" && (!token.IsIdentifier(s.Pkg) || s.Pkg == "_"):
		return bad("pkg", s.Pkg)
	case s.Hash != HashStatic && s.Hash != HashJhash2 && s.Hash != HashJhash:
		return bad("hash", s.Hash)
	case s.BatchLock != BatchLockNonEmpty && s.BatchLock != BatchLockAlways && s.BatchLock != BatchLockSparse:
		return bad("batch-lock", s.BatchLock)
	case s.Bloom < 0 || s.Bloom > MaxBloomHashes:
		return bad("bloom", s.Bloom)
	}
	return nil
}

// specFields are the JSON names of Spec's fields (the flags' names), and the
// kind of Go value each holds; specFieldNames the names in Spec's order.
var specFields, specFieldNames = func() (map[string]reflect.Kind, []string) {
	fields, names := map[string]reflect.Kind{}, []string(nil)
	t := reflect.TypeFor[Spec]()
	for i := range t.NumField() {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		fields[name] = t.Field(i).Type.Kind()
		names = append(names, name)
	}
	return fields, names
}()

// objectFields returns the fields of a map's object, each name with its
// value as written, and rejects what encoding/json would let through: not an
// object (null decodes as an empty one), a field given twice (json keeps the
// last silently), null for a field (json leaves the default), and a name that
// matches a field only case-insensitively ("Key"), since the flags' names are
// case-sensitive. Unknown names and bad values are left to the decoder.
func objectFields(r json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(r))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: want a JSON object such as %s", shortJSON(r), specExample)
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if fields[name] != nil {
			return nil, fmt.Errorf("field %q given twice", name)
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		fields[name] = value
		if _, known := specFields[name]; !known {
			for _, f := range specFieldNames {
				if strings.EqualFold(f, name) {
					return nil, fmt.Errorf("unknown field %q: field names are case-sensitive, as the flags: %q", name, f)
				}
			}
			return nil, fmt.Errorf("unknown field %q: the fields are %s", name, strings.Join(specFieldNames, ", "))
		}
		if string(value) == "null" {
			return nil, wrongType(name, value)
		}
	}
	return fields, nil
}

// wrongType is the error for a field whose JSON value does not fit it: the
// field, the value as written, and what it takes, in the flags' words.
func wrongType(name string, value json.RawMessage) error {
	v := shortJSON(value)
	switch kind := specFields[name]; {
	case kind == reflect.Bool:
		return fmt.Errorf("%q: %s: want true or false", name, v)
	case kind == reflect.Int && strings.ContainsAny(v[:1], "-0123456789") && strings.ContainsAny(v, ".eE"):
		// 8.0 and 8e0 are 8 to JSON, but not to the decoder nor to the flags.
		return fmt.Errorf("%q: %s: want a whole number without fraction or exponent: %s", name, v, allowed[name])
	case kind == reflect.Int && strings.ContainsAny(v[:1], "-0123456789"):
		// A whole number too big for an int: the range says why.
		return fmt.Errorf("%q: %s: %s", name, v, allowed[name])
	case kind == reflect.Int:
		return fmt.Errorf("%q: %s: want a number: %s", name, v, allowed[name])
	case kind == reflect.Slice:
		return fmt.Errorf("%q: %s: want an array of strings: %s", name, v, allowed[name])
	default:
		return fmt.Errorf("%q: %s: want a string: %s", name, v, allowed[name])
	}
}

// shortJSON is a JSON value as written, cut short if it is long, for an
// error message.
func shortJSON(value json.RawMessage) string {
	const most = 40
	v := strings.TrimSpace(string(value))
	if utf8.RuneCountInString(v) > most {
		v = string([]rune(v)[:most]) + "…"
	}
	return v
}

func joinTypes() string { return strings.Join(TypeWords(), ", ") }

// TypeWords are the words -type takes, one a type, in MapTypes' order.
func TypeWords() []string {
	w := make([]string, len(MapTypes))
	for i, t := range MapTypes {
		w[i] = t.String()
	}
	return w
}

func joinList(ts []MapType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
