package wait

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	t.Parallel()
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep with a live context did not wait in full")
	}
	if !Sleep(context.Background(), 0) {
		t.Error("Sleep(0) with a live context reported an early end")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep with an ended context reported waiting in full")
	}
	if Sleep(ctx, 0) {
		t.Error("Sleep(0) with an ended context reported waiting in full")
	}
}

// TestEnded: an error of a call whose context ended matches ctx.Err() and
// the context's cause, whatever it matched before; with the context alive
// it is left as it is.
func TestEnded(t *testing.T) {
	t.Parallel()
	cause := errors.New("shutting down")
	transport := errors.New("connection reset")
	cancelled := func(c error) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(c)
		return ctx
	}
	expired := func(c error) context.Context {
		ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(-time.Second), c)
		t.Cleanup(cancel)
		return ctx
	}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want []error // what the result matches
		text string  // the result's text
	}{
		{"alive", context.Background(), transport, []error{transport}, "connection reset"},
		{"alive, nil", context.Background(), nil, nil, ""},
		{"cancelled, nil", cancelled(nil), nil, nil, ""},
		{"cancelled", cancelled(nil), transport, []error{transport, context.Canceled}, "connection reset: context canceled"},
		{"cancelled with cause", cancelled(cause), transport, []error{transport, context.Canceled, cause},
			"connection reset: context canceled: shutting down"},
		// net/http returns the cause alone.
		{"the cause alone", cancelled(cause), fmt.Errorf("Get: %w", cause), []error{context.Canceled, cause},
			"Get: shutting down: context canceled"},
		{"already ctx's error", cancelled(nil), fmt.Errorf("wait: %w", context.Canceled), []error{context.Canceled}, "wait: context canceled"},
		{"deadline with cause", expired(cause), transport, []error{transport, context.DeadlineExceeded, cause},
			"connection reset: context deadline exceeded: shutting down"},
		{"a cause matching ctx's error", cancelled(fmt.Errorf("stop: %w", context.Canceled)), transport,
			[]error{transport, context.Canceled}, "connection reset: stop: context canceled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Ended(tc.ctx, tc.err)
			if tc.text == "" {
				if got != nil {
					t.Fatalf("Ended = %v, want nil", got)
				}
				return
			}
			for _, w := range tc.want {
				if !errors.Is(got, w) {
					t.Errorf("Ended = %v, does not match %v", got, w)
				}
			}
			if got.Error() != tc.text {
				t.Errorf("text %q, want %q", got.Error(), tc.text)
			}
		})
	}
}

// TestErr: ctx's error, matching its cause.
func TestErr(t *testing.T) {
	t.Parallel()
	if err := Err(context.Background()); err != nil {
		t.Errorf("Err of a live context = %v", err)
	}
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if err := Err(ctx); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || err.Error() != "context canceled: shutting down" {
		t.Errorf("Err = %v, want context.Canceled and the cause", err)
	}
	plain, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := Err(plain); err != context.Canceled {
		t.Errorf("Err without a cause = %v, want context.Canceled itself", err)
	}
}
