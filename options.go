package itick

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Option configures a Client. Options apply in order and validate their
// arguments: a bad one makes NewClient fail with ErrInvalidArgument.
type Option func(*settings) error

// Limiter paces requests. Every attempt, retries included, waits on it
// first; it must return promptly once ctx ends. *rate.Limiter satisfies it.
type Limiter interface {
	// Wait blocks until one request may go, and returns an error when it
	// may not: ctx's once ctx ends, or one wrapping
	// context.DeadlineExceeded at once when the wait would pass ctx's
	// deadline, which the client reports as a spent quota.
	Wait(ctx context.Context) error
}

// LimiterFunc lets an ordinary function be a Limiter, as
// http.HandlerFunc does for handlers: a wrapper that counts or logs the
// waits of another limiter, or one that asks a scheduler of your own.
// For a spent quota to match ErrRateLimited, it returns at once an error
// wrapping context.DeadlineExceeded when the wait would pass ctx's
// deadline; a *rate.Limiter's own refusal, passed on, counts as one.
type LimiterFunc func(ctx context.Context) error

// Wait calls f(ctx).
func (f LimiterFunc) Wait(ctx context.Context) error { return f(ctx) }

// settings is what the options build before NewClient assembles a client.
type settings struct {
	baseURL     *url.URL
	httpClient  *http.Client
	plan        Plan
	batchSize   int // 0: the plan's
	limiter     Limiter
	limiterSet  bool // WithRateLimit or WithLimiter was given
	maxBody     int64
	retries     int
	minBackoff  time.Duration
	maxBackoff  time.Duration
	concurrency int
	userAgent   string
	logger      *slog.Logger
	clock       *clock // the client's now (WithClock)
}

// Defaults of a new Client.
const (
	DefaultMaxResponseBytes = 64 << 20
	DefaultRetries          = 3
	DefaultMinBackoff       = 250 * time.Millisecond
	DefaultMaxBackoff       = 8 * time.Second
	DefaultConcurrency      = 4
	// DefaultTimeout bounds one attempt when the client builds its own
	// http.Client, so a silent server cannot hold a call forever.
	DefaultTimeout = 30 * time.Second
)

// Upper bounds of the options. Past them a value is a mistake (a size in the
// wrong unit, math.MaxInt for "unlimited") that would exhaust memory or
// overflow arithmetic, or make requests no server accepts.
const (
	// maxBatchSize: a thousand codes already make a URL longer than many
	// servers and proxies accept.
	maxBatchSize = 1000
	// maxConcurrency is far more chunks in flight than any plan's quota
	// can serve at once.
	maxConcurrency = 256
	// maxRetries: with backoff between them, more retries than this
	// outlast any reason to keep trying.
	maxRetries = 100
	// maxResponseBytes is a gibibyte: a body is held in memory whole.
	maxResponseBytes = 1 << 30
	// maxUserAgent is a generous length for a header sent with every request.
	maxUserAgent = 1024
)

func defaultSettings() *settings {
	u, _ := url.Parse(DefaultBaseURL)
	return &settings{
		baseURL:     u,
		plan:        PlanBase,
		maxBody:     DefaultMaxResponseBytes,
		retries:     DefaultRetries,
		minBackoff:  DefaultMinBackoff,
		maxBackoff:  DefaultMaxBackoff,
		concurrency: DefaultConcurrency,
		clock:       realClock,
	}
}

// WithBaseURL sets the service's address, for accounts given their own
// host. It must be an absolute http or https URL; a path prefix is kept.
// Its origin (scheme, host and port) is the only one that receives the
// token.
func WithBaseURL(rawURL string) Option {
	return func(s *settings) error {
		u, err := parseBaseURL(rawURL)
		if err != nil {
			return err
		}
		s.baseURL = u
		return nil
	}
}

func parseBaseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, invalidArg("base URL %q: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, invalidArg("base URL %q: scheme must be http or https", rawURL)
	}
	if u.Host == "" {
		return nil, invalidArg("base URL %q has no host", rawURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, invalidArg("base URL %q must not carry a query, fragment or user info", rawURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// WithHTTPClient sets the http.Client underneath the retries and the rate
// limiter. Its Transport, Jar, CheckRedirect and Timeout are used. Whatever
// its redirect policy, the token goes only to the base URL's origin (scheme,
// host and port, default ports normalised): a redirect to another origin,
// or from https to http, is followed without the token.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) error {
		if hc == nil {
			return invalidArg("WithHTTPClient: nil *http.Client")
		}
		s.httpClient = hc
		return nil
	}
}

// WithPlan sets the plan, which gives the batch size and the default rate
// limit. WithBatchSize, WithRateLimit and WithLimiter override it whatever
// their order.
func WithPlan(p Plan) Option {
	return func(s *settings) error {
		if !p.valid() {
			return invalidArg("WithPlan: unknown plan %d", int(p))
		}
		s.plan = p
		return nil
	}
}

// WithBatchSize sets how many codes one request carries, overriding the
// plan. It is at least 1 and at most 1000.
func WithBatchSize(n int) Option {
	return func(s *settings) error {
		if n < 1 || n > maxBatchSize {
			return invalidArg("WithBatchSize: %d is not within [1, %d]", n, maxBatchSize)
		}
		s.batchSize = n
		return nil
	}
}

// WithRateLimit paces requests at perSecond with the given burst, at least
// 1. rate.Inf switches client-side limiting off; any other rate must be a
// positive number.
func WithRateLimit(perSecond rate.Limit, burst int) Option {
	return func(s *settings) error {
		if perSecond == rate.Inf {
			s.limiter, s.limiterSet = nil, true
			return nil
		}
		// NaN compares false with everything, so it must be caught by name:
		// a limiter at NaN lets every call through.
		if math.IsNaN(float64(perSecond)) || perSecond <= 0 {
			return invalidArg("WithRateLimit: rate %v must be positive (rate.Inf for no limit)", float64(perSecond))
		}
		if burst < 1 {
			return invalidArg("WithRateLimit: burst %d is below 1", burst)
		}
		s.limiter, s.limiterSet = rate.NewLimiter(perSecond, burst), true
		return nil
	}
}

// WithLimiter sets any limiter, such as one shared across processes. A
// wait it refuses at once because it would pass the deadline (an error
// wrapping context.DeadlineExceeded, or a *rate.Limiter's own refusal)
// ends the call with an error matching ErrRateLimited and
// context.DeadlineExceeded; any other error of its own comes back wrapped.
func WithLimiter(l Limiter) Option {
	return func(s *settings) error {
		if l == nil || isNil(l) {
			return invalidArg("WithLimiter: nil Limiter")
		}
		s.limiter, s.limiterSet = l, true
		return nil
	}
}

// isNil reports an interface holding a nil pointer, such as a nil
// *rate.Limiter, which would panic on its first Wait.
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// WithMaxResponseBytes bounds a response body; a larger one is an error
// (ErrResponseTooLarge) and is not retried. The bound is at least 1 and at
// most 1 GiB, since a body is held in memory whole, and counts decompressed
// bytes. Reading a body costs its size, twice its size when its length is
// not declared (a gzip body, decompressed by the client, costs its size
// plus its compressed size), and about the bound for one over it; the
// bodies over 1 MiB that one Client holds at once stay within twice the
// bound, a call waiting (as its context allows) for room.
func WithMaxResponseBytes(n int64) Option {
	return func(s *settings) error {
		if n < 1 || n > maxResponseBytes {
			return invalidArg("WithMaxResponseBytes: %d is not within [1, %d]", n, int64(maxResponseBytes))
		}
		s.maxBody = n
		return nil
	}
}

// WithRetries sets how many times a failed attempt is retried, at most
// 100; 0 switches retries off.
func WithRetries(n int) Option {
	return func(s *settings) error {
		if n < 0 {
			return invalidArg("WithRetries: %d is negative", n)
		}
		if n > maxRetries {
			return invalidArg("WithRetries: %d is above %d", n, maxRetries)
		}
		s.retries = n
		return nil
	}
}

// WithBackoff sets the bounds of the exponential, jittered wait between
// retries, shortest and longest. A Retry-After from the service is
// honoured even past longest.
func WithBackoff(shortest, longest time.Duration) Option {
	return func(s *settings) error {
		if shortest < 0 || longest < shortest {
			return invalidArg("WithBackoff: need 0 <= shortest <= longest, got %s and %s", shortest, longest)
		}
		s.minBackoff, s.maxBackoff = shortest, longest
		return nil
	}
}

// WithConcurrency sets how many chunks of one batch call are in flight at
// once, from 1 to 256.
func WithConcurrency(n int) Option {
	return func(s *settings) error {
		if n < 1 || n > maxConcurrency {
			return invalidArg("WithConcurrency: %d is not within [1, %d]", n, maxConcurrency)
		}
		s.concurrency = n
		return nil
	}
}

// WithUserAgent puts ua in front of the SDK's own User-Agent product. It
// must be a valid header value (no control bytes but tab) of at most 1024
// bytes.
func WithUserAgent(ua string) Option {
	return func(s *settings) error {
		ua = strings.TrimSpace(ua)
		if ua == "" {
			return invalidArg("WithUserAgent: %q is empty", ua)
		}
		if len(ua) > maxUserAgent {
			return invalidArg("WithUserAgent: %d bytes is longer than %d", len(ua), maxUserAgent)
		}
		// net/http refuses such a header at every request, after the
		// request has waited on the limiter; refuse it once, here.
		if strings.ContainsFunc(ua, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
			return invalidArg("WithUserAgent: %q contains a control byte", ua)
		}
		s.userAgent = ua
		return nil
	}
}

// WithLogger logs one debug line per attempt (method, path, query, attempt,
// status, duration), never the token. nil switches logging off.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		s.logger = l
		return nil
	}
}
