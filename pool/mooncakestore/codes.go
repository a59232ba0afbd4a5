package mooncakestore

import (
	"fmt"

	"github.com/kvctl/kvctl/pool"
)

// internalError is Mooncake's INTERNAL_ERROR (-1, types.h), which
// store_c.cpp also returns for bad arguments and for an exception in the
// client.
const internalError = -1

// codeOf maps one per-key result of store_c.h (0, or a negative Mooncake
// ErrorCode, which pool.Code spells with the same numbers) to a pool.Code.
func codeOf(rc int64) pool.Code {
	if rc >= 0 {
		return pool.OK
	}
	return pool.Code(rc)
}

// callError is the error of a batch call that failed as a whole.
func callError(op string, n int, rc int64) error {
	return &pool.Error{Op: op, Code: codeOf(rc), Err: fmt.Errorf("mooncake store call on %d keys failed as a whole", n)}
}

// healthName names a mooncake_store_health_check result (HealthCheckStatus
// in Mooncake's pyclient.h), or the setup's error code when negative.
func healthName(rc int32) string {
	switch {
	case rc == 1:
		return "client not initialized (HC_NOT_INITIALIZED)"
	case rc == 2:
		return "master unreachable (HC_MASTER_UNREACHABLE)"
	case rc < 0:
		return codeOf(int64(rc)).String() + fmt.Sprintf(" (%d)", rc)
	}
	return fmt.Sprintf("status %d", rc)
}
