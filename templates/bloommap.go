package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// bloomMap emits the whole file of a -type bloom map: the kernel's
// BPF_MAP_TYPE_BLOOM_FILTER (kernel/bpf/bloom_filter.c), bit for bit, so that
// under ZeroSeed Peek answers as the kernel's map does for the same pushes,
// false positives included. It has no key and no buckets: a bit array sized
// as the kernel sizes it (htab.BloomBits), in which Push sets, and Peek
// tests, the bit of each of the k hashes of a value.
//
//	type <Value> [<V>]byte
//	type <Map> struct { bits []uint64; mask, seed, hashes, maxEntries uint32 }
//	func New<Map>(opts htab.Options) (*<Map>, error)
//	func (m *<Map>) Push(v <Value>) error
//	func (m *<Map>) Peek(v <Value>) bool
//	func (m *<Map>) MaxEntries() int; Hashes() int; Bits() uint64; Bytes() int
func (g *generator) bloomMap(f *jen.File) {
	l := g.l
	for _, line := range []string{
		fmt.Sprintf("Design of %s: the kernel's BPF_MAP_TYPE_BLOOM_FILTER for %d-byte values.", g.n.Map, l.Spec.Val),
		"",
		"  bits     the bit array, in 64-bit words: bit b is bits[b/64] bit b%64, as",
		"           the kernel's unsigned long bitmap. Its size is the kernel's:",
		"           MaxEntries*hashes/5*7 bits (about n*k/ln 2, the size that",
		"           minimizes false positives), rounded up to a power of two, at",
		"           least 64; 2^32 bits (512 MiB) where that passes 2^31.",
		"  hash i   of a value, 0 <= i < hashes: jhash of the value with the initval",
		"           seed+i, masked to the bit array (jhash2 where the value size is",
		"           a multiple of 4, which gives the same value).",
		"",
		"Hash: " + l.HashDescription() + ".",
		"",
		"Concurrency: Push sets each bit with one atomic OR of its word, Peek loads",
		"the words atomically; neither takes a lock. A Peek that begins after a Push",
		"of the same value returned finds every bit set.",
	} {
		f.Comment(line)
	}
	f.Line()
	f.Add(g.code(fmt.Sprintf(`
// $Value is a value of $Map: %s.
type $Value [%d]byte

// $Map is a bloom filter with the semantics of the kernel's
// BPF_MAP_TYPE_BLOOM_FILTER. Every method is safe for concurrent use.
type $Map struct {
	bits       []uint64 // the bit array (see the design above)
	mask       uint32   // the number of bits less one: a hash's bit is hash&mask
	seed       uint32   // the jhash initval of hash 0: 0 with ZeroSeed, else random
	hashes     uint32   // hash functions, 1..15
	maxEntries uint32
$(compat)}

// $New creates an empty bloom filter, as BPF_MAP_CREATE does: MaxEntries
// (1..2^31) sizes its bit array, BloomHashes (1..15) is its number of hash
// functions (0: %d, as generated with -hashes; the kernel's map_extra), and
// ZeroSeed makes its hashes the kernel's under BPF_F_ZERO_SEED. Bad options,
// and NoPrealloc or NoCommonLRU, which a bloom filter has not, are
// htab.ErrInvalid, wrapped with the reason; CPUs does not matter.
func $New(opts htab.Options) (*$Map, error) {
	opts, err := opts.Check(htab.BloomFilter)
	if err != nil {
		return nil, err
	}
	hashes := opts.BloomHashes
	if hashes == 0 {
		hashes = %d
	}
	n := htab.BloomBits(opts.MaxEntries, hashes)
	return &$Map{
		bits:       make([]uint64, (n+63)/64),
		mask:       uint32(n - 1),
		seed:       opts.Seed(),
		hashes:     uint32(hashes),
		maxEntries: uint32(opts.MaxEntries),
$(compatInit)	}, nil
}
$(defaults)
// Push adds v, as bpf_map_push_elem does (and BPF_MAP_UPDATE_ELEM with no key
// and BPF_ANY): it sets the bit of each of v's hashes. A bloom filter is never
// full and Push never fails; the error is the kernel's call's, always nil.
func (m *$Map) Push(v $Value) error {
	for i := range m.hashes {
		h := m.hash(&v, m.seed+i) & m.mask
		atomic.OrUint64(&m.bits[h/64], 1<<(h%%64))
	}
	return nil
}

// Peek reports whether v may have been pushed, as bpf_map_peek_elem does:
// false (the kernel's ENOENT) means certainly not; true means every bit of
// v's hashes is set, by v or by others (a false positive).
func (m *$Map) Peek(v $Value) bool {
	for i := range m.hashes {
		h := m.hash(&v, m.seed+i) & m.mask
		if atomic.LoadUint64(&m.bits[h/64])&(1<<(h%%64)) == 0 {
			return false
		}
	}
	return true
}

// MaxEntries is the capacity the filter was sized for.
func (m *$Map) MaxEntries() int { return int(m.maxEntries) }

// Hashes is the number of hash functions.
func (m *$Map) Hashes() int { return int(m.hashes) }

// Bits is the size of the bit array in bits: a power of two, 64..2^32.
func (m *$Map) Bits() uint64 { return uint64(m.mask) + 1 }

// Bytes is the size of the bit array in bytes.
func (m *$Map) Bytes() int { return 8 * len(m.bits) }
`, spec.Plural(l.Spec.Val, "byte"), l.Spec.Val, l.BloomMap.DefaultHashes, l.BloomMap.DefaultHashes),
		fill("compat", g.ebpfOptionsField()),
		fill("compatInit", g.ebpfOptionsInit()),
		fill("defaults", g.defaultsCode()),
	))
	g.hashFunc(f)
	if l.Hash.Kind == spec.HashJhash2 {
		f.Add(g.code(fmt.Sprintf(`
// $ValueWords is a value as jhash2 reads it: little-endian words.
type $ValueWords [%d]uint32
`, l.ValueWords)))
		f.Comment("words is the value as jhash2 reads it.")
		f.Func().Params(jen.Id("v").Op("*").Id(g.n.Value)).Id("words").Params().Params(jen.Id("w").Id(g.n.ValueWords)).Block(
			append(bytesToWords("v", l.Spec.Val, l.ValUnrolled, func(i, v jen.Code) jen.Code {
				return jen.Id("w").Index(i).Op("=").Add(v)
			}), jen.Return())...,
		)
	}
}
