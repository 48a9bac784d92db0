package kernel

import (
	"iter"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
)

// HashMap is the userspace API of a generated hash map, as RandomOps drives
// it. K and V are the map's [N]byte key and value types.
type HashMap[K, V comparable] interface {
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
	LookupAndDelete(K) (V, error)
	Lookup(K) (V, bool)
	NextKey(*K) (K, error)
	All() iter.Seq2[K, V]
	Len() int
}

// ProgSide is a generated map's program side, a CPU(i) handle.
type ProgSide[K, V comparable] interface {
	Lookup(K) (V, bool)
	Update(K, V, htab.UpdateFlags) error
	Delete(K) error
}

// Ops is one random sequence for RandomOps: steps operations, each on key
// Key(n) with n drawn from 0..KeySpace-1, an update storing Value(step).
// Value may draw from rng; it is called after the update's flags are drawn.
type Ops[K, V comparable] struct {
	Steps, KeySpace int
	Key             func(n int) K
	Value           func(step int) V
	// Prog, if set, is the map's program side: the sequence then also has
	// its Update, Delete and Lookup, against a BPF program's calls
	// (ProgUpdate, ProgDelete, ProgLookupValue) on the kernel's map.
	Prog ProgSide[K, V]
	// Fill, if > 0, has the sequence begin by updating keys 0..Fill-1 with
	// UpdateNoExist, comparing every result and then the contents: with Fill
	// over the map's capacity, a map too big for the random steps to fill
	// shows its full behaviour too.
	Fill int
}

// RandomOps runs ops on km (the kernel's map) and m (a generated map of the
// same type, sizes and options, both empty) and requires the same result of
// every call: updates with every flag (now and then an invalid one), deletes,
// lookup-and-deletes, lookups and NextKey from nil or a key, and with
// ops.Prog the program side's updates, deletes and lookups, after ops.Fill
// updates of distinct keys if it is set. Four times along
// the way, and at the end, it requires the same NextKey order, Len and values
// (RequireSameContents).
func RandomOps[K, V comparable](t *testing.T, km *Map, m HashMap[K, V], rng *rand.Rand, ops Ops[K, V]) {
	t.Helper()
	kinds := 10
	if ops.Prog != nil {
		kinds = 13
	}
	if ops.Fill > 0 {
		for n := range ops.Fill {
			k, v := ops.Key(n), ops.Value(n)
			RequireSameErr(t, km.Update(Bytes(&k), Bytes(&v), uint64(htab.UpdateNoExist)), m.Update(k, v, htab.UpdateNoExist), "fill: Update(%x, UpdateNoExist)", Bytes(&k))
		}
		RequireSameContents(t, km, m, -1)
	}
	for step := range ops.Steps {
		k := ops.Key(rng.IntN(ops.KeySpace))
		kb := Bytes(&k)
		switch op := rng.IntN(kinds); {
		case op < 5:
			flags := uint64(rng.IntN(3))
			if rng.IntN(20) == 0 {
				flags = []uint64{3, 4, ^uint64(0)}[rng.IntN(3)]
			}
			v := ops.Value(step)
			RequireSameErr(t, km.Update(kb, Bytes(&v), flags), m.Update(k, v, htab.UpdateFlags(flags)), "step %d: Update(%x, flags %#x)", step, kb, flags)
		case op < 7:
			RequireSameErr(t, km.Delete(kb), m.Delete(k), "step %d: Delete(%x)", step, kb)
		case op < 8:
			want, werr := km.LookupAndDelete(kb)
			got, gerr := m.LookupAndDelete(k)
			RequireSameErr(t, werr, gerr, "step %d: LookupAndDelete(%x)", step, kb)
			if werr == nil {
				require.Equal(t, want, Bytes(&got), "step %d: LookupAndDelete(%x)", step, kb)
			}
		case op < 9:
			want, werr := km.Lookup(kb)
			got, ok := m.Lookup(k)
			require.Equal(t, werr == nil, ok, "step %d: Lookup(%x): kernel %v", step, kb, werr)
			if ok {
				require.Equal(t, want, Bytes(&got), "step %d: Lookup(%x)", step, kb)
			}
		case op == 10:
			flags := uint64(rng.IntN(3))
			if rng.IntN(20) == 0 {
				flags = 8
			}
			v := ops.Value(step)
			RequireSameErr(t, km.ProgUpdate(kb, Bytes(&v), flags), ops.Prog.Update(k, v, htab.UpdateFlags(flags)), "step %d: program Update(%x, flags %#x)", step, kb, flags)
		case op == 11:
			RequireSameErr(t, km.ProgDelete(kb), ops.Prog.Delete(k), "step %d: program Delete(%x)", step, kb)
		case op == 12:
			want, werr := km.ProgLookupValue(kb)
			got, ok := ops.Prog.Lookup(k)
			require.Equal(t, werr == nil, ok, "step %d: program Lookup(%x): kernel %v", step, kb, werr)
			if ok {
				require.Equal(t, want, Bytes(&got), "step %d: program Lookup(%x)", step, kb)
			}
		default:
			var kp *K
			var kpb []byte
			if rng.IntN(2) == 0 {
				kp, kpb = &k, kb
			}
			want, werr := km.NextKey(kpb)
			got, gerr := m.NextKey(kp)
			RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, kpb)
			if werr == nil {
				require.Equal(t, want, Bytes(&got), "step %d: NextKey(%x)", step, kpb)
			}
		}
		if step%(ops.Steps/4) == ops.Steps/4-1 {
			RequireSameContents(t, km, m, step)
		}
	}
	RequireSameContents(t, km, m, ops.Steps)
}

// RequireSameContents walks km with NextKey and m with All and requires the
// same keys in the same order, the same Len and the same values; step names
// the point of the sequence in messages.
func RequireSameContents[K, V comparable](t *testing.T, km *Map, m HashMap[K, V], step int) {
	t.Helper()
	var want, got [][]byte
	for k, err := km.NextKey(nil); err == nil; k, err = km.NextKey(k) {
		want = append(want, k)
	}
	for k := range m.All() {
		got = append(got, append([]byte(nil), Bytes(&k)...))
	}
	require.Equal(t, want, got, "step %d: iteration order differs from the kernel's", step)
	require.Equal(t, len(want), m.Len(), "step %d: Len", step)
	for _, kb := range want {
		var k K
		copy(Bytes(&k), kb)
		wv, err := km.Lookup(kb)
		require.NoError(t, err)
		gv, ok := m.Lookup(k)
		require.True(t, ok, "step %d: Lookup(%x)", step, kb)
		require.Equal(t, wv, Bytes(&gv), "step %d: Lookup(%x)", step, kb)
	}
}

// Bytes is the bytes of x, a [N]byte key or value of a generated map, in
// place: the view the kernel harness takes of them.
func Bytes[T any](x *T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(x)), unsafe.Sizeof(*x)) }

// Concat is the bytes of xs, [N]byte values, one after the other: a key's
// values (every CPU's, for a per-CPU map) as the kernel harness takes and
// gives them.
func Concat[T any](xs []T) []byte {
	var b []byte
	for i := range xs {
		b = append(b, Bytes(&xs[i])...)
	}
	return b
}
