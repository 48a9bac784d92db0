package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// perCPUValues emits the value storage of the per-CPU types (pcpu,
// lru_pcpu): one array of slots per CPU, indexed by element index, so that
// the element needs no pointer to its values and the values of different
// CPUs never share a cache line. Nothing for the other types.
//
//	type <Slot> [<VW>]uint32
//	func (s *<Slot>) load() <Value>; store(v *<Value>); clear()
//	func (m *<Map>) slot(cpu int, i uint32) *<Slot>
//	func (m *<Map>) loadValues(i uint32, dst []<Value>)
//	func (m *<Map>) storeValues(i uint32, vals []<Value>, v *<Value>, cpu int, fresh bool)
func (g *generator) perCPUValues(f *jen.File) {
	l := g.l
	pc := l.PerCPU
	if pc == nil {
		return
	}
	slot := `	if m.slots != nil {
		return &m.slots[cpu][i]
	}
	return &m.slotChunks[cpu][i>>$ChunkShift].Load()[i&(1<<$ChunkShift-1)]
`
	chunk := `
// $SlotChunk is a NoPrealloc chunk of one CPU's slots, beside the element chunk.
type $SlotChunk [1 << $ChunkShift]$Slot
`
	if l.LRU != nil { // always preallocated
		slot, chunk = "\treturn &m.slots[cpu][i]\n", ""
	}
	f.Add(g.code(fmt.Sprintf(`
// $Slot is one CPU's value of one element: little-endian words, zero-padded.
type $Slot [%d]uint32
`, l.ValueWords) + chunk))
	load := append(wordsToBytes("v", "s", l.Spec.Val, l.ValUnrolled), jen.Return())
	storeBody := bytesToWords("v", l.Spec.Val, l.ValUnrolled, func(i, v jen.Code) jen.Code {
		return store(jen.Id("s").Index(i), v)
	})
	f.Add(g.code(`
// load loads the slot's value.
func (s *$Slot) load() (v $Value) {
	$(load)
}

// store stores v into the slot.
func (s *$Slot) store(v *$Value) {
	$(store)
}

// clear zeroes the slot, as a program's insert does on the other CPUs.
func (s *$Slot) clear() {
	for i := range s {
		htab.StoreRelease(&s[i], 0)
	}
}

// slot is CPU cpu's value of element i.
func (m *$Map) slot(cpu int, i uint32) *$Slot {
`+slot+`}
`, fill("load", stmts(load...)), fill("store", stmts(storeBody...))))

	read := `	for c := range dst[:m.cpus] {
		dst[c] = m.slot(c, i).load()
	}
`
	loadValues := `
// loadValues copies every CPU's value of element i into dst[:m.cpus].
func (m *$Map) loadValues(i uint32, dst []$Value) {
` + read + "}\n"
	lock := func(c, code string) string { return code }
	fresh := "\t\t// Nobody else can reach a new element yet.\n"
	if pc.SlotLocks > 0 {
		loadValues = `
// loadValues copies every CPU's value of element i into dst[:m.cpus].
// It holds the element's slot lock on every CPU (taken in CPU order; a program
// write holds one) while it reads, so the copy is one snapshot of all CPUs,
// after every program write in flight.
func (m *$Map) loadValues(i uint32, dst []$Value) {
	for c := range m.cpus {
		m.slotLock(c, i).Lock()
	}
` + read + `	for c := range m.cpus {
		m.slotLock(c, i).Unlock()
	}
}
`
		lock = func(c, code string) string {
			return "sl := m.slotLock(" + c + ", i)\n\t\tsl.Lock()\n\t\t" + code + "\n\t\tsl.Unlock()"
		}
		fresh = "\t\t// Nobody else can reach a new element: no slot locks needed.\n"
	}
	f.Add(g.code(loadValues + `
// storeValues sets element i's values: every CPU's from vals (the userspace
// side, bpf_percpu_hash_update), or else only cpu's from v (a program); a
// program's new element (fresh) has every other CPU zeroed (pcpu_init_value).
func (m *$Map) storeValues(i uint32, vals []$Value, v *$Value, cpu int, fresh bool) {
	if vals != nil {
		for c := range vals[:m.cpus] {
			` + lock("c", "m.slot(c, i).store(&vals[c])") + `
		}
		return
	}
	if fresh {
` + fresh + `		for c := range m.cpus {
			if c != cpu {
				m.slot(c, i).clear()
			}
		}
		m.slot(cpu, i).store(v)
		return
	}
	` + lock("cpu", "m.slot(cpu, i).store(v)") + `
}
`))
	g.slotLocks(f)
}

// perCPUFields is the map struct's per-CPU value fields; nothing for the
// other types.
func (g *generator) perCPUFields() jen.Code {
	l := g.l
	if l.PerCPU == nil {
		return jen.Null()
	}
	if l.LRU != nil {
		return g.code(`
	// Per-CPU values: CPU c's value of element i is slots[c][i].
	slots [][]$Slot // one array per CPU, each padded by a cache line
`)
	}
	return g.code(`
	// Per-CPU values: CPU c's value of element i is slots[c][i], or with
	// NoPrealloc slotChunks[c][i>>shift][i&mask], allocated with the element chunk.
	slots      [][]$Slot                       // one array per CPU, each padded by a cache line
	slotChunks [][]atomic.Pointer[$SlotChunk]
	slotLocks  [][]htab.Bucket // per CPU: the locks of that CPU's slots (see slotLock; an htab.Bucket each, of which only the sequence lock is used), each array padded by a cache line
`)
}

// perCPUAlloc is the constructor's allocation of per-CPU value storage;
// nothing for the other types. The spare capacity keeps the next allocation
// off each array's last line.
//
//	m.slots = make([][]<Slot>, opts.CPUs)
//	for c := range m.slots { m.slots[c] = make([]<Slot>, opts.MaxEntries, opts.MaxEntries+<pad>) }
func (g *generator) perCPUAlloc() jen.Code {
	pc := g.l.PerCPU
	if pc == nil {
		return jen.Null()
	}
	prealloc := fmt.Sprintf(`m.slots = make([][]$Slot, opts.CPUs)
	for c := range m.slots {
		// The spare capacity keeps the next allocation off this array's last line.
		m.slots[c] = make([]$Slot, opts.MaxEntries, opts.MaxEntries+%d)
	}
`, pc.ArrayPad)
	if g.l.LRU != nil {
		return g.code("\t" + prealloc)
	}
	return g.code(fmt.Sprintf(`	m.slotLocks = make([][]htab.Bucket, opts.CPUs)
	for c := range m.slotLocks {
		m.slotLocks[c] = make([]htab.Bucket, $SlotLocks, $SlotLocks+%d)
	}
	if opts.NoPrealloc {
		m.slotChunks = make([][]atomic.Pointer[$SlotChunk], opts.CPUs)
		for c := range m.slotChunks {
			m.slotChunks[c] = make([]atomic.Pointer[$SlotChunk], len(m.chunks))
		}
	} else {
		`, pc.SlotLocksPad) + prealloc + "\t}\n")
}

// slotLocks emits the per-CPU slot locks of pcpu maps
// (Layout.PerCPU.SlotLocks): the lock of a slot, a program's read of its
// slot, and quiesce, which waits out the program writes in flight on an
// element. Nothing for the other types.
//
// The protocol: a program's update of a present key reads the bucket
// optimistically (its sequence), takes its CPU's slot lock, checks that the
// bucket has not changed (so the element is still the key's), writes its
// slot and unlocks. It never takes the bucket lock, so two CPUs counting on
// the same keys write only their own cache lines. Whoever holds the bucket
// lock and touches the slots, or frees the element, takes the slot locks of
// the element once: any write that was validated before the bucket was
// locked ends before; none can be validated after.
//
//	const <SlotLocks> = <n>
//	func (m *<Map>) slotLock(cpu int, i uint32) *htab.Bucket
//	func (m *<Map>) readSlot(cpu int, i uint32) <Value>
//	func (m *<Map>) quiesce(i uint32)
func (g *generator) slotLocks(f *jen.File) {
	pc := g.l.PerCPU
	if pc.SlotLocks == 0 {
		return
	}
	f.Add(g.code(fmt.Sprintf(`
// $SlotLocks is the number of slot locks per CPU.
const $SlotLocks = %d

// slotLock is the lock of CPU cpu's slot of element i: a sequence lock, so
// that a program's lookup reads its slot without writing to it.
func (m *$Map) slotLock(cpu int, i uint32) *htab.Bucket {
	return &m.slotLocks[cpu][i%%$SlotLocks]
}

// readSlot reads CPU cpu's slot of element i whole, without writing to shared
// memory: it rereads while a program write to the slot's lock is in flight.
func (m *$Map) readSlot(cpu int, i uint32) $Value {
	sl := m.slotLock(cpu, i)
	for {
		s := sl.ReadBegin()
		v := m.slot(cpu, i).load()
		if sl.ReadValid(s) {
			return v
		}
	}
}

// quiesce returns once no program write to element i's slots is in flight:
// ReadBegin waits while a slot lock is held. A write that takes its lock
// later fails its bucket check, for the caller changed the bucket first.
// Deletes call it with their bucket locked: no holder of a slot lock ever
// waits for a bucket lock (the program's update only validates the
// bucket's sequence), so this cannot deadlock. Keep it so.
func (m *$Map) quiesce(i uint32) {
	for c := range m.cpus {
		m.slotLock(c, i).ReadBegin()
	}
}
`, pc.SlotLocks)))
}

// perCPUChunk is ensureChunk's allocation of chunk c's slots, before the
// element chunk is published; nothing for the other types.
func (g *generator) perCPUChunk() jen.Code {
	return when(g.l.PerCPU != nil, g.code("\t\tfor cpu := range m.slotChunks {\n\t\t\tm.slotChunks[cpu][c].Store(new($SlotChunk))\n\t\t}\n"))
}

// readSlot is the Go text of a lock-free read of CPU <cpu>'s slot of
// element <i>: m.readSlot with slot locks, else a plain load (the bucket
// sequence covers it).
func (g *generator) readSlot(cpu, i string) string {
	if g.l.PerCPU.SlotLocks > 0 {
		return "m.readSlot(" + cpu + ", " + i + ")"
	}
	return "m.slot(" + cpu + ", " + i + ").load()"
}

// slotFastPath is the start of a pcpu program update
// (Layout.PerCPU.SlotLocks): a present key gets its CPU's slot written under
// the slot lock alone (see slotLocks); an absent key, or a present one with
// UpdateNoExist, goes on to the locked path or fails. Nothing for the other
// types.
func (g *generator) slotFastPath() jen.Code {
	if g.l.PerCPU.SlotLocks == 0 {
		return jen.Null()
	}
	return g.code(`	if vals == nil {
		// A present key: write this CPU's slot without the bucket lock.
		for {
			s := b.ReadBegin()
			_, i := m.find(bi, &w, h)
			if i == 0 {
				if b.ReadValid(s) {
					break
				}
				continue
			}
			if flags == htab.UpdateNoExist {
				if b.ReadValid(s) {
					return htab.ErrKeyExist
				}
				continue
			}
			sl := m.slotLock(cpu, i-1)
			sl.Lock()
			// Still linked, and every later bucket writer will wait for this slot lock.
			if !b.ReadValid(s) {
				sl.Unlock()
				continue
			}
			m.slot(cpu, i-1).store(v)
			sl.Unlock()
			return nil
		}
	}
`)
}
