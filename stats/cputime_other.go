//go:build !linux

package stats

import "time"

// threadCPU reports no CPU time where per-thread usage is not available
// through the standard library.
func threadCPU() (cpu time.Duration, tid int, ok bool) { return 0, 0, false }
