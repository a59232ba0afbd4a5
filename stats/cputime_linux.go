package stats

import (
	"time"
	"unsafe"

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
	// A raw system call: one that returns through the scheduler
	// (unix.ClockGettime) may resume the goroutine on another thread
	// before its caller learns which thread's clock it read.
	_, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// threadCPU returns ThreadCPU and the calling thread's id, so that a
// phase timer can tell when its goroutine moved to another thread; ok is
// false when it moved while they were read (the id differs on the two
// sides of the clock).
func threadCPU() (cpu time.Duration, tid int, ok bool) {
	tid = unix.Gettid()
	cpu, ok = ThreadCPU()
	return cpu, tid, ok && unix.Gettid() == tid
}
