// Package transport is the HTTP layer under the itick client: one attempt
// waits on the rate limiter, carries the credentials, reads its body within a
// bound, and logs one line; go-retryablehttp repeats attempts under the
// retry policy in retry.go.
package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/d19c4e34/itick/internal/redact"
)

// ErrBodyTooLarge reports a response body over the configured bound. It is
// never retried: the next attempt would be just as large.
var ErrBodyTooLarge = errors.New("itick: response body exceeds the size bound")

// Limiter paces attempts; *rate.Limiter satisfies it.
type Limiter interface {
	Wait(ctx context.Context) error
}

// Attempt is the RoundTripper every attempt goes through. It holds the token
// and adds it only to requests for the configured origin (scheme, host and
// port), so a redirect to another host, to another port or from https to
// http is followed without it, whatever redirect policy the http.Client
// has: every hop of a redirect comes through here.
type Attempt struct {
	Base    http.RoundTripper
	Limiter Limiter // nil: no client-side pacing
	Origin  Origin  // the only origin that receives the token; zero: none
	Token   string
	MaxBody int64
	// Timeout bounds one attempt from after its limiter wait to the end of
	// its body; 0: no bound. A limiter wait can be long (a plan's quota
	// spent for the minute), so it must not eat into the attempt's time.
	Timeout  time.Duration
	Logger   *slog.Logger // nil: silent
	bufPool  sync.Pool    // first blocks of bodies of unknown length
	attempts atomic.Int64
	redOnce  sync.Once
	red      *redact.Redactor
	budOnce  sync.Once
	budget   *budget // nil: no shared bound (see body.go)

	// Counters for Counters; each attempt adds to them at most once.
	rateLimited atomic.Int64
	bytesRead   atomic.Int64
	limiterWait atomic.Int64 // nanoseconds
}

// String keeps the token out of any printed form of the transport.
func (a *Attempt) String() string { return "itick.transport" }

// GoString keeps the token out of %#v.
func (a *Attempt) GoString() string { return "itick.transport" }

// Attempts is how many attempts have gone through this transport.
func (a *Attempt) Attempts() int64 { return a.attempts.Load() }

// Counters is what a transport has counted since it was made.
type Counters struct {
	Attempts    int64         // attempts sent, after their limiter wait
	RateLimited int64         // responses with HTTP status 429
	BytesRead   int64         // response body bytes read, over all attempts
	LimiterWait time.Duration // time spent in the limiter's Wait, over all attempts
}

// Counters returns the counters. Each is read atomically, not all at once.
func (a *Attempt) Counters() Counters {
	return Counters{
		Attempts:    a.attempts.Load(),
		RateLimited: a.rateLimited.Load(),
		BytesRead:   a.bytesRead.Load(),
		LimiterWait: time.Duration(a.limiterWait.Load()),
	}
}

type callKey struct{}

// Call is one call's state across its attempts.
type Call struct {
	attempts atomic.Int32
	retries  int // retries decided so far; only the retry loop touches it
}

// Attempts is how many attempts the call has made. A redirect's hop
// belongs to the attempt that was redirected: it does not count.
func (c *Call) Attempts() int { return int(c.attempts.Load()) }

// WithCall returns a context under which the attempts of one call count
// themselves in call, so the log line can say which attempt of a call it
// was, and the retry policy keeps its state there.
func WithCall(ctx context.Context, call *Call) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// RoundTrip implements http.RoundTripper.
func (a *Attempt) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var waitStart time.Time
	if a.Limiter != nil {
		waitStart = time.Now()
	}
	err := a.wait(ctx)
	if a.Limiter != nil {
		a.limiterWait.Add(int64(time.Since(waitStart)))
	}
	if err != nil {
		return nil, err
	}
	attempt := 0
	if call, ok := ctx.Value(callKey{}).(*Call); ok {
		if req.Response == nil {
			attempt = int(call.attempts.Add(1))
		} else {
			attempt = call.Attempts() // a redirect's hop (net/http sets Response on it)
		}
	}
	a.attempts.Add(1)

	if a.Timeout > 0 {
		// The body is read whole before RoundTrip returns, so the
		// attempt's context may end with it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Timeout)
		defer cancel()
	}
	out := req.Clone(ctx)
	if a.Token != "" && a.Origin.Host != "" && OriginOf(req.URL) == a.Origin {
		out.Header.Set("token", a.Token)
	} else {
		out.Header.Del("token")
	}
	gzipped := a.asksForGzip(out)
	if gzipped {
		out.Header.Set("Accept-Encoding", "gzip")
	}

	start := time.Now()
	resp, err := a.Base.RoundTrip(out)
	if err == nil {
		if resp.StatusCode == http.StatusTooManyRequests {
			a.rateLimited.Add(1)
		}
		err = a.buffer(ctx, resp, gzipped)
	}
	a.log(ctx, req, attempt, resp, err, time.Since(start))
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// asksForGzip reports whether the attempt asks for gzip itself, where
// net/http would have asked and decompressed: then the body is read
// compressed and decompressed into a buffer sized by its gzip trailer (see
// body.go), which costs its size once instead of twice. A request that
// sets its own Accept-Encoding gets the body as sent, as net/http does.
func (a *Attempt) asksForGzip(req *http.Request) bool {
	if t, ok := a.Base.(*http.Transport); ok && t.DisableCompression {
		return false
	}
	return req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" && req.Method != http.MethodHead
}

// wait blocks on the limiter. Its error comes back wrapped whole, so a
// limiter's own failure (a shared store that is down) keeps its cause. It
// matches a context error only when the context was the reason: ctx ended,
// or the limiter refused early because the wait would pass ctx's deadline
// and said so by wrapping context.DeadlineExceeded, as the SDK's limiters
// do, or with *rate.Limiter's own refusal, which a LimiterFunc passes on.
func (a *Attempt) wait(ctx context.Context) error {
	if a.Limiter == nil {
		return ctx.Err()
	}
	err := limiterWait(ctx, a.Limiter)
	if err == nil {
		return nil
	}
	ctxErr := ctx.Err()
	if ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w: %w", ctxErr, err)
	}
	early := false
	if ctxErr == nil {
		if !errors.Is(err, context.DeadlineExceeded) && rateRefusal(err) {
			err = pastDeadline{err}
		}
		early = errors.Is(err, context.DeadlineExceeded)
	}
	return &LimiterError{Err: err, Early: early}
}

// LimiterError is a limiter's refusal to let an attempt go. It is final:
// retrying would only ask the same limiter again.
type LimiterError struct {
	Err error
	// Early reports a refusal before the context ended, because the wait
	// for a slot would pass its deadline: a spent quota, not a timeout.
	Early bool
}

func (e *LimiterError) Error() string { return "itick: rate limiter: " + e.Err.Error() }

// Unwrap returns the limiter's own error.
func (e *LimiterError) Unwrap() error { return e.Err }

func (a *Attempt) log(ctx context.Context, req *http.Request, attempt int, resp *http.Response, err error, d time.Duration) {
	if a.Logger == nil || !a.Logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		// The path and query are the SDK's own unless a redirect chose
		// them; a longer bound keeps a batch's codes readable.
		slog.String("path", a.redactor().Bound(req.URL.Path, maxLoggedURL)),
		slog.String("query", a.redactor().Bound(req.URL.RawQuery, maxLoggedURL)),
		slog.Int("attempt", attempt),
		slog.Duration("duration", d),
	}
	if req.Response != nil {
		attrs = append(attrs, slog.Bool("redirect", true))
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode), slog.Int64("bytes", resp.ContentLength))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", a.Redact(err.Error())))
	}
	a.Logger.LogAttrs(ctx, slog.LevelDebug, "itick request", attrs...)
}

// Redact removes the token, in any form and any fragment of it long enough
// to matter, from text the service controls (a message, a body, a URL it
// redirected to), then cuts the text to redact.MaxText bytes.
func (a *Attempt) Redact(s string) string { return a.redactor().String(s) }

// Redactor returns the redactor Redact uses, for text bounded other than
// at redact.MaxText.
func (a *Attempt) Redactor() *redact.Redactor { return a.redactor() }

func (a *Attempt) redactor() *redact.Redactor {
	a.redOnce.Do(func() { a.red = redact.New(a.Token) })
	return a.red
}

// maxLoggedURL bounds the path and the query in a log line.
const maxLoggedURL = 4 * redact.MaxText
