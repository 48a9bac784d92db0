// Package proto is a hand-written prototype of a faster layout for the
// generated k8v8 BPF_MAP_TYPE_HASH (issue 2's lookup targets). It is not
// generated code and nothing imports it; it exists to be measured side by
// side with the generated HashK8V8 and the peers. Same kernel semantics as
// HashK8V8: bucket = jhash(key, seed) & (roundup_pow_of_two(max)-1), chains
// newest first, a replace moves the key to the head, iteration by ascending
// bucket, exact capacity (htab.ErrFull), lock-free seqlock readers, per-bucket
// writer locks, no pointers in the storage.
//
// Design "home-head slots" (Home, home.go; the winner): one array of
// roundup_pow_of_two(MaxEntries) slots. Slot b is at once bucket b's seqlock
// and the storage of one element. Invariant: bucket b is non-empty iff slot b
// holds bucket b's newest element (its next word has the home bit). Older
// elements of b's chain live in other slots whose own bucket is empty
// ("overflow" slots). A new key in an empty bucket whose slot is used as
// another bucket's overflow moves that element elsewhere first (under both
// buckets' locks). So a lookup of a key at the head of its bucket touches
// exactly one slot, and the chain order is the kernel's.
//
//	slot | seq uint32 | next uint32 | key uint64 | val uint64 |   24 B
//	     0            4             8            16           24
//	next: bit 31 = home (this slot is its bucket's head), bits 0..30 = index+1
//	of the next older element of the chain (0 ends it).
//
// Variants measured and not better, kept as results only (results/):
// Home32 (the slot padded to 32 B so that no slot straddles a cache line),
// HomeB (a branch-free check of the head and second element) and Line (two
// buckets and three slots per 64-B line, a branch-free three-way match; its
// code had a concurrency bug, found by TestConcurrent, and was dropped with
// the others). The generator's -layout home (templates/home.go,
// generated/hash/home_*.go) is this package's Home.
//
// Tests: proto_test.go (random operations against the generated HashK8V8
// under ZeroSeed and a builtin map, with the full iteration order compared
// after every step; a -race stress test; the peers benchmarks),
// paired_test.go (PROTO_PAIRED=rounds: alternating rounds, median ratios),
// stats_test.go (PROTO_STATS=1: where the keys sit), hashcost_test.go.
package proto

import "math/bits"

const (
	homeBit = 1 << 31
	idxMask = homeBit - 1
)

// Key and Value of the prototype: 8 bytes each.
type (
	Key   = [8]byte
	Value = [8]byte
)

const spins = 64

func jhash8(w0, w1, seed uint32) uint32 {
	a := uint32(0xdeadbeef) + 8 + seed
	b, c := a, a
	a += w0
	b += w1
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return c
}
