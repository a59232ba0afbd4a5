//go:build !unix

package hostload

import (
	"errors"
	"time"
)

// ProcessCPU is not known off Unix.
func ProcessCPU() (time.Duration, error) {
	return 0, errors.New("hostload: no process CPU time on this system")
}
