package itick_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Bounded waits and the goroutine leak check.

// Waiting.

// within is a bounded safety net for waits in tests.
func within(t testing.TB) context.Context {
	t.Helper()
	// Generous: a passing test never waits for it, and a loaded machine
	// under the race detector can take seconds over a reconnection.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds, failing the test after a bound.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := within(t)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// waitOrFail returns the next value from ch, failing the test if none
// comes within the bound of within.
func waitOrFail[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-within(t).Done():
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// Leak checks.

// leakWait bounds how long a leak check waits for goroutines to end. It is
// long because a passing run returns as soon as they have, while a server's
// goroutines may take a while to notice a closed connection on a loaded
// machine.
const leakWait = 15 * time.Second

// checkGoroutines records which goroutines run now and, when the test ends,
// waits for every goroutine started since to end, failing the test with the
// stacks of those that do not.
//
// Call it first in a test, before starting servers and clients, and register
// their Close and CloseIdleConnections with t.Cleanup afterwards: cleanups
// run last-in first-out, so they have run by the time this check does.
//
// goleak tells goroutines apart by id, not by count, so a goroutine left by
// an earlier test that ends during this one cannot hide a leak, whatever
// order -shuffle runs the tests in.
func checkGoroutines(t testing.TB) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), leakWait)
		defer cancel()
		if err := settled(ctx, before); err != nil {
			t.Errorf("goroutines leaked: %v", err)
		}
	})
}

// settled waits until no goroutine runs but those before covers, or ctx
// ends. It returns nil once they are gone, else goleak's report of the
// goroutines still running.
func settled(ctx context.Context, before goleak.Option) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		// Find itself retries for a few hundred milliseconds before it
		// reports; the loop stretches that to ctx's deadline.
		err := goleak.Find(before)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-tick.C:
		}
	}
}

// TestWaitGoroutines checks that the leak check sees a goroutine left
// running, even when a goroutine that ran before the check ends meanwhile
// (as an earlier test's may), and sees it go.
func TestWaitGoroutines(t *testing.T) {
	earlierDone := make(chan struct{})
	earlierStopped := make(chan struct{})
	go func() {
		defer close(earlierStopped)
		<-earlierDone
	}()
	before := goleak.IgnoreCurrent()

	release := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-release
	}()
	close(earlierDone)
	<-earlierStopped

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := settled(ctx, before); err == nil {
		t.Fatal("a blocked goroutine went unnoticed once an earlier one ended")
	}
	close(release)
	<-stopped
	ctx2, cancel2 := context.WithTimeout(context.Background(), leakWait)
	defer cancel2()
	if err := settled(ctx2, before); err != nil {
		t.Errorf("the goroutine ended but the check still reports: %v", err)
	}
}

// waitGoroutines waits until every goroutine started after before was
// taken (with goleak.IgnoreCurrent) has ended, and otherwise fails with the
// stacks of those left. goleak tells goroutines apart by id, so one from an
// earlier test that ends meanwhile cannot hide a leak.
//
// The bound is long because the simulator's side of a dropped connection may
// sit in coder/websocket's close handshake for up to 15 s; a passing run
// returns as soon as the goroutines are gone.
func waitGoroutines(t *testing.T, before goleak.Option) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := settled(ctx, before); err != nil {
		t.Fatalf("goroutines remain: %v", err)
	}
}
