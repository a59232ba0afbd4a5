// Package benchcpu reads the CPU time of the process for benchmarks that
// report it beside their wall time (cpu-ns per item or chunk): less
// sensitive than wall time to other processes on a shared machine.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Process is the CPU time the process has used so far, user and system,
// garbage collection and spinning included; it fails tb when the kernel
// refuses to say.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
