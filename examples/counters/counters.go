// Package counters keeps per-CPU counters in a generated per-CPU hash map
// (BPF_MAP_TYPE_PERCPU_HASH semantics): every key has one value per CPU.
// Workers each hold a CPU(i) handle and add to their own CPU's values only,
// with a plain lookup and update and no atomic operation, as BPF programs
// do; a reader sums each counter over the CPUs.
//
// Worker is written against Slot, and Sum and Snapshot against Reader: the
// methods of the generated types (*CountersCPU, *Counters) they call.
package counters

//go:generate go tool htabgen -type pcpu -key 4 -val 8 -name Counters -out counters_htab.go

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/htabgen/htabgen/htab"
)

// ID names a counter: the map's key, a __u32.
type ID uint32

// The counters.
const (
	Packets ID = iota
	Bytes
	Drops
	numIDs
)

func (id ID) String() string {
	switch id {
	case Packets:
		return "packets"
	case Bytes:
		return "bytes"
	case Drops:
		return "drops"
	}
	return fmt.Sprintf("ID(%d)", uint32(id))
}

func key(id ID) (k CountersKey) {
	binary.NativeEndian.PutUint32(k[:], uint32(id))
	return k
}

func value(n uint64) (v CountersValue) {
	binary.NativeEndian.PutUint64(v[:], n)
	return v
}

func count(v CountersValue) uint64 { return binary.NativeEndian.Uint64(v[:]) }

// New returns a map of the counters for the given number of workers, each
// counter present and zero on every CPU.
func New(workers int) (*Counters, error) {
	m, err := NewCounters(htab.Options{MaxEntries: int(numIDs), CPUs: workers})
	if err != nil {
		return nil, err
	}
	zeros := make([]CountersValue, m.CPUs())
	for id := range numIDs {
		if err := m.Update(key(id), zeros, htab.UpdateNoExist); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Slot is what a Worker calls: one CPU's side of the map. *CountersCPU
// satisfies it.
type Slot interface {
	Lookup(k CountersKey) (CountersValue, bool)
	Update(k CountersKey, v CountersValue, flags htab.UpdateFlags) error
}

var _ Slot = (*CountersCPU)(nil)

// Worker adds to the counters of one CPU. One goroutine uses a Worker, and
// no other Worker has its CPU: then its lookups and updates of that CPU's
// values need no atomic operation and lose no count.
type Worker struct {
	s Slot
}

// NewWorker returns a Worker over s, usually m.CPU(i) for worker i.
func NewWorker(s Slot) *Worker { return &Worker{s: s} }

// Add adds n to counter id, on the worker's CPU.
func (w *Worker) Add(id ID, n uint64) error {
	k := key(id)
	v, _ := w.s.Lookup(k) // absent: zero
	return w.s.Update(k, value(count(v)+n), htab.UpdateAny)
}

// Packet counts a packet of length n, or a dropped packet.
func (w *Worker) Packet(n int, dropped bool) error {
	if dropped {
		return w.Add(Drops, 1)
	}
	if err := w.Add(Packets, 1); err != nil {
		return err
	}
	return w.Add(Bytes, uint64(n))
}

// Reader is what Sum and Snapshot call: the user-space side of the map,
// which reads every CPU's value. *Counters satisfies it.
type Reader interface {
	CPUs() int
	Lookup(k CountersKey, vals []CountersValue) bool
	All() iter.Seq2[CountersKey, []CountersValue]
}

var _ Reader = (*Counters)(nil)

// ErrNoCounter is Sum's error for a counter that is not in the map.
var ErrNoCounter = errors.New("counters: no such counter")

// Sum is counter id summed over the CPUs, and its value on each CPU.
func Sum(r Reader, id ID) (total uint64, perCPU []uint64, err error) {
	vals := make([]CountersValue, r.CPUs())
	if !r.Lookup(key(id), vals) {
		return 0, nil, fmt.Errorf("%w: %v", ErrNoCounter, id)
	}
	perCPU = make([]uint64, len(vals))
	for i, v := range vals {
		perCPU[i] = count(v)
		total += perCPU[i]
	}
	return total, perCPU, nil
}

// Snapshot is every counter summed over the CPUs.
func Snapshot(r Reader) map[ID]uint64 {
	s := make(map[ID]uint64)
	for k, vals := range r.All() {
		var total uint64
		for _, v := range vals {
			total += count(v)
		}
		s[ID(binary.NativeEndian.Uint32(k[:]))] = total
	}
	return s
}
