package templates

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// stressTest emits Test<Map>ConcurrentValues: writers and readers share a
// few keys of a small map, so that elements are freed and reused while
// lock-free readers look at them, and every value a reader sees must be one
// a writer wrote for that key. Test<Map>Concurrent (tests.go) checks that no
// write is lost; this one checks that no read is torn or misplaced. It uses
// the model's adapters (values as a slice, one per CPU for the per-CPU
// types), so it is Go text like the model; the packages it names (testing,
// sync, htab) are the ones the file imports for the tests jennifer builds.
func (g *generator) stressTest(f *jen.File) {
	alt := "NoPrealloc"
	if g.l.LRU != nil {
		alt = "NoCommonLRU" // LRU maps have no NoPrealloc
	}
	fill := strings.NewReplacer(
		"_MAP_", g.n.Map, "_KEY_", g.n.Key, "_VAL_", g.n.Value, "_p_", g.n.Prefix, "_ALT_", alt,
	)
	f.Add(jen.Id(fill.Replace(stressBody)))
}

const stressBody = `
// _p_StressKeys is how many keys the workers of Test_MAP_ConcurrentValues
// may use, twice the largest map's MaxEntries, so that hash maps fill and
// LRU maps evict.
const _p_StressKeys = 16

// _p_StressVal is the value written under key key (< _p_StressKeys) in write
// ver: byte j is ver + j*(2*key+1), so that byte j minus byte 0 names the
// key, and bytes of two writes whose versions differ mod 256 do not fit
// together. A 1-byte value holds the key in its low 4 bits.
func _p_StressVal(key, ver int) (v _VAL_) {
	if len(v) == 1 {
		v[0] = byte(ver<<4 | key)
		return
	}
	for j := range v {
		v[j] = byte(ver + j*(2*key+1))
	}
	return
}

// _p_StressCheck fails t unless v could be a value written under key key:
// _p_StressVal's pattern, or zero where the map may hold zero (the other
// CPUs' values of a key a program inserted, in the per-CPU types).
func _p_StressCheck(t testing.TB, what string, key int, v _VAL_) bool {
	if _p_ModelPerCPU && v == (_VAL_{}) {
		return true
	}
	ok := len(v) > 1 || int(v[0]&15) == key
	for j := 1; j < len(v); j++ {
		ok = ok && v[j]-v[0] == byte(j*(2*key+1))
	}
	if !ok {
		t.Errorf("%s: key %d holds %x, which no write to key %d stored (torn, or another key's)", what, key, v, key)
	}
	return ok
}

// _p_StressKey is the number of a key _p_TestKey made, or -1. The number,
// under _p_StressKeys, is the key's first byte.
func _p_StressKey(k _KEY_) int {
	if n := int(k[0]); n < _p_StressKeys && _p_TestKey(n) == k {
		return n
	}
	return -1
}

// Test_MAP_ConcurrentValues runs four workers, each with its own CPU handle,
// on maps of 2, 4 and 8 entries (and of 4 with _ALT_) with twice as many
// keys: the smaller the map, the more often the element a reader is in is
// freed and reused under it. (A lookup planted to skip its sequence check
// failed about 17 runs in 20 at 2 entries, 5 in 20 at 8, with 20000
// operations a worker; with -short, 10000.) Each worker mixes writes and
// reads: userspace and program-side updates with every flag, deletes and
// lookup-and-deletes, lookups on both sides, and every 16th operation an
// All, NextKey or LookupBatch walk. An update may fail only as the kernel's
// may with its flag (_p_StressAllowed). Every value read must be one written
// for its key, whole; every key read must be one of the workers'. Run it
// with -race. Afterwards All must list each key once, as many as Len.
func Test_MAP_ConcurrentValues(t *testing.T) {
	for _, c := range []struct {
		name string
		opts htab.Options
	}{
		{"max2", htab.Options{MaxEntries: 2}},
		{"max4", htab.Options{MaxEntries: 4}},
		{"max8", htab.Options{MaxEntries: 8}},
		{"max4-_ALT_", htab.Options{MaxEntries: 4, _ALT_: true}},
	} {
		t.Run(c.name, func(t *testing.T) { _p_StressRun(t, c.opts) })
	}
}

// _p_StressAllowed is the errors an update with flags may return while other
// CPUs change the map: the flag's own (the key is there, or is not), and no
// room, which a hash map reports as ErrFull and an LRU map, whose elements
// may all be held by updates in flight, as ErrNoMem. UpdateExist of a
// present key replaces it without needing room, as in the kernel.
func _p_StressAllowed(flags htab.UpdateFlags) []error {
	noRoom := htab.ErrFull
	if _p_ModelLRU {
		noRoom = htab.ErrNoMem
	}
	switch flags {
	case htab.UpdateNoExist:
		return []error{htab.ErrKeyExist, noRoom}
	case htab.UpdateExist:
		if _p_ModelLRU {
			return []error{htab.ErrKeyNotExist, noRoom} // an LRU replace takes a fresh element
		}
		return []error{htab.ErrKeyNotExist}
	}
	return []error{noRoom}
}

// _p_StressRun is one map of Test_MAP_ConcurrentValues: opts with four CPUs
// and ZeroSeed, keys 0..2*MaxEntries-1.
func _p_StressRun(t *testing.T, opts htab.Options) {
	const workers = 4
	opts.CPUs, opts.ZeroSeed = workers, true
	m, err := New_MAP_(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	nkeys := min(2*m.MaxEntries(), _p_StressKeys)
	ops := 20000
	if testing.Short() {
		ops = 10000
	}
	slots := 1
	if _p_ModelPerCPU {
		slots = m.CPUs()
	}
	okErr := func(what string, err error, allowed ...error) bool {
		if err == nil {
			return true
		}
		for _, a := range allowed {
			if _p_TestIs(err, a) {
				return true
			}
		}
		t.Errorf("%s: %v", what, err)
		return false
	}
	// check reports whether every value in vals could be one written under
	// key; the per-CPU types' LookupBatch gives slots values a key.
	check := func(what string, key int, vals []_VAL_) bool {
		if key < 0 {
			t.Errorf("%s yields a key no worker wrote", what)
			return false
		}
		for _, v := range vals {
			if !_p_StressCheck(t, what, key, v) {
				return false
			}
		}
		return true
	}
	walk := func(kind int) bool {
		switch kind % 3 {
		case 0:
			keys, vals := _p_ModelAll(m)
			for j, k := range keys {
				if !check("All", _p_StressKey(k), vals[j]) {
					return false
				}
			}
		case 1:
			var from *_KEY_
			for range 2 * _p_StressKeys {
				next, err := m.NextKey(from)
				if err != nil {
					return okErr("NextKey", err, htab.ErrKeyNotExist)
				}
				if !check("NextKey", _p_StressKey(next), nil) {
					return false
				}
				from = &next
			}
		default:
			var c htab.Cursor
			bkeys, bvals := make([]_KEY_, 3), make([]_VAL_, 3*slots)
			for range 2 * _p_StressKeys {
				n, err := m.LookupBatch(&c, bkeys, bvals)
				for j := range n {
					if !check("LookupBatch", _p_StressKey(bkeys[j]), bvals[j*slots:(j+1)*slots]) {
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
				k, ver, flags := _p_TestKey(key), i*workers+w, htab.UpdateFlags(x>>24&3)%3
				var good bool
				switch op := (x >> 26) % 8; {
				case i%16 == 15:
					good = walk(i / 16)
				case op == 0:
					vals := make([]_VAL_, slots)
					for c := range vals {
						vals[c] = _p_StressVal(key, ver+c)
					}
					good = okErr("Update", _p_ModelUpdate(m, k, vals, flags), _p_StressAllowed(flags)...)
				case op <= 2:
					good = okErr("CPU.Update", m.CPU(w).Update(k, _p_StressVal(key, ver), flags), _p_StressAllowed(flags)...)
				case op == 3:
					good = okErr("Delete", m.CPU(w).Delete(k), htab.ErrKeyNotExist)
				case op == 4:
					vals, err := _p_ModelLookupAndDelete(m, k)
					good = okErr("LookupAndDelete", err, htab.ErrKeyNotExist) && (err != nil || check("LookupAndDelete", key, vals))
				case op == 5:
					v, ok := m.CPU(w).Lookup(k)
					good = !ok || check("CPU.Lookup", key, []_VAL_{v})
				default:
					vals, ok := _p_ModelLookup(m, k)
					good = !ok || check("Lookup", key, vals)
				}
				if !good {
					return
				}
			}
		})
	}
	wg.Wait()
	keys, _ := _p_ModelAll(m)
	seen := map[_KEY_]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("after the workers stopped, All yields key %x twice", k)
		}
		seen[k] = true
	}
	if len(keys) != m.Len() {
		t.Errorf("after the workers stopped, All yields %d keys, Len is %d", len(keys), m.Len())
	}
}
`
