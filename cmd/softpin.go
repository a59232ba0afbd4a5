package cmd

import (
	"math"
	"time"
)

// maxSoftPinTTLMS is the largest --soft-pin-ttl-ms: the most milliseconds
// a time.Duration holds (about 292 years). A larger value would wrap.
const maxSoftPinTTLMS = math.MaxInt64 / int64(time.Millisecond)

// softPinTTL turns --soft-pin-ttl-ms into a duration, refusing a value
// outside 0..maxSoftPinTTLMS with a usage error.
func softPinTTL(ms int64) (time.Duration, error) {
	if ms < 0 || ms > maxSoftPinTTLMS {
		return 0, usagef("--soft-pin-ttl-ms %d is outside 0..%d", ms, maxSoftPinTTLMS)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
