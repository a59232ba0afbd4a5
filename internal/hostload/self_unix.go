//go:build unix

package hostload

import (
	"syscall"
	"time"
)

// ProcessCPU is the process's CPU time so far, user and system (getrusage).
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
