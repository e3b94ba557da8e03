package itick_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The client builders, one per kind of fake service. Each returns a client
// that retries fast and does not pace its calls (fastOpts, or the
// simulator's own client); a test's opts apply after those and win, and
// the builder closes what it started when the test ends.
//
//   - newMockClient: an httpmock transport, no server. For unit tests of
//     single responses: what one call sends, and what it makes of one
//     answer (a fixture, a status, a header). Register responders on the
//     transport it returns (helpers_http_test.go has body, sequence,
//     record and echoQuotes).
//   - newServerClient: an httptest server whose handler the test writes.
//     For HTTP behaviour a responder cannot script: connections that hang,
//     reset or trickle, redirects, paged histories (helpers_range_test.go),
//     and WebSocket services (the stream simulator and wsHost, in
//     helpers_stream_test.go).
//   - newSimClient: the markettest simulator, its clock pinned. For
//     realistic end-to-end runs: every endpoint, quotas, plans, streams,
//     as a user's own tests would see the service.
//
// A test of NewClient's own defaults (its transport, its plan's limiter,
// the environment) builds its client in view instead.

// mockBase is the default base URL, which the mock transport answers for.
const mockBase = itick.DefaultBaseURL

// e2eNow is the simulator's clock unless a test sets another.
var e2eNow = time.Date(2025, 6, 3, 14, 30, 15, 250_000_000, time.UTC)

// faultCallTimeout bounds every call: a call that does not end by then has
// failed to stop on its own.
const faultCallTimeout = 2 * time.Second

// fastOpts keep retries and pacing quick unless a test is about them.
func fastOpts() []itick.Option {
	return []itick.Option{
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond),
		itick.WithRateLimit(rate.Inf, 0),
	}
}

// newMockClient returns a client sending token whose requests go to a
// fresh httpmock transport, with fastOpts; opts apply after those and win.
// Use it for what one call sends and makes of one answer; an unregistered
// request fails the call.
func newMockClient(t testing.TB, token string, opts ...itick.Option) (*itick.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := append([]itick.Option{itick.WithHTTPClient(&http.Client{Transport: mt})}, fastOpts()...)
	c, err := itick.NewClient(token, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// newServerClient returns a client of the httptest server srv sending
// token, with fastOpts; opts apply after those and win. It closes srv when
// the test ends, and first srv's handler if it has a Close method, as the
// stream simulator and the fake services do. Use it when the test scripts
// the server's HTTP or WebSocket behaviour itself.
func newServerClient(t testing.TB, srv *httptest.Server, token string, opts ...itick.Option) *itick.Client {
	t.Helper()
	t.Cleanup(func() {
		if h, ok := srv.Config.Handler.(interface{ Close() }); ok {
			h.Close()
		}
		srv.Close()
	})
	all := append([]itick.Option{itick.WithBaseURL(srv.URL)}, fastOpts()...)
	c, err := itick.NewClient(token, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// newSimClient starts the markettest simulator with simOpts, its clock
// stopped at e2eNow unless simOpts set another, closes it when the test
// ends, and returns its own client (markettest.Server.Client) with opts.
// Use it for end-to-end runs against a realistic service; a test that needs
// another client of the same server (a wrong token) uses the server's URL.
func newSimClient(t testing.TB, simOpts []markettest.Option, opts ...itick.Option) (*itick.Client, *markettest.Server) {
	t.Helper()
	srv := markettest.NewServer(append([]markettest.Option{markettest.WithClock(func() time.Time { return e2eNow })}, simOpts...)...)
	t.Cleanup(srv.Close)
	c, err := srv.Client(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// ownTransport gives a client hc with a transport of its own, whose idle
// connections close when the test ends, for tests that check that no
// goroutine is left running.
func ownTransport(t testing.TB, hc *http.Client) itick.Option {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	hc.Transport = tr
	t.Cleanup(tr.CloseIdleConnections)
	return itick.WithHTTPClient(hc)
}

// Limiters and loggers.

// countingLimiter counts the attempts that asked to go.
type countingLimiter struct{ n atomic.Int32 }

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.n.Add(1)
	return ctx.Err()
}

// blockingLimiter blocks every wait until ctx ends, signalling entered
// first.
type blockingLimiter struct{ entered chan struct{} }

func (l *blockingLimiter) Wait(ctx context.Context) error {
	select {
	case l.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// debugLogger logs every level to w, as text.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
