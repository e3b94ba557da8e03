// Package transport is the HTTP layer under the itick client: one attempt
// waits on the rate limiter, carries the credentials, reads its body within a
// bound, and logs one line; go-retryablehttp repeats attempts under the
// retry policy in retry.go.
package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrBodyTooLarge reports a response body over the configured bound. It is
// never retried: the next attempt would be just as large.
var ErrBodyTooLarge = errors.New("itick: response body exceeds the size bound")

// Limiter paces attempts; *rate.Limiter satisfies it.
type Limiter interface {
	Wait(ctx context.Context) error
}

// Attempt is the RoundTripper every attempt goes through. It holds the token
// and adds it only to requests for the configured host, so a redirect to
// another host never carries it.
type Attempt struct {
	Base    http.RoundTripper
	Limiter Limiter // nil: no client-side pacing
	Host    string  // host:port that may receive the token
	Token   string
	MaxBody int64
	// Timeout bounds one attempt from after its limiter wait to the end of
	// its body; 0: no bound. A limiter wait can be long (a plan's quota
	// spent for the minute), so it must not eat into the attempt's time.
	Timeout  time.Duration
	Logger   *slog.Logger // nil: silent
	bufPool  sync.Pool
	attempts atomic.Int64
}

// String keeps the token out of any printed form of the transport.
func (a *Attempt) String() string { return "itick.transport" }

// GoString keeps the token out of %#v.
func (a *Attempt) GoString() string { return "itick.transport" }

// Attempts is how many attempts have gone through this transport.
func (a *Attempt) Attempts() int64 { return a.attempts.Load() }

type attemptKey struct{}

// WithAttemptCounter returns a context under which each attempt increments n,
// so the log line can say which attempt of a call it was.
func WithAttemptCounter(ctx context.Context, n *atomic.Int32) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

type bodyKey struct{}

// WithBodySink returns a context under which each attempt that reads its
// body whole stores it in *b, so a caller can take the final response's
// bytes without copying them, even when an http.Client has wrapped the
// Body (it does whenever it has a Timeout).
func WithBodySink(ctx context.Context, b *[]byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, b)
}

// RoundTrip implements http.RoundTripper.
func (a *Attempt) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := a.wait(ctx); err != nil {
		return nil, err
	}
	attempt := 0
	if n, ok := ctx.Value(attemptKey{}).(*atomic.Int32); ok {
		attempt = int(n.Add(1))
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
	if a.Token != "" && req.URL.Host == a.Host {
		out.Header.Set("token", a.Token)
	} else {
		out.Header.Del("token")
	}

	start := time.Now()
	resp, err := a.Base.RoundTrip(out)
	if err == nil {
		err = a.buffer(resp)
	}
	a.log(ctx, req, attempt, resp, err, time.Since(start))
	if err != nil {
		return nil, err
	}
	if sink, ok := ctx.Value(bodyKey{}).(*[]byte); ok {
		*sink = resp.Body.(*Body).b
	}
	return resp, nil
}

// wait blocks on the limiter. Its error comes back wrapped whole, so a
// limiter's own failure (a shared store that is down) keeps its cause. It
// matches a context error only when the context was the reason: ctx ended,
// or the limiter refused early because the wait would pass ctx's deadline
// and said so by wrapping context.DeadlineExceeded, as the SDK's limiters do.
func (a *Attempt) wait(ctx context.Context) error {
	if a.Limiter == nil {
		return ctx.Err()
	}
	err := limiterWait(ctx, a.Limiter)
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w: %w", ctxErr, err)
	}
	return &LimiterError{Err: err}
}

// LimiterError is a limiter's refusal to let an attempt go. It is final:
// retrying would only ask the same limiter again.
type LimiterError struct{ Err error }

func (e *LimiterError) Error() string { return "itick: rate limiter: " + e.Err.Error() }

// Unwrap returns the limiter's own error.
func (e *LimiterError) Unwrap() error { return e.Err }

// buffer reads the whole body inside the attempt, so a connection that dies
// mid-body is a transport error the retry policy sees, and a body over the
// bound is refused before it can exhaust memory.
func (a *Attempt) buffer(resp *http.Response) error {
	defer resp.Body.Close()
	if a.MaxBody > 0 && resp.ContentLength > a.MaxBody {
		return fmt.Errorf("%w: Content-Length %d > %d bytes", ErrBodyTooLarge, resp.ContentLength, a.MaxBody)
	}
	var r io.Reader = resp.Body
	if a.MaxBody > 0 {
		r = io.LimitReader(resp.Body, a.MaxBody+1)
	}
	var body []byte
	var err error
	if resp.ContentLength > 0 {
		body, err = readSized(r, resp.ContentLength)
	} else {
		body, err = a.readPooled(r)
	}
	if err != nil {
		return fmt.Errorf("itick: reading response body: %w", err)
	}
	if a.MaxBody > 0 && int64(len(body)) > a.MaxBody {
		return fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, a.MaxBody)
	}
	resp.Body = &Body{Reader: bytes.NewReader(body), b: body}
	resp.ContentLength = int64(len(body))
	return nil
}

// readSized reads r to its end into one allocation sized for the declared
// length n, with a spare byte so that the read reporting the end needs no
// more room. A body longer than declared still arrives whole.
func readSized(r io.Reader, n int64) ([]byte, error) {
	b := make([]byte, 0, n+1)
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// readPooled reads a body of unknown length through a pooled buffer and
// returns a copy of exactly its size.
func (a *Attempt) readPooled(r io.Reader) ([]byte, error) {
	buf := a.getBuf()
	defer a.putBuf(buf)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// Body is a response body already read into memory.
type Body struct {
	*bytes.Reader
	b []byte
}

// Bytes returns the whole body without copying it.
func (b *Body) Bytes() []byte { return b.b }

// Close implements io.Closer.
func (b *Body) Close() error { return nil }

const maxPooledBuf = 1 << 20

func (a *Attempt) getBuf() *bytes.Buffer {
	if b, ok := a.bufPool.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

func (a *Attempt) putBuf(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuf {
		a.bufPool.Put(b)
	}
}

func (a *Attempt) log(ctx context.Context, req *http.Request, attempt int, resp *http.Response, err error, d time.Duration) {
	if a.Logger == nil || !a.Logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", a.redact(req.URL.Path)),
		slog.String("query", a.redact(req.URL.RawQuery)),
		slog.Int("attempt", attempt),
		slog.Duration("duration", d),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode), slog.Int64("bytes", resp.ContentLength))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", a.redact(err.Error())))
	}
	a.Logger.LogAttrs(ctx, slog.LevelDebug, "itick request", attrs...)
}

// redact removes the token from text the service controls: a redirect can
// put it in the URL of a later attempt.
func (a *Attempt) redact(s string) string {
	if a.Token == "" {
		return s
	}
	for _, t := range [...]string{a.Token, url.QueryEscape(a.Token), url.PathEscape(a.Token)} {
		s = strings.ReplaceAll(s, t, "[redacted]")
	}
	return s
}
