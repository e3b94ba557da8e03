package redisquota

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// manualClock is a process clock a test moves by hand.
type manualClock struct{ ns atomic.Int64 }

func (c *manualClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *manualClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func TestFallbackSwitchesAndRecovers(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l, err := New(rdb, "quota", 10, WithWindow(time.Hour), WithFallback(0.2), WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	// The process clock stands still unless moved, starting at the real
	// time so that contexts' deadlines compare with it.
	clock := &manualClock{}
	clock.ns.Store(time.Now().UnixNano())
	l.now = clock.now
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if logs.String() != "" {
		t.Fatalf("logged with Redis up:\n%s", logs.String())
	}

	srv.kill()
	// The local limiter allows 20% of 10 calls per window: two.
	for i := range 2 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatalf("call %d on the fallback: %v", i+1, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third call on the fallback = %v, want DeadlineExceeded: the share is 2 calls an hour", err)
	}
	out := logs.String()
	if strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "Redis failed") ||
		!strings.Contains(out, "share=0.2") || !strings.Contains(out, "calls=2") || !strings.Contains(out, "connect") {
		t.Fatalf("want one WARN naming the share, the calls and the error; logged:\n%s", out)
	}

	srv.restart()
	// Within the probe interval the fallback still decides.
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call before the probe = %v, want the fallback's DeadlineExceeded", err)
	}
	// go-redis's pool redials in the background after failed dials; wait
	// until it has.
	waitUntil(t, func() bool { return rdb.Ping(ctx).Err() == nil })
	clock.advance(probeInterval)
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("call after Redis came back: %v", err)
	}
	if got := calls(t, rdb, "quota"); got != 1 {
		t.Errorf("%d calls in the restarted Redis, want 1: the probe went through it", got)
	}
	out = logs.String()
	if strings.Count(out, "level=INFO") != 1 || !strings.Contains(out, "Redis is back") {
		t.Fatalf("want one INFO saying Redis is back; logged:\n%s", out)
	}
	// Back on Redis, the shared quota decides again: nine more fit.
	for i := range 9 {
		if err := l.Wait(ctx); err != nil {
			t.Fatalf("call %d back on Redis: %v", i+1, err)
		}
	}
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("eleventh call back on Redis = %v, want DeadlineExceeded", err)
	}
	if got := strings.Count(logs.String(), "\n"); got != 2 {
		t.Errorf("%d log lines, want the switch and the return:\n%s", got, logs.String())
	}
}

// TestFallbackTakesOverWithinTheCallersTime has Redis hang or die under
// callers whose deadlines are short: the Limiter's own try at Redis ends
// within half of their time and counts as Redis failing, so the fallback
// grants them all in time. (Before, a try ended only with the caller's
// context, which did not count, and the fallback was never asked.) It is
// not parallel: the callers' deadlines leave the machine's load half of
// their time.
func TestFallbackTakesOverWithinTheCallersTime(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fail    func(srv *redisServer)
		wantLog string // matches the switch's line
	}{
		{"SIGSTOP", func(srv *redisServer) { srv.pause() }, `did not answer`},
		// go-redis dials again a few times, 100 ms apart, before it
		// reports the refused connection; the try may end first.
		{"killed", func(srv *redisServer) { srv.kill() }, `did not answer|connect`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRedis(t)
			rdb := srv.client(t)
			var logs syncBuffer
			l, err := New(rdb, "quota", 10, WithWindow(time.Hour), WithFallback(1),
				WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			tt.fail(srv)
			// Redis gets half of it, 500 ms, the fallback the rest.
			const deadline = time.Second
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(t.Context(), deadline)
					defer cancel()
					start := time.Now()
					err := l.Wait(ctx)
					t.Logf("caller %d: %v after %s", i+1, err, time.Since(start))
					if err != nil {
						t.Errorf("caller %d with a %s deadline: %v; want the fallback's grant", i+1, deadline, err)
					}
				}()
			}
			wg.Wait()
			out := logs.String()
			if strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "Redis failed") || !regexp.MustCompile(tt.wantLog).MatchString(out) {
				t.Errorf("want one WARN saying Redis failed, with %q; logged:\n%q", tt.wantLog, out)
			}
		})
	}
}

// TestACallerNearItsDeadlineDoesNotSwitchToTheFallback has Redis stall
// under a caller whose deadline is too near to give Redis a fair try: its
// Wait ends with its context, and the process stays on Redis.
func TestACallerNearItsDeadlineDoesNotSwitchToTheFallback(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	var logs syncBuffer
	l, err := New(rdb, "quota", 10, WithWindow(time.Hour), WithFallback(1), WithRedisTimeout(10*time.Second),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	debugSleep(t, srv, 3*time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Millisecond)
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a 40ms deadline = %v, want DeadlineExceeded", err)
	}
	// A caller with time to spare waits the stall out on Redis.
	ctx, cancel = context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("Wait with a 20s deadline: %v", err)
	}
	// The first caller's script ran when the stall ended; its call is
	// given back in the background.
	waitUntil(t, func() bool { return calls(t, rdb, "quota") == 2 })
	if out := logs.String(); out != "" {
		t.Errorf("logged, want no switch to the fallback:\n%s", out)
	}
}
