package ebpfmaps

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/ebpfcompat"
	"github.com/htabgen/htabgen/internal/kernel"
)

// bpfMap is what code that uses a BPF map from Go writes against: the
// methods of *ebpf.Map it calls. A kernel map and an adapter both satisfy it.
type bpfMap interface {
	Lookup(key, valueOut any) error
	LookupWithFlags(key, valueOut any, flags ebpf.MapLookupFlags) error
	LookupAndDelete(key, valueOut any) error
	LookupAndDeleteWithFlags(key, valueOut any, flags ebpf.MapLookupFlags) error
	LookupBytes(key any) ([]byte, error)
	Put(key, value any) error
	Update(key, value any, flags ebpf.MapUpdateFlags) error
	Delete(key any) error
	NextKey(key, nextKeyOut any) error
	NextKeyBytes(key any) ([]byte, error)
	BatchLookup(cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error)
	BatchLookupAndDelete(cursor *ebpf.MapBatchCursor, keysOut, valuesOut any, opts *ebpf.BatchOptions) (int, error)
	BatchUpdate(keys, values any, opts *ebpf.BatchOptions) (int, error)
	BatchDelete(keys any, opts *ebpf.BatchOptions) (int, error)
	Type() ebpf.MapType
	KeySize() uint32
	ValueSize() uint32
	MaxEntries() uint32
	Flags() uint32
	Close() error
}

var (
	_ bpfMap = (*ebpf.Map)(nil)
	_ bpfMap = (*HashEBPF)(nil)
	_ bpfMap = (*HashClassicEBPF)(nil)
	_ bpfMap = (*PerCPUEBPF)(nil)
	_ bpfMap = (*LRUEBPF)(nil)
	_ bpfMap = (*LRUPerCPUEBPF)(nil)
	_ bpfMap = (*BloomEBPF)(nil)
)

// TestMethodSetsMatchEBPFMap checks every method of the adapters against
// *ebpf.Map's: the same name has the same signature, but for Iterate (whose
// *ebpf.MapIterator cannot be made outside cilium/ebpf) and Map (the
// generated map underneath), which *ebpf.Map has not.
func TestMethodSetsMatchEBPFMap(t *testing.T) {
	kernelMap := reflect.TypeFor[*ebpf.Map]()
	for _, adapter := range []reflect.Type{
		reflect.TypeFor[*HashEBPF](), reflect.TypeFor[*HashClassicEBPF](), reflect.TypeFor[*PerCPUEBPF](),
		reflect.TypeFor[*LRUEBPF](), reflect.TypeFor[*LRUPerCPUEBPF](), reflect.TypeFor[*BloomEBPF](),
	} {
		require.Equal(t, 23, adapter.NumMethod(), "%v: the methods of the contract", adapter)
		for i := range adapter.NumMethod() {
			am := adapter.Method(i)
			km, ok := kernelMap.MethodByName(am.Name)
			switch am.Name {
			case "Map":
				require.False(t, ok, "*ebpf.Map has a Map method now")
				continue
			case "Iterate":
				require.True(t, ok)
				require.Equal(t, reflect.TypeFor[*ebpfcompat.MapIterator](), am.Type.Out(0))
				continue
			}
			require.True(t, ok, "%v.%s: *ebpf.Map has no such method", adapter, am.Name)
			// Compare without the receiver.
			require.Equal(t, signature(km.Type), signature(am.Type), "%v.%s", adapter, am.Name)
		}
	}
}

func signature(f reflect.Type) string {
	var in, out []string
	for i := 1; i < f.NumIn(); i++ {
		in = append(in, f.In(i).String())
	}
	for i := range f.NumOut() {
		out = append(out, f.Out(i).String())
	}
	return fmt.Sprintf("(%s) (%s)", strings.Join(in, ", "), strings.Join(out, ", "))
}

// pair is a BPF map type and how to make its kernel map and its adapter.
type pair struct {
	name      string
	spec      ebpf.MapSpec
	newFake   func(htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error)
	perCPU    bool
	bloom     bool
	lru       bool
	keySpace  uint64 // keys are 0..keySpace-1
	valueSize int
}

var pairs = []pair{
	{name: "hash", spec: ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 16}, keySpace: 24, valueSize: 8,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewHashEBPF(o)
			return f, iterOf(f), err
		}},
	{name: "hash_classic", spec: ebpf.MapSpec{Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 16, Flags: unix.BPF_F_NO_PREALLOC}, keySpace: 24, valueSize: 8,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewHashClassicEBPF(o)
			return f, iterOf(f), err
		}},
	{name: "pcpu", spec: ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 12, MaxEntries: 16}, keySpace: 24, valueSize: 12, perCPU: true,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewPerCPUEBPF(o)
			return f, iterOf(f), err
		}},
	{name: "lru", spec: ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 64}, keySpace: 96, valueSize: 8, lru: true,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewLRUEBPF(o)
			return f, iterOf(f), err
		}},
	{name: "lru_pcpu", spec: ebpf.MapSpec{Type: ebpf.LRUCPUHash, KeySize: 8, ValueSize: 12, MaxEntries: 64}, keySpace: 96, valueSize: 12, lru: true, perCPU: true,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewLRUPerCPUEBPF(o)
			return f, iterOf(f), err
		}},
	// 63 entries: the kernel rounds a per-CPU-lists map's capacity up to a
	// multiple of the CPUs, while *ebpf.Map.MaxEntries reports its spec's.
	{name: "lru_own_lists", spec: ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 63, Flags: unix.BPF_F_NO_COMMON_LRU}, keySpace: 96, valueSize: 8, lru: true,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewLRUEBPF(o)
			return f, iterOf(f), err
		}},
	{name: "bloom", spec: ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 16, MapExtra: 3}, keySpace: 48, valueSize: 8, bloom: true,
		newFake: func(o htab.Options) (bpfMap, func() *ebpfcompat.MapIterator, error) {
			f, err := NewBloomEBPF(o)
			return f, iterOf(f), err
		}},
}

func iterOf(f interface {
	Iterate() *ebpfcompat.MapIterator
}) func() *ebpfcompat.MapIterator {
	return f.Iterate
}

// options are the htab.Options of the kernel map spec s (which the test
// creates with BPF_F_ZERO_SEED).
func options(s ebpf.MapSpec) htab.Options {
	return htab.Options{
		MaxEntries:  int(s.MaxEntries),
		ZeroSeed:    true,
		NoPrealloc:  s.Flags&unix.BPF_F_NO_PREALLOC != 0,
		NoCommonLRU: s.Flags&unix.BPF_F_NO_COMMON_LRU != 0,
		CPUs:        kernel.PossibleCPUs(),
	}
}

// TestKernelDifferential runs one body of random operations (every update
// flag and invalid ones, puts, lookups into every value form, LookupBytes,
// deletes, lookup-and-deletes, NextKey and NextKeyBytes walks, batch walks of
// 1..16, batch updates and deletes, iteration, and misuse: wrong sizes,
// wrong types, nil), each given keys as integers, pointers, byte arrays,
// byte slices, structs and unsafe.Pointers, on a kernel map through
// cilium/ebpf and on the generated adapter, both with the zero seed. Every
// result, error message and error class, the order and the split of batch
// calls must be equal.
func TestKernelDifferential(t *testing.T) {
	kernel.Require(t)
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			seed := kernel.Seed(t, 0xeb9f)
			spec := p.spec
			spec.Flags |= unix.BPF_F_ZERO_SEED

			// The kernel's LRU maps take free elements from the lists of
			// the CPU a syscall runs on; the adapter's userspace side is
			// CPU 0's.
			if p.lru {
				unpin, err := kernel.PinCPU(0)
				require.NoError(t, err)
				defer unpin()
			}
			km, err := ebpf.NewMapWithOptions(&spec, ebpf.MapOptions{})
			require.NoError(t, err)
			defer km.Close()
			want := transcript(p, km, func() iterator { return km.Iterate() }, seed)

			fake, iter, err := p.newFake(options(spec))
			require.NoError(t, err)
			got := transcript(p, fake, func() iterator { return iter() }, seed)

			for i := range min(len(want), len(got)) {
				if want[i] != got[i] {
					from := max(0, i-5)
					t.Fatalf("step %d differs:\nkernel:  %s\nadapter: %s\n\nthe steps before:\n%s", i, want[i], got[i], strings.Join(want[from:i], "\n"))
				}
			}
			require.Equal(t, len(want), len(got))
			t.Logf("%d steps agree", len(want))
		})
	}
}

type iterator interface {
	Next(keyOut, valueOut any) bool
	Err() error
}

// key64 is a key as a struct: two words, no padding.
type key64 struct{ Lo, Hi uint32 }

// marshaled is a key or value that marshals itself.
type marshaled uint64

func (m marshaled) MarshalBinary() ([]byte, error) {
	return binary.NativeEndian.AppendUint64(nil, uint64(m)), nil
}

// unmarshaled receives a value by UnmarshalBinary.
type unmarshaled struct{ v []byte }

func (u *unmarshaled) UnmarshalBinary(b []byte) error {
	u.v = append([]byte(nil), b...)
	return nil
}

// val12 is a 12-byte value, the per-CPU maps' (padded to 16 per CPU in the
// kernel's layout).
type val12 struct{ A, B, C uint32 }

// transcript runs the random operations of p on m and says what each
// returned, one line a step.
func transcript(p pair, m bpfMap, iterate func() iterator, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []string
	say := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	cpus := kernel.PossibleCPUs()
	say("type %v key %d value %d max %d flags %#x", m.Type(), m.KeySize(), m.ValueSize(), m.MaxEntries(), m.Flags())

	anyKey := func() any { // a key in one of the forms callers give
		k := rng.Uint64N(p.keySpace)
		if p.bloom {
			if rng.IntN(20) == 0 {
				return k // a key where a bloom filter has none
			}
			return nil
		}
		switch rng.IntN(12) {
		case 0:
			return k
		case 1:
			return &k
		case 2:
			var a [8]byte
			binary.NativeEndian.PutUint64(a[:], k)
			return a
		case 3:
			var a [8]byte
			binary.NativeEndian.PutUint64(a[:], k)
			return &a
		case 4:
			return binary.NativeEndian.AppendUint64(nil, k)
		case 5:
			return key64{uint32(k), uint32(k >> 32)}
		case 6:
			return &key64{uint32(k), uint32(k >> 32)}
		case 7:
			return unsafe.Pointer(&k)
		case 8:
			return marshaled(k)
		case 9:
			return uint32(k) // wrong size
		case 10:
			if rng.IntN(4) == 0 {
				return nil
			}
			return int64(k)
		default:
			return []byte{1, 2, 3} // wrong size
		}
	}
	// A value for one CPU, or the value of a non-per-CPU map.
	oneValue := func() any {
		v := rng.Uint64N(1 << 16)
		if p.valueSize == 12 {
			switch rng.IntN(6) {
			case 0:
				return &val12{uint32(v), 1, 2}
			case 1:
				b := make([]byte, 12)
				binary.NativeEndian.PutUint32(b, uint32(v))
				return b
			case 2:
				return uint64(v) // wrong size
			default:
				return val12{uint32(v), uint32(v >> 8), 3}
			}
		}
		switch rng.IntN(9) {
		case 0:
			return &v
		case 1:
			return [8]byte{byte(v), byte(v >> 8), 7}
		case 2:
			return binary.NativeEndian.AppendUint64(nil, v)
		case 3:
			return key64{uint32(v), 5}
		case 4:
			return marshaled(v)
		case 5:
			return uint32(v) // wrong size
		case 6:
			if rng.IntN(8) == 0 {
				return nil
			}
			return unsafe.Pointer(&v)
		default:
			return v
		}
	}
	anyValue := func() any {
		if !p.perCPU {
			return oneValue()
		}
		n := cpus
		switch rng.IntN(8) {
		case 0:
			n = max(0, cpus-1) // shorter: the rest zero
		case 1:
			n = cpus + 1 // longer: an error
		case 2:
			return val12{1, 2, 3} // not a slice
		}
		if rng.IntN(4) == 0 {
			vs := make([]any, n)
			for i := range vs {
				vs[i] = oneValue()
			}
			return vs
		}
		vs := make([]val12, n)
		for i := range vs {
			vs[i] = val12{rng.Uint32N(100), uint32(i), 9}
		}
		return vs
	}
	// Where a lookup writes its value, and how to print it afterwards.
	valueOut := func() (any, func() string) {
		if p.perCPU {
			switch rng.IntN(5) {
			case 0:
				var vs []val12
				return &vs, func() string { return fmt.Sprint(vs) }
			case 1:
				vs := make([]val12, cpus)
				return vs, func() string { return fmt.Sprint(vs) }
			case 2:
				vs := make([]*val12, cpus)
				for i := range vs {
					vs[i] = new(val12)
				}
				return vs, func() string {
					var s []string
					for _, v := range vs {
						s = append(s, fmt.Sprint(*v))
					}
					return strings.Join(s, " ")
				}
			case 3:
				vs := make([]val12, cpus+1) // wrong length
				return vs, func() string { return fmt.Sprint(vs) }
			default:
				var vs []*val12
				return &vs, func() string {
					var s []string
					for _, v := range vs {
						s = append(s, fmt.Sprint(*v))
					}
					return strings.Join(s, " ")
				}
			}
		}
		switch rng.IntN(10) {
		case 0:
			var b []byte
			return &b, func() string { return fmt.Sprint(b) }
		case 1:
			b := make([]byte, 8)
			return b, func() string { return fmt.Sprint(b) }
		case 2:
			var a [8]byte
			return &a, func() string { return fmt.Sprint(a) }
		case 3:
			var k key64
			return &k, func() string { return fmt.Sprint(k) }
		case 4:
			var u unmarshaled
			return &u, func() string { return fmt.Sprint(u.v) }
		case 5:
			var v uint64
			return unsafe.Pointer(&v), func() string { return fmt.Sprint(v) }
		case 6:
			var v uint32 // wrong size
			return &v, func() string { return fmt.Sprint(v) }
		case 7:
			return uint64(0), func() string { return "-" } // not a pointer
		default:
			var v uint64
			if p.bloom { // the value to peek at
				v = rng.Uint64N(p.keySpace)
			}
			return &v, func() string { return fmt.Sprint(v) }
		}
	}
	updateFlags := func() ebpf.MapUpdateFlags {
		switch rng.IntN(12) {
		case 0:
			return ebpf.UpdateLock
		case 1:
			return 3
		case 2:
			return 1 << 40
		case 3, 4:
			return ebpf.UpdateNoExist
		case 5, 6:
			return ebpf.UpdateExist
		default:
			return ebpf.UpdateAny
		}
	}
	lookupFlags := func() ebpf.MapLookupFlags {
		switch rng.IntN(10) {
		case 0:
			return ebpf.LookupLock
		case 1:
			return 1
		default:
			return 0
		}
	}
	batchOpts := func() *ebpf.BatchOptions {
		switch rng.IntN(16) {
		case 0:
			return &ebpf.BatchOptions{ElemFlags: uint64(ebpf.UpdateNoExist)}
		case 1:
			return &ebpf.BatchOptions{Flags: 1}
		case 2:
			return &ebpf.BatchOptions{}
		default:
			return nil
		}
	}
	// Batch key and value buffers of n entries in one of the forms
	// cilium/ebpf takes, and how to print the first k.
	batchKeys := func(n int) (any, func(k int) string) {
		switch rng.IntN(4) {
		case 0:
			ks := make([][8]byte, n)
			return ks, func(k int) string { return fmt.Sprint(ks[:k]) }
		case 1:
			ks := make([]byte, 8*n)
			return ks, func(k int) string { return fmt.Sprint(ks[:8*k]) }
		case 2:
			ks := make([]key64, n)
			return ks, func(k int) string { return fmt.Sprint(ks[:k]) }
		default:
			ks := make([]uint64, n)
			return ks, func(k int) string { return fmt.Sprint(ks[:k]) }
		}
	}
	batchValues := func(n int) (any, func(k int) string) {
		if p.perCPU {
			vs := make([]val12, n*cpus)
			return vs, func(k int) string { return fmt.Sprint(vs[:k*cpus]) }
		}
		if rng.IntN(2) == 0 {
			vs := make([]byte, 8*n)
			return vs, func(k int) string { return fmt.Sprint(vs[:8*k]) }
		}
		vs := make([]uint64, n)
		return vs, func(k int) string { return fmt.Sprint(vs[:k]) }
	}

	for step := range 1500 {
		switch op := rng.IntN(100); {
		case op < 30:
			k, v, f := anyKey(), anyValue(), updateFlags()
			say("%d update %s %s %d: %s", step, show(k), show(v), f, errString(m.Update(k, v, f)))
		case op < 38:
			k, v := anyKey(), anyValue()
			say("%d put %s %s: %s", step, show(k), show(v), errString(m.Put(k, v)))
		case op < 55:
			k, f := anyKey(), lookupFlags()
			out, print := valueOut()
			err := m.LookupWithFlags(k, out, f)
			say("%d lookup %s %d: %s %s", step, show(k), f, errString(err), print())
		case op < 60:
			k := anyKey()
			b, err := m.LookupBytes(k)
			say("%d lookup bytes %s: %v %s", step, show(k), b, errString(err))
		case op < 68:
			k := anyKey()
			say("%d delete %s: %s", step, show(k), errString(m.Delete(k)))
		case op < 74:
			k, f := anyKey(), lookupFlags()
			out, print := valueOut()
			err := m.LookupAndDeleteWithFlags(k, out, f)
			say("%d lookup and delete %s %d: %s %s", step, show(k), f, errString(err), print())
		case op < 78:
			// A NextKey walk from the start, or from a random key.
			var k any
			if rng.IntN(2) == 0 {
				k = anyKey()
			}
			var walk []string
			for range 2 * p.keySpace {
				var next [8]byte
				err := m.NextKey(k, &next)
				walk = append(walk, fmt.Sprintf("%v %s", next, errString(err)))
				if err != nil {
					break
				}
				k = next
			}
			say("%d next key walk: %s", step, strings.Join(walk, "; "))
		case op < 80:
			k := anyKey()
			b, err := m.NextKeyBytes(k)
			say("%d next key bytes %s: %v %s", step, show(k), b, errString(err))
		case op < 86:
			// A batch walk: BatchLookup (or BatchLookupAndDelete) calls of
			// one size 1..16 from a zero cursor to the end.
			// Sometimes the walk alternates between its cursor and a copy
			// of it, which share the walk; sometimes, once it has ended, the
			// cursor is set back to zero and starts again.
			n, del := 1+rng.IntN(16), rng.IntN(4) == 0
			var cursor, copied ebpf.MapBatchCursor
			alternate := rng.IntN(4) == 0
			var calls []string
			for call := range 64 {
				keys, showKeys := batchKeys(n)
				vals, showVals := batchValues(n)
				opts := batchOpts()
				use := &cursor
				if alternate && call%2 == 1 {
					use = &copied
				}
				var got int
				var err error
				if del {
					got, err = m.BatchLookupAndDelete(use, keys, vals, opts)
				} else {
					got, err = m.BatchLookup(use, keys, vals, opts)
				}
				if call == 0 {
					copied = cursor
				}
				calls = append(calls, fmt.Sprintf("%+v %d %s %s %s", opts, got, errString(err), showKeys(min(got, n)), showVals(min(got, n))))
				if err != nil && !errors.Is(err, unix.ENOSPC) {
					if errors.Is(err, unix.ENOENT) {
						switch rng.IntN(3) {
						case 0: // a walk that has ended, called again
							got, err := m.BatchLookup(&cursor, keys, vals, nil)
							calls = append(calls, fmt.Sprintf("after the end: %d %s", got, errString(err)))
						case 1: // the cursor set back to zero, as a loop that polls the map does
							cursor = ebpf.MapBatchCursor{}
							got, err := m.BatchLookup(&cursor, keys, vals, nil)
							calls = append(calls, fmt.Sprintf("zeroed: %d %s %s", got, errString(err), showKeys(min(got, n))))
						}
					}
					break
				}
				if errors.Is(err, unix.ENOSPC) {
					n++ // as a caller would: a bigger batch
				}
			}
			say("%d batch walk del=%v: %s", step, del, strings.Join(calls, "; "))
		case op < 90:
			n := rng.IntN(17)
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64N(p.keySpace)
			}
			var vals any
			if p.perCPU {
				vs := make([]val12, n*cpus)
				for i := range vs {
					vs[i] = val12{uint32(i), 1, 2}
				}
				vals = vs
			} else {
				vs := make([]uint64, n)
				for i := range vs {
					vs[i] = rng.Uint64()
				}
				vals = vs
			}
			if rng.IntN(10) == 0 {
				vals = []uint64{1} // the wrong length
			}
			var keyArg any = keys
			if p.bloom {
				keyArg = make([]struct{}, n) // a bloom filter's keys: 0 bytes each
			}
			opts := batchOpts()
			got, err := m.BatchUpdate(keyArg, vals, opts)
			say("%d batch update %v %+v: %d %s", step, keys, opts, got, errString(err))
		case op < 94:
			n := rng.IntN(9)
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64N(p.keySpace)
			}
			var arg any = keys
			if p.bloom {
				arg = make([]struct{}, n)
			}
			if rng.IntN(10) == 0 {
				arg = &keys // not a slice
			}
			opts := batchOpts()
			got, err := m.BatchDelete(arg, opts)
			say("%d batch delete %v %+v: %d %s", step, keys, opts, got, errString(err))
		default:
			it := iterate()
			var seen []string
			for {
				var k [8]byte
				out, print := valueOut()
				if !it.Next(&k, out) {
					break
				}
				seen = append(seen, fmt.Sprintf("%v=%s", k, print()))
			}
			say("%d iterate: %s %s", step, strings.Join(seen, " "), errString(it.Err()))
		}
	}
	return out
}

// show prints a key or value argument so that both runs print it alike (an
// unsafe.Pointer by what it points at).
func show(x any) string {
	switch x := x.(type) {
	case unsafe.Pointer:
		return fmt.Sprintf("ptr(%v)", *(*[8]byte)(x))
	case *uint64:
		return fmt.Sprintf("&%d", *x)
	case *[8]byte:
		return fmt.Sprintf("&%v", *x)
	case *key64:
		return fmt.Sprintf("&%v", *x)
	case *val12:
		return fmt.Sprintf("&%v", *x)
	case []any:
		var s []string
		for _, v := range x {
			s = append(s, show(v))
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	return fmt.Sprintf("%T(%v)", x, x)
}

// errClasses are the errors.Is checks that callers make.
var errClasses = []struct {
	name string
	err  error
}{
	{"ErrKeyNotExist", ebpf.ErrKeyNotExist}, {"ErrKeyExist", ebpf.ErrKeyExist},
	{"ErrNotSupported", ebpf.ErrNotSupported}, {"ErrIterationAborted", ebpf.ErrIterationAborted},
	{"ENOENT", unix.ENOENT}, {"EEXIST", unix.EEXIST}, {"E2BIG", unix.E2BIG}, {"EINVAL", unix.EINVAL},
	{"ENOSPC", unix.ENOSPC}, {"ENOMEM", unix.ENOMEM}, {"EOPNOTSUPP", unix.EOPNOTSUPP}, {"ENOTSUPP", syscall.Errno(524)},
	{"EBADF", unix.EBADF},
}

// errString is err's message and the classes it belongs to.
func errString(err error) string {
	if err == nil {
		return "ok"
	}
	var classes []string
	for _, c := range errClasses {
		if errors.Is(err, c.err) {
			classes = append(classes, c.name)
		}
	}
	return fmt.Sprintf("error %q %v", err, classes)
}
