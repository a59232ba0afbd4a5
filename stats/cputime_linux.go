package stats

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU returns the calling OS thread's CPU time, user and system,
// read from CLOCK_THREAD_CPUTIME_ID at nanosecond resolution (getrusage's
// RUSAGE_THREAD only advances at scheduler ticks); ok is false when the
// kernel refused. The difference of two readings is the work's only while
// the goroutine stays on its thread: lock it there (runtime.LockOSThread)
// for exact accounting.
func ThreadCPU() (cpu time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// threadCPU returns ThreadCPU and the calling thread's id, so that a
// phase timer can tell when its goroutine moved to another thread.
func threadCPU() (cpu time.Duration, tid int, ok bool) {
	cpu, ok = ThreadCPU()
	return cpu, unix.Gettid(), ok
}
