package htabtest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// TouchAhead is implemented by the adapters of maps whose LookupBulk
// touches a group's buckets ahead only in a map past a size (the home
// layout's): SetTouchAhead turns it on or off whatever the size, so that
// the checks run LookupBulk both ways on small maps.
type TouchAhead interface{ SetTouchAhead(on bool) }

// LookupBulk checks the map's LookupBulk, on the map and on every CPU
// handle, against its single-key Lookup: on maps of random contents (some
// keys deleted, so that chains have holes), for slices of every length from
// 0 to past several groups (odd ones among them), of keys present and
// absent, repeated, in random order, and of present keys only and absent
// keys only; vals and found longer than needed are written only as far as
// keys go. Slices shorter than keys make it panic. Then, with -race, lookups
// of keys that writers keep replacing and deleting: each key found has a
// value written for it, and keys never deleted are always found (but in LRU
// maps, which may evict them). A map whose adapter is a TouchAhead is
// checked with touching ahead off and on.
func LookupBulk[K, V comparable](t *testing.T, m Map[K, V]) {
	checkTypes[K, V](t)
	rng := rand.New(rand.NewPCG(0xb01c, 0))
	for _, entries := range []int{1, 7, 64, 1000} {
		mm, err := m.New(htab.Options{MaxEntries: entries, CPUs: 2})
		if err != nil {
			t.Fatal(err)
		}
		slots := Slots(mm)
		universe := 3*entries + 5
		for range 4 * entries {
			i := rng.IntN(universe)
			if rng.IntN(4) == 0 {
				mm.Delete(Key[K](i))
				continue
			}
			mm.Update(Key[K](i), Spread(Value[V](i), slots), htab.UpdateAny)
		}
		var present []K
		for k := range mm.All() {
			present = append(present, k)
		}
		// Keys of the universe, present or not; present keys only; keys
		// outside the universe, never present.
		draws := map[string]func() K{
			"mixed":   func() K { return Key[K](rng.IntN(universe)) },
			"present": func() K { return present[rng.IntN(len(present))] },
			"absent":  func() K { return Key[K](universe + rng.IntN(universe)) },
		}
		for _, way := range bulkWays(mm) {
			for _, draw := range []string{"mixed", "present", "absent"} {
				if draw == "present" && len(present) == 0 {
					continue
				}
				for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 33, 100, 257} {
					keys := make([]K, n)
					for i := range keys {
						keys[i] = draws[draw]()
						if i > 0 && rng.IntN(8) == 0 {
							keys[i] = keys[rng.IntN(i)] // a repeat
						}
					}
					name := fmt.Sprintf("%d entries, %d keys, %s%s", entries, n, draw, way())
					checkBulk(t, name, mm.LookupBulk, slots, keys, func(k K, vals []V) bool { return mm.Lookup(k, vals) })
					for c := range mm.CPUs() {
						cpu := mm.CPU(c)
						checkBulk(t, fmt.Sprintf("%s, CPU(%d)", name, c), cpu.LookupBulk, 1, keys, func(k K, vals []V) bool {
							var ok bool
							vals[0], ok = cpu.Lookup(k)
							return ok
						})
					}
				}
			}
		}
		mustPanic(t, "LookupBulk with vals too short", func() {
			mm.LookupBulk(make([]K, 3), make([]V, 3*slots-1), make([]bool, 3))
		})
		mustPanic(t, "LookupBulk with found too short", func() {
			mm.LookupBulk(make([]K, 3), make([]V, 3*slots), make([]bool, 2))
		})
		mustPanic(t, "CPU(0).LookupBulk with vals too short", func() {
			mm.CPU(0).LookupBulk(make([]K, 3), make([]V, 2), make([]bool, 3))
		})
	}
	bulkConcurrent(t, m)
}

// bulkWays are the ways LookupBulk of mm is checked, each a function that
// sets it up and names it: as made, or, for a TouchAhead, with touching
// ahead off and on.
func bulkWays[K, V comparable](mm Map[K, V]) []func() string {
	ta, ok := mm.(TouchAhead)
	if !ok {
		return []func() string{func() string { return "" }}
	}
	return []func() string{
		func() string { ta.SetTouchAhead(false); return ", looping over Lookup" },
		func() string { ta.SetTouchAhead(true); return ", touching ahead" },
	}
}

// checkBulk compares bulk (with slots values a key) with lookup, one key at
// a time, for keys; vals and found have room past the keys, which bulk must
// leave alone.
func checkBulk[K, V comparable](t *testing.T, name string, bulk func([]K, []V, []bool) int, slots int, keys []K, lookup func(K, []V) bool) {
	t.Helper()
	var sentinel V
	bytesOf(&sentinel)[0] = 0xa5
	vals := make([]V, (len(keys)+1)*slots)
	found := make([]bool, len(keys)+1)
	for i := range vals {
		vals[i] = sentinel
	}
	found[len(keys)] = true
	n := bulk(keys, vals, found)
	want := 0
	one := make([]V, slots)
	for i, k := range keys {
		ok := lookup(k, one)
		if found[i] != ok {
			t.Fatalf("%s: key %d (%v): LookupBulk found %v, Lookup %v", name, i, k, found[i], ok)
		}
		if ok {
			want++
			for s := range slots {
				if got := vals[i*slots+s]; got != one[s] {
					t.Fatalf("%s: key %d (%v), slot %d: LookupBulk's value %v, Lookup's %v", name, i, k, s, got, one[s])
				}
			}
		}
	}
	if n != want {
		t.Fatalf("%s: LookupBulk returned %d, found %d", name, n, want)
	}
	for s := range slots {
		if vals[len(keys)*slots+s] != sentinel || !found[len(keys)] {
			t.Fatalf("%s: LookupBulk wrote past len(keys)", name)
		}
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

// bulkConcurrent runs bulk lookups, on the map and on CPU handles (each of
// bulkWays in turn), and single lookups, while writers replace and delete
// the keys of one half and replace those of the other (which are never
// absent): every value found must be one written for its key
// (Spread(Value(key*1000+gen))), and every key of the stable half found.
func bulkConcurrent[K, V comparable](t *testing.T, m Map[K, V]) {
	// 48 keys in 64 buckets: chains of one to three, and buckets that the
	// writers keep emptying and filling, where a reader's answer "absent"
	// must still be right.
	const keys = 48
	mm, err := m.New(htab.Options{MaxEntries: 64, CPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	slots := Slots(mm)
	written := func(k, gen int) V { return Value[V](k*37 + gen) }
	// valid reports whether v (CPU slot s's) is one written for key k.
	valid := func(k, s int, v V) bool {
		for gen := range 256 {
			w := written(k, gen)
			bytesOf(&w)[0] += byte(s)
			if v == w {
				return true
			}
		}
		return false
	}
	for k := range keys {
		mm.Update(Key[K](k), Spread(written(k, 0), slots), htab.UpdateAny)
	}
	// The writers make a fixed number of changes each, and the reader reads
	// until they are done: bounded work, also where many test binaries run
	// at once. -short is CI's run under the race detector (and emulated
	// big-endian), where every access is checked: a tenth as many changes
	// there, against the full count natively (go test ./...).
	ops := 400000
	if testing.Short() {
		ops = 40000
	}
	var stop atomic.Bool
	var writing atomic.Int32
	var wg sync.WaitGroup
	for w := range 2 {
		writing.Add(1)
		wg.Go(func() {
			defer writing.Add(-1)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range ops {
				if stop.Load() {
					return
				}
				k := rng.IntN(keys)
				if k%2 == 1 && rng.IntN(2) == 0 {
					mm.Delete(Key[K](k))
					continue
				}
				mm.Update(Key[K](k), Spread(written(k, rng.IntN(256)), slots), htab.UpdateAny)
			}
		})
	}
	ks := make([]K, keys)
	for i := range ks {
		ks[i] = Key[K](i)
	}
	fail := func(format string, args ...any) {
		stop.Store(true)
		wg.Wait()
		t.Fatalf(format, args...)
	}
	ways := bulkWays(mm)
	for round := 0; round < 100 || writing.Load() > 0; round++ {
		way := ways[round/3%len(ways)]() // each kind of round below, each way
		vals := make([]V, keys*slots)
		found := make([]bool, keys)
		bulk, s := mm.LookupBulk, slots
		if round%3 == 1 {
			bulk, s = mm.CPU(round%mm.CPUs()).LookupBulk, 1
			vals = vals[:keys]
		}
		if round%3 == 2 { // single lookups, the fast path's misses among them
			for k := range keys {
				one := make([]V, slots)
				found[k] = mm.Lookup(ks[k], one)
				copy(vals[k*slots:], one)
			}
			s = slots
			vals = vals[:keys*slots]
		} else {
			bulk(ks, vals, found)
		}
		for k := range keys {
			if k%2 == 0 && !found[k] && !mm.Info().LRU() { // an LRU map may evict any key
				fail("round %d%s: key %d, never deleted, not found", round, way, k)
			}
			if !found[k] {
				continue
			}
			for j := range s {
				slot := j
				if s == 1 && slots > 1 {
					slot = round % mm.CPUs()
				}
				if !valid(k, slot, vals[k*s+j]) {
					fail("round %d%s: key %d, slot %d: value %v was never written for it", round, way, k, slot, vals[k*s+j])
				}
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}
