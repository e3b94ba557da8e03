package redisquota

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// simStart is the clock of the simulators these tests start, a Monday
// with New York's market open.
var simStart = time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC)

// TestClientCallsFailWithTheRedisError checks the error an itick call
// returns when its shared limiter cannot reach Redis.
func TestClientCallsFailWithTheRedisError(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	l, err := New(rdb, "quota", 10)
	if err != nil {
		t.Fatal(err)
	}
	sim := markettest.NewServer(markettest.WithFixedClock(simStart))
	defer sim.Close()
	client, err := sim.Client(itick.WithLimiter(l), itick.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Stock.Quote(t.Context(), itick.RegionUS, "AAPL"); err != nil {
		t.Fatal(err)
	}
	srv.kill()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = client.Stock.Quote(ctx, itick.RegionUS, "AAPL")
	var opErr *net.OpError
	if !errors.As(err, &opErr) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call with Redis down = %v; want the wrapped *net.OpError and no DeadlineExceeded", err)
	}
	if got := sim.Stats().Requests; got != 1 {
		t.Errorf("the simulator saw %d requests, want 1: a call whose limiter failed must not be sent", got)
	}
}
