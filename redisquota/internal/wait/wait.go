// Package wait holds the one way this module sleeps: for a duration or
// until a context ends, whichever comes first; and the refusal a limiter
// gives when the wait would pass the context's deadline. The SDK has its
// own; this module keeps a copy so it depends on none of the SDK's
// internal packages.
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

// TooLong is a limiter's refusal of a wait that would pass ctx's deadline:
// it matches context.DeadlineExceeded, and says how long the wait was.
type TooLong struct {
	What string        // the limiter, in the message: "quota: next slot"
	Wait time.Duration // how long the wait for a slot would have been
}

func (e *TooLong) Error() string {
	return e.What + " in " + e.Wait.Round(time.Millisecond).String() + " is past the deadline: " + context.DeadlineExceeded.Error()
}

// Is matches context.DeadlineExceeded.
func (e *TooLong) Is(target error) bool { return target == context.DeadlineExceeded }

// RetryAfter is how long the wait would have been.
func (e *TooLong) RetryAfter() time.Duration { return e.Wait }
