// Package kernel is a small harness around real Linux BPF hash maps, for
// differential tests that compare htabgen's generated maps with the kernel.
//
// A Map wraps one kernel map of type HASH, PERCPU_HASH, LRU_HASH,
// LRU_PERCPU_HASH or BLOOM_FILTER, created by New from sizes and options or
// by NewFromSpec from a BPF object's map spec, BTF and all. Every element
// operation is one raw bpf(2) syscall on the map's file descriptor, so flags
// reach the kernel unchanged and results (errnos, batch counts, batch
// cursors) are exactly what the kernel answered. Creation and the BPF program behind ProgLookup use
// github.com/cilium/ebpf.
//
// Keys and values are byte slices. A per-CPU value is PossibleCPUs() values of
// the map's value size, concatenated without padding; the harness converts to
// and from the kernel's layout of round_up(valueSize, 8) bytes per CPU.
//
// Kernel errnos are mapped to the htab error of the same meaning (ENOENT to
// htab.ErrKeyNotExist, EEXIST to htab.ErrKeyExist, E2BIG to htab.ErrFull,
// ENOSPC to htab.ErrNoSpace, EINVAL to htab.ErrInvalid); the result wraps both,
// so errors.Is works with the htab error and with the unix.Errno. Other errnos
// are returned wrapped, recoverable with errors.Is or errors.As. Arguments the
// harness refuses before calling the kernel (a key or value of the wrong
// length, for instance, which the kernel would read past) wrap htab.ErrInvalid
// only.
//
// Tests call Require first: it skips them, with the reason, where BPF maps
// cannot be created, or fails them if HTAB_REQUIRE_KERNEL is set. Their random
// sequences come from Seed, which HTAB_DIFF_SEED moves, to soak them.
// RandomOps is the random single-key differential of a generated map, reached
// through its htabtest.Map adapter, against a Map, whatever its key and value
// sizes.
//
// The package needs Linux on a 64-bit architecture.
package kernel

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/htabgen/htabgen/htab"
)

// RequireEnv is the environment variable that makes Require fail, rather than
// skip, tests when BPF maps are unavailable. Any value strconv.ParseBool reads
// as true ("1", "true", ...) turns it on.
const RequireEnv = "HTAB_REQUIRE_KERNEL"

// SeedEnv is the environment variable that changes the random sequences of
// the differential tests, to soak them: HTAB_DIFF_SEED=n (n > 0) runs
// sequences other than the default run's, a different set for each n.
const SeedEnv = "HTAB_DIFF_SEED"

// Seed is the random seed a differential test passes to rand.NewPCG: def, its
// fixed default, unless SeedEnv is set, which moves it to another sequence
// and says so in the test's output. It fails the test if SeedEnv is not a
// whole number.
func Seed(t testing.TB, def uint64) uint64 {
	t.Helper()
	n, err := seedShift(os.Getenv(SeedEnv))
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Logf("%s=%d: random sequence %d instead of the default %d", SeedEnv, n, def+n<<32, def)
	}
	return def + n<<32
}

// seedShift is SeedEnv's value as Seed uses it: 0 when unset.
func seedShift(env string) (uint64, error) {
	if env == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(env, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want a whole number from 0 to %d", SeedEnv, env, uint32(1<<32-1))
	}
	return n, nil
}

var available = sync.OnceValue(func() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("kernel BPF maps need Linux, not %s", runtime.GOOS)
	}
	if _, err := possibleCPUs(); err != nil {
		return fmt.Errorf("cannot read the number of possible CPUs: %w", err)
	}
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 4, MaxEntries: 1})
	if err != nil {
		return fmt.Errorf("cannot create a BPF hash map (needs CAP_BPF or root and bpf(2) allowed): %w", err)
	}
	m.Close()
	return nil
})

// Available returns nil when BPF maps can be created here, else an error
// saying why. The probe runs once; later calls return the cached answer.
func Available() error { return available() }

// Require skips the test, with a message naming the reason, when Available
// reports that BPF maps cannot be created. If the environment sets
// HTAB_REQUIRE_KERNEL (RequireEnv) to a true value such as 1, it fails the
// test with t.Fatal instead.
func Require(t testing.TB) {
	t.Helper()
	requireWith(t, Available(), os.Getenv(RequireEnv))
}

// requireWith is Require with Available's result and RequireEnv's value as
// arguments.
func requireWith(t testing.TB, availErr error, env string) {
	t.Helper()
	switch act, msg := requireAction(availErr, env); act {
	case actSkip:
		t.Skip(msg)
	case actFail:
		t.Fatal(msg)
	}
}

type action int

const (
	actRun action = iota
	actSkip
	actFail
)

// requireAction is Require's decision, given Available's result and the value
// of RequireEnv.
func requireAction(availErr error, env string) (action, string) {
	if availErr == nil {
		return actRun, ""
	}
	if on, err := strconv.ParseBool(env); err == nil && on {
		return actFail, fmt.Sprintf("kernel BPF maps unavailable and %s=%s: %v", RequireEnv, env, availErr)
	}
	return actSkip, fmt.Sprintf("skipping: kernel BPF maps unavailable: %v (set %s=1 to fail instead)", availErr, RequireEnv)
}

var possibleCPUs = sync.OnceValues(ebpf.PossibleCPU)

// PossibleCPUs is the kernel's number of possible CPUs (ebpf.PossibleCPU()):
// the number of slots in the value of a per-CPU map. It panics if that number
// cannot be read, which Available reports first.
func PossibleCPUs() int {
	n, err := possibleCPUs()
	if err != nil {
		panic(fmt.Sprintf("kernel: number of possible CPUs: %v", err))
	}
	return n
}

// PinCPU locks the calling goroutine to its OS thread
// (runtime.LockOSThread) and pins that thread to cpu (unix.SchedSetaffinity).
// The returned unpin restores the thread's previous affinity and unlocks it;
// call it from the same goroutine. If the affinity cannot be restored the
// goroutine stays locked, so that the thread dies with it instead of being
// reused. BPF programs run by ProgLookup and map operations from this
// goroutine then run on cpu.
func PinCPU(cpu int) (unpin func(), err error) {
	var set unix.CPUSet
	if cpu < 0 || cpu >= len(set)*64 {
		return nil, fmt.Errorf("%w: cpu %d (allowed: 0..%d)", htab.ErrInvalid, cpu, len(set)*64-1)
	}
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return nil, mapErrno("sched_getaffinity", err)
	}
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return nil, mapErrno(fmt.Sprintf("sched_setaffinity(cpu %d)", cpu), err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if unix.SchedSetaffinity(0, &old) == nil {
				runtime.UnlockOSThread()
			}
		})
	}, nil
}

// PinnableCPUs returns the possible CPUs that PinCPU can move a thread to:
// the online ones this process may run on.
func PinnableCPUs() []int {
	var cpus []int
	for c := range PossibleCPUs() {
		if unpin, err := PinCPU(c); err == nil {
			unpin()
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// kernelError is a failed kernel call whose errno has an htab equivalent.
// errors.Is matches both the htab error and the errno.
type kernelError struct {
	op    string
	errno unix.Errno
	htab  error // the htab error of the same meaning
	cause error // what the call returned; its chain holds errno
}

func (e *kernelError) Error() string {
	return fmt.Sprintf("kernel %s: %s: %v (%v)", e.op, unix.ErrnoName(e.errno), e.cause, e.htab)
}

func (e *kernelError) Unwrap() []error { return []error{e.htab, e.cause} }

// htabErrors maps kernel errnos to the htab errors of the same meaning.
var htabErrors = map[unix.Errno]error{
	unix.ENOENT: htab.ErrKeyNotExist,
	unix.EEXIST: htab.ErrKeyExist,
	unix.E2BIG:  htab.ErrFull,
	unix.ENOSPC: htab.ErrNoSpace,
	unix.EINVAL: htab.ErrInvalid,
	unix.ENOMEM: htab.ErrNoMem,
}

// ErrName is the errno err stands for on either side, a kernel call's error
// or the htab error of the same meaning ("ENOENT", ...); "ok" for nil, else
// "other: " and the error's text. Two results mean the same when their
// names are equal.
func ErrName(err error) string {
	if err == nil {
		return "ok"
	}
	for errno, h := range htabErrors {
		if errors.Is(err, h) {
			return unix.ErrnoName(errno)
		}
	}
	return "other: " + err.Error()
}

// RequireSameErr fails t unless got is the htab error that want, a kernel
// call's error, maps to, or both are nil. format and args name the call.
func RequireSameErr(t testing.TB, want, got error, format string, args ...any) {
	t.Helper()
	for _, h := range htabErrors {
		if errors.Is(want, h) {
			if !errors.Is(got, h) {
				t.Fatalf(format+": got %v, kernel says %v", append(args, got, want)...)
			}
			return
		}
	}
	if want != nil {
		t.Fatalf(format+": kernel error with no htab equivalent: %v", append(args, want)...)
	}
	if got != nil {
		t.Fatalf(format+": got %v, kernel says no error", append(args, got)...)
	}
}

// mapErrno wraps err, the result of the kernel call op, so that errors.Is
// finds both the errno and, if there is one, its htab equivalent.
func mapErrno(op string, err error) error {
	if err == nil {
		return nil
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		if h, ok := htabErrors[errno]; ok {
			return &kernelError{op: op, errno: errno, htab: h, cause: err}
		}
	}
	return fmt.Errorf("kernel %s: %w", op, err)
}

// invalid returns an error for an argument refused before any kernel call.
func invalid(op, format string, args ...any) error {
	return fmt.Errorf("kernel %s: %w: %s", op, htab.ErrInvalid, fmt.Sprintf(format, args...))
}
