package cpuclock

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Busy work moves the thread's clock, and the process's by at least as much;
// sleeping does not move the thread's.
func TestClocks(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0 := Process(), Thread()
	require.NotZero(t, p0)
	for deadline := time.Now().Add(10 * time.Second); Thread()-t0 < 20*time.Millisecond; {
		require.True(t, time.Now().Before(deadline), "the thread's CPU clock does not advance under busy work")
	}
	p1, t1 := Process(), Thread()
	require.GreaterOrEqual(t, p1-p0, (t1-t0)*9/10, "the process's CPU time includes the thread's")
	time.Sleep(50 * time.Millisecond)
	require.Less(t, Thread()-t1, 25*time.Millisecond, "sleeping costs the thread no CPU")
}
