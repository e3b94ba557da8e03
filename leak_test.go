package itick_test

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// checkGoroutines records how many goroutines run now and, when the test
// ends, waits for the count to come back to that baseline, failing the test
// with every goroutine's stack if it does not.
//
// Call it first in a test, before starting servers and clients, and register
// their Close and CloseIdleConnections with t.Cleanup afterwards: cleanups
// run last-in first-out, so they have run by the time this check does.
//
// go.uber.org/goleak would do the same job, but it is one more dependency
// for a check that needs a dozen lines: it too compares the goroutines
// running after a test with those running before, retrying for a while, and
// prints the stacks of the extra ones. Counting is enough here because the
// tests that use it do not run in parallel with each other: parallel tests
// elsewhere in the package are paused while sequential ones run, so their
// goroutines only make the baseline higher, never the final count.
func checkGoroutines(t testing.TB) {
	t.Helper()
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if n, ok := waitGoroutines(ctx, base); !ok {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("goroutines leaked: %d running, %d before the test\n%s", n, base, buf)
		}
	})
}

// waitGoroutines polls until at most base goroutines run or ctx ends. It
// returns the last count and whether it came back to base.
func waitGoroutines(ctx context.Context, base int) (int, bool) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		runtime.Gosched()
		n := runtime.NumGoroutine()
		if n <= base {
			return n, true
		}
		select {
		case <-ctx.Done():
			return n, false
		case <-tick.C:
		}
	}
}

// TestWaitGoroutines checks that the helper sees a goroutine left running
// and sees it go.
func TestWaitGoroutines(t *testing.T) {
	base := runtime.NumGoroutine()
	release := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-release
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if n, ok := waitGoroutines(ctx, base); ok {
		t.Fatalf("a blocked goroutine went unnoticed: %d running, baseline %d", n, base)
	}
	close(release)
	<-stopped
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if n, ok := waitGoroutines(ctx2, base); !ok {
		t.Errorf("count stayed at %d after the goroutine ended, baseline %d", n, base)
	}
}
