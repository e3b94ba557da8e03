package redisquota

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestCallsAheadOfTheServersClockCountAsMadeNow puts calls ten minutes
// ahead of the Redis server's clock in the key, as a failover onto a
// server whose clock is behind, or a step back of its clock, leaves them:
// they count as made now, so they hold the quota for one window, not for
// the ten minutes.
func TestCallsAheadOfTheServersClockCountAsMadeNow(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	const window = time.Second
	serverNow, err := rdb.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	ahead := float64(serverNow.Add(10 * time.Minute).UnixMicro())
	for i := range 3 {
		if err := rdb.ZAdd(t.Context(), "quota", redis.Z{Score: ahead, Member: "ahead-" + strconv.Itoa(i)}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := New(rdb, "quota", 3, WithWindow(window))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("Wait behind calls ten minutes ahead = %v, want a slot a window later", err)
	}
	if d := time.Since(start); d < window/2 {
		t.Errorf("Wait took %s: the calls ahead did not hold the quota for a window", d)
	}
	serverNow, err = rdb.Time(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	zs, err := rdb.ZRangeWithScores(t.Context(), "quota", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range zs {
		if z.Score > float64(serverNow.UnixMicro()) {
			t.Errorf("%v scored %.0f, ahead of the server's clock %d", z.Member, z.Score, serverNow.UnixMicro())
		}
	}
}

// TestAKeyCountsInOneWindow puts Limiters with different windows on one
// key: the one that finds the key written in another window is refused,
// takes nothing, and does not switch to its fallback, so the longer quota
// holds; once the key has expired, another window may have it.
func TestAKeyCountsInOneWindow(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	var logs syncBuffer
	long, err := New(rdb, "quota", 3, WithWindow(4*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	short, err := New(rdb, "quota", 3, WithWindow(200*time.Millisecond), WithFallback(1),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := long.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		err := short.Wait(t.Context())
		if !errors.Is(err, ErrWindowConflict) || !strings.Contains(err.Error(), "4s window") || !strings.Contains(err.Error(), "200ms") {
			t.Fatalf("Wait with a 200ms window on a key counting 4s = %v; want ErrWindowConflict naming both", err)
		}
	}
	if got := calls(t, rdb, "quota"); got != 1 {
		t.Errorf("%d calls in the key, want 1: a refused Wait takes nothing", got)
	}
	if out := logs.String(); out != "" {
		t.Errorf("logged, want no switch to the fallback:\n%s", out)
	}
	// The 4 s quota holds: two more go, the third would wait.
	for range 2 {
		if err := long.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if err := long.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("fourth call in 4s = %v, want DeadlineExceeded", err)
	}

	// A key another window left expires a window after its last call.
	other, err := New(rdb, "other", 3, WithWindow(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	shortOther, err := New(rdb, "other", 3, WithWindow(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := shortOther.Wait(t.Context()); !errors.Is(err, ErrWindowConflict) {
		t.Fatalf("Wait on a key counting 300ms = %v, want ErrWindowConflict", err)
	}
	waitUntil(t, func() bool { return rdb.Exists(t.Context(), "other").Val() == 0 })
	if err := shortOther.Wait(t.Context()); err != nil {
		t.Fatalf("Wait on the expired key: %v", err)
	}
}

// TestTheScriptRecordsACallOnce sends the script twice for one call, as
// go-redis does when it retries: the call is recorded once, and the second
// run grants it rather than counting it against itself.
func TestTheScriptRecordsACallOnce(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 1, WithWindow(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if r := l.run(t.Context(), "call-1", nil); r.err != nil || r.code != granted {
			t.Fatalf("run %d for call-1 = %+v, want granted", i+1, r)
		}
	}
	if r := l.run(t.Context(), "call-2", nil); r.err != nil || r.code != full {
		t.Fatalf("run for call-2 = %+v, want the window full", r)
	}
	if got := calls(t, rdb, "quota"); got != 1 {
		t.Errorf("%d calls in the key, want 1", got)
	}
}

// TestAScriptArrivingAfterItsGiveBackRecordsNothing gives a call back
// before its script reaches the server, as when the script was held by a
// hung connection: the script then records nothing, and the mark it
// leaves is gone a window later.
func TestAScriptArrivingAfterItsGiveBackRecordsNothing(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	const window = 300 * time.Millisecond
	l, err := New(rdb, "quota", 5, WithWindow(window))
	if err != nil {
		t.Fatal(err)
	}
	if r := l.run(t.Context(), "", []string{"late"}); r.err != nil {
		t.Fatal(r.err)
	}
	if r := l.run(t.Context(), "late", nil); r.err != nil || r.code != givenBack {
		t.Fatalf("run for a call given back = %+v, want givenBack", r)
	}
	if got := calls(t, rdb, "quota"); got != 0 {
		t.Errorf("%d calls in the key, want 0", got)
	}
	if ttl := rdb.PTTL(t.Context(), "quota").Val(); ttl <= 0 || ttl > window {
		t.Errorf("key TTL %s after a give-back, want at most the %s window", ttl, window)
	}
	// Keep the key alive with calls past a window: the mark leaves.
	waitUntil(t, func() bool {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		return rdb.ZScore(t.Context(), "quota", "late").Err() == redis.Nil
	})
}
