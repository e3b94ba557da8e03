// Package quota paces calls to a quota of N calls in any window of a given
// length, the way a service counts "calls per minute".
package quota

import (
	"context"
	"fmt"
	"github.com/d19c4e34/itick/internal/wait"
	"sync"
	"time"
)

// Window lets at most n calls start in any span of per. Unlike a token
// bucket refilled at n/per, it allows the whole quota at once when the
// window is empty, and never more: calls are granted slots in arrival
// order, each slot at least per after the slot n places before it.
type Window struct {
	n     int
	per   time.Duration
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu    sync.Mutex
	slots []time.Time // ring of the last n granted slots
	next  int         // index of the oldest slot once the ring is full
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
	return &Window{n: n, per: per, now: now, sleep: sleep, slots: make([]time.Time, 0, n)}
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

// reserve takes the earliest slot not before now and returns it. When
// deadline is set and the slot would pass it, nothing is taken.
func (w *Window) reserve(now, deadline time.Time) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	at := now
	if len(w.slots) == w.n {
		if earliest := w.slots[w.next].Add(w.per); earliest.After(at) {
			at = earliest
		}
	}
	if !deadline.IsZero() && at.After(deadline) {
		return at, false
	}
	if len(w.slots) < w.n {
		w.slots = append(w.slots, at)
	} else {
		w.slots[w.next] = at
		w.next = (w.next + 1) % w.n
	}
	return at, true
}

// Wait blocks until the call may start. It returns at once with an error
// wrapping context.DeadlineExceeded when the slot lies past ctx's deadline,
// and with ctx's error when ctx ends first.
func (w *Window) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	now := w.now()
	at, ok := w.reserve(now, deadline)
	if !ok {
		return fmt.Errorf("quota: next slot in %s is past the deadline: %w", at.Sub(now).Round(time.Millisecond), context.DeadlineExceeded)
	}
	d := at.Sub(now)
	if d <= 0 {
		return nil
	}
	return w.sleep(ctx, d)
}
