// Package wait holds the one way this module sleeps: for a duration or
// until a context ends, whichever comes first.
package wait

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, and reports whether it waited in full.
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
