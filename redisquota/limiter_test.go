package redisquota

import (
	"context"
	"errors"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/d19c4e34/itick"
)

func TestNewRejectsBadArguments(t *testing.T) {
	t.Parallel()
	live := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled: New sends nothing
	t.Cleanup(func() { live.Close() })
	var nilClient *redis.Client
	tests := []struct {
		name      string
		rdb       redis.UniversalClient
		key       string
		perMinute int
		opts      []Option
		want      string
	}{
		{"nil client", nil, "k", 10, nil, "nil redis client"},
		{"nil *redis.Client", nilClient, "k", 10, nil, "nil redis client"},
		{"empty key", live, "", 10, nil, "empty key"},
		{"zero perMinute", live, "k", 0, nil, "perMinute 0"},
		{"negative perMinute", live, "k", -3, nil, "perMinute -3"},
		{"Enterprise", live, "k", PerMinute(itick.PlanEnterprise), nil, "PlanEnterprise"},
		{"zero window", live, "k", 10, []Option{WithWindow(0)}, "WithWindow"},
		{"negative window", live, "k", 10, []Option{WithWindow(-time.Second)}, "WithWindow"},
		{"sub-millisecond window", live, "k", 10, []Option{WithWindow(time.Microsecond)}, "WithWindow"},
		{"zero share", live, "k", 10, []Option{WithFallback(0)}, "WithFallback"},
		{"negative share", live, "k", 10, []Option{WithFallback(-0.5)}, "WithFallback"},
		{"share above one", live, "k", 10, []Option{WithFallback(1.01)}, "WithFallback"},
		{"NaN share", live, "k", 10, []Option{WithFallback(math.NaN())}, "WithFallback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := New(tt.rdb, tt.key, tt.perMinute, tt.opts...)
			if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, %v; want an ErrInvalidArgument naming %q", l, err, tt.want)
			}
		})
	}
	for _, opts := range [][]Option{nil, {WithWindow(time.Millisecond)}, {WithFallback(1)}, {WithFallback(0.25), WithLogger(nil), nil}} {
		if _, err := New(live, "k", 1, opts...); err != nil {
			t.Errorf("New with %d options: %v", len(opts), err)
		}
	}
}

func TestWaitRejectsNilContext(t *testing.T) {
	t.Parallel()
	live := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { live.Close() })
	l, err := New(live, "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1012 a nil context is what is tested
	if err := l.Wait(nil); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Fatalf("Wait(nil) = %v, want ErrInvalidArgument", err)
	}
}

// TestDefaultWindowIsThePlanLimiters pins the default to the SDK's plan
// limiter window (root TestPlanLimiterWindows pins that one to 61 s).
func TestDefaultWindowIsThePlanLimiters(t *testing.T) {
	t.Parallel()
	live := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { live.Close() })
	l, err := New(live, "k", 120)
	if err != nil {
		t.Fatal(err)
	}
	if n, per := l.Limit(); n != 120 || per != 61*time.Second {
		t.Errorf("default Limit() = %d, %s; want 120, 61s", n, per)
	}
	l, err = New(live, "k", 7, WithWindow(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if n, per := l.Limit(); n != 7 || per != 2*time.Second {
		t.Errorf("WithWindow(2s) Limit() = %d, %s; want 7, 2s exactly", n, per)
	}
}

func TestPerMinute(t *testing.T) {
	t.Parallel()
	for p, want := range map[itick.Plan]int{
		itick.PlanFree: 5, itick.PlanBase: 120, itick.PlanProfessional: 600, itick.PlanPremium: 1200,
		itick.PlanEnterprise: 0, itick.Plan(-1): 0, itick.Plan(99): 0,
	} {
		if got := PerMinute(p); got != want {
			t.Errorf("PerMinute(%s) = %d, want %d", p, got, want)
		}
	}
}

// grants collects every call the script recorded, with its score on the
// Redis server's clock, by reading the whole key right after each grant:
// a granted call stays in the key for a whole window, far longer than the
// read takes.
type grants struct {
	mu     sync.Mutex
	scores map[string]float64
}

func (g *grants) capture(ctx context.Context, rdb redis.UniversalClient, key string) error {
	zs, err := rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.scores == nil {
		g.scores = map[string]float64{}
	}
	for _, z := range zs {
		if z.Score > 0 { // a recorded call, not the window's mark nor a call given back
			g.scores[z.Member.(string)] = z.Score
		}
	}
	return nil
}

// check asserts that want calls were granted and that no window of span
// held more than n of them.
func (g *grants) check(t *testing.T, n int, span time.Duration, want int) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	var at []float64
	for _, s := range g.scores {
		at = append(at, s)
	}
	slices.Sort(at)
	if len(at) != want {
		t.Fatalf("%d grants seen in the key, want %d", len(at), want)
	}
	for i := 0; i+n < len(at); i++ {
		if gap := time.Duration(at[i+n]-at[i]) * time.Microsecond; gap < span {
			t.Fatalf("grants %d and %d are %s apart on the Redis clock: %d calls in less than the %s window", i, i+n, gap, n+1, span)
		}
	}
}

// hammer runs calls Waits spread over workers goroutines, each limiter in
// turn, and captures every grant.
func hammer(t *testing.T, rdb redis.UniversalClient, key string, ls []*Limiter, workers, calls int) *grants {
	t.Helper()
	g := &grants{}
	var next atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := ls[w%len(ls)]
			for next.Add(1) <= int64(calls) {
				if err := l.Wait(t.Context()); err != nil {
					errs <- err
					return
				}
				if err := g.capture(t.Context(), rdb, key); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return g
}

func TestConcurrentWaitersNeverExceedTheQuota(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	const n, window, calls = 4, 1500 * time.Millisecond, 12
	l, err := New(rdb, "quota", n, WithWindow(window))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g := hammer(t, rdb, "quota", []*Limiter{l}, 8, calls)
	g.check(t, n, window, calls)
	// 12 calls at 4 a window need two full windows: Wait slept.
	if d := time.Since(start); d < 2*window {
		t.Errorf("12 calls took %s, less than the two windows the quota needs", d)
	}
}

// TestClientClocksDoNotMatter runs two limiters whose process clocks are
// minutes apart on one key: the Redis server's clock decides alone.
func TestClientClocksDoNotMatter(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	const n, window, calls = 3, 1500 * time.Millisecond, 9
	ahead, err := New(rdb, "quota", n, WithWindow(window), WithFallback(1))
	if err != nil {
		t.Fatal(err)
	}
	ahead.now = func() time.Time { return time.Now().Add(7 * time.Minute) }
	behind, err := New(rdb, "quota", n, WithWindow(window), WithFallback(1))
	if err != nil {
		t.Fatal(err)
	}
	behind.now = func() time.Time { return time.Now().Add(-5 * time.Minute) }
	g := hammer(t, rdb, "quota", []*Limiter{ahead, behind}, 6, calls)
	g.check(t, n, window, calls)
}

func TestWholeQuotaGoesAtOnce(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 5, WithWindow(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Five calls go without waiting: a deadline far below the window
	// would fail any wait at once.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for i := range 5 {
		if err := l.Wait(ctx); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	err = l.Wait(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("sixth call: %v (ctx %v); want an immediate DeadlineExceeded", err, ctx.Err())
	}
	if got := calls(t, rdb, "quota"); got != 5 {
		t.Errorf("%d calls in the key after a refused wait, want 5", got)
	}
	ttl := rdb.PTTL(t.Context(), "quota").Val()
	if ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("key TTL %s, want about the window (1h)", ttl)
	}
}

func TestKeyExpiresAfterTheWindow(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 5, WithWindow(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ttl := rdb.PTTL(t.Context(), "quota").Val(); ttl <= 0 || ttl > 200*time.Millisecond {
		t.Fatalf("key TTL %s, want at most the 200ms window", ttl)
	}
	waitUntil(t, func() bool { return rdb.Exists(t.Context(), "quota").Val() == 0 })
}

// afterScript is a go-redis hook that runs fn once a script command has
// been answered, with its result and error, and returns what fn returns.
type afterScript func(ctx context.Context, cmd redis.Cmder, err error) error

func (h afterScript) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h afterScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h afterScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			return h(ctx, cmd, err)
		}
		return err
	}
}

func TestCancelledWaitTakesNothing(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 1, WithWindow(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Cancel the second wait once the script has told it to sleep.
	ctx, cancel := context.WithCancel(t.Context())
	told := make(chan struct{})
	var once sync.Once
	rdb.AddHook(afterScript(func(_ context.Context, _ redis.Cmder, err error) error {
		once.Do(func() { close(told) })
		return err
	}))
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	<-told
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Wait = %v, want context.Canceled", err)
	}
	if got := calls(t, rdb, "quota"); got != 1 {
		t.Errorf("%d calls in the key after a cancelled wait, want 1", got)
	}
}

// TestContextEndingDuringTheScriptGivesTheCallBack ends the context while
// the script runs, after the server recorded the call, or loses the answer
// after the server recorded it: either way the call must be given back,
// in the background (at once when the answer says the call was recorded,
// with the next request when no answer came).
func TestContextEndingDuringTheScriptGivesTheCallBack(t *testing.T) {
	t.Parallel()
	lost := errors.New("connection reset after the script ran")
	for _, tt := range []struct {
		name    string
		cancel  bool  // end the caller's context once the script ran
		answer  error // what the client reports once the script ran
		wantErr error
	}{
		{"answer arrived as the context ended", true, nil, context.Canceled},
		{"answer lost as the context ended", true, lost, context.Canceled},
		{"answer lost", false, lost, lost},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			rdb := srv.client(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var once sync.Once
			rdb.AddHook(afterScript(func(_ context.Context, _ redis.Cmder, err error) error {
				if err != nil {
					return err // NOSCRIPT: go-redis sends the script itself next
				}
				var out error
				once.Do(func() {
					if tt.cancel {
						cancel()
					}
					out = tt.answer
				})
				return out
			}))
			l, err := New(rdb, "quota", 5, WithWindow(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Wait(ctx); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Wait = %v, want %v", err, tt.wantErr)
			}
			if tt.answer != nil {
				// Nothing says the call was recorded: the next request
				// gives it back, and takes its own. The caller may have
				// left before the answer, so wait for the background.
				waitUntil(t, func() bool { return l.pendingCount() == 1 })
				if err := l.Wait(t.Context()); err != nil {
					t.Fatal(err)
				}
				if got := calls(t, rdb, "quota"); got != 1 {
					t.Errorf("%d calls in the key after the next wait, want 1: the lost one was not given back", got)
				}
				return
			}
			waitUntil(t, func() bool { return calls(t, rdb, "quota") == 0 })
		})
	}
}

func TestRedisErrorsAreWrapped(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	if err := rdb.Set(t.Context(), "taken", "a string", 0).Err(); err != nil {
		t.Fatal(err)
	}
	l, err := New(rdb, "taken", 5)
	if err != nil {
		t.Fatal(err)
	}
	err = l.Wait(t.Context())
	var rerr redis.Error
	if !errors.As(err, &rerr) || !strings.Contains(rerr.Error(), "WRONGTYPE") {
		t.Fatalf("Wait on a string key = %v, want a wrapped WRONGTYPE redis.Error", err)
	}
}

// TestRedisKilledAndRestarted kills Redis under a running limiter: Wait
// fails with the connection error, not a context error, and leaks nothing;
// once Redis is back, calls flow again. It is not parallel, so that the
// leak check sees only its own goroutines.
func TestRedisKilledAndRestarted(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	srv := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	l, err := New(rdb, "quota", 100, WithWindow(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	srv.kill()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for i := range 3 {
		err := l.Wait(ctx)
		var opErr *net.OpError
		if !errors.As(err, &opErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			t.Fatalf("Wait %d with Redis down = %v; want a wrapped *net.OpError and no context error", i, err)
		}
		if !strings.Contains(err.Error(), `key "quota"`) {
			t.Errorf("error %q does not name the key", err)
		}
	}
	srv.restart()
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("Wait after Redis came back: %v", err)
	}
	if got := calls(t, rdb, "quota"); got != 1 {
		t.Errorf("%d calls in the restarted Redis, want 1", got)
	}
	cancel()
	rdb.Close()
	srv.kill()
	goleak.VerifyNone(t, ignore)
}

// pendingCount returns how many calls l keeps to give back.
func (l *Limiter) pendingCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending)
}

// waitUntil polls cond until it holds, failing the test after 30 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWithoutFallbackRedisDownFailsClosed(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 10)
	if err != nil {
		t.Fatal(err)
	}
	srv.kill()
	for range 3 {
		if err := l.Wait(t.Context()); err == nil {
			t.Fatal("Wait succeeded with Redis down and no fallback")
		}
	}
}
