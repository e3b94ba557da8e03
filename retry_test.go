package itick_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// Tests of retries, backoff, the limiter and cancellation.

// Behaviour 6: 429, 500, 502, 503 and 504 are retried exactly WithRetries
// times, then reported with their status.
func TestRetryableStatusesRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 500, 502, 503, 504} {
		for _, retries := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%d/retries%d", status, retries), func(t *testing.T) {
				t.Parallel()
				c, mt := newMockClient(t, testToken, itick.WithRetries(retries))
				mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(status, `{"code":0,"msg":"busy"}`))
				_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
				if n := mt.GetTotalCallCount(); n != retries+1 {
					t.Errorf("%d attempts, want %d", n, retries+1)
				}
				var apiErr *itick.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
					t.Fatalf("err = %v, want *APIError with status %d", err, status)
				}
				if got := errors.Is(err, itick.ErrRateLimited); got != (status == 429) {
					t.Errorf("errors.Is(err, ErrRateLimited) = %v", got)
				}
			})
		}
	}
}

// Behaviour 6: a call that fails twice with retryable statuses and then
// succeeds returns the success.
func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRetries(3))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", sequence(body(503, "unavailable"), body(429, ""), body(200, okQuotes)))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if got["700"].Last != 616 {
		t.Errorf("got %v", got)
	}
	if n := mt.GetTotalCallCount(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

// Behaviour 6: 400, 401, 403 and 404 get one attempt.
func TestOtherStatusesNotRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 501} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(3))
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(status, `{"message":"no"}`))
			_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("err = %v, want *APIError with status %d", err, status)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

// Behaviour 6: a 200 with an error text is final.
func TestEnvelopeErrorsNotRetried(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRetries(3))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, string(fixture(t, "error_e003.json"))))
	_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if !errors.Is(err, itick.ErrPlanLimit) {
		t.Fatalf("err = %v, want ErrPlanLimit", err)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// Behaviour 6: a transport error is retried WithRetries times and comes back
// wrapped, without the token.
func TestTransportErrorsRetried(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{0, 2} {
		t.Run(fmt.Sprintf("retries%d", retries), func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(retries))
			errReset := errors.New("read tcp 127.0.0.1:5000: connection reset by peer")
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", httpmock.NewErrorResponder(errReset))
			_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if err == nil {
				t.Fatal("err = nil")
			}
			if !errors.Is(err, errReset) {
				t.Errorf("err = %v, want it to wrap the transport error", err)
			}
			if n := mt.GetTotalCallCount(); n != retries+1 {
				t.Errorf("%d attempts, want %d", n, retries+1)
			}
		})
	}
}

// Behaviour 6: a server that drops the connection without answering is
// retried, over a real socket.
func TestConnectionResetRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			conn.Close()
			return
		}
		fmt.Fprint(w, okQuotes)
	}))
	c := newServerClient(t, srv, testToken, itick.WithRetries(3))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if got["700"].Last != 616 {
		t.Errorf("got %v", got)
	}
	if n.Load() != 3 {
		t.Errorf("%d attempts, want 3", n.Load())
	}
}

// stamped answers with next and records when each attempt arrived.
type stamped struct {
	mu    sync.Mutex
	times []time.Time
}

func (s *stamped) wrap(next httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		s.mu.Lock()
		s.times = append(s.times, time.Now())
		s.mu.Unlock()
		return next(req)
	}
}

// Behaviour 6: a Retry-After in seconds or as an HTTP date is waited for
// even past WithBackoff's max of 5ms.
func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		value   func() string
		atLeast time.Duration
	}{
		{"seconds", func() string { return "1" }, 900 * time.Millisecond},
		// An HTTP date has whole seconds, so +2s waits more than 1s.
		{"HTTP date", func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) }, 900 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(1))
			var st stamped
			first := func(req *http.Request) (*http.Response, error) {
				return withHeader(body(429, ""), "Retry-After", tc.value())(req)
			}
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", st.wrap(sequence(first, body(200, okQuotes))))
			if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
				t.Fatal(err)
			}
			if len(st.times) != 2 {
				t.Fatalf("%d attempts, want 2", len(st.times))
			}
			if gap := st.times[1].Sub(st.times[0]); gap < tc.atLeast {
				t.Errorf("retry came %v after the 429, want at least %v", gap, tc.atLeast)
			}
		})
	}
}

// Behaviour 6: a Retry-After over a minute ends the call at once with
// APIError.RetryAfter set.
func TestLongRetryAfterNotWaited(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		status   int
		value    func() string
		min, max time.Duration
	}{
		{"seconds 429", 429, func() string { return "120" }, 120 * time.Second, 120 * time.Second},
		{"seconds 503", 503, func() string { return "3600" }, time.Hour, time.Hour},
		{"HTTP date", 429, func() string { return time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat) },
			2*time.Hour - time.Minute, 2 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(3))
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", func(req *http.Request) (*http.Response, error) {
				return withHeader(body(tc.status, `{"code":0,"msg":"slow down"}`), "Retry-After", tc.value())(req)
			})
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			if apiErr.RetryAfter < tc.min || apiErr.RetryAfter > tc.max {
				t.Errorf("RetryAfter = %v, want within [%v, %v]", apiErr.RetryAfter, tc.min, tc.max)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
			if got := errors.Is(err, itick.ErrRateLimited); got != (tc.status == 429) {
				t.Errorf("errors.Is(err, ErrRateLimited) = %v", got)
			}
		})
	}
}

// Behaviour 6: retries wait on the limiter too.
func TestEveryAttemptWaitsOnLimiter(t *testing.T) {
	t.Parallel()
	var lim countingLimiter
	c, mt := newMockClient(t, testToken, itick.WithRetries(4), itick.WithLimiter(&lim))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", sequence(body(500, ""), body(502, ""), body(504, ""), body(200, okQuotes)))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if n, w := mt.GetTotalCallCount(), lim.n.Load(); n != 4 || w != 4 {
		t.Errorf("%d attempts and %d limiter waits, want 4 and 4", n, w)
	}
}

// Behaviour 6: each chunk's attempt waits.
func TestLimiterCountsEveryChunk(t *testing.T) {
	t.Parallel()
	var lim countingLimiter
	c, mt := newMockClient(t, testToken, itick.WithLimiter(&lim), itick.WithBatchSize(2))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", echoQuotes())
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(9)); err != nil {
		t.Fatal(err)
	}
	if w := lim.n.Load(); w != 5 {
		t.Errorf("%d limiter waits, want 5", w)
	}
}

// callAsync runs a quotes call in the background.
func callAsync(ctx context.Context, c *itick.Client, cs []string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Stock.Quotes(ctx, itick.RegionHK, cs)
		done <- err
	}()
	return done
}

// Behaviour 7: cancelling while waiting on the limiter ends the call with
// context.Canceled and sends nothing.
func TestCancelInLimiter(t *testing.T) {
	t.Parallel()
	lim := &blockingLimiter{entered: make(chan struct{}, 1)}
	c, mt := newMockClient(t, testToken, itick.WithLimiter(lim))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	ctx, cancel := context.WithCancel(t.Context())
	done := callAsync(ctx, c, []string{"700"})
	waitOrFail(t, lim.entered, "the limiter")
	cancel()
	err := waitOrFail(t, done, "the call to end")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

// Behaviour 7: cancelling during a long backoff ends the call.
func TestCancelInBackoff(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"", "30"} {
		t.Run("RetryAfter="+retryAfter, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithBackoff(time.Hour, time.Hour), itick.WithRetries(3))
			attempted := make(chan struct{}, 4)
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", func(req *http.Request) (*http.Response, error) {
				attempted <- struct{}{}
				r := body(503, "")
				if retryAfter != "" {
					r = withHeader(r, "Retry-After", retryAfter)
				}
				return r(req)
			})
			ctx, cancel := context.WithCancel(t.Context())
			done := callAsync(ctx, c, []string{"700"})
			waitOrFail(t, attempted, "the first attempt")
			cancel()
			err := waitOrFail(t, done, "the call to end")
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

// hanging answers no request until the request's context ends or the
// handler is closed; entered gets a value for each request.
type hanging struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHanging() *hanging {
	return &hanging{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (h *hanging) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.entered <- struct{}{}
	select {
	case <-r.Context().Done():
	case <-h.release:
	}
}

// Close answers the requests still waiting.
func (h *hanging) Close() { h.once.Do(func() { close(h.release) }) }

// Behaviour 7: cancelling while a request hangs ends the call with
// context.Canceled, over a real socket.
func TestCancelInFlight(t *testing.T) {
	t.Parallel()
	h := newHanging()
	c := newServerClient(t, httptest.NewServer(h), testToken)
	ctx, cancel := context.WithCancel(t.Context())
	done := callAsync(ctx, c, []string{"700"})
	waitOrFail(t, h.entered, "the request")
	cancel()
	err := waitOrFail(t, done, "the call to end")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Behaviour 7: a deadline passing while a request hangs gives
// context.DeadlineExceeded and no retry.
func TestDeadlineInFlight(t *testing.T) {
	t.Parallel()
	h := newHanging()
	rt := &countingRT{base: http.DefaultTransport}
	c := newServerClient(t, httptest.NewServer(h), testToken, itick.WithRetries(3), itick.WithHTTPClient(&http.Client{Transport: rt}))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := waitOrFail(t, callAsync(ctx, c, []string{"700"}), "the call to end")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if n := rt.n.Load(); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// Behaviour 7: cancelling a multi-chunk call ends every chunk and the error
// still matches context.Canceled.
func TestCancelBatchInFlight(t *testing.T) {
	t.Parallel()
	h := newHanging()
	c := newServerClient(t, httptest.NewServer(h), testToken, itick.WithBatchSize(1), itick.WithConcurrency(2))
	ctx, cancel := context.WithCancel(t.Context())
	done := callAsync(ctx, c, codes(6))
	waitOrFail(t, h.entered, "a request")
	cancel()
	err := waitOrFail(t, done, "the call to end")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Behaviour 7: a rate.Limiter whose wait would pass the deadline refuses at
// once, and the error matches context.DeadlineExceeded.
func TestLimiterRefusesBeforeDeadline(t *testing.T) {
	t.Parallel()
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	lim.Allow() // spend the burst: the next token is an hour away
	c, mt := newMockClient(t, testToken, itick.WithLimiter(lim))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := waitOrFail(t, callAsync(ctx, c, []string{"700"}), "the call to end")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if ctx.Err() != nil {
		t.Error("the call waited for the deadline instead of refusing early")
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

// Behaviour 7: a cancelled context sends nothing.
func TestAlreadyCancelled(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

// Behaviour 7: WithRateLimit's limiter is the one attempts wait on: with a
// burst of 2 and a rate of one an hour, the third call cannot start before a
// short deadline.
func TestRateLimitPacesAttempts(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRateLimit(rate.Every(time.Hour), 2))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	for i := range 2 {
		if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if diff := cmp.Diff(2, mt.GetTotalCallCount()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// Behaviour 6: a TLS server whose certificate the client does not trust gets
// one attempt: retrying cannot make it trusted.
func TestUntrustedCertificateNotRetried(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, okQuotes)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			hits.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	c := newServerClient(t, srv, testToken, itick.WithRetries(3))
	_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err == nil {
		t.Fatal("err = nil for an untrusted certificate")
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (not retried)", n)
	}
}

// Behaviour 6: the http.Client's Timeout bounds one attempt; an attempt that
// times out is a transport error and retried while the call's own context is
// alive.
func TestPerAttemptTimeoutRetried(t *testing.T) {
	t.Parallel()
	h := newHanging()
	rt := &countingRT{base: http.DefaultTransport}
	c := newServerClient(t, httptest.NewServer(h), testToken, itick.WithHTTPClient(&http.Client{Timeout: 200 * time.Millisecond, Transport: rt}), itick.WithRetries(2))
	_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err == nil {
		t.Fatal("err = nil from a server that never answers")
	}
	if n := rt.n.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

// Behaviour 6: without Retry-After, each retry waits at least WithBackoff's
// min (the upper bound is unit-tested on Jitter).
func TestBackoffAtLeastMin(t *testing.T) {
	t.Parallel()
	const min = 30 * time.Millisecond
	c, mt := newMockClient(t, testToken, itick.WithBackoff(min, 2*min), itick.WithRetries(3))
	var st stamped
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", st.wrap(sequence(body(500, ""), body(502, ""), body(503, ""), body(200, okQuotes))))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if len(st.times) != 4 {
		t.Fatalf("%d attempts, want 4", len(st.times))
	}
	for i := 1; i < len(st.times); i++ {
		if gap := st.times[i].Sub(st.times[i-1]); gap < min {
			t.Errorf("retry %d came %v after the previous attempt, want at least %v", i, gap, min)
		}
	}
}

// Behaviour 6: a connection that dies in the middle of the body is a
// transport error and retried, over a real socket.
func TestTruncatedBodyRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(okQuotes[:20]))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fmt.Fprint(w, okQuotes)
	}))
	c := newServerClient(t, srv, testToken, itick.WithRetries(2))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if got["700"].Last != 616 || n.Load() != 2 {
		t.Errorf("got %v after %d attempts, want the quote after 2", got, n.Load())
	}
}

// countingRT counts the requests that reach the network transport.
type countingRT struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(req)
}

// withHeader sets a response header on what next answers.
func withHeader(next httpmock.Responder, key, value string) httpmock.Responder {
	return next.HeaderSet(http.Header{key: {value}})
}

// Behaviour 15: a quota is not a timeout. A 429 whose Retry-After would
// pass the deadline, and a client limiter whose next slot would, end the
// call at once with an error matching ErrRateLimited and
// context.DeadlineExceeded; the 429's *APIError keeps RetryAfter, and the
// limiter's error says how long the wait would have been.
func TestSpentQuotaUnderADeadlineEndsAtOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"code":429,"msg":"API rate limit exceeded"}`))
	}))
	c := newServerClient(t, srv, testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	var apiErr *itick.APIError
	if !errors.Is(err, itick.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) ||
		!errors.As(err, &apiErr) || apiErr.RetryAfter != time.Minute {
		t.Errorf("err = %v, want an *APIError with RetryAfter 1m matching ErrRateLimited and DeadlineExceeded", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the call held its context until the deadline (%v)", time.Since(start))
	}

	// The client's own limiter: one call a minute.
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"code":0,"data":{"700":{"s":"700","ld":1}}}`))
	}))
	lc := newServerClient(t, ok, testToken, itick.WithRateLimit(rate.Every(time.Minute), 1))
	if _, err := lc.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	_, err = lc.Stock.Quotes(ctx2, itick.RegionHK, []string{"700"})
	if !errors.Is(err, itick.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "next token in") {
		t.Errorf("err = %v, want one matching ErrRateLimited and DeadlineExceeded that says how long the wait was", err)
	}
	if ctx2.Err() != nil {
		t.Error("the limiter held the call until its deadline")
	}
	// Without a deadline the same call waits: it is refused only when the
	// deadline makes the wait pointless. Cancelling it is no quota error.
	ctx3, cancel3 := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel3() }()
	if _, err := lc.Stock.Quotes(ctx3, itick.RegionHK, []string{"700"}); !errors.Is(err, context.Canceled) || errors.Is(err, itick.ErrRateLimited) {
		t.Errorf("cancelled wait: %v, want context.Canceled and no ErrRateLimited", err)
	}
}
