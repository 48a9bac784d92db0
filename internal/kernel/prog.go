package kernel

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/htabgen/htabgen/htab"
)

// MaxProgKeySize is the largest key ProgLookup handles: the program copies the
// key to its 512-byte stack.
const MaxProgKeySize = 256

// ethHeader is the size of an Ethernet header: the smallest packet
// BPF_PROG_TEST_RUN accepts for skb programs. The key follows a zeroed one,
// because the kernel parses the header (a key whose bytes 12-13 read as
// IPv4's Ethernet type, 0x0800, made a packet it refused with EINVAL).
const ethHeader = 14

// Return values of the lookup program.
const (
	progAbsent  = 0
	progFound   = 1
	progLoadErr = 2
)

// ProgLookup looks key up from a BPF program, as test_lru_map.c's lookup_ref
// does: a SCHED_CLS program, run once with BPF_PROG_TEST_RUN on the calling
// thread's CPU, copies the key from the test packet (after a zeroed Ethernet
// header) to its stack and calls bpf_map_lookup_elem. For LRU maps that sets
// the element's ref bit, which a syscall lookup does not. It returns nil if the program found key and
// htab.ErrKeyNotExist if not. Pin the goroutine with PinCPU to choose the CPU
// (which matters for per-CPU LRU lists). Keys may have up to MaxProgKeySize
// bytes; bloom filters are refused. The program is built on first use and
// kept until Close.
func (m *Map) ProgLookup(key []byte) error {
	const op = "prog lookup"
	if m.typ == htab.BloomFilter {
		return invalid(op, "bloom filter maps have no keys (use Peek)")
	}
	if err := m.checkKey(op, key); err != nil {
		return err
	}
	if m.keySize > MaxProgKeySize {
		return invalid(op, "key size %d (ProgLookup allows at most %d)", m.keySize, MaxProgKeySize)
	}
	prog, err := m.lookupProg()
	if err != nil {
		return err
	}
	pkt := make([]byte, ethHeader+len(key))
	copy(pkt[ethHeader:], key)
	ret, err := prog.Run(&ebpf.RunOptions{Data: pkt, Repeat: 1})
	if err != nil {
		return mapErrno(op, err)
	}
	switch ret {
	case progFound:
		return nil
	case progAbsent:
		return fmt.Errorf("kernel %s: %w", op, htab.ErrKeyNotExist)
	default:
		return fmt.Errorf("kernel %s: program returned %d (bpf_skb_load_bytes failed)", op, ret)
	}
}

// lookupProg returns the map's lookup program, building it on first use.
func (m *Map) lookupProg() (*ebpf.Program, error) {
	m.progMu.Lock()
	defer m.progMu.Unlock()
	if m.prog != nil {
		return m.prog, nil
	}
	off := int32((m.keySize + 7) &^ 7) // key at fp-off, 8-byte aligned
	insns := asm.Instructions{
		// r0 = bpf_skb_load_bytes(ctx, ethHeader, fp-off, keySize)
		asm.Mov.Imm(asm.R2, ethHeader),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -off),
		asm.Mov.Imm(asm.R4, int32(m.keySize)),
		asm.FnSkbLoadBytes.Call(),
		asm.JNE.Imm(asm.R0, 0, "loadErr"),
		// r0 = bpf_map_lookup_elem(map, fp-off)
		asm.LoadMapPtr(asm.R1, int(m.fd)),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -off),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "absent"),
		asm.Mov.Imm(asm.R0, progFound),
		asm.Return(),
		asm.Mov.Imm(asm.R0, progAbsent).WithSymbol("absent"),
		asm.Return(),
		asm.Mov.Imm(asm.R0, progLoadErr).WithSymbol("loadErr"),
		asm.Return(),
	}
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name:         "htab_lookup_ref",
		Type:         ebpf.SchedCLS,
		Instructions: insns,
		License:      "GPL",
	})
	if err != nil {
		return nil, mapErrno("prog lookup: load program", err)
	}
	m.prog = prog
	return prog, nil
}
