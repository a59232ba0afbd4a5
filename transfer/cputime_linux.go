package transfer

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID: the calling thread's CPU
// time, at nanosecond resolution (getrusage only counts scheduler ticks).
const clockThreadCPUTime = 3

// threadCPU returns the calling OS thread's CPU time, or 0 when the kernel
// does not say.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
