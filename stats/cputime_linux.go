package stats

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD, which the syscall package does not name.
const rusageThread = 1

// threadCPU returns the calling OS thread's user+system CPU time and the
// thread's id; ok is false when the kernel refused.
func threadCPU() (cpu time.Duration, tid int, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, 0, false
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, syscall.Gettid(), true
}
