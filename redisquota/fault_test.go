package redisquota

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// lateBound is how soon after its context ends a Wait must return: far
// above the millisecond or so it takes, so that a loaded machine under the
// race detector does not fail it, and below the second and more a Wait
// held by a hung Redis took. The tests that measure it are not parallel,
// so that the package's other tests do not add to the load.
const lateBound = 500 * time.Millisecond

// hang makes srv stop answering, the way the name says, and returns what
// lets it answer again.
type hang struct {
	name string
	hang func(t *testing.T, srv *redisServer) (resume func())
}

var hangs = []hang{
	{"SIGSTOP", func(t *testing.T, srv *redisServer) func() {
		srv.pause()
		return srv.resume
	}},
	{"DEBUG SLEEP", func(t *testing.T, srv *redisServer) func() {
		return debugSleep(t, srv, 3*time.Second)
	}},
}

// debugSleep has srv run DEBUG SLEEP for d, from a client of its own, and
// returns once srv has stopped answering. The returned func waits until it
// answers again.
func debugSleep(t *testing.T, srv *redisServer, d time.Duration) (wait func()) {
	t.Helper()
	sleeper, probe := srv.client(t), srv.client(t)
	secs := strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
	go sleeper.Do(context.WithoutCancel(t.Context()), "DEBUG", "SLEEP", secs)
	answers := func(within time.Duration) bool {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), within)
		defer cancel()
		return probe.Ping(ctx).Err() == nil
	}
	waitUntil(t, func() bool { return !answers(50 * time.Millisecond) })
	return func() { waitUntil(t, func() bool { return answers(time.Second) }) }
}

// beforeScript is a go-redis hook that calls fn before each script command
// is sent.
type beforeScript func()

func (h beforeScript) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h beforeScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h beforeScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			h()
		}
		return next(ctx, cmd)
	}
}

// TestWaitEndsWithItsContextWhileRedisHangs ends a Wait's context while
// its script waits on a Redis that does not answer: Wait returns at once
// with the context's error, whether the client applies context deadlines
// or not, and once Redis answers, the call it recorded meanwhile is given
// back. It is not parallel: it measures time.
func TestWaitEndsWithItsContextWhileRedisHangs(t *testing.T) {
	type end struct {
		name string
		err  error
	}
	deadline, cancel := end{"deadline", context.DeadlineExceeded}, end{"cancel", context.Canceled}
	tests := []struct {
		hang           hang
		end            end
		contextTimeout bool // the client's ContextTimeoutEnabled
	}{
		{hangs[0], deadline, true},
		{hangs[0], cancel, true},
		{hangs[0], deadline, false},
		{hangs[0], cancel, false},
		{hangs[1], deadline, true},
		{hangs[1], cancel, true},
	}
	for _, tt := range tests {
		name := tt.hang.name + "/" + tt.end.name + "/ContextTimeoutEnabled=" + strconv.FormatBool(tt.contextTimeout)
		t.Run(name, func(t *testing.T) {
			srv := startRedis(t)
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: tt.contextTimeout})
			t.Cleanup(func() { rdb.Close() })
			// The timeout is far longer than the test: the caller's
			// context, not the Limiter's bound, ends each Wait.
			l, err := New(rdb, "quota", 5, WithWindow(time.Hour), WithRedisTimeout(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			sent := make(chan struct{})
			var once sync.Once
			rdb.AddHook(beforeScript(func() { once.Do(func() { close(sent) }) }))
			resume := tt.hang.hang(t, srv)

			if tt.end.err == context.Canceled {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				endedAt := make(chan time.Time, 1)
				go func() {
					<-sent
					endedAt <- time.Now()
					cancel()
				}()
				err := l.Wait(ctx)
				returned := time.Now()
				checkLate(t, err, tt.end.err, returned.Sub(<-endedAt))
			} else {
				ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
				defer cancel()
				ended, _ := ctx.Deadline()
				err := l.Wait(ctx)
				checkLate(t, err, tt.end.err, time.Since(ended))
			}
			resume()
			// The script ran once Redis went on, and recorded the call;
			// the Limiter gives it back.
			waitUntil(t, func() bool { return calls(t, rdb, "quota") == 1 })
		})
	}
}

// checkLate asserts that a Wait failed with want, late after its context
// ended.
func checkLate(t *testing.T, err, want error, late time.Duration) {
	t.Helper()
	t.Logf("Wait = %v, %s after the context ended", err, late)
	if !errors.Is(err, want) {
		t.Errorf("Wait = %v, want %v", err, want)
	}
	if late > lateBound {
		t.Errorf("Wait returned %s after its context ended, want within %s", late, lateBound)
	}
}

// TestWaitFailsWhenRedisDoesNotAnswerInTime holds a Wait without a
// deadline on a hung Redis: it fails with ErrRedisTimeout once the
// Limiter's timeout passes, matching no context error. The call its script
// records when Redis goes on is given back with the next request. It is
// not parallel: it measures time.
func TestWaitFailsWhenRedisDoesNotAnswerInTime(t *testing.T) {
	for _, h := range hangs {
		t.Run(h.name, func(t *testing.T) {
			srv := startRedis(t)
			rdb := srv.client(t)
			const timeout = 200 * time.Millisecond
			l, err := New(rdb, "quota", 5, WithWindow(time.Hour), WithRedisTimeout(timeout))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			resume := h.hang(t, srv)
			start := time.Now()
			err = l.Wait(t.Context())
			elapsed := time.Since(start)
			t.Logf("Wait = %v after %s", err, elapsed)
			if !errors.Is(err, ErrRedisTimeout) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				t.Errorf("Wait = %v; want ErrRedisTimeout and no context error", err)
			}
			if elapsed < timeout || elapsed > timeout+lateBound {
				t.Errorf("Wait returned after %s, want within %s of the %s timeout", elapsed, lateBound, timeout)
			}
			// The call's fate is unknown until Redis answers again.
			waitUntil(t, func() bool { return l.pendingCount() == 1 })
			resume()
			// Redis runs the script it held once it goes on: the call
			// counts though its caller has gone...
			waitUntil(t, func() bool { return calls(t, rdb, "quota") == 2 })
			// ...until the next request gives it back.
			if err := l.Wait(t.Context()); err != nil {
				t.Fatalf("Wait once Redis answers again: %v", err)
			}
			if got := calls(t, rdb, "quota"); got != 2 {
				t.Errorf("%d calls in the key, want 2: the first, and the one after Redis came back", got)
			}
			if got := l.pendingCount(); got != 0 {
				t.Errorf("%d calls still to give back, want 0", got)
			}
		})
	}
}

// TestCallsToGiveBackGoToARestartedRedis loses a Wait's answer to a hung
// Redis that is then killed and restarted empty: what the Limiter gives
// back lands harmlessly, and calls flow.
func TestCallsToGiveBackGoToARestartedRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 2, WithWindow(time.Hour), WithRedisTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv.pause()
	if err := l.Wait(t.Context()); !errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Wait on a hung Redis = %v, want ErrRedisTimeout", err)
	}
	waitUntil(t, func() bool { return l.pendingCount() == 1 })
	srv.kill()
	srv.restart()
	waitUntil(t, func() bool { return rdb.Ping(t.Context()).Err() == nil })
	for i := range 2 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatalf("Wait %d on the restarted Redis: %v", i+1, err)
		}
	}
	if got := calls(t, rdb, "quota"); got != 2 {
		t.Errorf("%d calls in the restarted Redis, want 2", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("third Wait = %v, want DeadlineExceeded: the quota is 2 an hour", err)
	}
}

// TestNothingOutlivesAHungRedis leaves a Wait's request to a hung Redis
// in the background and checks that it ends, with everything it started,
// once Redis answers, once the Limiter's timeout passes, or once the
// client is closed. It is not parallel, so that the leak check sees only
// its own goroutines.
func TestNothingOutlivesAHungRedis(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(srv *redisServer, rdb *redis.Client) // what ends the request
	}{
		{"Redis answers", func(srv *redisServer, _ *redis.Client) { srv.resume() }},
		{"the timeout passes", func(*redisServer, *redis.Client) {}},
		{"the client closes", func(_ *redisServer, rdb *redis.Client) { rdb.Close() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRedis(t) // its process and waiter stay until the end
			ignore := goleak.IgnoreCurrent()
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
			defer rdb.Close()
			l, err := New(rdb, "quota", 5, WithWindow(time.Hour), WithRedisTimeout(500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			srv.pause()
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Wait = %v, want DeadlineExceeded", err)
			}
			tt.end(srv, rdb)
			// goleak retries for a while; the bound on what is left is
			// the 500 ms timeout for the script and as much again for
			// giving the call back.
			noLeaks(t, ignore)
			srv.kill()
		})
	}
}

// noLeaks waits up to 10 s for the goroutines the test started to end,
// and fails the test with those left.
func noLeaks(t *testing.T, ignore goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := goleak.Find(ignore)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Error(err)
			return
		}
	}
}
