package itick

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/d19c4e34/itick/internal/transport"
)

// DefaultBaseURL is the service's public address.
const DefaultBaseURL = "https://api.itick.org"

// Version is the SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// Client talks to the service. Create one with NewClient and share it.
type Client struct {
	Stock   *StockService   // stock quotes, books, candles, ticks, splits, IPOs and company profiles
	Crypto  *CryptoService  // crypto pairs' quotes, books, candles and ticks
	Forex   *ForexService   // forex pairs' quotes, books, candles and ticks
	Future  *FutureService  // futures' quotes, books, candles and ticks
	Fund    *FundService    // funds' quotes, books, candles and ticks
	Indices *IndicesService // indices' quotes, books, candles and ticks
	News    *NewsService    // the news feed and articles
	Market  *MarketService  // symbols, holidays, market status

	baseURL     *url.URL
	rc          *transport.Retrier
	attempt     *transport.Attempt
	plan        Plan
	batchSize   int
	concurrency int
	minBackoff  time.Duration // the retries' bounds, which a Stream's reconnections share
	maxBackoff  time.Duration
	userAgent   string
	stats       *clientStats // a pointer: Client's value methods must not copy atomics
	confirmed   *atomic.Bool // the service has answered one request with a success
	clock       *clock       // the date and hour (WithClock); never for elapsed time
	splits      *splitCache  // each region's splits of the day, for WithSplitAdjusted
}

// NewClient returns a client that sends token with every request. An empty
// token or a bad option is an error matching ErrInvalidArgument.
func NewClient(token string, opts ...Option) (*Client, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, invalidArg("token is empty")
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, invalidArg("token contains a control character")
	}
	s := defaultSettings()
	for i, opt := range opts {
		if opt == nil {
			return nil, invalidArg("option %d is nil", i)
		}
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	return newClient(token, s), nil
}

// NewClientFromEnv reads ITICK_TOKEN, ITICK_BASE_URL and ITICK_PLAN (a plan
// name such as "premium"); options given here win over the environment.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	token := os.Getenv("ITICK_TOKEN")
	if strings.TrimSpace(token) == "" {
		return nil, invalidArg("ITICK_TOKEN is not set")
	}
	var env []Option
	if v := os.Getenv("ITICK_BASE_URL"); v != "" {
		env = append(env, WithBaseURL(v))
	}
	if v := os.Getenv("ITICK_PLAN"); v != "" {
		p, err := ParsePlan(v)
		if err != nil {
			return nil, fmt.Errorf("ITICK_PLAN: %w", err)
		}
		env = append(env, WithPlan(p))
	}
	return NewClient(token, append(env, opts...)...)
}

func newClient(token string, s *settings) *Client {
	c := &Client{
		baseURL:     s.baseURL,
		plan:        s.plan,
		batchSize:   s.batchSize,
		concurrency: s.concurrency,
		minBackoff:  s.minBackoff,
		maxBackoff:  s.maxBackoff,
		userAgent:   "itick-go/" + Version,
		stats:       new(clientStats),
		confirmed:   new(atomic.Bool),
		clock:       s.clock,
		splits:      new(splitCache),
	}
	if c.batchSize == 0 {
		c.batchSize = s.plan.BatchSize()
	}
	if s.userAgent != "" {
		c.userAgent = s.userAgent + " " + c.userAgent
	}
	limiter := s.limiter
	if !s.limiterSet {
		limiter = s.plan.limiter()
	}

	base := s.httpClient
	if base == nil {
		base = &http.Client{Timeout: DefaultTimeout}
	}
	rt := base.Transport
	if rt == nil {
		rt = defaultTransport()
	}
	c.attempt = &transport.Attempt{
		Base:    rt,
		Origin:  transport.OriginOf(s.baseURL),
		Token:   token,
		MaxBody: s.maxBody,
		Timeout: base.Timeout,
		Logger:  s.logger,
	}
	if limiter != nil {
		c.attempt.Limiter = limiter
	}
	// The attempt applies base.Timeout itself, after its limiter wait.
	hc := &http.Client{
		Transport:     c.attempt,
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
	}
	c.rc = transport.New(transport.Config{
		HTTPClient: hc,
		Retries:    s.retries,
		MinBackoff: s.minBackoff,
		MaxBackoff: s.maxBackoff,
	})

	c.Stock = &StockService{market{c, "stock"}}
	c.Crypto = &CryptoService{market{c, "crypto"}}
	c.Forex = &ForexService{market{c, "forex"}}
	c.Future = &FutureService{market{c, "future"}}
	c.Fund = &FundService{market{c, "fund"}}
	c.Indices = &IndicesService{market{c, "indices"}}
	c.News = &NewsService{c}
	c.Market = &MarketService{c}
	return c
}

// defaultTransport is http.DefaultTransport with room to keep a connection
// idle for every chunk in flight. A program that replaced it (wrapped it for
// tracing or metrics) gets its own RoundTripper as it is, so its wrapping
// sees the SDK's requests too.
func defaultTransport() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.MaxIdleConns = 100
	t.MaxIdleConnsPerHost = 32
	return t
}

// String describes the client without its token. It and GoString and
// Format have value receivers so that a Client value, not only a pointer,
// prints this way: fmt would otherwise print its fields, and a verb such as
// %s prints the transport's fields, token included.
func (c Client) String() string {
	return fmt.Sprintf("itick.Client{BaseURL: %q, Plan: %s, BatchSize: %d, Concurrency: %d}",
		c.baseURL.String(), c.plan, c.batchSize, c.concurrency)
}

// GoString is String, so %#v keeps the token out too.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb, so no verb reaches the token.
func (c Client) Format(f fmt.State, _ rune) { fmt.Fprint(f, c.String()) }

// CloseIdleConnections closes the keep-alive connections the client's
// transport holds idle, and with them the goroutines that serve them, as
// http.Client.CloseIdleConnections does: call it on shutdown, or before a
// leak check in a test. Requests in flight are left alone, and later ones
// open connections again.
//
// A transport that wraps another (a tracing or metrics RoundTripper) and
// has no CloseIdleConnections of its own is looked through when it says
// what it wraps with an Unwrap() http.RoundTripper method.
func (c *Client) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := findTransport[closeIdler](c.attempt.Base); ok {
		t.CloseIdleConnections()
	}
}

// findTransport returns the first RoundTripper of type T in rt's chain:
// rt itself, then what each wrapper's Unwrap() http.RoundTripper method
// returns, followed down.
func findTransport[T any](rt http.RoundTripper) (T, bool) {
	for range 16 { // a chain of wrappers, never a cycle
		if t, ok := rt.(T); ok {
			return t, true
		}
		w, ok := rt.(interface{ Unwrap() http.RoundTripper })
		if !ok {
			break
		}
		rt = w.Unwrap()
	}
	var zero T
	return zero, false
}

// BaseURL returns the address requests go to.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// BatchSize returns how many codes one request carries.
func (c *Client) BatchSize() int { return c.batchSize }

// Stats counts what a Client has done since it was made, for a service to
// export to its metrics (see examples/expvar). Every field only grows, so a
// rate is the difference of two snapshots over the time between them.
type Stats struct {
	// Requests is how many requests the client has made: one per call of a
	// single-chunk method or Get, one per chunk of a batch call, one per
	// page of an iterator. Calls refused before sending (bad input) are not
	// counted.
	Requests int64 `json:"requests"`
	// Errors is how many of those Requests ended in an error, whatever the
	// cause: transport, service, decoding or the caller's context.
	Errors int64 `json:"errors"`
	// Attempts is how many HTTP requests went out, retries and the hops of
	// redirects included. One counts once its rate-limiter wait is over.
	Attempts int64 `json:"attempts"`
	// Retries is how many of those Attempts repeated an earlier one of the
	// same request; a redirect's hop is not a retry. It is added when the
	// request ends.
	Retries int64 `json:"retries"`
	// RateLimited is how many responses had HTTP status 429, whether or
	// not a retry then succeeded.
	RateLimited int64 `json:"rate_limited"`
	// BytesRead is the size of every response body read, over all attempts.
	BytesRead int64 `json:"bytes_read"`
	// LimiterWait is the time attempts spent waiting on the client-side rate
	// limiter, summed over attempts (so concurrent waits add up); in JSON,
	// nanoseconds.
	LimiterWait time.Duration `json:"limiter_wait_ns"`
}

// Stats returns the client's counters. It is cheap and safe to call from any
// goroutine at any time; each field is read atomically, but the fields are
// not one snapshot, so a request in flight may show in one and not yet in
// another.
func (c *Client) Stats() Stats {
	t := c.attempt.Counters()
	return Stats{
		Requests:    c.stats.requests.Load(),
		Errors:      c.stats.errors.Load(),
		Attempts:    t.Attempts,
		Retries:     c.stats.retries.Load(),
		RateLimited: t.RateLimited,
		BytesRead:   t.BytesRead,
		LimiterWait: t.LimiterWait,
	}
}

// clientStats are the counters the client keeps itself; the transport
// keeps those it sees per attempt.
type clientStats struct {
	requests atomic.Int64
	errors   atomic.Int64
	retries  atomic.Int64
}

// end counts a request's outcome.
func (s *clientStats) end(err error) {
	if err != nil {
		s.errors.Add(1)
	}
}
