//go:build !linux

package stats

import "time"

// ThreadCPU reports no CPU time: the thread's clock is read on Linux only.
func ThreadCPU() (cpu time.Duration, ok bool) { return 0, false }

// threadCPU reports no CPU time and no thread.
func threadCPU() (cpu time.Duration, tid int, ok bool) { return 0, 0, false }
