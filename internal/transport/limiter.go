package transport

import (
	"context"
	"fmt"
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
