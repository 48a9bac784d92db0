package batchdiff

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/internal/kernel"
)

// PortResult is what Port observed.
type PortResult struct {
	Trace []string // every call and its result, for comparison with the kernel
	// Per step 1..9 (index step-1):
	Skipped    []bool // the lookup walk hit ErrNoSpace
	Looked     []int  // elements returned by the lookup walk
	Deleted    []int  // elements deleted by the delete batches
	Drained    []int  // elements returned by the lookup-and-delete walk
	EmptyAfter []bool // NextKey(nil) said ErrKeyNotExist after the drain
	Present    []int  // keys present after each populate of the step (lookup's)
}

// Port runs the sequence of the kernel's htab_map_batch_ops.c on d
// (max_entries 10, keys i+1, values i+2, per CPU i+2+cpu; count 0; one call
// of 10; then for every step 1..9 lookup, delete and lookup-and-delete walks
// in chunks of step, each next call with the count the previous one
// returned). It fails on what must hold on any map (every returned key is
// one of the keys, once, with its value; counts within the buffer; a walk
// ends) and records the rest: what an LRU map holds after the populates
// depends on its eviction, which the callers check (RequireAllKept for the
// maps that evict nothing).
func Port(t *testing.T, d Map) PortResult {
	const max = 10
	require.Equal(t, []int{4, 4}, []int{d.KeySize(), d.ValueSize()}, "Port runs on maps of 4-byte keys and values, as the kernel's test")
	ns := d.Slots()
	var r PortResult
	rec := func(format string, args ...any) { r.Trace = append(r.Trace, fmt.Sprintf(format, args...)) }
	inKeys, inVals := make([][]byte, max), make([][]byte, max)
	for i := range max {
		inKeys[i] = U32(uint32(i + 1))
		for j := range ns {
			inVals[i] = append(inVals[i], U32(uint32(i+2+j))...)
		}
	}
	populate := func() int {
		t.Helper()
		n, err := d.UpdateBatch(inKeys, inVals, 0)
		rec("populate: %d %s", n, kernel.ErrName(err))
		require.NoError(t, err, "populate")
		require.Equal(t, max, n)
		c := d.Contents()
		rec("contents: %x", c)
		require.Equal(t, len(c), d.Len(), "Len")
		return len(c)
	}
	verify := func(keys, vals [][]byte) {
		t.Helper()
		seen := map[uint32]bool{}
		for i := range keys {
			k := binary.LittleEndian.Uint32(keys[i])
			require.True(t, k >= 1 && k <= max, "key %d", k)
			require.False(t, seen[k], "key %d returned twice", k)
			seen[k] = true
			require.Len(t, vals[i], 4*ns)
			for j := range ns {
				require.Equal(t, k+1+uint32(j), binary.LittleEndian.Uint32(vals[i][4*j:]), "value of key %d on CPU %d", k, j)
			}
		}
	}
	// walk is one lookup (-and-delete) walk in calls of count elements,
	// starting with step; it returns the keys and whether it hit ErrNoSpace.
	walk := func(step int, del bool) ([][]byte, bool) {
		t.Helper()
		var keys, vals [][]byte
		var batch uint32
		count := step
		for calls := 0; ; calls++ {
			require.Less(t, calls, 100, "the walk does not end")
			cur := &batch
			if len(keys) == 0 {
				cur = nil // as the kernel's test: total ? &batch : NULL
			}
			ks, vs, next, err := d.LookupBatch(cur, count, del)
			rec("walk step %d del %v call %d count %d: %s n=%d next=%d keys=%x", step, del, calls, count, kernel.ErrName(err), len(ks), next, ks)
			if errors.Is(err, htab.ErrNoSpace) {
				require.Empty(t, ks)
				return keys, true
			}
			if err != nil {
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
			}
			require.LessOrEqual(t, len(ks), count)
			keys, vals = append(keys, ks...), append(vals, vs...)
			batch, count = next, len(ks)
			if err != nil {
				break
			}
			require.NotEmpty(t, ks, "a successful call returns something")
		}
		verify(keys, vals)
		return keys, false
	}

	// test 1: lookup/delete an empty hash table: ENOENT.
	ks, _, _, err := d.LookupBatch(nil, max, true)
	rec("empty: %s %d", kernel.ErrName(err), len(ks))
	require.ErrorIs(t, err, htab.ErrKeyNotExist)
	require.Empty(t, ks)

	present := populate()
	// test 2: count 0 succeeds and does nothing.
	ks, _, _, err = d.LookupBatch(nil, 0, true)
	rec("count 0: %s %d", kernel.ErrName(err), len(ks))
	require.NoError(t, err)
	require.Empty(t, ks)
	require.Len(t, d.Contents(), present)

	// test 3: count max_entries returns everything there is.
	ks, vs, _, err := d.LookupBatch(nil, max, true)
	rec("count 10: %s %x", kernel.ErrName(err), ks)
	if err != nil {
		require.ErrorIs(t, err, htab.ErrKeyNotExist)
	}
	require.Len(t, ks, present)
	verify(ks, vs)
	require.ErrorIs(t, d.FirstKey(), htab.ErrKeyNotExist, "not empty after test 3")

	// test 4: lookup / delete / lookup-and-delete in steps.
	for step := 1; step < max; step++ {
		present := populate()
		r.Present = append(r.Present, present)
		keys, nospace := walk(step, false)
		r.Skipped = append(r.Skipped, nospace)
		r.Looked = append(r.Looked, len(keys))
		if nospace {
			r.Deleted = append(r.Deleted, 0)
			r.Drained = append(r.Drained, 0)
			r.EmptyAfter = append(r.EmptyAfter, false)
			continue
		}
		require.Len(t, keys, present, "the lookup walk returns what is there")
		total := 0
		for total < len(keys) {
			count := min(step, len(keys)-total)
			n, err := d.DeleteBatch(keys[total : total+count])
			rec("delete step %d at %d: %d %s", step, total, n, kernel.ErrName(err))
			if err != nil {
				require.ErrorIs(t, err, htab.ErrKeyNotExist)
			}
			total += n
			if err != nil {
				break
			}
		}
		r.Deleted = append(r.Deleted, total)
		require.ErrorIs(t, d.FirstKey(), htab.ErrKeyNotExist, "step %d: not empty after the deletes", step)

		present = populate()
		keys, nospace = walk(step, true)
		require.False(t, nospace, "step %d: lookup-and-delete ErrNoSpace although lookup fitted", step)
		require.Len(t, keys, present, "the lookup-and-delete walk returns what is there")
		r.Drained = append(r.Drained, len(keys))
		err := d.FirstKey()
		rec("after drain: %s", kernel.ErrName(err))
		r.EmptyAfter = append(r.EmptyAfter, errors.Is(err, htab.ErrKeyNotExist))
	}
	return r
}

// RequireAllKept requires of a port on a map that evicts nothing (hash,
// per-CPU hash) what the kernel's htab_map_batch_ops.c requires: all ten
// keys after every populate, every step that is not skipped for ErrNoSpace
// returning, deleting and draining all ten and leaving the map empty, and at
// least one step succeeding.
func (r PortResult) RequireAllKept(t *testing.T) {
	t.Helper()
	require.Len(t, r.Skipped, 9)
	success := 0
	for i, skipped := range r.Skipped {
		step := i + 1
		require.Equal(t, 10, r.Present[i], "step %d: keys after the populate", step)
		if skipped {
			continue
		}
		success++
		require.Equal(t, 10, r.Looked[i], "step %d: lookup", step)
		require.Equal(t, 10, r.Deleted[i], "step %d: delete", step)
		require.Equal(t, 10, r.Drained[i], "step %d: lookup-and-delete", step)
		require.True(t, r.EmptyAfter[i], "step %d: empty after the drain", step)
	}
	require.Positive(t, success, "no step succeeded")
}
