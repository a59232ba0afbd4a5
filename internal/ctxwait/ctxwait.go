// Package ctxwait waits for a duration or a context, whichever ends first.
package ctxwait

import (
	"context"
	"time"
)

// Sleep pauses for d and reports true, or returns false as soon as ctx
// ends. A d of zero or less returns true at once unless ctx has ended.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
