package itick_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// storeDownError is what a limiter shared through a store returns when the
// store cannot be reached.
type storeDownError struct{ addr string }

func (e *storeDownError) Error() string { return "quota store " + e.addr + " is unreachable" }

type failingLimiter struct{ err error }

func (l failingLimiter) Wait(context.Context) error { return l.err }

// TestBehaviour13_LimiterErrorKeepsItsCause: a limiter's own failure comes
// back wrapped, and is no timeout although the context has a deadline.
func TestBehaviour13_LimiterErrorKeepsItsCause(t *testing.T) {
	t.Parallel()
	down := &storeDownError{addr: "10.0.0.7:6379"}
	c, mt := newMockClient(t, itick.WithLimiter(failingLimiter{down}))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	var got *storeDownError
	if !errors.As(err, &got) || got != down {
		t.Errorf("err = %v, want one errors.As finds as the limiter's *storeDownError", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("err = %v matches a context error, though the context did not end", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}
