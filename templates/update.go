package templates

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// update emits the write paths over the storage primitives: update (behind
// Update and the CPU handles' Update), Update, Delete and LookupAndDelete.
// Each takes the key's bucket lock and frees what it frees before it unlocks,
// so single-key operations are linearizable; a pcpu program's update of a
// present key writes its own CPU's slot under that slot's lock instead. The
// four types differ as their kernel functions do:
//
//	hash      htab_map_update_elem: a replace moves the key to the bucket head.
//	pcpu      htab_percpu_map_update_elem: a replace is in place.
//	lru       htab_lru_map_update_elem: an element is taken from the LRU (which
//	          may evict) before the key is looked up.
//	lru_pcpu  __htab_lru_percpu_map_update_elem: as pcpu, but the new element
//	          comes from the LRU, and only when the flags allow a new key.
func (g *generator) update(f *jen.File) {
	l := g.l
	switch {
	case l.LRU != nil && l.PerCPU != nil:
		g.updateLRUPerCPU(f)
	case l.LRU != nil:
		g.updateLRU(f)
	case l.PerCPU != nil:
		g.updatePerCPU(f)
	default:
		g.updateHash(f)
	}
	g.updateAPI(f)
	g.deletes(f)
}

// updatePrologue is the start of every update: the flags, the key's words,
// hash and bucket:
//
//	if err := flags.Check(); err != nil { return err }
//	w := k.words(); h := m.hash(k, &w); bi := h & m.mask; b := m.lock(bi)
const updatePrologue = `	if err := flags.Check(); err != nil {
		return err
	}
	w := k.words()
	h := m.hash(k, &w)
$(filterExist)	bi := h & m.mask
	b := m.lock(bi)
`

// flagErrors is what the flags say of the key found (i, index+1; 0: absent),
// after onErr (code that gives back what the update took) and unlocking:
//
//	if i != 0 && flags == htab.UpdateNoExist { <onErr>; b.Unlock(); return htab.ErrKeyExist }
//	if i == 0 && flags == htab.UpdateExist { <onErr>; b.Unlock(); return htab.ErrKeyNotExist }
func flagErrors(onErr string) string {
	return strings.ReplaceAll(`	if i != 0 && flags == htab.UpdateNoExist {
		ONERR		b.Unlock()
		return htab.ErrKeyExist
	}
	if i == 0 && flags == htab.UpdateExist {
		ONERR		b.Unlock()
		return htab.ErrKeyNotExist
	}
`, "ONERR", onErr)
}

// linkNew is the end of an insert into the locked bucket bi of the classic
// layout: element n takes the key w (of hash h) and its value (setValue),
// goes to the head and is counted, and the bucket is unlocked.
func linkNew(setValue string) string {
	return `	e := m.elem(n)
	e.setKey(&w, h)
	` + setValue + `
	m.linkHead(bi, n+1)
	m.count.Add(1)
	b.Unlock()
	return nil
`
}

// updateHash emits a hash map's update, over the storage's replace and
// insert:
//
//	func (m *<Map>) update(k *<Key>, v *<Value>, flags htab.UpdateFlags) error
func (g *generator) updateHash(f *jen.File) {
	body := `	b.Lock()
	prev, i := m.find(bi, &w, h)
` + flagErrors("") + `	if i != 0 {
		$(replace)
		b.Unlock()
		return nil
	}
$(filterAdd)	$(insert)`
	if g.st.insertRetries() {
		body = "\tfor {\n" + body + "\t}\n"
	}
	f.Add(g.code(`
// update is Update, and CPU(i).Update, which is the same on every CPU for a
// hash map.
func (m *$Map) update(k *$Key, v *$Value, flags htab.UpdateFlags) error {
`+updatePrologue+body+`}
`, append(g.filterHoles(), fill("replace", g.st.hashReplace()), fill("insert", g.st.hashInsert()))...))
}

// updatePerCPU emits a pcpu map's update: every CPU's value from vals (the
// userspace side), or with vals nil CPU cpu's from v (a program), whose
// update of a present key takes the slot lock alone (slotFastPath).
//
//	func (m *<Map>) update(k *<Key>, vals []<Value>, v *<Value>, cpu int, flags htab.UpdateFlags) error
func (g *generator) updatePerCPU(f *jen.File) {
	f.Add(g.code(`
// update is Update as on CPU cpu: it sets every CPU's value from vals,
// or, with vals nil, CPU cpu's from v.
func (m *$Map) update(k *$Key, vals []$Value, v *$Value, cpu int, flags htab.UpdateFlags) error {
`+updatePrologue+`$(fastPath)	b.Lock()
	_, i := m.find(bi, &w, h)
`+flagErrors("")+`	if i != 0 {
		m.storeValues(i-1, vals, v, cpu, false)
		b.Unlock()
		return nil
	}
$(filterAdd)	n, ok := m.alloc()
	if !ok {
		b.Unlock()
		return htab.ErrFull
	}
`+linkNew("m.storeValues(n, vals, v, cpu, true)")+`}
`, append(g.filterHoles(), fill("fastPath", g.slotFastPath()))...))
}

// updateLRU emits an LRU map's update, which takes its element from the LRU
// before it locks the bucket, as the kernel's does:
//
//	func (m *<Map>) update(k *<Key>, v *<Value>, cpu int, flags htab.UpdateFlags) error
func (g *generator) updateLRU(f *jen.File) {
	f.Add(g.code(`
// update is Update as on CPU cpu: the CPU whose LRU lists provide the new
// element.
func (m *$Map) update(k *$Key, v *$Value, cpu int, flags htab.UpdateFlags) error {
`+updatePrologue+`	// As the kernel does, take an element first: the LRU may evict for it,
	// even the very key being updated.
	n, ok := m.lru.Pop(cpu)
	if !ok {
		return htab.ErrNoMem
	}
	e := m.elem(n)
	e.setKey(&w, h)
	e.setValue(v)
	b.Lock()
	prev, i := m.find(bi, &w, h)
`+flagErrors("m.lru.Push(n)\n")+`$(filterAdd)	m.linkHead(bi, n+1)
	if i == 0 {
		m.count.Add(1)
		b.Unlock()
		return nil
	}
	// A replace: the kernel sets the new element's ref bit (htab_lru_map_update_elem).
	e.node.Ref()
	if prev == 0 {
		prev = n + 1
	}
	m.unlink(bi, prev, i)
	// The count is unchanged: the old element goes back to the LRU as is,
	// before the unlock, as a deleted key's element does.
	m.lru.Push(i - 1)
	b.Unlock()
	return nil
}
`, g.filterHoles()...))
}

// updateLRUPerCPU emits an lru_pcpu map's update, which takes an element
// from the LRU only when the flags allow a new key:
//
//	func (m *<Map>) update(k *<Key>, vals []<Value>, v *<Value>, cpu int, flags htab.UpdateFlags) error
func (g *generator) updateLRUPerCPU(f *jen.File) {
	f.Add(g.code(`
// update is Update as on CPU cpu, the CPU whose LRU lists provide a new
// element: it sets every CPU's value from vals, or, with vals nil, CPU
// cpu's from v.
func (m *$Map) update(k *$Key, vals []$Value, v *$Value, cpu int, flags htab.UpdateFlags) error {
`+updatePrologue+`	// An element is taken only when the flags allow a new key; the LRU may
	// evict for it.
	var n uint32
	popped := false
	if flags != htab.UpdateExist {
		var ok bool
		if n, ok = m.lru.Pop(cpu); !ok {
			return htab.ErrNoMem
		}
		popped = true
	}
	b.Lock()
	_, i := m.find(bi, &w, h)
`+flagErrors("if popped {\n\t\t\tm.lru.Push(n)\n\t\t}\n")+`	if i != 0 {
		m.elem(i - 1).node.Ref()
		m.storeValues(i-1, vals, v, cpu, false)
		if popped {
			m.lru.Push(n)
		}
		b.Unlock()
		return nil
	}
$(filterAdd)`+linkNew("m.storeValues(n, vals, v, cpu, true)")+`}
`, g.filterHoles()...))
}

// updateAPI emits Update, the userspace side:
//
//	func (m *<Map>) Update(k <Key>, v <Value>, flags htab.UpdateFlags) error
//	per-CPU: func (m *<Map>) Update(k <Key>, vals []<Value>, flags htab.UpdateFlags) error
func (g *generator) updateAPI(f *jen.File) {
	l := g.l
	doc := `// Update sets the value of k, as BPF_MAP_UPDATE_ELEM does. flags is
// htab.UpdateAny, UpdateNoExist (htab.ErrKeyExist if k is present) or
`
	if l.LRU != nil {
		doc += `// UpdateExist (htab.ErrKeyNotExist if absent). The map is never full: the
// LRU evicts (as CPU 0), possibly before the map holds MaxEntries keys, and
// htab.ErrNoMem only if it finds nothing to evict.
`
	} else {
		doc += `// UpdateExist (htab.ErrKeyNotExist if absent); a new key into a full map is
// htab.ErrFull.
`
	}
	switch {
	case l.PerCPU != nil:
		f.Add(g.code("\n" + doc + `// vals holds every CPU's value (len(vals) == CPUs(), else htab.ErrInvalid);
// a present key is updated in place.
func (m *$Map) Update(k $Key, vals []$Value, flags htab.UpdateFlags) error {
	if len(vals) != m.cpus {
		return fmt.Errorf("%w: len(vals) = %d, want CPUs() = %d", htab.ErrInvalid, len(vals), m.cpus)
	}
	return m.update(&k, vals, nil, 0, flags)
}
`))
	case l.LRU != nil:
		f.Add(g.code("\n" + doc + `func (m *$Map) Update(k $Key, v $Value, flags htab.UpdateFlags) error {
	return m.update(&k, &v, 0, flags)
}
`))
	default:
		f.Add(g.code("\n" + doc + `// As in the kernel, a replaced key moves to the head of its bucket.
func (m *$Map) Update(k $Key, v $Value, flags htab.UpdateFlags) error {
	return m.update(&k, &v, flags)
}
`))
	}
}

// deletes emits Delete and LookupAndDelete: the key's element is unlinked
// and freed under its bucket's lock, before the unlock, so that whoever
// sees the key gone through a single-key operation can insert another into
// a full map (hash and per-CPU: no ErrFull; LRU: no eviction of another key,
// and no ErrNoMem in a map of one element). The kernel frees after
// unlocking, a window in which such an insert fails although the delete
// took effect.
//
//	func (m *<Map>) Delete(k <Key>) error
//	func (m *<Map>) LookupAndDelete(k <Key>) (<Value>, error)
//	per-CPU: func (m *<Map>) LookupAndDelete(k <Key>, vals []<Value>) error
func (g *generator) deletes(f *jen.File) {
	const find = `	w := k.words()
	h := m.hash(&k, &w)
$(filter)	bi := h & m.mask
	b := m.lock(bi)
	b.Lock()
	prev, i := m.find(bi, &w, h)
	if i == 0 {
		b.Unlock()
		return `
	f.Add(g.code(`
// Delete removes k, as BPF_MAP_DELETE_ELEM does: htab.ErrKeyNotExist if absent.
func (m *$Map) Delete(k $Key) error {
`+find+`htab.ErrKeyNotExist
	}
	m.free(m.unlink(bi, prev, i))
$(afterDelete)	b.Unlock()
	return nil
}
`, fill("filter", g.filterAbsent("htab.ErrKeyNotExist")), fill("afterDelete", orNull(g.st.afterDelete()))))
	if g.l.PerCPU != nil {
		f.Add(g.code(`
// LookupAndDelete removes k and returns its value, as
// BPF_MAP_LOOKUP_AND_DELETE_ELEM does: htab.ErrKeyNotExist if absent.
// vals receives every CPU's value: len(vals) >= CPUs(), else htab.ErrInvalid.
func (m *$Map) LookupAndDelete(k $Key, vals []$Value) error {
	if len(vals) < m.cpus {
		return fmt.Errorf("%w: len(vals) = %d, want at least CPUs() = %d", htab.ErrInvalid, len(vals), m.cpus)
	}
`+find+`htab.ErrKeyNotExist
	}
	m.loadValues(i-1, vals)
	m.free(m.unlink(bi, prev, i))
$(afterDelete)	b.Unlock()
	return nil
}
`, fill("filter", g.filterAbsent("htab.ErrKeyNotExist")), fill("afterDelete", orNull(g.st.afterDelete()))))
		return
	}
	f.Add(g.code(`
// LookupAndDelete removes k and returns its value, as
// BPF_MAP_LOOKUP_AND_DELETE_ELEM does: htab.ErrKeyNotExist if absent.
func (m *$Map) LookupAndDelete(k $Key) ($Value, error) {
`+find+`$Value{}, htab.ErrKeyNotExist
	}
	v := m.elem(i - 1).loadValue()
	m.free(m.unlink(bi, prev, i))
$(afterDelete)	b.Unlock()
	return v, nil
}
`, fill("filter", g.filterAbsent("$Value{}, htab.ErrKeyNotExist")), fill("afterDelete", orNull(g.st.afterDelete()))))
}
