//go:build !unix

package hostload

import (
	"errors"
	"time"
)

// processCPU is not known off Unix.
func processCPU() (time.Duration, error) {
	return 0, errors.New("hostload: no process CPU time on this system")
}
