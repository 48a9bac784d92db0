package templates

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// modelTests emits the -tests file's model checker and the two tests that
// drive it: Test<Map>RandomOps (random operations on a few chosen maps) and
// Fuzz<Map>Ops (the fuzzer picks the map and the operations). The model
// knows what the map must hold by the kernel's rules, each key's values and
// each bucket's keys newest first, so it checks the order of All, NextKey and
// a batch dump as well as every result. Options, CPUs, the userspace and the
// program side, every update flag: the input picks them all. An LRU map's
// evictions are not predicted, they are reconciled: the model drops what the
// map dropped and checks that the kernel's algorithm could have dropped it
// (how many one update may evict, and none while the map has room enough).
//
// The model is Go text with placeholders, like the batch test: it is mostly
// fixed code, which reads better as code than as jennifer calls. It uses only
// packages the file imports anyway (testing and htab); what needs another
// import is emitted with jennifer, which tracks imports (<prefix>TestIs).
func (g *generator) modelTests(f *jen.File) {
	access := modelSingleValue
	if g.l.PerCPU != nil {
		access = modelPerCPU
	}
	fill := strings.NewReplacer(
		"_MAP_", g.n.Map, "_KEY_", g.n.Key, "_VAL_", g.n.Value, "_p_", g.n.Prefix,
		"_PERCPU_", strconv.FormatBool((g.l.PerCPU != nil)), "_LRU_", strconv.FormatBool((g.l.LRU != nil)),
	)
	f.Add(jen.Id(fill.Replace(access + modelBody)))

	// Test<Map>RandomOps: the same runs as the fuzzer's, from a seeded generator.
	alt, option := "noprealloc", "NoPrealloc"
	if g.l.LRU != nil {
		alt, option = "nocommonlru", "NoCommonLRU" // LRU maps have no NoPrealloc
	}
	runs := []struct {
		name string
		opts byte // as <prefix>ModelOf reads it
	}{
		{"max64-cpus2", 0x0f},
		{"max64-cpus2-" + alt, 0x2f},
		{"max64-cpus2-degenerate", 0x4f},
		{"max7-cpus3", 0x14},
		{"max1-cpus2", 0x08},
		{"max16-cpus1", 0x06},
		{"max64-cpus2-cpu0", 0x8f},
		{"max64-cpus2-" + alt + "-cpu0", 0xaf},
		{"max7-cpus3-" + alt + "-cpu0", 0xb4},
	}
	var cases []jen.Code
	for _, r := range runs {
		cases = append(cases, jen.Values(jen.Lit(r.name), jen.Op(fmt.Sprintf("%#02x", r.opts))))
	}
	f.Commentf("Test%sRandomOps runs %d random operations (%d with -short) on", g.n.Map, randomOps, randomOpsShort)
	f.Commentf("each of a few maps and on their models (%s): 64 entries on", g.testHelper("runOps"))
	f.Commentf("2 CPUs, also with %s and with every key in bucket 0; 7 entries on", option)
	f.Comment("3 CPUs; 1 entry; 16 on 1 CPU; 64 on 2 CPUs and 7 on 3 with every")
	f.Commentf("program-side operation on CPU 0 (the second also with %s).", option)
	f.Commentf("Every other run of %d operations is three quarters updates, so that", fillPhase)
	f.Comment("the maps fill (and LRU maps evict) before the other operations empty them.")
	f.Func().Id("Test" + g.n.Map + "RandomOps").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("run")).Op(":=").Range().Index().Struct(
			jen.Id("name").String(), jen.Id("opts").Byte(),
		).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, cases...)).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("run").Dot("name"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
				jen.Id("rng").Op(":=").Qual("math/rand/v2", "New").Call(jen.Qual("math/rand/v2", "NewPCG").Call(jen.Lit(1), jen.Uint64().Call(jen.Id("run").Dot("opts")))),
				jen.Id("n").Op(":=").Lit(randomOps),
				jen.If(jen.Qual("testing", "Short").Call()).Block(jen.Id("n").Op("=").Lit(randomOpsShort)),
				jen.Id("data").Op(":=").Make(jen.Index().Byte(), jen.Lit(1).Op("+").Lit(3).Op("*").Id("n")),
				jen.For(jen.Id("i").Op(":=").Range().Id("data")).Block(
					jen.Id("data").Index(jen.Id("i")).Op("=").Byte().Call(jen.Id("rng").Dot("Uint32").Call()),
				),
				jen.For(jen.Id("i").Op(":=").Range().Id("n")).Block(
					jen.If(jen.Id("i").Op("/").Lit(fillPhase).Op("%").Lit(2).Op("==").Lit(0).Op("&&").Id("rng").Dot("IntN").Call(jen.Lit(4)).Op("!=").Lit(0)).Block(
						jen.Id("data").Index(jen.Lit(1).Op("+").Lit(3).Op("*").Id("i")).Op("=").Byte().Call(jen.Id("rng").Dot("IntN").Call(jen.Lit(2))).Comment("Update or CPU(c).Update"),
					),
				),
				jen.Id("data").Index(jen.Lit(0)).Op("=").Id("run").Dot("opts"),
				jen.Id(g.testHelper("runOps")).Call(jen.Id("t"), jen.Id("data")),
			)),
		),
	)
}

// How many operations Test<Map>RandomOps runs on each map; the spec
// matrix, which tests hundreds of maps, runs them with -short.
const randomOps, randomOpsShort = 4000, 500

// fillPhase is how many operations of Test<Map>RandomOps fill the map
// before as many run uniformly.
const fillPhase = 250

// modelSingleValue: hash and lru. The model keeps one value per key, as a
// slice of one, so that one body serves every type.
const modelSingleValue = `
// _p_ModelLookup, _p_ModelLookupAndDelete, _p_ModelUpdate and _p_ModelAll
// are the map's userspace methods with a key's values as a slice: one value
// here.
func _p_ModelLookup(m *_MAP_, k _KEY_) ([]_VAL_, bool) {
	v, ok := m.Lookup(k)
	return []_VAL_{v}, ok
}

func _p_ModelLookupAndDelete(m *_MAP_, k _KEY_) ([]_VAL_, error) {
	v, err := m.LookupAndDelete(k)
	return []_VAL_{v}, err
}

func _p_ModelUpdate(m *_MAP_, k _KEY_, vals []_VAL_, flags htab.UpdateFlags) error {
	return m.Update(k, vals[0], flags)
}

func _p_ModelAll(m *_MAP_) (keys []_KEY_, vals [][]_VAL_) {
	for k, v := range m.All() {
		keys, vals = append(keys, k), append(vals, []_VAL_{v})
	}
	return keys, vals
}
`

// modelPerCPU: pcpu and lru_pcpu, with every CPU's value.
const modelPerCPU = `
// _p_ModelLookup, _p_ModelLookupAndDelete, _p_ModelUpdate and _p_ModelAll
// are the map's userspace methods with a key's values as a slice: CPU c's
// at [c].
func _p_ModelLookup(m *_MAP_, k _KEY_) ([]_VAL_, bool) {
	vals := make([]_VAL_, m.CPUs())
	return vals, m.Lookup(k, vals)
}

func _p_ModelLookupAndDelete(m *_MAP_, k _KEY_) ([]_VAL_, error) {
	vals := make([]_VAL_, m.CPUs())
	return vals, m.LookupAndDelete(k, vals)
}

func _p_ModelUpdate(m *_MAP_, k _KEY_, vals []_VAL_, flags htab.UpdateFlags) error {
	return m.Update(k, vals, flags)
}

func _p_ModelAll(m *_MAP_) (keys []_KEY_, vals [][]_VAL_) {
	for k, vs := range m.All() {
		keys, vals = append(keys, k), append(vals, append([]_VAL_(nil), vs...))
	}
	return keys, vals
}
`

const modelBody = `
const (
	_p_ModelPerCPU = _PERCPU_ // a value per CPU; a replace is in place
	_p_ModelLRU    = _LRU_    // updates evict
)

// _p_Model is what a map must hold after the operations so far, by the
// kernel's rules: each key's values (CPU c's at [c] for the per-CPU types,
// else one) and each bucket's keys, newest first. Its methods run one
// operation on the map and on the model and fail t at the first difference.
type _p_Model struct {
	t       testing.TB
	m       *_MAP_
	vals    map[_KEY_][]_VAL_
	buckets [][]_KEY_ // bucket b's keys, newest first

	// LRU maps: how many keys an update may evict (evictBounds). evictMax
	// is one shrink: target_free keys, or PERCPU_FREE_TARGET with
	// NoCommonLRU. With NoCommonLRU each CPU's list holds share elements,
	// and owner says whose list holds each key's element (the userspace
	// side is CPU 0).
	evictMax, share int
	owner           map[_KEY_]int // NoCommonLRU only
	onlyCPU0        bool          // no update on another CPU yet

	cpu0 bool // every program-side operation runs on CPU 0

	compared int // the last step after which compare ran (+1, so that 0 is none)
}

// _p_ModelOf makes a map and its model with the options that b picks: bits
// 0-2 MaxEntries (1, 2, 3, 4, 7, 8, 16, 64), bits 3-4 CPUs (1, 2, 3, 1), bit 5
// NoPrealloc (NoCommonLRU for an LRU map), bit 6 a degenerate hash that puts
// every key in bucket 0, bit 7 every program-side operation on CPU 0 (so that
// an LRU map's model knows when it must not evict).
func _p_ModelOf(t testing.TB, b byte) *_p_Model {
	opts := htab.Options{
		MaxEntries: []int{1, 2, 3, 4, 7, 8, 16, 64}[b&7],
		CPUs:       1 + int(b>>3&3)%3,
		ZeroSeed:   true,
	}
	if _p_ModelLRU {
		opts.NoCommonLRU = b&0x20 != 0
	} else {
		opts.NoPrealloc = b&0x20 != 0
	}
	m, err := New_MAP_(opts)
	if err != nil {
		t.Fatalf("New(%+v): %v", opts, err)
	}
	if b&0x40 != 0 {
		m.mask = 0
	}
	md := &_p_Model{t: t, m: m, vals: map[_KEY_][]_VAL_{}, buckets: make([][]_KEY_, m.mask+1), onlyCPU0: true, cpu0: b&0x80 != 0}
	if opts.NoCommonLRU {
		md.evictMax, md.share, md.owner = 4, m.MaxEntries()/m.CPUs(), map[_KEY_]int{}
	} else {
		md.evictMax = min(max(m.MaxEntries()/m.CPUs()/2, 1), 128) // target_free
	}
	return md
}

// _p_RunOps runs the operations that data encodes on a new map and on its
// model: data[0] picks the map (_p_ModelOf), then every three bytes are an
// operation (step). After every step the map's contents, in iteration
// order, must be the model's; after every 8th and the last, so must what
// the NextKey and LookupBatch walks see.
func _p_RunOps(t testing.TB, data []byte) {
	if len(data) == 0 {
		return
	}
	md := _p_ModelOf(t, data[0])
	for i := 1; i+2 < len(data); i += 3 {
		md.step(i/3, data[i], data[i+1], data[i+2])
		if i/3%8 == 7 {
			md.check(i / 3)
		} else if md.compared != i/3+1 { // an LRU update compares already
			keys, vals := _p_ModelAll(md.m)
			md.compare(i/3, keys, vals)
		}
	}
	md.check(len(data) / 3)
}

// step runs operation op%12 (0 Update, 1 CPU(c).Update, 2 Delete,
// 3 CPU(c).Delete, 4 LookupAndDelete, 5 Lookup, 6 CPU(c).Lookup, 7 NextKey,
// 8 a LookupBatch walk, 9 one LookupAndDeleteBatch, 10 DeleteBatch,
// 11 UpdateBatch) on key kb%(2*MaxEntries+3); arg picks the flags (arg&3,
// 3 is invalid), the CPU (arg>>2, unless cpu0), for NextKey a nil key
// (arg&3 == 3), the room of a batch call (arg&7 + 1) and how many keys
// DeleteBatch and UpdateBatch take (run; one for an LRU map's UpdateBatch).
func (md *_p_Model) step(step int, op, kb, arg byte) {
	t, m := md.t, md.m
	k := _p_TestKey(int(kb) % (2*m.MaxEntries() + 3))
	v := _p_TestVal(step)
	cpu, flags := int(arg>>2)%m.CPUs(), htab.UpdateFlags(arg&3)
	if md.cpu0 {
		cpu = 0
	}
	old, present := md.vals[k]
	switch op %= 12; op {
	case 0:
		md.update(step, k, _p_ModelUserspace, v, flags)
	case 1:
		md.update(step, k, cpu, v, flags)
	case 2, 3:
		var err error
		if op == 2 {
			cpu = _p_ModelUserspace
			err = m.Delete(k)
		} else {
			err = m.CPU(cpu).Delete(k)
		}
		if present && err != nil || !present && !_p_TestIs(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: Delete(%x) on CPU %d (-1: userspace) = %v; present %v", step, k, cpu, err, present)
		}
		md.remove(k)
	case 4:
		got, err := _p_ModelLookupAndDelete(m, k)
		if present && (err != nil || !md.same(got, old)) || !present && !_p_TestIs(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: LookupAndDelete(%x) = %x, %v; want %x, present %v", step, k, got, err, old, present)
		}
		md.remove(k)
	case 5:
		got, ok := _p_ModelLookup(m, k)
		if ok != present || ok && !md.same(got, old) {
			t.Fatalf("step %d: Lookup(%x) = %x, %v; want %x, %v", step, k, got, ok, old, present)
		}
	case 6:
		got, ok := m.CPU(cpu).Lookup(k)
		if ok != present || ok && got != old[md.slot(cpu)] {
			t.Fatalf("step %d: CPU(%d).Lookup(%x) = %x, %v; want %x", step, cpu, k, got, ok, old)
		}
	case 7:
		from := &k
		if arg&3 == 3 {
			from = nil
		}
		next, err := m.NextKey(from)
		want, ok := md.next(from)
		if ok && (err != nil || next != want) || !ok && !_p_TestIs(err, htab.ErrKeyNotExist) {
			t.Fatalf("step %d: NextKey(%x, present %v) = %x, %v; want %x, %v", step, k, present && from != nil, next, err, want, ok)
		}
	case 8:
		md.batchWalk(step, int(arg&7)+1)
	case 9:
		md.batchDelete(step, int(arg&7)+1)
	case 10:
		keys := md.run(kb, arg)
		n, err := m.DeleteBatch(keys)
		want := 0 // DeleteBatch stops at the first absent key
		for ; want < len(keys); want++ {
			if _, ok := md.vals[keys[want]]; !ok {
				break
			}
			md.remove(keys[want])
		}
		if n != want || want < len(keys) && !_p_TestIs(err, htab.ErrKeyNotExist) || want == len(keys) && err != nil {
			t.Fatalf("step %d: DeleteBatch(%x) = %d, %v; want %d", step, keys, n, err, want)
		}
	case 11:
		if _p_ModelLRU {
			md.update(step, k, _p_ModelBatch, v, flags) // one key: evictions are reconciled per update
		} else {
			md.updateBatch(step, md.run(kb, arg), v, flags)
		}
	}
	if n := m.Len(); n != len(md.vals) {
		t.Fatalf("step %d (op %d): Len() = %d, want %d", step, op, n, len(md.vals))
	}
}

// The update callers that are not a CPU's program side.
const (
	_p_ModelUserspace = -1 // Update
	_p_ModelBatch     = -2 // UpdateBatch of one key
)

// update runs an update of k on CPU cpu's program side, or as
// _p_ModelUserspace or _p_ModelBatch, and checks its result.
func (md *_p_Model) update(step int, k _KEY_, cpu int, v _VAL_, flags htab.UpdateFlags) {
	t, m := md.t, md.m
	old, present := md.vals[k]
	// fresh is what a new k holds, replaced what a present k holds after.
	fresh := make([]_VAL_, md.slots())
	var err error
	if cpu < 0 {
		for c := range fresh {
			fresh[c] = v
			fresh[c][0] += byte(c)
		}
		if cpu == _p_ModelUserspace {
			err = _p_ModelUpdate(m, k, fresh, flags)
		} else {
			var n int
			n, err = m.UpdateBatch([]_KEY_{k}, fresh, flags)
			if n != 1 && err == nil || n != 0 && err != nil {
				t.Fatalf("step %d: UpdateBatch of one key = %d, %v", step, n, err)
			}
		}
	} else {
		md.onlyCPU0 = md.onlyCPU0 && cpu == 0
		fresh[md.slot(cpu)] = v // a new key zeroes the other CPUs
		err = m.CPU(cpu).Update(k, v, flags)
	}
	replaced := fresh
	if _p_ModelPerCPU && present && cpu >= 0 {
		replaced = append([]_VAL_(nil), old...)
		replaced[cpu] = v
	}
	// UpdateBatch takes only UpdateAny, as the kernel's (elem_flags).
	invalid := flags > htab.UpdateExist || cpu == _p_ModelBatch && flags != htab.UpdateAny
	// An LRU map's contents after the update, read once: for evicted and for
	// the comparison below.
	var keys []_KEY_
	var vals [][]_VAL_
	if _p_ModelLRU {
		keys, vals = _p_ModelAll(m)
		present = md.evicted(step, k, cpu, present, replaced, flags, invalid, err, keys, vals)
	}
	var want error
	switch {
	case invalid:
		want = htab.ErrInvalid
	case flags == htab.UpdateNoExist && present:
		want = htab.ErrKeyExist
	case flags == htab.UpdateExist && !present:
		want = htab.ErrKeyNotExist
	case !_p_ModelLRU && !present && len(md.vals) == m.MaxEntries():
		want = htab.ErrFull
	}
	if want == nil && err != nil || want != nil && !_p_TestIs(err, want) {
		t.Fatalf("step %d: Update(%x, flags %d) on CPU %d (-1: Update, -2: UpdateBatch) = %v, want %v; present %v", step, k, flags, cpu, err, want, present)
	}
	if err != nil {
		return
	}
	if present {
		md.put(k, replaced, _p_ModelPerCPU)
	} else {
		md.put(k, fresh, false)
	}
	if md.owner != nil && !(present && _p_ModelPerCPU) {
		md.owner[k] = max(cpu, 0) // a new element, from the updating CPU's list
	}
	if _p_ModelLRU {
		md.compare(step, keys, vals)
	}
}

// evicted drops from an LRU map's model the keys the update of k evicted
// (those the map's contents after it, keys and vals, lack), k too if the
// update's own eviction took it before the update looked it up, checks them
// against evictBounds, and returns whether k was present when the update
// looked it up.
func (md *_p_Model) evicted(step int, k _KEY_, cpu int, present bool, replaced []_VAL_, flags htab.UpdateFlags, invalid bool, err error, keys []_KEY_, vals [][]_VAL_) bool {
	t, c := md.t, max(cpu, 0)
	low, high := md.evictBounds(c, present, invalid || _p_ModelPerCPU && flags == htab.UpdateExist)
	in := make(map[_KEY_][]_VAL_, len(keys))
	for i, key := range keys {
		in[key] = vals[i]
	}
	before := len(md.vals)
	var gone []_KEY_
	for key := range md.vals {
		if _, ok := in[key]; !ok && key != k {
			gone = append(gone, key)
		}
	}
	for _, key := range gone {
		md.dropEvicted(step, c, key)
	}
	if got, ok := in[k]; present {
		switch {
		case !ok: // then err must be ErrKeyNotExist, for UpdateExist
		case err == nil && flags == htab.UpdateNoExist:
			ok = false // it would have been ErrKeyExist
		case err == nil && flags == htab.UpdateAny && _p_ModelPerCPU && len(gone) < high:
			// Replaced in place, or evicted and inserted anew, the newest of
			// its bucket: where it is and what it holds tell.
			ok = md.same(got, replaced) && md.place(md.buckets[md.bucket(k)], k) == md.place(keys, k)
		}
		if !ok {
			gone = append(gone, k)
			md.dropEvicted(step, c, k)
		}
		present = ok
	}
	if len(gone) < low || len(gone) > high {
		t.Fatalf("step %d: Update(%x, flags %d) on CPU %d evicted %d keys (%x) of %d; want %d to %d", step, k, flags, cpu, len(gone), gone, before, low, high)
	}
	return present
}

// dropEvicted drops k, which an update on CPU c evicted, from the model;
// with NoCommonLRU, k's element must have been on CPU c's list.
func (md *_p_Model) dropEvicted(step, c int, k _KEY_) {
	if o, ok := md.owner[k]; ok && o != c {
		md.t.Fatalf("step %d: an update on CPU %d evicted %x, whose element is on CPU %d's list", step, c, k, o)
	}
	md.remove(k)
}

// evictBounds is how many keys an update on CPU c (present: of a key the
// map holds; noPop: one that takes no element) may evict, by the kernel's
// LRU. One shrink evicts at most evictMax. With NoCommonLRU, CPU c shrinks
// its own list only when every element on it is in use, and then evicts at
// least one (unless the key was present: it may have evicted the key itself,
// unseen). With the common LRU, while only CPU 0 has updated, every free
// element is on CPU 0's local free list or the global one, and a refill
// (when the local list is empty) evicts only what the global list lacks of
// target_free.
func (md *_p_Model) evictBounds(c int, present, noPop bool) (low, high int) {
	switch {
	case noPop:
		return 0, 0
	case md.owner != nil:
		used := 0
		for _, o := range md.owner {
			if o == c {
				used++
			}
		}
		if used < md.share {
			return 0, 0
		}
		if !present {
			low = 1
		}
		return low, md.evictMax
	case md.onlyCPU0:
		return 0, max(0, md.evictMax-(md.m.MaxEntries()-len(md.vals)))
	}
	return 0, md.evictMax
}

// run is the keys of a DeleteBatch or UpdateBatch: arg>>2&3 + 1 of them,
// kb's key and the ones after it.
func (md *_p_Model) run(kb, arg byte) []_KEY_ {
	keys := make([]_KEY_, 1+int(arg>>2&3))
	for j := range keys {
		keys[j] = _p_TestKey((int(kb) + j) % (2*md.m.MaxEntries() + 3))
	}
	return keys
}

// updateBatch runs UpdateBatch of keys on a hash or per-CPU map, each key's
// value v with its index added to the first byte: as the kernel's, it takes
// only UpdateAny, updates the keys in turn and stops at the first error
// (ErrFull), returning how many it updated.
func (md *_p_Model) updateBatch(step int, keys []_KEY_, v _VAL_, flags htab.UpdateFlags) {
	t, slots := md.t, md.slots()
	vals := make([]_VAL_, len(keys)*slots)
	for i := range vals {
		vals[i] = v
		vals[i][0] += byte(i) // key i/slots, CPU i%slots
	}
	n, err := md.m.UpdateBatch(keys, vals, flags)
	want, wantErr := 0, error(nil)
	if flags != htab.UpdateAny {
		wantErr = htab.ErrInvalid
	}
	for ; wantErr == nil && want < len(keys); want++ {
		k := keys[want]
		_, present := md.vals[k]
		if !present && len(md.vals) == md.m.MaxEntries() {
			wantErr = htab.ErrFull
			break
		}
		md.put(k, vals[want*slots:(want+1)*slots], _p_ModelPerCPU)
	}
	if n != want || wantErr == nil && err != nil || wantErr != nil && !_p_TestIs(err, wantErr) {
		t.Fatalf("step %d: UpdateBatch(%x, flags %d) = %d, %v; want %d, %v", step, keys, flags, n, err, want, wantErr)
	}
}

// batchCall is what a batch call with room for n keys must return from
// bucket b on, by the kernel's rule: the whole buckets that fit; ErrNoSpace
// if the first non-empty one does not fit an empty call; ErrKeyNotExist from
// the call that reaches the end. next is where the next call starts.
func (md *_p_Model) batchCall(b, n int) (got, next int, err error) {
	for ; b < len(md.buckets); b++ {
		if l := len(md.buckets[b]); got+l > n {
			if got == 0 {
				return 0, b, htab.ErrNoSpace
			}
			return got, b, nil
		}
		got += len(md.buckets[b])
	}
	return got, b, htab.ErrKeyNotExist
}

// batchCheck checks what a batch call returned against batchCall's answer
// and the model's keys from position at of the order.
func (md *_p_Model) batchCheck(step int, what string, keys []_KEY_, vals []_VAL_, got int, err error, want int, wantErr error, at int) {
	t, order := md.t, md.order()
	if got != want || wantErr == nil && err != nil || wantErr != nil && !_p_TestIs(err, wantErr) {
		t.Fatalf("step %d: %s with room for %d keys = %d, %v; want %d, %v", step, what, len(keys), got, err, want, wantErr)
	}
	for i := range got {
		v := vals[i*md.slots() : (i+1)*md.slots()]
		if k := order[at+i]; keys[i] != k || !md.same(v, md.vals[k]) {
			t.Fatalf("step %d: %s's key %d is %x = %x, want %x = %x", step, what, i, keys[i], v, k, md.vals[k])
		}
	}
}

// batchWalk walks the whole map with LookupBatch, with room for n keys a
// call (twice as many after ErrNoSpace), checking every call.
func (md *_p_Model) batchWalk(step, n int) {
	c, b, at := new(htab.Cursor), 0, 0
	for calls := 0; ; calls++ {
		if calls > len(md.buckets)+8 {
			md.t.Fatalf("step %d: the LookupBatch walk does not end", step)
		}
		want, next, wantErr := md.batchCall(b, n)
		keys, vals := make([]_KEY_, n), make([]_VAL_, n*md.slots())
		got, err := md.m.LookupBatch(c, keys, vals)
		md.batchCheck(step, "LookupBatch", keys, vals, got, err, want, wantErr, at)
		switch at, b = at+got, next; wantErr {
		case nil:
		case htab.ErrNoSpace:
			n *= 2
		default:
			return
		}
	}
}

// batchDelete runs one LookupAndDeleteBatch from the start, with room for
// n keys, and deletes from the model what it must have deleted.
func (md *_p_Model) batchDelete(step, n int) {
	want, _, wantErr := md.batchCall(0, n)
	keys, vals := make([]_KEY_, n), make([]_VAL_, n*md.slots())
	got, err := md.m.LookupAndDeleteBatch(new(htab.Cursor), keys, vals)
	md.batchCheck(step, "LookupAndDeleteBatch", keys, vals, got, err, want, wantErr, 0)
	for _, k := range keys[:got] {
		md.remove(k)
	}
}

// bucket is k's bucket: the kernel's jhash of k with the map's seed, masked.
func (md *_p_Model) bucket(k _KEY_) uint32 { return htab.Jhash(k[:], md.m.seed) & md.m.mask }

// place is how many keys of k's bucket come before k in keys.
func (md *_p_Model) place(keys []_KEY_, k _KEY_) int {
	n := 0
	for _, key := range keys {
		if key == k {
			return n
		}
		if md.bucket(key) == md.bucket(k) {
			n++
		}
	}
	return -1
}

// slots is how many values the model keeps per key; slot(c) is the one that
// CPU c's program side reads and writes.
func (md *_p_Model) slots() int {
	if _p_ModelPerCPU {
		return md.m.CPUs()
	}
	return 1
}

func (md *_p_Model) slot(c int) int {
	if _p_ModelPerCPU {
		return c
	}
	return 0
}

// put gives k the values vals: in place if inPlace and k is present, else
// as the newest key of its bucket.
func (md *_p_Model) put(k _KEY_, vals []_VAL_, inPlace bool) {
	if _, ok := md.vals[k]; !ok || !inPlace {
		md.remove(k)
		b := md.bucket(k)
		md.buckets[b] = append([]_KEY_{k}, md.buckets[b]...)
	}
	md.vals[k] = vals
}

func (md *_p_Model) remove(k _KEY_) {
	delete(md.vals, k)
	delete(md.owner, k)
	b := md.bucket(k)
	for i, key := range md.buckets[b] {
		if key == k {
			md.buckets[b] = append(md.buckets[b][:i:i], md.buckets[b][i+1:]...)
			return
		}
	}
}

// order is every key in the kernel's order: buckets ascending, each newest first.
func (md *_p_Model) order() (keys []_KEY_) {
	for _, b := range md.buckets {
		keys = append(keys, b...)
	}
	return keys
}

// next is what NextKey(from) must return: the key after from, or the first
// key if from is nil or absent; false after the last.
func (md *_p_Model) next(from *_KEY_) (_KEY_, bool) {
	order := md.order()
	i := 0
	if from != nil {
		for j, k := range order {
			if k == *from {
				i = j + 1
			}
		}
	}
	if i == len(order) {
		return _KEY_{}, false
	}
	return order[i], true
}

func (md *_p_Model) same(a, b []_VAL_) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compare checks keys and vals, what All yielded, against the model.
func (md *_p_Model) compare(step int, keys []_KEY_, vals [][]_VAL_) {
	md.compared = step + 1
	order := md.order()
	if len(keys) != len(order) {
		md.t.Fatalf("after step %d: All yields %d keys, want %d:\n%x\nwant\n%x", step, len(keys), len(order), keys, order)
	}
	for i, k := range order {
		if keys[i] != k || !md.same(vals[i], md.vals[k]) {
			md.t.Fatalf("after step %d: All's key %d is %x = %x, want %x = %x", step, i, keys[i], vals[i], k, md.vals[k])
		}
	}
}

// check compares the whole map with the model three ways: All, a NextKey
// walk, and one LookupBatch with room for every key.
func (md *_p_Model) check(step int) {
	t, m := md.t, md.m
	keys, vals := _p_ModelAll(m)
	md.compare(step, keys, vals)
	var from *_KEY_
	for i, want := range keys {
		next, err := m.NextKey(from)
		if err != nil || next != want {
			t.Fatalf("after step %d: NextKey walk step %d = %x, %v; want %x", step, i, next, err, want)
		}
		from = &next
	}
	if _, err := m.NextKey(from); !_p_TestIs(err, htab.ErrKeyNotExist) {
		t.Fatalf("after step %d: NextKey after the last key = %v, want ErrKeyNotExist", step, err)
	}
	bkeys := make([]_KEY_, max(len(keys), 1))
	bvals := make([]_VAL_, len(bkeys)*md.slots())
	n, err := m.LookupBatch(new(htab.Cursor), bkeys, bvals)
	if n != len(keys) || !_p_TestIs(err, htab.ErrKeyNotExist) {
		t.Fatalf("after step %d: LookupBatch with room for all %d keys = %d, %v; want %d, ErrKeyNotExist", step, len(keys), n, err, len(keys))
	}
	for i := range n {
		if got := bvals[i*md.slots() : (i+1)*md.slots()]; bkeys[i] != keys[i] || !md.same(got, vals[i]) {
			t.Fatalf("after step %d: LookupBatch's key %d is %x = %x, want %x = %x", step, i, bkeys[i], got, keys[i], vals[i])
		}
	}
}

// Fuzz_MAP_Ops runs the operations that its input encodes on a map and on
// its model (_p_RunOps).
func Fuzz_MAP_Ops(f *testing.F) {
	for _, seed := range []string{
		"\x0f\x00\x01\x00\x00\x02\x01\x05\x01\x00\x07\x02\x03\x02\x01\x00",
		"\x2f\x01\x01\x04\x01\x02\x08\x06\x01\x04\x04\x01\x00\x07\x00\x03",
		"\x48\x00\x01\x00\x00\x02\x02\x00\x03\x01\x03\x01\x00\x05\x03\x00",
		"\x11\x01\x00\x08\x01\x01\x04\x00\x02\x00\x06\x00\x08\x02\x00\x04",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { _p_RunOps(t, data) })
}
`
