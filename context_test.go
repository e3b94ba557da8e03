package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// Tests of behaviours 7, 15 and 22: every error a call returns because its
// context ended matches ctx.Err() and the context's cause, wherever the
// call was (in a limiter, a backoff, a Retry-After, in flight), and a wait
// that would pass the deadline is refused at once with an error matching
// context.DeadlineExceeded that keeps what asked for the wait.

// errCtxCause is the cause the tests give a context.
var errCtxCause = errors.New("the caller's own reason")

// ctxEnd is one way a call's context ends.
type ctxEnd struct {
	name     string
	deadline bool // a deadline, not a cancellation
	cause    bool // with a cause of its own
	before   bool // ended before the call
}

var ctxEnds = []ctxEnd{
	{name: "cancel"},
	{name: "cancel with cause", cause: true},
	{name: "deadline", deadline: true},
	{name: "deadline with cause", deadline: true, cause: true},
	{name: "cancelled before, with cause", cause: true, before: true},
	{name: "past its deadline before, with cause", deadline: true, cause: true, before: true},
}

// start makes the context: one that ended already, a deadline d from
// now, or a cancellation that happens 20 ms after ready fires (ready nil:
// after the call starts). The delay lets a call that answered ready go on
// into its wait; one that has not yet got there ends all the same.
func (e ctxEnd) start(t *testing.T, d time.Duration, ready <-chan struct{}) context.Context {
	t.Helper()
	var cause error
	if e.cause {
		cause = errCtxCause
	}
	if e.before {
		d = -time.Second
	}
	if e.deadline {
		ctx, cancel := context.WithTimeoutCause(context.Background(), d, cause)
		t.Cleanup(cancel)
		return ctx
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	if e.before {
		cancel(cause)
		return ctx
	}
	go func() {
		if ready != nil {
			select {
			case <-ready:
			case <-time.After(10 * time.Second):
			}
		}
		time.AfterFunc(20*time.Millisecond, func() { cancel(cause) })
	}()
	return ctx
}

// ctxScenario is where a call is when its context ends, or what wait the
// deadline makes pointless.
type ctxScenario struct {
	name       string
	wait       bool          // a wait (limiter, backoff, Retry-After), refused at once under a deadline
	quota      bool          // a spent quota: the refusal matches ErrRateLimited
	status     int           // the response that asked for the wait; 0: none
	retryAfter time.Duration // its Retry-After
	spend      bool          // one call first spends the limiter's burst
	// setup returns the client's options and a channel that fires once
	// the call has reached the point (nil: not known), given the
	// scenario's server.
	setup func(t *testing.T, s *ctxServer) ([]itick.Option, <-chan struct{})
	serve func(s *ctxServer, w http.ResponseWriter, r *http.Request) // nil: the server answers an empty success
}

// ctxServer serves every request as its scenario says, whatever the path.
type ctxServer struct {
	serve     func(s *ctxServer, w http.ResponseWriter, r *http.Request)
	attempted chan struct{} // a value for each request, when there is room
	done      chan struct{} // closed when the test ends: hanging handlers return
	hits      atomic.Int32
}

func (s *ctxServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	select {
	case s.attempted <- struct{}{}:
	default:
	}
	if s.serve == nil {
		w.Write([]byte(`{"code":0,"msg":null,"data":{}}`))
		return
	}
	s.serve(s, w, r)
}

// Close ends the requests that hang.
func (s *ctxServer) Close() { close(s.done) }

// hang holds a request until its context or the test ends.
func (s *ctxServer) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// statusServe answers status, with Retry-After ra when ra is not "".
func statusServe(status int, ra string) func(*ctxServer, http.ResponseWriter, *http.Request) {
	return func(_ *ctxServer, w http.ResponseWriter, _ *http.Request) {
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"code":%d,"msg":"%s"}`, status, http.StatusText(status))
	}
}

// spentLimiter is a *rate.Limiter whose next token is an hour away.
func spentLimiter() *rate.Limiter {
	l := rate.NewLimiter(rate.Every(time.Hour), 1)
	l.Allow()
	return l
}

// longBackoff makes every backoff an hour, past any test's deadline.
var longBackoff = itick.WithBackoff(time.Hour, time.Hour)

var ctxScenarios = []ctxScenario{
	{name: "WithRateLimit's limiter", wait: true, quota: true, spend: true,
		setup: func(t *testing.T, s *ctxServer) ([]itick.Option, <-chan struct{}) {
			return []itick.Option{itick.WithRateLimit(rate.Every(time.Hour), 1)}, nil
		}},
	{name: "a *rate.Limiter", wait: true, quota: true,
		setup: func(t *testing.T, s *ctxServer) ([]itick.Option, <-chan struct{}) {
			return []itick.Option{itick.WithLimiter(spentLimiter())}, nil
		}},
	{name: "a Limiter of its own", wait: true, quota: true,
		setup: func(t *testing.T, s *ctxServer) ([]itick.Option, <-chan struct{}) {
			lim := &refusingLimiter{entered: make(chan struct{}, 1)}
			return []itick.Option{itick.WithLimiter(lim)}, lim.entered
		}},
	{name: "a LimiterFunc over a *rate.Limiter", wait: true, quota: true,
		setup: func(t *testing.T, s *ctxServer) ([]itick.Option, <-chan struct{}) {
			rl := spentLimiter()
			entered := make(chan struct{}, 1)
			f := itick.LimiterFunc(func(ctx context.Context) error {
				select {
				case entered <- struct{}{}:
				default:
				}
				return rl.Wait(ctx) // as ExampleLimiterFunc does
			})
			return []itick.Option{itick.WithLimiter(f)}, entered
		}},
	{name: "429 backoff", wait: true, quota: true, status: 429, serve: statusServe(429, "")},
	{name: "503 backoff", wait: true, status: 503, serve: statusServe(503, "")},
	{name: "transport error backoff", wait: true,
		serve: func(_ *ctxServer, w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
	{name: "429 Retry-After", wait: true, quota: true, status: 429, retryAfter: 30 * time.Second, serve: statusServe(429, "30")},
	{name: "503 Retry-After", wait: true, status: 503, retryAfter: 30 * time.Second, serve: statusServe(503, "30")},
	{name: "502 Retry-After as a date", wait: true, status: 502, retryAfter: 30 * time.Second,
		serve: func(s *ctxServer, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(31*time.Second).UTC().Format(http.TimeFormat))
			statusServe(502, "")(s, w, r)
		}},
	{name: "in flight before the headers",
		serve: func(s *ctxServer, _ http.ResponseWriter, r *http.Request) { s.hang(r) }},
	{name: "in flight in the body",
		serve: func(s *ctxServer, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte(`{"code":0,"msg":null,"data":{"700":{"s":"700",`))
			http.NewResponseController(w).Flush()
			s.hang(r)
		}},
}

// refusingLimiter is a Limiter as the Limiter interface asks one to be: it
// waits until ctx ends, except that a wait that would pass ctx's deadline
// (its slot is an hour away) is refused at once with an error wrapping
// context.DeadlineExceeded.
type refusingLimiter struct{ entered chan struct{} }

func (l *refusingLimiter) Wait(ctx context.Context) error {
	select {
	case l.entered <- struct{}{}:
	default:
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < time.Hour {
		return fmt.Errorf("own limiter: next slot in 1h: %w", context.DeadlineExceeded)
	}
	<-ctx.Done()
	return ctx.Err()
}

// ctxCall is one kind of call, made against any server: every scenario
// fails it.
type ctxCall struct {
	name  string
	opts  []itick.Option
	batch bool // several chunks: the error is a *BatchError
	call  func(ctx context.Context, c *itick.Client) error
}

var (
	ctxFrom = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ctxTo   = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
)

var ctxCalls = []ctxCall{
	{name: "Quote", call: func(ctx context.Context, c *itick.Client) error {
		_, err := c.Stock.Quote(ctx, itick.RegionHK, "700")
		return err
	}},
	{name: "Quotes", call: func(ctx context.Context, c *itick.Client) error {
		_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "5"})
		return err
	}},
	{name: "Quotes in chunks", opts: []itick.Option{itick.WithBatchSize(1)}, batch: true,
		call: func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "5", "9988"})
			return err
		}},
	{name: "Splits", call: func(ctx context.Context, c *itick.Client) error {
		for _, err := range c.Stock.Splits(ctx, itick.RegionHK) {
			return err
		}
		return errors.New("Splits yielded nothing")
	}},
	{name: "News.All", call: func(ctx context.Context, c *itick.Client) error {
		for _, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en"}) {
			return err
		}
		return errors.New("News.All yielded nothing")
	}},
	{name: "Get", call: func(ctx context.Context, c *itick.Client) error {
		return c.Get(ctx, "/stock/quote", url.Values{"region": {"HK"}, "code": {"700"}}, nil)
	}},
	{name: "KlineRange", call: func(ctx context.Context, c *itick.Client) error {
		_, err := c.Stock.KlineRange(ctx, itick.RegionHK, "700", itick.OneDay, ctxFrom, ctxTo)
		return err
	}},
	{name: "KlinesRange in chunks", opts: []itick.Option{itick.WithBatchSize(1)}, batch: true,
		call: func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.KlinesRange(ctx, itick.RegionHK, []string{"700", "5", "9988"}, itick.OneDay, ctxFrom, ctxTo)
			return err
		}},
}

// readmeStatus is the README's answer to a caller, and examples/service's:
// 429 for a spent quota, 504 for a deadline, 502 for anything else.
func readmeStatus(err error) int {
	switch {
	case errors.Is(err, itick.ErrRateLimited):
		return http.StatusTooManyRequests
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	default:
		return http.StatusBadGateway
	}
}

// Behaviours 7, 15 and 22, for every call, every place a call can be when
// its context ends, and every way a context ends.
func TestContextErrorsTellTheTruth(t *testing.T) {
	t.Parallel()
	for _, sc := range ctxScenarios {
		for _, call := range ctxCalls {
			for _, end := range ctxEnds {
				t.Run(sc.name+"/"+call.name+"/"+end.name, func(t *testing.T) {
					t.Parallel()
					testContextError(t, sc, call, end)
				})
			}
		}
	}
}

func testContextError(t *testing.T, sc ctxScenario, call ctxCall, end ctxEnd) {
	srv := &ctxServer{serve: sc.serve, attempted: make(chan struct{}, 1), done: make(chan struct{})}
	var opts []itick.Option
	ready := (<-chan struct{})(srv.attempted)
	if sc.setup != nil {
		opts, ready = sc.setup(t, srv)
	} else {
		opts = []itick.Option{longBackoff, itick.WithRetries(3)}
	}
	c := newServerClient(t, httptest.NewServer(srv), testToken, append(opts, call.opts...)...)
	if sc.spend {
		// The next slot is an hour away after this call.
		if err := c.Get(t.Context(), "/stock/quotes", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A wait is refused at once under a deadline, so the deadline is far;
	// in flight, the deadline is what ends the call.
	d := 10 * time.Second
	if !sc.wait {
		d = 150 * time.Millisecond
	}
	ctx := end.start(t, d, ready)
	errc := make(chan error, 1)
	go func() { errc <- call.call(ctx, c) }()
	err := waitOrFail(t, errc, "the call to end")
	ended := ctx.Err() != nil
	if err == nil {
		t.Fatal("the call succeeded")
	}

	if ended {
		if !errors.Is(err, ctx.Err()) {
			t.Errorf("err = %v, does not match ctx.Err() (%v)", err, ctx.Err())
		}
		if end.cause && !errors.Is(err, errCtxCause) {
			t.Errorf("err = %v, does not match the context's cause", err)
		}
	}
	if call.batch {
		var be *itick.BatchError
		if !errors.As(err, &be) {
			t.Errorf("err = %v (%T), want a *BatchError", err, err)
		}
	}
	if !end.deadline {
		if !ended {
			t.Errorf("err = %v before the context was cancelled", err)
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, itick.ErrRateLimited) {
			t.Errorf("cancelled call: err = %v matches DeadlineExceeded or ErrRateLimited", err)
		}
		return
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one matching context.DeadlineExceeded", err)
	}
	refusal := sc.wait && !end.before
	want := http.StatusGatewayTimeout
	if refusal && sc.quota {
		want = http.StatusTooManyRequests
	}
	if got := readmeStatus(err); got != want {
		t.Errorf("the README's mapping answers %d, want %d, for %v", got, want, err)
	}
	if !refusal {
		if !ended {
			t.Errorf("err = %v before the deadline", err)
		}
		return
	}
	// Refused at once: the deadline is still ahead.
	if ended {
		t.Errorf("the call waited into its deadline: %v", err)
	}
	if got := errors.Is(err, itick.ErrRateLimited); got != sc.quota {
		t.Errorf("err = %v: matches ErrRateLimited %v, want %v", err, got, sc.quota)
	}
	var apiErr *itick.APIError
	switch {
	case sc.status == 0:
		if errors.As(err, &apiErr) {
			t.Errorf("err = %v carries an *APIError with no response", err)
		}
	case !errors.As(err, &apiErr):
		t.Errorf("err = %v, want the response's *APIError kept", err)
	case apiErr.StatusCode != sc.status:
		t.Errorf("APIError.StatusCode = %d, want %d", apiErr.StatusCode, sc.status)
	case apiErr.RetryAfter < sc.retryAfter-2*time.Second || apiErr.RetryAfter > sc.retryAfter+2*time.Second:
		t.Errorf("APIError.RetryAfter = %v, want %v", apiErr.RetryAfter, sc.retryAfter)
	}
	if sc.status != 0 && !call.batch && srv.hits.Load() != 1 {
		t.Errorf("%d attempts, want 1: the wait was refused", srv.hits.Load())
	}
}

// Behaviour 22 for the stream's calls that take a context: Client.Stream
// while the handshake or the authentication hangs, Subscribe and
// Unsubscribe while their acknowledgement does not come.
func TestStreamContextErrorsTellTheTruth(t *testing.T) {
	t.Parallel()
	type host struct {
		ws      *wsHost
		reached chan struct{} // the call reached the point where it hangs
	}
	// hangOn serves connections that authenticate and acknowledge every
	// request but those of action ac, which they never answer; with ac
	// "auth", every request.
	hangOn := func(ac string) func() *host {
		return func() *host {
			h := &host{reached: make(chan struct{}, 1)}
			h.ws = newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
				if greet(ctx, c) != nil {
					return
				}
				if ac == "auth" { // authenticated: the call is where it waits
					select {
					case h.reached <- struct{}{}:
					default:
					}
				}
				answer(ctx, c, func(req streamRequest) string {
					if req.Ac != ac {
						return acceptAll(req)
					}
					select {
					case h.reached <- struct{}{}:
					default:
					}
					return ""
				})
			})
			return h
		}
	}
	// openStreamOnly is Client.Stream, closing the Stream it opens.
	openStreamOnly := func(ctx context.Context, c *itick.Client) error {
		s, err := c.Stream(ctx, itick.AssetStock)
		if err == nil {
			s.Close()
		}
		return err
	}
	// onStream opens a Stream with a context of the test's and calls fn
	// on it with the call's.
	onStream := func(fn func(ctx context.Context, s *itick.Stream) error) func(context.Context, *itick.Client) error {
		return func(ctx context.Context, c *itick.Client) error {
			s, err := c.Stream(t.Context(), itick.AssetStock)
			if err != nil {
				return fmt.Errorf("opening the stream: %w", err)
			}
			defer s.Close()
			return fn(ctx, s)
		}
	}
	calls := []struct {
		name string
		host func() *host
		// handshake hangs the WebSocket handshake itself.
		handshake bool
		call      func(ctx context.Context, c *itick.Client) error
	}{
		{name: "Stream, handshake unanswered", handshake: true,
			call: openStreamOnly},
		{name: "Stream, authentication unanswered",
			host: func() *host {
				h := &host{reached: make(chan struct{}, 1)}
				h.ws = newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
					if wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`) != nil {
						return
					}
					h.reached <- struct{}{}
					<-ctx.Done()
				})
				return h
			},
			call: openStreamOnly},
		// The Stream's own context ends it; Err says why.
		{name: "Stream.Err", host: hangOn("auth"),
			call: func(ctx context.Context, c *itick.Client) error {
				s, err := c.Stream(ctx, itick.AssetStock)
				if err != nil {
					return err
				}
				waitOrFail(t, s.Done(), "the Stream to end with its context")
				return s.Err()
			}},
		{name: "Subscribe", host: hangOn("subscribe"),
			call: onStream(func(ctx context.Context, s *itick.Stream) error {
				return s.Subscribe(ctx, []string{"700$HK"}, itick.ChannelQuote)
			})},
		{name: "Unsubscribe", host: hangOn("unsubscribe"),
			call: onStream(func(ctx context.Context, s *itick.Stream) error {
				if err := s.Subscribe(t.Context(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
					return fmt.Errorf("subscribing: %w", err)
				}
				return s.Unsubscribe(ctx, []string{"700$HK"})
			})},
	}
	for _, call := range calls {
		for _, end := range ctxEnds {
			t.Run(call.name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				var srv *httptest.Server
				var reached <-chan struct{}
				if call.handshake {
					hs := &ctxServer{attempted: make(chan struct{}, 1), done: make(chan struct{}),
						serve: func(s *ctxServer, _ http.ResponseWriter, r *http.Request) { s.hang(r) }}
					srv, reached = httptest.NewServer(hs), hs.attempted
				} else {
					h := call.host()
					srv, reached = httptest.NewServer(h.ws), h.reached
				}
				c := newServerClient(t, srv, simToken)
				ctx := end.start(t, 300*time.Millisecond, reached)
				errc := make(chan error, 1)
				go func() { errc <- call.call(ctx, c) }()
				err := waitOrFail(t, errc, "the call to end")
				switch {
				case err == nil:
					t.Fatal("the call succeeded")
				case ctx.Err() == nil:
					t.Fatalf("err = %v before the context ended", err)
				case !errors.Is(err, ctx.Err()):
					t.Errorf("err = %v, does not match ctx.Err() (%v)", err, ctx.Err())
				}
				if end.cause && !errors.Is(err, errCtxCause) {
					t.Errorf("err = %v, does not match the context's cause", err)
				}
			})
		}
	}
}
