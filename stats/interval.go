package stats

import (
	"sync"
	"time"
)

// Interval gates periodic work, such as logging a statistics line, to at
// most once per period. A nil *Interval, or one with a period of zero or
// less, is never due. It is safe for concurrent use.
type Interval struct {
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	last time.Time
}

// NewInterval returns a gate that is first due every after its creation
// and then every after each time it was due. now is the clock; nil means
// time.Now.
func NewInterval(every time.Duration, now func() time.Time) *Interval {
	if now == nil {
		now = time.Now
	}
	return &Interval{every: every, now: now, last: now()}
}

// Every returns the period.
func (iv *Interval) Every() time.Duration {
	if iv == nil {
		return 0
	}
	return iv.every
}

// Due reports whether a period has passed since the gate was last due (or
// created); when it returns true the next period starts now.
func (iv *Interval) Due() bool {
	if iv == nil || iv.every <= 0 {
		return false
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	now := iv.now()
	if now.Sub(iv.last) < iv.every {
		return false
	}
	iv.last = now
	return true
}
