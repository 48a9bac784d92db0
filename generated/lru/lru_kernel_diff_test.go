package lru

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/htab/htabtest"
	"github.com/htabgen/htabgen/internal/kernel"
	"github.com/htabgen/htabgen/internal/lrusanity"
)

// lruDiffMap is a generated LRU map seen as the kernel harness sees a kernel
// map: keys and values are bytes, a per-CPU value is every CPU's 8 bytes
// concatenated.
type lruDiffMap interface {
	maxEntries() int
	length() int
	update(key, val []byte, flags uint64) error
	lookup(key []byte) ([]byte, error)
	// The program side on CPU cpu: CPU(cpu)'s Lookup (the value of CPU cpu),
	// Update (val is one CPU's 8 bytes) and Delete.
	progLookupOn(cpu int, key []byte) ([]byte, error)
	progUpdateOn(cpu int, key, val []byte, flags uint64) error
	progDeleteOn(cpu int, key []byte) error
	delete(key []byte) error
	lookupAndDelete(key []byte) ([]byte, error)
	nextKey(key []byte) ([]byte, error)
	all() (keys, vals [][]byte)
}

// lruDiffGen is a generated LRU map of either type, reached through its
// htabtest.Map adapter, as an lruDiffMap.
type lruDiffGen[K ~[8]byte, V ~[8]byte] struct{ m htabtest.Map[K, V] }

func (d lruDiffGen[K, V]) maxEntries() int { return d.m.MaxEntries() }
func (d lruDiffGen[K, V]) length() int     { return d.m.Len() }

// split is val, every CPU's 8 bytes, as the map's values.
func (d lruDiffGen[K, V]) split(val []byte) []V {
	out := make([]V, htabtest.Slots(d.m))
	for i := range out {
		out[i] = V(val[8*i:])
	}
	return out
}

func (d lruDiffGen[K, V]) update(key, val []byte, flags uint64) error {
	return d.m.Update(K(key), d.split(val), htab.UpdateFlags(flags))
}

func (d lruDiffGen[K, V]) lookup(key []byte) ([]byte, error) {
	vals := make([]V, htabtest.Slots(d.m))
	if !d.m.Lookup(K(key), vals) {
		return nil, htab.ErrKeyNotExist
	}
	return kernel.Concat(vals), nil
}

func (d lruDiffGen[K, V]) progLookupOn(cpu int, key []byte) ([]byte, error) {
	v, ok := d.m.CPU(cpu).Lookup(K(key))
	if !ok {
		return nil, htab.ErrKeyNotExist
	}
	return v[:], nil
}

func (d lruDiffGen[K, V]) progUpdateOn(cpu int, key, val []byte, flags uint64) error {
	return d.m.CPU(cpu).Update(K(key), V(val), htab.UpdateFlags(flags))
}

func (d lruDiffGen[K, V]) progDeleteOn(cpu int, key []byte) error {
	return d.m.CPU(cpu).Delete(K(key))
}

func (d lruDiffGen[K, V]) delete(key []byte) error { return d.m.Delete(K(key)) }

func (d lruDiffGen[K, V]) lookupAndDelete(key []byte) ([]byte, error) {
	vals := make([]V, htabtest.Slots(d.m))
	if err := d.m.LookupAndDelete(K(key), vals); err != nil {
		return nil, err
	}
	return kernel.Concat(vals), nil
}

func (d lruDiffGen[K, V]) nextKey(key []byte) ([]byte, error) {
	var kp *K
	if key != nil {
		k := K(key)
		kp = &k
	}
	n, err := d.m.NextKey(kp)
	if err != nil {
		return nil, err
	}
	return n[:], nil
}

func (d lruDiffGen[K, V]) all() (keys, vals [][]byte) {
	for k, vs := range d.m.All() {
		keys, vals = append(keys, bytes.Clone(k[:])), append(vals, kernel.Concat(vs))
	}
	return keys, vals
}

// lruDiffRun drives one kernel map and its generated twin.
type lruDiffRun struct {
	t    *testing.T
	km   *kernel.Map
	g    lruDiffMap
	ncpu int // value slots (1 for LRU_HASH)
	log  []string
	step int

	evictions int // keys evicted by updates

	// multi > 1: program-side calls, and LRU_HASH's syscall updates, run on
	// a random CPU of 0..multi-1, the kernel side pinned there by pin.
	multi int
	pin   func(cpu int)
}

func (r *lruDiffRun) logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf("%d: ", r.step)+fmt.Sprintf(format, args...))
	if len(r.log) > 40 {
		r.log = r.log[len(r.log)-30:]
	}
}

func (r *lruDiffRun) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("step %d: %s\nlast operations:\n%s", r.step, fmt.Sprintf(format, args...), strings.Join(r.log, "\n"))
}

func (r *lruDiffRun) sameErr(op string, kerr, gerr error) {
	r.t.Helper()
	if kc, gc := kernel.ErrName(kerr), kernel.ErrName(gerr); kc != gc {
		r.fatalf("%s: kernel %s (%v), generated %s (%v)", op, kc, kerr, gc, gerr)
	}
}

func (r *lruDiffRun) sameVal(op string, kv, gv []byte) {
	r.t.Helper()
	if !bytes.Equal(kv, gv) {
		r.fatalf("%s: kernel value %x, generated %x", op, kv, gv)
	}
}

// checkContents compares the whole maps: the NextKey walk of both (identical
// order under ZeroSeed), All's order, every value, and Len.
func (r *lruDiffRun) checkContents() {
	r.t.Helper()
	var kkeys [][]byte
	var prev []byte
	for {
		k, err := r.km.NextKey(prev)
		if errors.Is(err, htab.ErrKeyNotExist) {
			break
		}
		if err != nil {
			r.fatalf("kernel NextKey: %v", err)
		}
		kkeys = append(kkeys, k)
		prev = k
		if len(kkeys) > r.km.MaxEntries() {
			r.fatalf("kernel NextKey walk longer than max_entries")
		}
	}
	var gkeys [][]byte
	prev = nil
	for {
		k, err := r.g.nextKey(prev)
		if errors.Is(err, htab.ErrKeyNotExist) {
			break
		}
		if err != nil {
			r.fatalf("generated NextKey: %v", err)
		}
		gkeys = append(gkeys, k)
		prev = k
		if len(gkeys) > r.g.maxEntries() {
			r.fatalf("generated NextKey walk longer than MaxEntries")
		}
	}
	if !slices.EqualFunc(kkeys, gkeys, bytes.Equal) {
		r.fatalf("NextKey order differs:\nkernel    %v\ngenerated %v", lruDiffKeys(kkeys), lruDiffKeys(gkeys))
	}
	akeys, avals := r.g.all()
	if !slices.EqualFunc(kkeys, akeys, bytes.Equal) {
		r.fatalf("All order differs from the kernel's NextKey order:\nkernel %v\nAll    %v", lruDiffKeys(kkeys), lruDiffKeys(akeys))
	}
	if r.g.length() != len(kkeys) {
		r.fatalf("Len %d, kernel holds %d keys", r.g.length(), len(kkeys))
	}
	for i, k := range kkeys {
		kv, err := r.km.Lookup(k) // a syscall lookup: no ref bit
		if err != nil {
			r.fatalf("kernel Lookup(%x) of a key its NextKey walk returned: %v", k, err)
		}
		r.sameVal(fmt.Sprintf("contents: key %x", k), kv, avals[i])
	}
}

func lruDiffKeys(keys [][]byte) []uint64 {
	out := make([]uint64, len(keys))
	for i, k := range keys {
		out[i] = binary.LittleEndian.Uint64(k)
	}
	return out
}

// lruDiffSteps is the length of a random run on a map of size entries: long
// enough for the LRU to turn the map over (the tests require that more than
// size/4 keys were evicted).
func lruDiffSteps(size int) int { return 20*size + 1000 }

// lruDiffSizes is the map sizes of a differential run, all of them but the
// largest under -short: that one takes more than half the steps, and
// CI's -short run is the race detector's, which makes each step ten times
// slower; go test without -short runs every size.
func lruDiffSizes(sizes ...int) []int {
	if testing.Short() {
		return sizes[:len(sizes)-1]
	}
	return sizes
}

var lruDiffInvalidFlags = []uint64{3, 4 /* BPF_F_LOCK */, 8, 16, 1 << 32, ^uint64(0)}

// cpu picks the CPU of the next program-side call and pins the kernel side
// there; without multi it is always CPU 0 and draws nothing from rng.
func (r *lruDiffRun) cpu(rng *rand.Rand) int {
	if r.multi <= 1 {
		return 0
	}
	c := rng.IntN(r.multi)
	r.pin(c)
	return c
}

// syscallCPU is cpu for a syscall update: a per-CPU map's writes every CPU's
// value, which the generated map's userspace side does as CPU 0 only.
func (r *lruDiffRun) syscallCPU(rng *rand.Rand) int {
	if r.ncpu > 1 {
		if r.multi > 1 {
			r.pin(0)
		}
		return 0
	}
	return r.cpu(rng)
}

// updateFlags draws the flags of an update, a few of them invalid.
func updateFlags(rng *rand.Rand) uint64 {
	if rng.IntN(25) == 0 {
		return lruDiffInvalidFlags[rng.IntN(len(lruDiffInvalidFlags))]
	}
	return []uint64{0, 0, 0, 1, 1, 2}[rng.IntN(6)]
}

// run performs steps random operations on both maps, comparing every result,
// and the contents every checkEvery steps and at the end.
func (r *lruDiffRun) run(rng *rand.Rand, size, steps, checkEvery int) {
	r.t.Helper()
	hot := max(2, size/4)
	keySpace := 4*size + 3
	for r.step = 0; r.step < steps; r.step++ {
		var kn uint64
		if rng.IntN(2) == 0 {
			kn = uint64(rng.IntN(hot))
		} else {
			kn = uint64(rng.IntN(keySpace))
		}
		key := binary.LittleEndian.AppendUint64(nil, kn)
		switch op := rng.IntN(100); {
		case op < 35:
			flags := updateFlags(rng)
			val := make([]byte, 8*r.ncpu)
			for i := range r.ncpu {
				binary.LittleEndian.PutUint64(val[8*i:], rng.Uint64())
			}
			cpu := r.syscallCPU(rng)
			r.logf("update %d flags %#x on cpu %d", kn, flags, cpu)
			_, absentErr := r.g.lookup(key)
			before := r.g.length()
			kerr := r.km.Update(key, val, flags)
			var gerr error
			if cpu == 0 {
				gerr = r.g.update(key, val, flags)
			} else {
				// Only LRU_HASH updates by syscall on another CPU (syscallCPU):
				// one value, written as CPU(cpu).Update writes it.
				gerr = r.g.progUpdateOn(cpu, key, val, flags)
			}
			r.sameErr(fmt.Sprintf("update(%d, flags %#x) on cpu %d", kn, flags, cpu), kerr, gerr)
			if gerr == nil && absentErr != nil {
				r.evictions += before + 1 - r.g.length() // keys evicted for a new one
			}
		case op < 50:
			flags := updateFlags(rng)
			val := binary.LittleEndian.AppendUint64(nil, rng.Uint64())
			cpu := r.cpu(rng)
			r.logf("prog update %d flags %#x on cpu %d", kn, flags, cpu)
			_, absentErr := r.g.lookup(key)
			before := r.g.length()
			kerr := r.km.ProgUpdate(key, val, flags)
			gerr := r.g.progUpdateOn(cpu, key, val, flags)
			r.sameErr(fmt.Sprintf("prog update(%d, flags %#x) on cpu %d", kn, flags, cpu), kerr, gerr)
			if gerr == nil && absentErr != nil {
				r.evictions += before + 1 - r.g.length()
			}
		case op < 62:
			r.logf("lookup %d", kn)
			kv, kerr := r.km.Lookup(key)
			gv, gerr := r.g.lookup(key)
			r.sameErr(fmt.Sprintf("lookup(%d)", kn), kerr, gerr)
			r.sameVal(fmt.Sprintf("lookup(%d)", kn), kv, gv)
		case op < 87:
			cpu := r.cpu(rng)
			r.logf("prog lookup %d on cpu %d", kn, cpu)
			kv, kerr := r.km.ProgLookupValue(key)
			gv, gerr := r.g.progLookupOn(cpu, key)
			r.sameErr(fmt.Sprintf("prog lookup(%d) on cpu %d", kn, cpu), kerr, gerr)
			r.sameVal(fmt.Sprintf("prog lookup(%d) on cpu %d: that CPU's value", kn, cpu), kv, gv)
		case op < 90:
			r.logf("delete %d", kn)
			r.sameErr(fmt.Sprintf("delete(%d)", kn), r.km.Delete(key), r.g.delete(key))
		case op < 93:
			cpu := r.cpu(rng)
			r.logf("prog delete %d on cpu %d", kn, cpu)
			r.sameErr(fmt.Sprintf("prog delete(%d) on cpu %d", kn, cpu), r.km.ProgDelete(key), r.g.progDeleteOn(cpu, key))
		case op < 97:
			r.logf("lookup and delete %d", kn)
			kv, kerr := r.km.LookupAndDelete(key)
			gv, gerr := r.g.lookupAndDelete(key)
			r.sameErr(fmt.Sprintf("lookup and delete(%d)", kn), kerr, gerr)
			r.sameVal(fmt.Sprintf("lookup and delete(%d)", kn), kv, gv)
		default:
			var k []byte
			if rng.IntN(4) != 0 {
				k = key
			}
			r.logf("next key %x", k)
			kn, kerr := r.km.NextKey(k)
			gn, gerr := r.g.nextKey(k)
			r.sameErr(fmt.Sprintf("next key(%x)", k), kerr, gerr)
			r.sameVal(fmt.Sprintf("next key(%x)", k), kn, gn)
		}
		if (r.step+1)%checkEvery == 0 {
			r.checkContents()
		}
	}
	r.checkContents()
}

// TestKernelDifferentialLRU runs the same random operations (updates with
// every flag, invalid ones included; syscall lookups; program lookups, which
// set the ref bit; deletes; lookup-and-deletes; NextKey) on a generated LRU
// map and on the kernel's map of the same type, both with a zero seed, the
// generated map with CPUs = the kernel's possible CPUs (so that target_free
// is the same), every operation on CPU 0. Every result must be identical,
// and so must the map's contents and their NextKey order, compared every few
// steps: the LRU evicts exactly the keys the kernel's evicts.
func TestKernelDifferentialLRU(t *testing.T) {
	forEachLRUDiff(t, lruDiffSizes(4, 7, 33, 100, 127, 256, 300, 1000), true, func(t *testing.T, r *lruDiffRun, size int, mt htab.MapType, noCommon bool) {
		rng := rand.New(rand.NewPCG(uint64(size), kernel.Seed(t, uint64(mt)<<1|map[bool]uint64{false: 0, true: 1}[noCommon])))
		steps := lruDiffSteps(size)
		checkEvery := max(1, min(200, size/5)) // every step for the smallest maps

		r.run(rng, size, steps, checkEvery)
		// The point is the LRU: the run must have evicted, often. Over 41
		// random sequences (HTAB_DIFF_SEED 0..40) the fewest evictions were
		// 0.36 per entry of capacity (common LRU, size 256), most runs 0.6 to 40.
		require.Greater(t, r.evictions, size/4, "keys evicted in %d steps", steps)
		t.Logf("%d steps, %d keys evicted, %d keys at the end", steps, r.evictions, r.g.length())
	})
}

// TestKernelDifferentialLRUFill replays the shapes of test_lru_map.c at the
// kernel's own target_free: fills well past capacity with sequential keys,
// with every other key referenced by a program lookup, then deletes a range
// and fills again, comparing the contents after each phase.
func TestKernelDifferentialLRUFill(t *testing.T) {
	forEachLRUDiff(t, []int{4, 7, 33, 127, 300, 1000}, false, func(t *testing.T, r *lruDiffRun, size int, _ htab.MapType, _ bool) {
		val := make([]byte, 8*r.ncpu)
		ins := func(k uint64) {
			key := binary.LittleEndian.AppendUint64(nil, k)
			binary.LittleEndian.PutUint64(val, k*7)
			r.logf("insert %d", k)
			r.sameErr(fmt.Sprintf("insert %d", k), r.km.Update(key, val, 1), r.g.update(key, val, 1))
		}
		ref := func(k uint64) {
			key := binary.LittleEndian.AppendUint64(nil, k)
			r.logf("prog lookup %d", k)
			_, gerr := r.g.progLookupOn(0, key)
			r.sameErr(fmt.Sprintf("prog lookup %d", k), r.km.ProgLookup(key), gerr)
		}
		n := uint64(size)
		for k := uint64(1); k <= 2*n; k++ {
			r.step++
			ins(k)
			if k%2 == 0 {
				ref(k / 2)
			}
		}
		r.checkContents()
		for k := uint64(1); k <= 2*n; k++ {
			r.step++
			if k%3 == 0 {
				ref(k)
			}
		}
		for k := 2 * n; k > n; k-- {
			r.step++
			key := binary.LittleEndian.AppendUint64(nil, k)
			r.logf("delete %d", k)
			r.sameErr(fmt.Sprintf("delete %d", k), r.km.Delete(key), r.g.delete(key))
		}
		r.checkContents()
		for k := 3 * n; k <= 5*n; k++ {
			r.step++
			ins(k)
		}
		r.checkContents()
	})
}

// forEachLRUDiff runs body in a subtest for each LRU type, list mode and
// size, on a goroutine pinned to CPU 0 (r.pin moves it), with r holding a
// kernel map and a generated map of that type and size (zero seed, CPUs =
// the kernel's possible CPUs, so that target_free is the same).
func forEachLRUDiff(t *testing.T, sizes []int, alsoFiltered bool, body func(t *testing.T, r *lruDiffRun, size int, mt htab.MapType, noCommon bool)) {
	kernel.Require(t)
	filters := []bool{false}
	if alsoFiltered {
		filters = append(filters, true) // the -bloom 3 twins too
	}
	for _, filtered := range filters {
		forEachLRUDiffOf(t, sizes, filtered, body)
	}
}

// forEachLRUDiffOf is forEachLRUDiff on the maps without a filter in front
// of their lookups, or (filtered) on their -bloom 3 twins.
func forEachLRUDiffOf(t *testing.T, sizes []int, filtered bool, body func(t *testing.T, r *lruDiffRun, size int, mt htab.MapType, noCommon bool)) {
	ncpu := kernel.PossibleCPUs()
	bloom := ""
	if filtered {
		bloom = "/bloom=3"
	}
	for _, percpu := range []bool{false, true} {
		typ, mt := "lru_hash", htab.LRUHash
		if percpu {
			typ, mt = "lru_percpu_hash", htab.LRUPerCPUHash
		}
		for _, noCommon := range []bool{false, true} {
			lists := "common"
			if noCommon {
				lists = "no_common_lru"
			}
			for _, size := range sizes {
				t.Run(fmt.Sprintf("%s/%s/size=%d%s", typ, lists, size, bloom), func(t *testing.T) {
					// Subtests run on their own goroutines: pin this one.
					pin, unpin := cpuPinner(t)
					defer unpin()
					pin(0)
					opts := htab.Options{MaxEntries: size, ZeroSeed: true, CPUs: ncpu, NoCommonLRU: noCommon}
					km, err := kernel.New(mt, 8, 8, opts)
					require.NoError(t, err)
					defer km.Close()
					r := &lruDiffRun{t: t, km: km, ncpu: 1, pin: pin}
					switch {
					case percpu && filtered:
						m, err := lRUPerCPUK8V8BloomTestMap{}.New(opts)
						require.NoError(t, err)
						r.g, r.ncpu = lruDiffGen[LRUPerCPUK8V8BloomKey, LRUPerCPUK8V8BloomValue]{m}, ncpu
					case percpu:
						m, err := lRUPerCPUK8V8TestMap{}.New(opts)
						require.NoError(t, err)
						r.g, r.ncpu = lruDiffGen[LRUPerCPUK8V8Key, LRUPerCPUK8V8Value]{m}, ncpu
					case filtered:
						m, err := lRUK8V8BloomTestMap{}.New(opts)
						require.NoError(t, err)
						r.g = lruDiffGen[LRUK8V8BloomKey, LRUK8V8BloomValue]{m}
					default:
						m, err := lRUK8V8TestMap{}.New(opts)
						require.NoError(t, err)
						r.g = lruDiffGen[LRUK8V8Key, LRUK8V8Value]{m}
					}
					require.Equal(t, km.MaxEntries(), r.g.maxEntries(), "max_entries after NO_COMMON_LRU rounding")
					body(t, r, size, mt, noCommon)
				})
			}
		}
	}
}

// TestKernelDifferentialLRUMultiCPU is TestKernelDifferentialLRU with the
// program-side calls (and LRU_HASH's syscall updates) spread over every
// possible CPU: the kernel side is pinned to the CPU and runs BPF programs
// there, the generated map uses CPU(cpu)'s Update, Lookup and Delete. This
// drives the other CPUs' local free and pending lists, stealing between
// CPUs (common LRU) and the per-CPU lists of NO_COMMON_LRU, which a
// CPU-0-only run never reaches, and, for LRU_PERCPU_HASH, a program's
// update of its own CPU's value: in place for a present key, the other
// CPUs' values zeroed for a new one.
func TestKernelDifferentialLRUMultiCPU(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	if ncpu < 2 {
		t.Skipf("%d possible CPU: nothing to spread over", ncpu)
	}
	requirePinnable(t, ncpu)
	forEachLRUDiff(t, lruDiffSizes(4, 7, 33, 100, 127, 300, 1000), true, func(t *testing.T, r *lruDiffRun, size int, mt htab.MapType, noCommon bool) {
		r.multi = ncpu
		rng := rand.New(rand.NewPCG(uint64(size), kernel.Seed(t, 77+uint64(mt)<<1+map[bool]uint64{false: 0, true: 1}[noCommon])))
		steps := lruDiffSteps(size)
		r.run(rng, size, steps, max(1, min(200, size/5)))
		// The run must have evicted, often; the floor is
		// TestKernelDifferentialLRU's. Over 96 random sequences
		// (HTAB_DIFF_SEED 0..95, a soak on 2026-12-01, commit 5863f99)
		// the fewest evictions at size 300 were 145 (0.48 per entry),
		// under the size/2 this asked for before.
		require.Greater(t, r.evictions, size/4, "keys evicted in %d steps", steps)
		t.Logf("%d steps, %d keys evicted, %d keys at the end", steps, r.evictions, r.g.length())
	})
}

// lruKernelTwin is a kernel LRU map behind lruTwin, so that the ports of
// test_lru_map.c run unchanged on the kernel itself: operations on CPU c run
// pinned to CPU c, lookup_ref is ProgLookupValue. A per-CPU update on a CPU
// other than 0 is a program's (ProgUpdate), as the generated CPU(c).Update:
// it writes that CPU's value.
type lruKernelTwin struct {
	t      testing.TB
	km     *kernel.Map
	percpu bool
	ncpu   int
	pin    func(cpu int)
}

func (k *lruKernelTwin) cpus() int       { return k.ncpu }
func (k *lruKernelTwin) maxEntries() int { return k.km.MaxEntries() }
func (k *lruKernelTwin) length() int     { return len(k.allKeys()) }

func (k *lruKernelTwin) slots() int {
	if k.percpu {
		return k.ncpu
	}
	return 1
}

func (k *lruKernelTwin) update(cpu int, key, val uint64, flags htab.UpdateFlags) error {
	k.pin(cpu)
	kb := lruKey(key)
	if k.percpu && cpu != 0 { // a program's update: this CPU's value
		return k.km.ProgUpdate(kb[:], binary.LittleEndian.AppendUint64(nil, val), uint64(flags))
	}
	v := make([]byte, 8*k.slots())
	for c := range k.slots() {
		binary.LittleEndian.PutUint64(v[8*c:], val)
	}
	return k.km.Update(kb[:], v, uint64(flags))
}

func (k *lruKernelTwin) lookup(key uint64) (uint64, bool) {
	kb := lruKey(key)
	v, err := k.km.Lookup(kb[:])
	if err != nil {
		require.ErrorIs(k.t, err, htab.ErrKeyNotExist)
		return 0, false
	}
	return binary.LittleEndian.Uint64(v), true
}

func (k *lruKernelTwin) lookupRefOn(cpu int, key uint64) (uint64, bool) {
	k.pin(cpu)
	kb := lruKey(key)
	v, err := k.km.ProgLookupValue(kb[:]) // per-CPU: the value of CPU cpu
	if err != nil {
		require.ErrorIs(k.t, err, htab.ErrKeyNotExist)
		return 0, false
	}
	return binary.LittleEndian.Uint64(v), true
}

func (k *lruKernelTwin) lookupAndDelete(key uint64) (uint64, error) {
	kb := lruKey(key)
	v, err := k.km.LookupAndDelete(kb[:])
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(v), nil
}

func (k *lruKernelTwin) delete(key uint64) error {
	kb := lruKey(key)
	return k.km.Delete(kb[:])
}

func (k *lruKernelTwin) allKeys() []uint64 {
	var out []uint64
	var prev []byte
	for {
		n, err := k.km.NextKey(prev)
		if errors.Is(err, htab.ErrKeyNotExist) {
			return out
		}
		require.NoError(k.t, err)
		out = append(out, binary.LittleEndian.Uint64(n))
		prev = n
		require.LessOrEqual(k.t, len(out), k.km.MaxEntries())
	}
}

func (k *lruKernelTwin) nextKeys() ([]uint64, error) { return k.allKeys(), nil }

func (k *lruKernelTwin) contents() map[uint64]uint64 {
	out := map[uint64]uint64{}
	for _, key := range k.allKeys() {
		v, ok := k.lookup(key)
		require.True(k.t, ok)
		out[key] = v
	}
	return out
}

// TestKernelLRUSanity runs the ports of test_lru_map.c (lru_map_test.go) on
// the kernel's own LRU_HASH and LRU_PERCPU_HASH with nr_cpus = its possible
// CPUs: the expected survivors the generated maps are held to are the
// kernel's.
func TestKernelLRUSanity(t *testing.T) {
	kernel.Require(t)
	ncpu := kernel.PossibleCPUs()
	requirePinnable(t, ncpu)
	n := lrusanity.ForEach(t, []int{ncpu}, func(t *testing.T, percpu, noCommon bool, cpus int) *lrusanity.Env {
		pin, unpin := cpuPinner(t)
		t.Cleanup(unpin)
		pin(0)
		return lruSanityEnv(func(t testing.TB, percpu bool, opts htab.Options) lruTwin {
			mt := htab.LRUHash
			if percpu {
				mt = htab.LRUPerCPUHash
			}
			km, err := kernel.New(mt, 8, 8, opts)
			require.NoError(t, err)
			t.Cleanup(func() { km.Close() })
			return &lruKernelTwin{t: t, km: km, percpu: percpu, ncpu: ncpu, pin: pin}
		})(t, percpu, noCommon, cpus)
	})
	require.Equal(t, lrusanity.Applicable, n)
}

// requirePinnable skips t unless the test can pin itself to each of the
// ncpu possible CPUs.
func requirePinnable(t *testing.T, ncpu int) {
	t.Helper()
	if on := kernel.PinnableCPUs(); len(on) < ncpu {
		t.Skipf("can pin only to CPUs %v of the %d possible ones (offline?)", on, ncpu)
	}
}

// cpuPinner returns pin(c), which moves the calling goroutine's OS thread to
// CPU c (kernel.PinCPU) unless it is there already, and unpin, which undoes
// the last pin; call both from the test's goroutine.
func cpuPinner(t testing.TB) (pin func(c int), unpin func()) {
	cur := -1
	var undo func()
	pin = func(c int) {
		if c == cur {
			return
		}
		if undo != nil {
			undo()
		}
		var err error
		undo, err = kernel.PinCPU(c)
		require.NoError(t, err)
		cur = c
	}
	unpin = func() {
		if undo != nil {
			undo()
		}
	}
	return pin, unpin
}
