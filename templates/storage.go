package templates

import "github.com/dave/jennifer/jen"

// storage is one storage layout: how the map keeps its buckets and
// elements. Both keep the kernel's buckets (roundup_pow_of_two(MaxEntries)
// of them, a key's bucket hash & mask, each a chain of elements newest
// first, linked by index+1 so that 0 is nil), so order, capacity and errors
// are the kernel's in both.
//
// The algorithms (lookup.go, update.go, iter.go, batch.go, bulk.go) reach storage
// only through the methods that primitives emits, with the same names and
// signatures in every layout:
//
//	func (m *<Map>) lock(bi uint32) *htab.SeqLock        bucket bi's sequence lock
//	func (m *<Map>) head(bi uint32) uint32               index+1 of bucket bi's newest element; 0: empty
//	func (m *<Map>) elem(i uint32) *<Elem>               element i (an index, not index+1)
//	func (e *<Elem>) nextIndex() uint32                  index+1 of the next older element of e's chain; 0 ends it
//	func (m *<Map>) unlink(bi, prev, i uint32) uint32    takes element i out of bucket bi; the index that is freed
//	func (m *<Map>) free(i uint32)                       gives element index i back, with its count
//	func (m *<Map>) freeBucket(bi uint32)                frees all of bucket bi, which becomes empty
//
// and through the code of the hooks below, for what a layout does its own
// way: a hash map's insert of a new key and its replace (which moves the key
// to its bucket's head), and the home layout's one-slot lookup.
type storage interface {
	// design is the design comment's Terms and Layout sections, from the
	// planned offsets, and its Concurrency section.
	design() (terms, concurrency []string)
	// declarations emits the storage's types and constants besides the
	// element (NoPrealloc chunks; the home layout's next-word bits).
	declarations(f *jen.File)
	// mapFields are the map struct's storage fields: first (the bucket
	// table, before mask), owned (after handles) and counters (after count,
	// on the writers' cache line).
	mapFields() (first, owned, counters string)
	// newFields is the map's composite literal's entry for the first field;
	// newChecks are statements right after n, the bucket count, is known
	// (opts and n in scope); newAlloc are statements after the literal.
	newFields() string
	newChecks() jen.Code
	newAlloc() jen.Code
	// length emits Len.
	length(f *jen.File)
	// primitives emits the methods above and the layout's own helpers.
	primitives(f *jen.File)
	// hashReplace is the statements of a hash map's update that give the
	// present key (element i, after prev in locked bucket bi, key w of hash
	// h) the value v and move it to its bucket's head; the caller unlocks.
	hashReplace() jen.Code
	// hashInsert is the statements that insert the absent key w into locked
	// bucket bi (b its lock) with value v, unlock and return; with
	// insertRetries they may also unlock and continue the caller's loop,
	// which locks b and looks the key up again.
	hashInsert() jen.Code
	insertRetries() bool
	// afterDelete is the statements after a delete has unlinked and freed
	// key h's element from locked bucket bi, before the unlock, or nil.
	afterDelete() jen.Code
	// lookupFast is Lookup's fast path, or nil: Lookup's whole read is then
	// the chain walk, inline.
	lookupFast() *fastPath
}

// fastPath is a layout's own path of Lookup, tried before the chain walk.
type fastPath struct {
	doc string // what Lookup's doc comment says of it, if anything
	// keyWord: it compares the key as one uint64, kw, which Lookup loads
	// instead of the words w before the hash (and the hash reads).
	keyWord   bool
	afterHash jen.Code // statements after the hash, or nil
	// ruledOut returns "absent" for a key ruled out without a read of its
	// bucket (the home layout's summary), or is nil; LookupBulk's touch has
	// asked it already, so its lookups leave it out.
	ruledOut jen.Code
	body     jen.Code // statements: a hit returns its value; else nothing
}
