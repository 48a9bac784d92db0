package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

// The program side of a map: bpf_map_lookup_elem, bpf_map_update_elem and
// bpf_map_delete_elem called from a BPF program, as the generated maps'
// CPU(i) handles do them. Each call runs a small SCHED_CLS program once with
// BPF_PROG_TEST_RUN on the calling thread's CPU (pin the goroutine with
// PinCPU to choose it). The program reads its arguments from the test packet
// and copies the key and value to its stack, which bounds their sizes.

// MaxProgKeySize is the largest key the program-side calls handle.
const MaxProgKeySize = 256

// MaxProgValueSize is the largest value ProgUpdate handles: the value shares
// the program's 512-byte stack with the key and the flags.
const MaxProgValueSize = 248

// ethHeader is the size of an Ethernet header: the smallest packet
// BPF_PROG_TEST_RUN accepts for skb programs. The arguments follow a zeroed
// one, because the kernel parses the header (a key whose bytes 12-13 read as
// IPv4's Ethernet type, 0x0800, made a packet it refused with EINVAL).
const ethHeader = 14

// Return values of the lookup program; the update and delete programs return
// the helper's result (0 or -errno).
const (
	progAbsent  = 0
	progFound   = 1
	progLoadErr = 2 // bpf_skb_load_bytes or bpf_skb_store_bytes failed
)

// progKind names the map's programs, each built on first use.
type progKind int

const (
	progLookup      progKind = iota // the key's presence
	progLookupValue                 // and its value
	progUpdate
	progDelete
	nProgKinds
)

var progNames = [nProgKinds]string{"htab_lookup", "htab_lookup_val", "htab_update", "htab_delete"}

// ProgLookup looks key up from a BPF program, as test_lru_map.c's lookup_ref
// does. For LRU maps that sets the element's ref bit, which a syscall lookup
// does not. It returns nil if the program found key and htab.ErrKeyNotExist
// if not.
func (m *Map) ProgLookup(key []byte) error {
	_, err := m.progLookup(key, false)
	return err
}

// ProgLookupValue is ProgLookup that also returns the value the program
// found: for per-CPU types, the value of the CPU it ran on. The value is
// returned in the test packet, so its size is bounded by MaxProgValueSize.
func (m *Map) ProgLookupValue(key []byte) ([]byte, error) {
	return m.progLookup(key, true)
}

func (m *Map) progLookup(key []byte, withValue bool) ([]byte, error) {
	const op = "prog lookup"
	if err := m.checkProgKey(op, key); err != nil {
		return nil, err
	}
	kind, room := progLookup, 0
	if withValue {
		if err := m.checkProgValueSize(op); err != nil {
			return nil, err
		}
		kind, room = progLookupValue, m.valueSize
	}
	ret, out, err := m.runProg(op, kind, packet(key, make([]byte, room)))
	if err != nil {
		return nil, err
	}
	switch ret {
	case progFound:
		if !withValue {
			return nil, nil
		}
		return out[ethHeader+m.keySize:][:m.valueSize], nil
	case progAbsent:
		return nil, fmt.Errorf("kernel %s: %w", op, htab.ErrKeyNotExist)
	default:
		return nil, fmt.Errorf("kernel %s: program returned %d (packet load or store failed)", op, ret)
	}
}

// ProgUpdate is bpf_map_update_elem(map, key, value, flags) from a BPF
// program. value is one value of the map's value size, also for per-CPU
// types: a program writes the value of the CPU it runs on.
func (m *Map) ProgUpdate(key, value []byte, flags uint64) error {
	const op = "prog update"
	if err := m.checkProgKey(op, key); err != nil {
		return err
	}
	if len(value) != m.valueSize {
		return invalid(op, "value of %d bytes, want %d", len(value), m.valueSize)
	}
	if err := m.checkProgValueSize(op); err != nil {
		return err
	}
	return m.runHelper(op, progUpdate, packet(binary.NativeEndian.AppendUint64(nil, flags), key, value))
}

// ProgDelete is bpf_map_delete_elem(map, key) from a BPF program.
func (m *Map) ProgDelete(key []byte) error {
	const op = "prog delete"
	if err := m.checkProgKey(op, key); err != nil {
		return err
	}
	return m.runHelper(op, progDelete, packet(key))
}

// packet is a test packet: a zeroed Ethernet header, then parts, which the
// program reads at the offsets its instructions were built with.
func packet(parts ...[]byte) []byte {
	pkt := make([]byte, ethHeader)
	for _, p := range parts {
		pkt = append(pkt, p...)
	}
	return pkt
}

func (m *Map) checkProgKey(op string, key []byte) error {
	if m.typ == htab.BloomFilter {
		return invalid(op, "bloom filter maps have no keys (use Peek)")
	}
	if err := m.checkKey(op, key); err != nil {
		return err
	}
	if m.keySize > MaxProgKeySize {
		return invalid(op, "key size %d (program-side calls allow at most %d)", m.keySize, MaxProgKeySize)
	}
	return nil
}

// checkProgValueSize refuses values a program cannot copy to its stack (an
// update) or return in the packet (a lookup's value).
func (m *Map) checkProgValueSize(op string) error {
	if m.valueSize > MaxProgValueSize {
		return invalid(op, "value size %d (program-side calls with a value allow at most %d)", m.valueSize, MaxProgValueSize)
	}
	return nil
}

// runHelper runs an update or delete program, whose return value is the
// helper's: 0 or -errno.
func (m *Map) runHelper(op string, kind progKind, pkt []byte) error {
	ret, _, err := m.runProg(op, kind, pkt)
	if err != nil {
		return err
	}
	switch r := int32(ret); {
	case r == 0:
		return nil
	case r < 0:
		return mapErrno(op, unix.Errno(-r))
	default:
		return fmt.Errorf("kernel %s: program returned %d (packet load failed)", op, r)
	}
}

// runProg runs the program of kind once on pkt and returns its return value
// and the packet as the program left it.
func (m *Map) runProg(op string, kind progKind, pkt []byte) (uint32, []byte, error) {
	prog, err := m.program(kind)
	if err != nil {
		return 0, nil, err
	}
	out := make([]byte, len(pkt))
	ret, err := prog.Run(&ebpf.RunOptions{Data: pkt, DataOut: out, Repeat: 1})
	if err != nil {
		return 0, nil, mapErrno(op, err)
	}
	return ret, out, nil
}

// program returns the map's program of kind, building it on first use.
func (m *Map) program(kind progKind) (*ebpf.Program, error) {
	m.progMu.Lock()
	defer m.progMu.Unlock()
	if p := m.progs[kind]; p != nil {
		return p, nil
	}
	var insns asm.Instructions
	switch kind {
	case progLookup:
		insns = m.lookupInsns(false)
	case progLookupValue:
		insns = m.lookupInsns(true)
	case progUpdate:
		insns = m.updateInsns()
	case progDelete:
		insns = m.deleteInsns()
	}
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name:         progNames[kind],
		Type:         ebpf.SchedCLS,
		Instructions: insns,
		License:      "GPL",
	})
	if err != nil {
		return nil, mapErrno(progNames[kind]+": load program", err)
	}
	m.progs[kind] = prog
	return prog, nil
}

// Stack offsets (below the frame pointer) of the programs' copies of their
// arguments, each 8-byte aligned: the key, then the value, then the flags.
func (m *Map) keyAt() int32   { return int32(align8(m.keySize)) }
func (m *Map) valueAt() int32 { return m.keyAt() + int32(align8(m.valueSize)) }
func (m *Map) flagsAt() int32 { return m.valueAt() + 8 }

func align8(n int) int { return (n + 7) &^ 7 }

// loadArg copies n bytes at packet offset off to the stack at fp-at; r6
// holds the context.
func loadArg(off, at, n int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Imm(asm.R2, off),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -at),
		asm.Mov.Imm(asm.R4, n),
		asm.FnSkbLoadBytes.Call(),
		asm.JNE.Imm(asm.R0, 0, "loadErr"),
	}
}

// loadErr is the programs' common exit when the packet is too short.
var loadErr = asm.Instructions{
	asm.Mov.Imm(asm.R0, progLoadErr).WithSymbol("loadErr"),
	asm.Return(),
}

// lookupInsns: packet = header, key, and with withValue room for the value,
// where the program stores the value it found.
func (m *Map) lookupInsns(withValue bool) asm.Instructions {
	insns := append(m.callWithKey(asm.FnMapLookupElem), asm.JEq.Imm(asm.R0, 0, "absent"))
	if withValue {
		// bpf_skb_store_bytes(ctx, ethHeader+keySize, value, valueSize, 0)
		insns = append(insns,
			asm.Mov.Reg(asm.R3, asm.R0),
			asm.Mov.Reg(asm.R1, asm.R6),
			asm.Mov.Imm(asm.R2, int32(ethHeader+m.keySize)),
			asm.Mov.Imm(asm.R4, int32(m.valueSize)),
			asm.Mov.Imm(asm.R5, 0),
			asm.FnSkbStoreBytes.Call(),
			asm.JNE.Imm(asm.R0, 0, "loadErr"),
		)
	}
	insns = append(insns,
		asm.Mov.Imm(asm.R0, progFound),
		asm.Return(),
		asm.Mov.Imm(asm.R0, progAbsent).WithSymbol("absent"),
		asm.Return(),
	)
	return append(insns, loadErr...)
}

// updateInsns: packet = header, flags (u64, host order), key, value.
func (m *Map) updateInsns() asm.Instructions {
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	insns = append(insns, loadArg(ethHeader, m.flagsAt(), 8)...)
	insns = append(insns, loadArg(int32(ethHeader+8), m.keyAt(), int32(m.keySize))...)
	insns = append(insns, loadArg(int32(ethHeader+8+m.keySize), m.valueAt(), int32(m.valueSize))...)
	insns = append(insns,
		asm.LoadMapPtr(asm.R1, int(m.fd)),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -m.keyAt()),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -m.valueAt()),
		asm.LoadMem(asm.R4, asm.RFP, int16(-m.flagsAt()), asm.DWord),
		asm.FnMapUpdateElem.Call(),
		asm.Return(),
	)
	return append(insns, loadErr...)
}

// deleteInsns: packet = header, key.
func (m *Map) deleteInsns() asm.Instructions {
	insns := append(m.callWithKey(asm.FnMapDeleteElem), asm.Return())
	return append(insns, loadErr...)
}

// callWithKey copies the key from the packet (after the header) to the stack
// and calls fn(map, &key), leaving its result in r0 and the context in r6.
func (m *Map) callWithKey(fn asm.BuiltinFunc) asm.Instructions {
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	insns = append(insns, loadArg(ethHeader, m.keyAt(), int32(m.keySize))...)
	return append(insns,
		asm.LoadMapPtr(asm.R1, int(m.fd)),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -m.keyAt()),
		fn.Call(),
	)
}
