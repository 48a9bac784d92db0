package htabtest

import (
	"errors"
	"sync"
	"testing"

	"github.com/htabgen/htabgen/htab"
)

// stressKeys is how many keys the workers of ConcurrentValues may use, twice
// the largest map's MaxEntries, so that hash maps fill and LRU maps evict.
const stressKeys = 16

// stressVal is the value written under key key (< stressKeys) in write ver:
// byte j is ver + j*(2*key+1), so that byte j minus byte 0 names the key,
// and bytes of two writes whose versions differ mod 256 do not fit together.
// A 1-byte value holds the key in its low 4 bits.
func stressVal[V comparable](key, ver int) (v V) {
	b := bytesOf(&v)
	if len(b) == 1 {
		b[0] = byte(ver<<4 | key)
		return v
	}
	for j := range b {
		b[j] = byte(ver + j*(2*key+1))
	}
	return v
}

// stressCheck fails t unless v could be a value written under key key:
// stressVal's pattern, or zero where the map may hold zero (the other CPUs'
// values of a key a program inserted, in the per-CPU types).
func stressCheck[V comparable](t testing.TB, perCPU bool, what string, key int, v V) bool {
	var zero V
	if perCPU && v == zero {
		return true
	}
	b := bytesOf(&v)
	ok := len(b) > 1 || int(b[0]&15) == key
	for j := 1; j < len(b); j++ {
		ok = ok && b[j]-b[0] == byte(j*(2*key+1))
	}
	if !ok {
		t.Errorf("%s: key %d holds %x, which no write to key %d stored (torn, or another key's)", what, key, hex(v), key)
	}
	return ok
}

// stressKey is the number of a test key (Key), or -1. The number, under
// stressKeys, is the key's first byte.
func stressKey[K comparable](k K) int {
	if n := int(bytesOf(&k)[0]); n < stressKeys && Key[K](n) == k {
		return n
	}
	return -1
}

// ConcurrentValues runs four workers, each with its own CPU handle, on maps
// of 2, 4 and 8 entries (and of 4 with NoPrealloc, NoCommonLRU for the LRU
// types) with twice as many keys: the smaller the map, the more often the
// element a reader is in is freed and reused under it. (A lookup planted to
// skip its sequence check failed about 17 runs in 20 at 2 entries, 5 in 20
// at 8, with 20000 operations a worker; with -short, 10000.) Each worker
// mixes writes and reads: userspace and program-side updates with every
// flag, deletes and lookup-and-deletes, lookups on both sides, and every
// 16th operation an All, NextKey or LookupBatch walk. An update may fail
// only as the kernel's may with its flag (StressAllowed). Every value read
// must be one written for its key, whole; every key read must be one of the
// workers'. Run it with -race. Afterwards All must list each key once, as
// many as Len. m stands for the kind of map: the maps are m.New's.
func ConcurrentValues[K, V comparable](t *testing.T, m Map[K, V]) {
	alt := htab.Options{MaxEntries: 4, NoPrealloc: true}
	name := "max4-NoPrealloc"
	if m.Info().LRU() {
		alt = htab.Options{MaxEntries: 4, NoCommonLRU: true} // LRU maps have no NoPrealloc
		name = "max4-NoCommonLRU"
	}
	for _, c := range []struct {
		name string
		opts htab.Options
	}{
		{"max2", htab.Options{MaxEntries: 2}},
		{"max4", htab.Options{MaxEntries: 4}},
		{"max8", htab.Options{MaxEntries: 8}},
		{name, alt},
	} {
		t.Run(c.name, func(t *testing.T) { stressRun(t, m, c.opts) })
	}
}

// StressAllowed is the errors an update with flags may return, in a map of
// type typ, while other CPUs change the map: the flag's own (the key is
// there, or is not), and no room, which a hash map reports as ErrFull and an
// LRU map, whose elements may all be held by updates in flight, as ErrNoMem.
// UpdateExist of a present key replaces it without needing room, as in the
// kernel, except in an LRU map, whose replace takes a fresh element.
func StressAllowed(typ htab.MapType, flags htab.UpdateFlags) []error {
	noRoom := htab.ErrFull
	if typ.IsLRU() {
		noRoom = htab.ErrNoMem
	}
	switch flags {
	case htab.UpdateNoExist:
		return []error{htab.ErrKeyExist, noRoom}
	case htab.UpdateExist:
		if typ.IsLRU() {
			return []error{htab.ErrKeyNotExist, noRoom} // an LRU replace takes a fresh element
		}
		return []error{htab.ErrKeyNotExist}
	}
	return []error{noRoom}
}

// stressRun is one map of ConcurrentValues: opts with four CPUs and
// ZeroSeed, keys 0..2*MaxEntries-1.
func stressRun[K, V comparable](t *testing.T, kind Map[K, V], opts htab.Options) {
	const workers = 4
	opts.CPUs, opts.ZeroSeed = workers, true
	m := newMap(t, kind, opts)
	info := m.Info()
	perCPU := info.PerCPU()
	nkeys := min(2*m.MaxEntries(), stressKeys)
	ops := 20000
	if testing.Short() {
		ops = 10000
	}
	slots := Slots(m)
	okErr := func(what string, err error, allowed ...error) bool {
		if err == nil {
			return true
		}
		for _, a := range allowed {
			if errors.Is(err, a) {
				return true
			}
		}
		t.Errorf("%s: %v", what, err)
		return false
	}
	// check reports whether every value in vals could be one written under
	// key; the per-CPU types' LookupBatch gives slots values a key.
	check := func(what string, key int, vals []V) bool {
		if key < 0 {
			t.Errorf("%s yields a key no worker wrote", what)
			return false
		}
		for _, v := range vals {
			if !stressCheck(t, perCPU, what, key, v) {
				return false
			}
		}
		return true
	}
	walk := func(kind int) bool {
		switch kind % 3 {
		case 0:
			keys, vals := all(m)
			for j, k := range keys {
				if !check("All", stressKey(k), vals[j]) {
					return false
				}
			}
		case 1:
			var from *K
			for range 2 * stressKeys {
				next, err := m.NextKey(from)
				if err != nil {
					return okErr("NextKey", err, htab.ErrKeyNotExist)
				}
				if !check("NextKey", stressKey(next), nil) {
					return false
				}
				from = &next
			}
		default:
			var c htab.Cursor
			bkeys, bvals := make([]K, 3), make([]V, 3*slots)
			for range 2 * stressKeys {
				n, err := m.LookupBatch(&c, bkeys, bvals)
				for j := range n {
					if !check("LookupBatch", stressKey(bkeys[j]), bvals[j*slots:(j+1)*slots]) {
						return false
					}
				}
				if err != nil {
					return okErr("LookupBatch", err, htab.ErrKeyNotExist, htab.ErrNoSpace)
				}
			}
		}
		return true
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			x := uint32(w + 1)
			for i := range ops {
				x = x*1664525 + 1013904223
				key := int(x>>8) % nkeys
				// UpdateAny, NoExist, Exist; UpdateAny twice as often (3 % 3).
				k, ver, flags := Key[K](key), i*workers+w, htab.UpdateFlags(x>>24&3)%3
				var good bool
				switch op := (x >> 26) % 8; {
				case i%16 == 15:
					good = walk(i / 16)
				case op == 0:
					vals := make([]V, slots)
					for c := range vals {
						vals[c] = stressVal[V](key, ver+c)
					}
					good = okErr("Update", m.Update(k, vals, flags), StressAllowed(info.Type, flags)...)
				case op <= 2:
					good = okErr("CPU.Update", m.CPU(w).Update(k, stressVal[V](key, ver), flags), StressAllowed(info.Type, flags)...)
				case op == 3:
					good = okErr("Delete", m.CPU(w).Delete(k), htab.ErrKeyNotExist)
				case op == 4:
					vals, err := lookupAndDelete(m, k)
					good = okErr("LookupAndDelete", err, htab.ErrKeyNotExist) && (err != nil || check("LookupAndDelete", key, vals))
				case op == 5:
					v, ok := m.CPU(w).Lookup(k)
					good = !ok || check("CPU.Lookup", key, []V{v})
				default:
					vals, ok := lookup(m, k)
					good = !ok || check("Lookup", key, vals)
				}
				if !good {
					return
				}
			}
		})
	}
	wg.Wait()
	keys, _ := all(m)
	seen := map[K]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("after the workers stopped, All yields key %x twice", hex(k))
		}
		seen[k] = true
	}
	if len(keys) != m.Len() {
		t.Errorf("after the workers stopped, All yields %d keys, Len is %d", len(keys), m.Len())
	}
}

// Concurrent runs two writers on disjoint keys (32 each, on their own CPU
// handles: updates and deletes) with a reader that looks keys up on CPU 1
// and walks the map with All and NextKey; run it with -race. Each writer's
// keys must end as it left them: present with its last value, or deleted.
// The map has 64 entries, an LRU map 1024 so that it never evicts them (its
// CPUs cache free elements in batches of max/cpus/2). m stands for the kind
// of map: the map is m.New's.
func Concurrent[K, V comparable](t testing.TB, m Map[K, V]) {
	max := 64
	if m.Info().LRU() {
		max = 1024
	}
	m = newMap(t, m, testOpts(max))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 2000 {
				k := Key[K](w*32 + i%32)
				if i%3 == 2 {
					_ = m.Delete(k)
				} else {
					_ = m.CPU(w).Update(k, Value[V](i), htab.UpdateAny)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			m.CPU(1).Lookup(Key[K](i % 64))
			for range m.All() {
			}
			_, _ = m.NextKey(nil)
		}
	})
	wg.Wait()
	// Writer w's last operation on key i%32 decides whether it is present.
	for w := range 2 {
		for j := range 32 {
			last := j + 32*((1999-j)/32)
			v, ok := m.CPU(w).Lookup(Key[K](w*32 + j))
			want := last%3 != 2
			if ok != want || ok && v != Value[V](last) {
				t.Fatalf("writer %d key %d: got %x, %v", w, j, hex(v), ok)
			}
		}
	}
}
