package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// batch emits the batch operations (BPF_MAP_*_BATCH) over the storage
// primitives: LookupBatch, LookupAndDeleteBatch, UpdateBatch, DeleteBatch,
// and the bucket walk the first two share, the kernel's
// __htab_map_lookup_and_delete_batch: whole buckets only, ErrNoSpace when
// the first non-empty bucket does not fit, ErrKeyNotExist from the call that
// reaches the end (which may carry elements). How the walk finds non-empty
// buckets is Layout.Batch.Lock:
//
//	always    lock every bucket, empty or not (the kernel before "bpf: Do not
//	          grab the bucket spinlock by default on htab batch ops")
//	nonempty  read the head without the lock; skip the bucket if it is 0 (that change)
//	sparse    jump to the next set bit of the occupancy bitmap
//
// The per-CPU types' batches carry CPUs() values per key: vals[i*CPUs()+j]
// is key i's value on CPU j.
//
//	func (m *<Map>) LookupBatch(c *htab.Cursor, keys []<Key>, vals []<Value>) (int, error)
//	func (m *<Map>) LookupAndDeleteBatch(c *htab.Cursor, keys []<Key>, vals []<Value>) (int, error)
//	func (m *<Map>) batch(c *htab.Cursor, keys []<Key>, vals []<Value>, del bool) (int, error)
//	func (m *<Map>) batchWalk(bi uint32, keys []<Key>, vals []<Value>, del bool) (total int, next uint32, err error)
//	func (m *<Map>) UpdateBatch(keys []<Key>, vals []<Value>, flags htab.UpdateFlags) (int, error)
//	func (m *<Map>) DeleteBatch(keys []<Key>) (int, error)
func (g *generator) batch(f *jen.File) {
	perKey, valsLen, copyValue, valueArg := "vals[i] is the value of keys[i]", "len(keys)", "vals[j] = e.loadValue()\n", "vals[i]"
	if g.l.PerCPU != nil {
		perKey, valsLen = "vals[i*CPUs()+j] is the value of keys[i] on CPU j", "len(keys)*m.cpus"
		copyValue = "m.loadValues(i-1, vals[j*m.cpus:(j+1)*m.cpus])\n"
		valueArg = "vals[i*m.cpus : (i+1)*m.cpus]"
	}
	fullErr := "htab.ErrFull"
	if g.l.LRU != nil {
		fullErr = "htab.ErrNoMem"
	}
	f.Add(g.code(`
// LookupBatch copies the next elements of the walk that c remembers into keys
// and vals (`+perKey+`), as BPF_MAP_LOOKUP_BATCH does, and returns
// how many. A zero Cursor starts at the first bucket; nil also does, and is not
// advanced. A call returns whole buckets only: htab.ErrNoSpace (and nothing)
// when the first non-empty bucket holds more than len(keys) elements; the call
// that reaches the last bucket returns htab.ErrKeyNotExist, possibly with
// elements, and so do later calls. A call with no room returns 0 and does nothing.
func (m *$Map) LookupBatch(c *htab.Cursor, keys []$Key, vals []$Value) (int, error) {
	return m.batch(c, keys, vals, false)
}

// LookupAndDeleteBatch is LookupBatch that also deletes what it returns, as
// BPF_MAP_LOOKUP_AND_DELETE_BATCH does. Each bucket is copied and emptied
// under its lock, so every element it deletes is returned exactly once.
func (m *$Map) LookupAndDeleteBatch(c *htab.Cursor, keys []$Key, vals []$Value) (int, error) {
	return m.batch(c, keys, vals, true)
}

// batch checks the arguments of a lookup batch, walks, and advances c.
func (m *$Map) batch(c *htab.Cursor, keys []$Key, vals []$Value, del bool) (int, error) {
	if len(vals) != `+valsLen+` {
		return 0, fmt.Errorf("%w: batch of %d keys needs %d values, got %d", htab.ErrInvalid, len(keys), `+valsLen+`, len(vals))
	}
	if len(keys) == 0 {
		// The kernel returns before it reads or writes the cursor.
		return 0, nil
	}
	bi := uint32(0)
	if c != nil {
		bi = c.Bucket()
	}
	n, next, err := m.batchWalk(bi, keys, vals, del)
	if c != nil {
		c.Advance(next, err == htab.ErrKeyNotExist)
	}
	return n, err
}

// batchWalk copies whole buckets from bucket bi on into keys and vals while they
// fit, and returns how many elements it copied and the next bucket to read.
// `+g.batchFindDoc()+`
func (m *$Map) batchWalk(bi uint32, keys []$Key, vals []$Value, del bool) (total int, next uint32, err error) {
	for bi <= m.mask {
$(find)		b := m.lock(bi)
		b.Lock()
		cnt := 0
		for i := m.head(bi); i != 0; i = m.elem(i - 1).nextIndex() {
			cnt++
		}
		if cnt > len(keys)-total {
			// The bucket does not fit: it is not consumed, the cursor stays on it.
			b.Unlock()
			if total == 0 {
				return 0, bi, htab.ErrNoSpace
			}
			return total, bi, nil
		}
		j := total
		for i := m.head(bi); i != 0; {
			e := m.elem(i - 1)
			keys[j] = e.loadKey()
			`+copyValue+`			j++
			i = e.nextIndex()
		}
		if del && cnt != 0 {
			// The whole bucket goes: it was copied under this same lock, and is
			// freed before the unlock, as Delete frees.
			m.freeBucket(bi)
		}
		b.Unlock()
		total += cnt
		bi++
	}
	// bi is the number of buckets here, or the cursor passed in if it was
	// already past the end (the kernel returns ENOENT before it writes
	// out_batch).
	return total, bi, htab.ErrKeyNotExist
}

// UpdateBatch stores vals under keys in order, as BPF_MAP_UPDATE_BATCH does, and
// returns how many it stored: it stops at the first error (`+fullErr+`, ...).
// flags must be htab.UpdateAny: the kernel's generic_map_update_batch takes
// only BPF_F_LOCK in elem_flags, so BPF_NOEXIST and BPF_EXIST are EINVAL
// there, before anything is stored and even for no keys (as Linux 6.18
// answers); here they are htab.ErrInvalid likewise.
func (m *$Map) UpdateBatch(keys []$Key, vals []$Value, flags htab.UpdateFlags) (int, error) {
	if flags != htab.UpdateAny {
		return 0, fmt.Errorf("%w: batch update flags %#x: the kernel's BPF_MAP_UPDATE_BATCH takes only BPF_ANY", htab.ErrInvalid, uint64(flags))
	}
	if len(vals) != `+valsLen+` {
		return 0, fmt.Errorf("%w: batch of %d keys needs %d values, got %d", htab.ErrInvalid, len(keys), `+valsLen+`, len(vals))
	}
	for i := range keys {
		if err := m.Update(keys[i], `+valueArg+`, flags); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

// DeleteBatch deletes keys in order, as BPF_MAP_DELETE_BATCH does, and returns
// how many it deleted: it stops at the first absent key (htab.ErrKeyNotExist).
func (m *$Map) DeleteBatch(keys []$Key) (int, error) {
	for i := range keys {
		if err := m.Delete(keys[i]); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}
`, fill("find", g.batchFindBucket())))
}

// batchFindDoc says how the walk finds its next non-empty bucket.
func (g *generator) batchFindDoc() string {
	switch g.l.Batch.Lock {
	case spec.BatchLockAlways:
		return "-batch-lock always: every bucket is locked, empty or not (the kernel before it skipped empty buckets)."
	case spec.BatchLockSparse:
		return "-batch-lock sparse: the occupancy bitmap leads to the next non-empty bucket, 64 buckets a word."
	}
	return "-batch-lock nonempty: an empty bucket is seen without its lock and skipped, as the kernel does."
}

// batchFindBucket is, at the top of the walk's loop, what moves bi to the
// next bucket worth locking (nothing for always):
//
//	nonempty: if m.head(bi) == 0 { bi++; continue }
//	sparse:   if bi = m.occ.Next(bi); bi > m.mask { break }
//
// A bucket that fills after it was passed is missed, as in the kernel; a key
// present for the whole walk never is (see htab.Occupancy for sparse).
func (g *generator) batchFindBucket() jen.Code {
	switch g.l.Batch.Lock {
	case spec.BatchLockAlways:
		return jen.Null()
	case spec.BatchLockSparse:
		return g.code("\t\tif bi = m.occ.Next(bi); bi > m.mask {\n\t\t\tbreak\n\t\t}\n")
	}
	return g.code("\t\tif m.head(bi) == 0 {\n\t\t\tbi++\n\t\t\tcontinue\n\t\t}\n")
}
