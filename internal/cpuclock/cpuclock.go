// Package cpuclock reads the CPU time the process, or the calling thread, has
// used. On a shared machine the work done per CPU-second is steadier than the
// work done per wall-clock second, and CPU time over wall time tells whether
// goroutines ran at once; the benchmarks report both.
package cpuclock

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
