// Package cpuclock reads the CPU time the process, or the calling thread, has
// used. On a shared machine the work done per CPU-second is steadier than the
// work done per wall-clock second, and CPU time over wall time tells whether
// goroutines ran at once; the benchmarks report both.
package cpuclock

import (
	"syscall"
	"time"
	"unsafe"
)

// Process is the CPU time (user and system) that all the process's threads
// have used so far, or 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Thread is the CPU time the calling thread has used so far
// (CLOCK_THREAD_CPUTIME_ID): time spent descheduled does not count. The
// caller keeps its goroutine on one thread with runtime.LockOSThread.
func Thread() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(e)
	}
	return time.Duration(ts.Nano())
}
