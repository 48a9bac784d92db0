package batchdiff

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// U32 is the 4-byte little-endian key or value slot i.
func U32(i uint32) []byte { return binary.LittleEndian.AppendUint32(nil, i) }

// Key is key number n of size bytes: n little-endian in its first two
// bytes, then bytes that a hash of n and the position gives, so that every
// byte of the key (the hash's tail too) takes part. Distinct n below 2^16
// (256 for 1-byte keys) give distinct keys.
func Key(n, size int) []byte {
	k := make([]byte, size)
	x := uint64(n)
	for j := range k {
		if j < 2 {
			k[j] = byte(x >> (8 * j))
			continue
		}
		k[j] = byte((x*0x9e3779b97f4a7c15 + uint64(j)*0xbf58476d1ce4e5b9) >> 56)
	}
	return k
}

// Differential runs the same random operations on k (the kernel's map) and g
// (a generated map of the same type, options and CPUs, both empty, max their
// MaxEntries; seed picks the random sequence) and requires the same result of
// every call. For a series of
// target sizes up to max (a full map last):
//
//   - a fill to about that size by updates (every flag), deletes, update
//     batches (now and then with invalid flags) and delete batches;
//   - whole lookup walks with every buffer size 1..16: every call the same
//     keys and values in the same order, the same count, cursor and error
//     (ErrNoSpace doubles the buffer, as the kernel's users retry);
//   - lookup walks with buffers of 1, 2, 3 and 7 that go on after the maps
//     changed between calls (an update with any flag, or a delete, on both),
//     and single calls from random buckets, past the last one too: the
//     kernel resumes at the bucket a cursor names, whatever happened since;
//   - a lookup-and-delete walk, which must empty both;
//   - lookup-and-delete walks with every buffer size on the same contents,
//     restored after each by the same update batch on both;
//   - one lookup-and-delete call, then deletes of what is left.
//
// The contents (keys, NextKey order and values) are compared after every
// step. An LRU map evicts while it fills, the same keys on both sides if
// it is right; its fill stops short of sizes it cannot reach.
func Differential(t *testing.T, k, g Map, max int, seed uint64) {
	t.Helper()
	require.Equal(t, k.Slots(), g.Slots(), "values per key")
	require.Equal(t, k.KeySize(), g.KeySize(), "key size")
	require.Equal(t, k.ValueSize(), g.ValueSize(), "value size")
	slots, keySize := g.Slots(), g.KeySize()
	rng := rand.New(rand.NewPCG(uint64(max), seed))
	keySpace := min(3*max+3, 1<<16)
	if keySize == 1 {
		keySpace = min(keySpace, 256)
	}
	randKey := func() []byte { return Key(rng.IntN(keySpace), keySize) }
	randVal := func() []byte {
		v := make([]byte, slots*g.ValueSize())
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		return v
	}
	sameErr := func(want, got error, format string, args ...any) {
		t.Helper()
		kernel.RequireSameErr(t, want, got, format, args...)
	}
	sameContents := func(what string) {
		t.Helper()
		c := k.Contents()
		require.Equal(t, c, g.Contents(), "contents %s", what)
		require.Equal(t, len(c), g.Len(), "Len %s", what)
	}

	fill := func(want int) {
		t.Helper()
		for step := 0; g.Len() < want || step < want; step++ {
			switch rng.IntN(6) {
			case 0, 1, 2:
				key, v := randKey(), randVal()
				flags := uint64(rng.IntN(3)) // BPF_ANY, BPF_NOEXIST, BPF_EXIST
				sameErr(k.Update(key, v, flags), g.Update(key, v, flags), "Update(%x, flags %d)", key, flags)
			case 3:
				if g.Len() > want {
					key := randKey()
					sameErr(k.Delete(key), g.Delete(key), "Delete(%x)", key)
				}
			case 4: // a batch, which may stop at ErrFull mid-way
				var ks, vs [][]byte
				for range 1 + rng.IntN(8) {
					ks, vs = append(ks, randKey()), append(vs, randVal())
				}
				flags := uint64(0) // now and then invalid flags: EINVAL from the kernel
				if rng.IntN(8) == 0 {
					flags = uint64(1 + rng.IntN(4))
				}
				wn, werr := k.UpdateBatch(ks, vs, flags)
				gn, gerr := g.UpdateBatch(ks, vs, flags)
				sameErr(werr, gerr, "UpdateBatch(%x, flags %d)", ks, flags)
				require.Equal(t, wn, gn, "UpdateBatch(%x): count", ks)
			case 5: // a delete batch, which may stop at a missing key
				if g.Len() > want {
					var ks [][]byte
					for range 1 + rng.IntN(4) {
						ks = append(ks, randKey())
					}
					wn, werr := k.DeleteBatch(ks)
					gn, gerr := g.DeleteBatch(ks)
					sameErr(werr, gerr, "DeleteBatch(%x)", ks)
					require.Equal(t, wn, gn, "DeleteBatch(%x): count", ks)
				}
			}
			if step > 20*max+100 {
				break // the size cannot be reached (a full map, or an LRU's)
			}
		}
		sameContents("after the fill")
	}

	// change updates or deletes a random key on both maps.
	change := func() {
		t.Helper()
		key := randKey()
		if rng.IntN(3) == 0 {
			sameErr(k.Delete(key), g.Delete(key), "Delete(%x) between batch calls", key)
			return
		}
		v, flags := randVal(), uint64(rng.IntN(3))
		sameErr(k.Update(key, v, flags), g.Update(key, v, flags), "Update(%x, flags %d) between batch calls", key, flags)
	}

	// walk walks both maps with lookup (del: lookup-and-delete) batches of
	// buf elements; with churn the maps change between calls.
	walk := func(buf int, del, churn bool) {
		t.Helper()
		var cur *uint32
		for call := 0; ; call++ {
			require.Less(t, call, 4*max+10, "walk does not end")
			wk, wv, wnext, werr := k.LookupBatch(cur, buf, del)
			gk, gv, gnext, gerr := g.LookupBatch(cur, buf, del)
			what := fmt.Sprintf("buf %d, del %v, call %d", buf, del, call)
			sameErr(werr, gerr, "%s", what)
			require.Equal(t, wk, gk, "%s: keys", what)
			require.Equal(t, wv, gv, "%s: values", what)
			require.Equal(t, wnext, gnext, "%s: cursor", what)
			cur = &wnext
			if errors.Is(werr, htab.ErrNoSpace) {
				buf *= 2
				continue
			}
			if werr != nil {
				return
			}
			if churn && rng.IntN(2) == 0 {
				change()
			}
		}
	}

	// fromBucket compares one lookup call from bucket b of each map.
	fromBucket := func(b uint32, buf int) {
		t.Helper()
		wk, wv, wnext, werr := k.LookupBatch(&b, buf, false)
		gk, gv, gnext, gerr := g.LookupBatch(&b, buf, false)
		what := fmt.Sprintf("one call from bucket %d, buf %d", b, buf)
		sameErr(werr, gerr, "%s", what)
		require.Equal(t, wk, gk, "%s: keys", what)
		require.Equal(t, wv, gv, "%s: values", what)
		require.Equal(t, wnext, gnext, "%s: cursor", what)
	}
	buckets := htab.BucketCount(max)

	for _, size := range []int{0, 1, max / 4, max / 2, max - 1, max} {
		fill(size)
		for buf := 1; buf <= 16; buf++ {
			walk(buf, false, false)
		}
		sameContents("after the lookup walks")
		for _, buf := range []int{1, 2, 3, 7} {
			walk(buf, false, true)
		}
		for range 8 {
			fromBucket(uint32(rng.IntN(buckets+3)), 1+rng.IntN(8))
		}
		sameContents("after the walks among changes")
		walk(1+rng.IntN(16), true, false)
		require.ErrorIs(t, g.FirstKey(), htab.ErrKeyNotExist, "not empty after a lookup-and-delete walk")
		sameContents("after the lookup-and-delete walk")

		fill(size)
		var ks, vs [][]byte
		for _, e := range g.Contents() {
			ks, vs = append(ks, e[:keySize]), append(vs, e[keySize:])
		}
		for buf := 1; buf <= 16; buf++ {
			walk(buf, true, false)
			sameContents("after a lookup-and-delete walk")
			wn, werr := k.UpdateBatch(ks, vs, 0)
			gn, gerr := g.UpdateBatch(ks, vs, 0)
			sameErr(werr, gerr, "refill")
			require.Equal(t, wn, gn, "refill count")
			sameContents("after the refill")
		}

		buf := 1 + rng.IntN(16)
		wk, _, _, werr := k.LookupBatch(nil, buf, true)
		gk, _, _, gerr := g.LookupBatch(nil, buf, true)
		sameErr(werr, gerr, "one lookup-and-delete call")
		require.Equal(t, wk, gk, "one lookup-and-delete call")
		sameContents("after one lookup-and-delete call")
		for _, e := range g.Contents() {
			sameErr(k.Delete(e[:keySize]), g.Delete(e[:keySize]), "Delete(%x)", e[:keySize])
		}
		sameContents("emptied")
	}
}
