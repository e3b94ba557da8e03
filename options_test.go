package itick_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// Tests of the client options: limiters, bad and extreme values, and the
// HTTP client.

// TestOptions_LimiterOrder: WithRateLimit and WithLimiter set the same
// limiter, so the later one wins.
func TestOptions_LimiterOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		opts      func(l itick.Limiter) []itick.Option
		wantWaits int32
	}{
		{"WithLimiter last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithRateLimit(rate.Inf, 0), itick.WithLimiter(l)}
		}, 2},
		{"WithRateLimit last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithRateLimit(rate.Inf, 0)}
		}, 0},
		{"WithRateLimit finite last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithRateLimit(1000, 10)}
		}, 0},
		{"second WithLimiter wins", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithLimiter(&countingLimiter{})}
		}, 0},
		{"WithPlan does not replace a limiter", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithPlan(itick.PlanFree)}
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lim countingLimiter
			c, mt := newMockClient(t, testToken, tc.opts(&lim)...)
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
			for range 2 {
				if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
					t.Fatal(err)
				}
			}
			if got := lim.n.Load(); got != tc.wantWaits {
				t.Errorf("counting limiter waited %d times, want %d", got, tc.wantWaits)
			}
		})
	}
}

// A LimiterFunc is a Limiter: its function is called before every
// attempt with the call's context, and its error ends the call; a nil one
// is refused when the client is built.
func TestLimiterFunc(t *testing.T) {
	t.Parallel()
	type key struct{}
	var waits atomic.Int32
	stop := errors.New("no more")
	lim := itick.LimiterFunc(func(ctx context.Context) error {
		if ctx.Value(key{}) != "call" {
			return fmt.Errorf("the limiter got another context")
		}
		if waits.Add(1) > 3 {
			return stop
		}
		return nil
	})
	c, mt := newMockClient(t, testToken, itick.WithLimiter(lim), itick.WithRetries(1), itick.WithBackoff(time.Millisecond, time.Millisecond))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", httpmock.ResponderFromMultipleResponses([]*http.Response{
		httpmock.NewStringResponse(503, "busy"), httpmock.NewStringResponse(200, okQuotes), httpmock.NewStringResponse(200, okQuotes),
	}))
	ctx := context.WithValue(t.Context(), key{}, "call")
	if _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"}); err != nil {
		t.Fatalf("first call (a 503, then its retry): %v", err)
	}
	if _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"}); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"}); !errors.Is(err, stop) {
		t.Errorf("third call = %v, want the limiter's error", err)
	}
	if w, n := waits.Load(), mt.GetTotalCallCount(); w != 4 || n != 3 {
		t.Errorf("%d waits and %d requests, want 4 and 3", w, n)
	}
	var none itick.LimiterFunc
	if _, err := itick.NewClient(testToken, itick.WithLimiter(none)); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("WithLimiter(nil LimiterFunc) = %v, want ErrInvalidArgument", err)
	}
}

// TestOptions_DefaultLimiterFollowsPlan: without WithRateLimit or
// WithLimiter, PlanFree's quota of 5 calls a minute lets 5 calls go and
// makes the sixth wait longer than a short deadline.
func TestOptions_DefaultLimiterFollowsPlan(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	c, err := itick.NewClient(testToken, itick.WithHTTPClient(&http.Client{Transport: mt}), itick.WithPlan(itick.PlanFree))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err = c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the plan's limiter to refuse with DeadlineExceeded", err)
	}
	if n := mt.GetTotalCallCount(); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}

// storeDownError is what a limiter shared through a store returns when the
// store cannot be reached.
type storeDownError struct{ addr string }

func (e *storeDownError) Error() string { return "quota store " + e.addr + " is unreachable" }

type failingLimiter struct{ err error }

func (l failingLimiter) Wait(context.Context) error { return l.err }

// Behaviour 13: a limiter's own failure comes back wrapped, and is no
// timeout although the context has a deadline.
func TestLimiterErrorKeepsItsCause(t *testing.T) {
	t.Parallel()
	down := &storeDownError{addr: "10.0.0.7:6379"}
	c, mt := newMockClient(t, testToken, itick.WithLimiter(failingLimiter{down}))
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

// TestBadOptionValues: absurd values (math.MaxInt for "unlimited", NaN, a
// control byte) are ErrInvalidArgument at construction, naming the value,
// instead of a panic, an out-of-memory, an overflow or limiting switched
// off.
func TestBadOptionValues(t *testing.T) {
	t.Parallel()
	client := []struct {
		name string
		opt  itick.Option
		want string
	}{
		{"WithBatchSize MaxInt", itick.WithBatchSize(math.MaxInt), strconv.Itoa(math.MaxInt)},
		{"WithBatchSize 1001", itick.WithBatchSize(1001), "1001"},
		{"WithRateLimit NaN", itick.WithRateLimit(rate.Limit(math.NaN()), 1), "NaN"},
		{"WithRateLimit -Inf", itick.WithRateLimit(rate.Limit(math.Inf(-1)), 1), "-Inf"},
		{"WithRateLimit negative burst", itick.WithRateLimit(5, -3), "-3"},
		{"WithMaxResponseBytes MaxInt64", itick.WithMaxResponseBytes(math.MaxInt64), strconv.FormatInt(math.MaxInt64, 10)},
		{"WithMaxResponseBytes over 1 GiB", itick.WithMaxResponseBytes(1<<30 + 1), strconv.Itoa(1<<30 + 1)},
		{"WithRetries MaxInt", itick.WithRetries(math.MaxInt), strconv.Itoa(math.MaxInt)},
		{"WithConcurrency 1<<40", itick.WithConcurrency(1 << 40), strconv.Itoa(1 << 40)},
		{"WithBackoff negative max", itick.WithBackoff(0, -time.Second), "-1s"},
		{"WithUserAgent NUL", itick.WithUserAgent("bot\x00/1"), `"bot\x00/1"`},
		{"WithUserAgent escape", itick.WithUserAgent("bot\x1b[31m"), `\x1b`},
		{"WithUserAgent DEL", itick.WithUserAgent("bot\x7f"), `\x7f`},
		{"WithUserAgent inner newline", itick.WithUserAgent("bot\nX: y"), `\n`},
		{"WithUserAgent 1 MiB", itick.WithUserAgent(strings.Repeat("a", 1<<20)), "1048576 bytes"},
	}
	for _, tt := range client {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := itick.NewClient(testToken, tt.opt)
			if c != nil || !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("NewClient = %v, %v; want ErrInvalidArgument", c, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
			if len(err.Error()) > 200 {
				t.Errorf("error is %d bytes long: the value must be named, not copied whole", len(err.Error()))
			}
		})
	}

	stream := []struct {
		name string
		opt  itick.StreamOption
		want string
	}{
		{"WithBuffer MaxInt", itick.WithBuffer(math.MaxInt, itick.DropOldest), strconv.Itoa(math.MaxInt)},
		{"WithBuffer 1<<40", itick.WithBuffer(1<<40, itick.DropNewest), strconv.Itoa(1 << 40)},
		{"WithBuffer 0", itick.WithBuffer(0, itick.DropNewest), "0"},
		{"WithBuffer unknown policy", itick.WithBuffer(8, itick.Overflow(7)), "7"},
		{"WithHeartbeat negative", itick.WithHeartbeat(-time.Second, time.Second), "-1s"},
		{"WithHeartbeat past the service's minute", itick.WithHeartbeat(2*time.Minute, time.Second), "2m0s"},
		{"WithHeartbeat zero timeout", itick.WithHeartbeat(time.Second, 0), "0s"},
		{"WithDialTimeout negative", itick.WithDialTimeout(-time.Millisecond), "-1ms"},
		{"WithReconnectBackoff negative", itick.WithReconnectBackoff(-time.Second, time.Second), "-1s"},
		{"WithReconnectBackoff max below min", itick.WithReconnectBackoff(time.Minute, time.Second), "1m0s"},
		{"WithMaxConns 0", itick.WithMaxConns(0), "0"},
		{"WithMaxSymbols 0", itick.WithMaxSymbols(0), "0"},
		{"WithSymbolsPerConn MaxInt", itick.WithSymbolsPerConn(math.MaxInt), strconv.Itoa(math.MaxInt)},
		{"WithSymbolsPerConn past the service's 500", itick.WithSymbolsPerConn(501), "501"},
		{"WithStreamURL ftp", itick.WithStreamURL("ftp://h.example"), "ftp://h.example"},
		{"WithStreamHTTPClient nil", itick.WithStreamHTTPClient(nil), "WithStreamHTTPClient"},
	}
	// Nothing listens here; a bad option must fail before any dial.
	c, err := itick.NewClient(testToken, itick.WithBaseURL("http://127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range stream {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := c.Stream(t.Context(), itick.AssetStock, tt.opt)
			if s != nil || !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("Stream = %v, %v; want ErrInvalidArgument", s, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

// TestOptionBoundsAccepted: the largest values the options allow, and
// header values net/http accepts, still make a client.
func TestOptionBoundsAccepted(t *testing.T) {
	t.Parallel()
	_, err := itick.NewClient(testToken,
		itick.WithBatchSize(1000),
		itick.WithConcurrency(256),
		itick.WithRetries(100),
		itick.WithMaxResponseBytes(1<<30),
		itick.WithRateLimit(1e9, math.MaxInt),
		itick.WithUserAgent("bot/1.0\t(café; +https://example.com)"),
	)
	if err != nil {
		t.Fatal(err)
	}
}

// TestWithHTTPClient_NilTransport: an http.Client without a Transport gets
// the SDK's default one.
func TestWithHTTPClient_NilTransport(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("token") != testToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, okQuotes)
	}))
	c := newServerClient(t, srv, testToken, itick.WithHTTPClient(&http.Client{Timeout: 5 * time.Second}))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil || got["700"].Last != 616 {
		t.Fatalf("Quotes = %v, %v", got, err)
	}
}
