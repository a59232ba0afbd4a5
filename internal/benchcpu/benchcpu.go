// Package benchcpu reads the CPU time of the process for benchmarks that
// report it beside their wall time (cpu-ns per item or chunk): less
// sensitive than wall time to other processes on a shared machine.
package benchcpu

import (
	"testing"
	"time"

	"github.com/kvctl/kvctl/internal/hostload"
)

// Process is the CPU time the process has used so far, user and system,
// garbage collection and spinning included (hostload.ProcessCPU); it
// fails tb when the kernel refuses to say.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	d, err := hostload.ProcessCPU()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
