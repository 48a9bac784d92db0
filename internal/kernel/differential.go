package kernel

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
)

// Ops is one random sequence for RandomOps: steps operations, each on key
// Key(n) with n drawn from 0..KeySpace-1, an update storing Value(step) (on
// every CPU of a per-CPU map, as htabtest.Spread spreads it). Value may draw
// from rng; it is called after the update's flags are drawn.
type Ops[K, V comparable] struct {
	Steps, KeySpace int
	Key             func(n int) K
	Value           func(step int) V
	// Prog has the sequence also use the map's program side on CPU 0,
	// m.CPU(0): its Update, Delete and Lookup, against a BPF program's calls
	// (ProgUpdate, ProgDelete, ProgLookupValue) on the kernel's map, run on
	// CPU 0 for a per-CPU map (the test's goroutine is pinned there), whose
	// program side sees one CPU's value.
	Prog bool
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
// updates of distinct keys if it is set. A key's values are
// htabtest.Slots(m) values, compared with the kernel's every CPU's value,
// concatenated (Concat). Four times along the way, and at the end, it
// requires the same NextKey order, Len and values (RequireSameContents).
func RandomOps[K, V comparable](t *testing.T, km *Map, m htabtest.Map[K, V], rng *rand.Rand, ops Ops[K, V]) {
	t.Helper()
	requireSameShape(t, km, m)
	slots := htabtest.Slots(m)
	kinds := 10
	var prog htabtest.CPU[K, V]
	if ops.Prog {
		kinds = 13
		prog = m.CPU(0)
		if slots > 1 {
			unpin, err := PinCPU(0)
			require.NoError(t, err)
			defer unpin()
		}
	}
	got := make([]V, slots)
	if ops.Fill > 0 {
		for n := range ops.Fill {
			k, vs := ops.Key(n), htabtest.Spread(ops.Value(n), slots)
			RequireSameErr(t, km.Update(Bytes(&k), Concat(vs), uint64(htab.UpdateNoExist)), m.Update(k, vs, htab.UpdateNoExist), "fill: Update(%x, UpdateNoExist)", Bytes(&k))
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
			vs := htabtest.Spread(ops.Value(step), slots)
			RequireSameErr(t, km.Update(kb, Concat(vs), flags), m.Update(k, vs, htab.UpdateFlags(flags)), "step %d: Update(%x, flags %#x)", step, kb, flags)
		case op < 7:
			RequireSameErr(t, km.Delete(kb), m.Delete(k), "step %d: Delete(%x)", step, kb)
		case op < 8:
			want, werr := km.LookupAndDelete(kb)
			gerr := m.LookupAndDelete(k, got)
			RequireSameErr(t, werr, gerr, "step %d: LookupAndDelete(%x)", step, kb)
			if werr == nil {
				require.Equal(t, want, Concat(got), "step %d: LookupAndDelete(%x)", step, kb)
			}
		case op < 9:
			want, werr := km.Lookup(kb)
			ok := m.Lookup(k, got)
			require.Equal(t, werr == nil, ok, "step %d: Lookup(%x): kernel %v", step, kb, werr)
			if ok {
				require.Equal(t, want, Concat(got), "step %d: Lookup(%x)", step, kb)
			}
		case op == 10:
			flags := uint64(rng.IntN(3))
			if rng.IntN(20) == 0 {
				flags = 8
			}
			v := ops.Value(step)
			RequireSameErr(t, km.ProgUpdate(kb, Bytes(&v), flags), prog.Update(k, v, htab.UpdateFlags(flags)), "step %d: program Update(%x, flags %#x)", step, kb, flags)
		case op == 11:
			RequireSameErr(t, km.ProgDelete(kb), prog.Delete(k), "step %d: program Delete(%x)", step, kb)
		case op == 12:
			want, werr := km.ProgLookupValue(kb)
			v, ok := prog.Lookup(k)
			require.Equal(t, werr == nil, ok, "step %d: program Lookup(%x): kernel %v", step, kb, werr)
			if ok {
				require.Equal(t, want, Bytes(&v), "step %d: program Lookup(%x)", step, kb)
			}
		default:
			var kp *K
			var kpb []byte
			if rng.IntN(2) == 0 {
				kp, kpb = &k, kb
			}
			want, werr := km.NextKey(kpb)
			next, gerr := m.NextKey(kp)
			RequireSameErr(t, werr, gerr, "step %d: NextKey(%x)", step, kpb)
			if werr == nil {
				require.Equal(t, want, Bytes(&next), "step %d: NextKey(%x)", step, kpb)
			}
		}
		if step%(ops.Steps/4) == ops.Steps/4-1 {
			RequireSameContents(t, km, m, step)
		}
	}
	RequireSameContents(t, km, m, ops.Steps)
}

// RequireSameContents walks km with NextKey and m with All and requires the
// same keys in the same order, the same Len and the same values (every
// CPU's); step names the point of the sequence in messages.
func RequireSameContents[K, V comparable](t *testing.T, km *Map, m htabtest.Map[K, V], step int) {
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
	gv := make([]V, htabtest.Slots(m))
	for _, kb := range want {
		var k K
		copy(Bytes(&k), kb)
		wv, err := km.Lookup(kb)
		require.NoError(t, err)
		require.True(t, m.Lookup(k, gv), "step %d: Lookup(%x)", step, kb)
		require.Equal(t, wv, Concat(gv), "step %d: Lookup(%x)", step, kb)
	}
}

// requireSameShape fails t unless km and m are maps of the same type, key
// size and value size, with as many values per key.
func requireSameShape[K, V comparable](t *testing.T, km *Map, m htabtest.Map[K, V]) {
	t.Helper()
	require.Equal(t, km.Type(), m.Info().Type, "map type")
	require.Equal(t, km.KeySize(), int(unsafe.Sizeof(*new(K))), "key size")
	require.Equal(t, km.ValueSize(), int(unsafe.Sizeof(*new(V))), "value size")
	require.Equal(t, km.ncpu, htabtest.Slots(m), "values per key")
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
