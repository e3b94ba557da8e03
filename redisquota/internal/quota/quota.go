// Package quota paces calls to a quota of N calls in any window of a given
// length, the way a service counts "calls per minute": the Limiter's
// fallback while Redis fails. It is this module's own, with the SDK's rule,
// so a redisquota release depends on no internal package of the SDK.
package quota

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/d19c4e34/itick/redisquota/internal/wait"
)

// Window lets at most n calls start in any span of per. Unlike a token
// bucket refilled at n/per, it allows the whole quota at once when the
// window is empty, and never more: each caller is granted the earliest
// slot that keeps every span of per at n slots or fewer. A caller whose
// wait ends early gives its slot back, so cancelled callers use up no
// quota and a later caller may take the freed slot.
type Window struct {
	n     int
	per   time.Duration
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu sync.Mutex
	// slots holds the granted slots, oldest first, that can still share a
	// span of per with a slot granted from now on: the ones in the last
	// per and the ones callers are still waiting for.
	slots []time.Time
}

// New returns a Window of n calls per span.
func New(n int, per time.Duration) *Window {
	return NewWithClock(n, per, time.Now, sleep)
}

// NewWithClock is New with the time read from now and waits made by sleep,
// which must return ctx's error if ctx ends first. Tests use it to run the
// window on a virtual clock.
func NewWithClock(n int, per time.Duration, now func() time.Time, sleep func(ctx context.Context, d time.Duration) error) *Window {
	if n < 1 {
		n = 1
	}
	return &Window{n: n, per: per, now: now, sleep: sleep}
}

// sleep waits d in real time unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	if !wait.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}

// Limit returns the quota as calls and window length.
func (w *Window) Limit() (int, time.Duration) { return w.n, w.per }

// reserve takes the earliest slot not before now that keeps every span of
// per at n slots or fewer, and returns it. When deadline is set and the
// slot would pass it, nothing is taken.
//
// Any n granted slots lo..hi (consecutive in time) with hi-lo < per rule
// out the open interval (hi-per, lo+per) for a new slot, since a slot there
// would share a span of per with all of them. Both ends of those intervals
// grow with lo, so one pass in order finds the first time at or after now
// outside all of them, and stops at the first interval that starts after
// it. Slots freed by release leave gaps that this pass finds too.
func (w *Window) reserve(now, deadline time.Time) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.prune(now)
	at := now
	for i := 0; i+w.n-1 < len(w.slots); i++ {
		lo, hi := w.slots[i], w.slots[i+w.n-1]
		start := hi.Add(-w.per)
		if !start.Before(at) {
			break
		}
		if end := lo.Add(w.per); hi.Sub(lo) < w.per && at.Before(end) {
			at = end
		}
	}
	if !deadline.IsZero() && at.After(deadline) {
		return at, false
	}
	i, _ := slices.BinarySearchFunc(w.slots, at, time.Time.Compare)
	// Insert after any equal slots, so the order stays stable.
	for i < len(w.slots) && w.slots[i].Equal(at) {
		i++
	}
	w.slots = slices.Insert(w.slots, i, at)
	return at, true
}

// prune drops slots that lie a whole window or more before now: no slot
// granted from now on can share a span of per with them.
func (w *Window) prune(now time.Time) {
	cut := now.Add(-w.per)
	i := 0
	for i < len(w.slots) && !w.slots[i].After(cut) {
		i++
	}
	if i > 0 {
		w.slots = slices.Delete(w.slots, 0, i)
	}
}

// release gives back a slot that reserve granted and its caller did not
// use. Removing a slot can only empty spans, so every other slot granted
// stays within the quota.
func (w *Window) release(at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	i, found := slices.BinarySearchFunc(w.slots, at, time.Time.Compare)
	if found {
		w.slots = slices.Delete(w.slots, i, i+1)
	}
}

// Wait blocks until the call may start. It returns at once with an error
// wrapping context.DeadlineExceeded when the slot lies past ctx's deadline,
// and with ctx's error when ctx ends first; either way it takes no slot.
func (w *Window) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	now := w.now()
	at, ok := w.reserve(now, deadline)
	if !ok {
		return &wait.TooLong{What: "quota: next slot", Wait: at.Sub(now)}
	}
	d := at.Sub(now)
	if d <= 0 {
		return nil
	}
	if err := w.sleep(ctx, d); err != nil {
		w.release(at)
		return err
	}
	return nil
}
