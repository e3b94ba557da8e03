package transport

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick/internal/wait"
)

// limiterWait waits on l, through waitRate when l is a *rate.Limiter.
func limiterWait(ctx context.Context, l Limiter) error {
	if rl, ok := l.(*rate.Limiter); ok {
		return waitRate(ctx, rl)
	}
	return l.Wait(ctx)
}

// waitRate is (*rate.Limiter).Wait with one difference: a wait that would
// pass ctx's deadline is refused with an error wrapping
// context.DeadlineExceeded. rate's own refusal is a plain error, and
// telling it apart from a limiter's other errors would mean reading its
// text. Like rate's Wait, it gives back its reservation when it does not
// wait in full.
func waitRate(ctx context.Context, l *rate.Limiter) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.Limit() == rate.Inf {
		return nil
	}
	now := time.Now()
	r := l.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("rate: a call exceeds the limiter's burst %d", l.Burst())
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		r.CancelAt(now)
		return &wait.TooLong{What: "rate: next token", Wait: d}
	}
	if !wait.Sleep(ctx, d) {
		r.Cancel()
		return ctx.Err()
	}
	return nil
}

// rateRefusal reports *rate.Limiter's own refusal of a wait that would
// pass the context's deadline, which rate returns as a plain error
// ("rate: Wait(n=1) would exceed context deadline") and a LimiterFunc over
// a *rate.Limiter passes on, wrapped or not.
func rateRefusal(err error) bool {
	msg := err.Error()
	i := strings.Index(msg, "rate: Wait(n=")
	return i >= 0 && strings.Contains(msg[i:], ") would exceed context deadline")
}

// pastDeadline is a limiter's refusal of a wait past the deadline whose
// error does not say so to errors.Is: the same error, matching
// context.DeadlineExceeded.
type pastDeadline struct{ error }

// Unwrap returns the limiter's error.
func (e pastDeadline) Unwrap() error { return e.error }

// Is matches context.DeadlineExceeded.
func (e pastDeadline) Is(target error) bool { return target == context.DeadlineExceeded }
