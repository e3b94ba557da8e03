package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"
)

func TestJitter_WithinBounds(t *testing.T) {
	t.Parallel()
	bounds := []struct{ min, max time.Duration }{
		{time.Millisecond, 5 * time.Millisecond},
		{250 * time.Millisecond, 8 * time.Second},
		{0, time.Second},
		{time.Second, time.Second},
	}
	for _, b := range bounds {
		for attempt := range 70 {
			for _, r := range []float64{0, 0.25, 0.5, 0.999999} {
				d := Jitter(b.min, b.max, attempt, r)
				if d < b.min || d > b.max {
					t.Errorf("Jitter(%v, %v, %d, %v) = %v, outside the bounds", b.min, b.max, attempt, r, d)
				}
			}
		}
	}
	if d := Jitter(0, 0, 3, 0.5); d != 0 {
		t.Errorf("Jitter with max 0 = %v, want 0", d)
	}
}

// TestJitter_GrowsExponentially: the upper half of min*2^attempt, until max.
func TestJitter_GrowsExponentially(t *testing.T) {
	t.Parallel()
	min, max := 100*time.Millisecond, 10*time.Second
	cases := []struct {
		attempt int
		r       float64
		want    time.Duration
	}{
		{0, 0, 100 * time.Millisecond}, // half of 100ms, raised to min
		{1, 0, 100 * time.Millisecond},
		{1, 0.5, 150 * time.Millisecond},
		{2, 0, 200 * time.Millisecond},
		{3, 0.5, 600 * time.Millisecond},
		{10, 0, 5 * time.Second}, // capped at max, then its upper half
		{10, 0.999999999, max},
	}
	for _, tc := range cases {
		got := Jitter(min, max, tc.attempt, tc.r)
		if diff := got - tc.want; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("Jitter(attempt %d, r %v) = %v, want %v", tc.attempt, tc.r, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 12, 12, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 120 ", 120 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-1", 0, false},
		{"NaN", 0, false},
		{"soon", 0, false},
		{"999999999", 24 * time.Hour, true},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second, true},
		{now.Add(2 * time.Hour).Format(http.TimeFormat), 2 * time.Hour, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{now.Add(10 * time.Second).Format(time.RFC850), 10 * time.Second, true},
	}
	for _, tc := range cases {
		h := http.Header{}
		if tc.value != "" {
			h.Set("Retry-After", tc.value)
		}
		got, ok := RetryAfter(h, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.wantOK)
		}
	}
}

func resp(status int, retryAfter string) *http.Response {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(""))}
}

func TestCheckRetry(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	cases := []struct {
		name  string
		ctx   context.Context
		resp  *http.Response
		err   error
		retry bool
	}{
		{"200", bg, resp(200, ""), nil, false},
		{"400", bg, resp(400, ""), nil, false},
		{"401", bg, resp(401, ""), nil, false},
		{"403", bg, resp(403, ""), nil, false},
		{"404", bg, resp(404, ""), nil, false},
		{"501", bg, resp(501, ""), nil, false},
		{"429", bg, resp(429, ""), nil, true},
		{"500", bg, resp(500, ""), nil, true},
		{"502", bg, resp(502, ""), nil, true},
		{"503", bg, resp(503, ""), nil, true},
		{"504", bg, resp(504, ""), nil, true},
		{"429 short Retry-After", bg, resp(429, "5"), nil, true},
		{"429 Retry-After a minute", bg, resp(429, "60"), nil, true},
		{"429 Retry-After over a minute", bg, resp(429, "61"), nil, false},
		{"503 Retry-After an hour", bg, resp(503, "3600"), nil, false},
		{"connection reset", bg, nil, errors.New("read: connection reset by peer"), true},
		{"EOF", bg, nil, io.ErrUnexpectedEOF, true},
		{"body too large", bg, nil, fmt.Errorf("wrapped: %w", ErrBodyTooLarge), false},
		// With the call's context alive, a deadline is the http.Client's
		// per-attempt Timeout, which another attempt may beat.
		{"per-attempt timeout", bg, nil, fmt.Errorf("Client.Timeout exceeded: %w", context.DeadlineExceeded), true},
		{"limiter refusal", bg, nil, &LimiterError{Err: fmt.Errorf("slot past deadline: %w", context.DeadlineExceeded)}, false},
		{"unknown authority", bg, nil, fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}), false},
		{"certificate not verified", bg, nil, fmt.Errorf("Get: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), false},
		{"bad scheme", bg, nil, errors.New(`unsupported protocol scheme "ftp"`), false},
		{"redirect loop", bg, nil, errors.New("stopped after 10 redirects"), false},
		{"ctx ended 503", cancelled, resp(503, ""), nil, false},
		{"ctx ended transport error", cancelled, nil, errors.New("connection reset"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			retry, err := CheckRetry(tc.ctx, tc.resp, tc.err)
			if retry != tc.retry {
				t.Errorf("retry = %v, want %v", retry, tc.retry)
			}
			if tc.ctx.Err() != nil && err == nil {
				t.Error("an ended context gives no error")
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("err = %v, want the transport error %v", err, tc.err)
			}
		})
	}
}

// TestBackoff_RetryAfterPastMax: Retry-After wins over the bounds; without
// it the jittered delay stays inside them.
func TestBackoff_RetryAfterPastMax(t *testing.T) {
	t.Parallel()
	if d := Backoff(time.Millisecond, 5*time.Millisecond, 0, resp(429, "2")); d != 2*time.Second {
		t.Errorf("Backoff with Retry-After 2 = %v, want 2s", d)
	}
	for attempt := range 10 {
		if d := Backoff(time.Millisecond, 5*time.Millisecond, attempt, resp(503, "")); d < time.Millisecond || d > 5*time.Millisecond {
			t.Errorf("Backoff attempt %d = %v, outside [1ms, 5ms]", attempt, d)
		}
		if d := Backoff(time.Millisecond, 5*time.Millisecond, attempt, nil); d < time.Millisecond || d > 5*time.Millisecond {
			t.Errorf("Backoff attempt %d without response = %v", attempt, d)
		}
	}
}

// fakeRT answers every request with status and body, remembering the
// request it saw last.
type fakeRT struct {
	status int
	body   string
	noLen  bool
	last   atomic.Pointer[http.Request]
	err    error
}

func (f *fakeRT) RoundTrip(req *http.Request) (*http.Response, error) {
	f.last.Store(req)
	if f.err != nil {
		return nil, f.err
	}
	r := &http.Response{StatusCode: f.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(f.body)),
		ContentLength: int64(len(f.body)), Request: req}
	if f.noLen {
		r.ContentLength = -1
	}
	return r, nil
}

func get(t *testing.T, ctx context.Context, a *Attempt, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.RoundTrip(req)
}

// TestAttempt_TokenOnlyToItsHost: the token goes to the configured host
// only, and a token header set by anyone else is removed elsewhere.
func TestAttempt_TokenOnlyToItsHost(t *testing.T) {
	t.Parallel()
	rt := &fakeRT{status: 200, body: "{}"}
	a := &Attempt{Base: rt, Origin: OriginOf(&url.URL{Scheme: "https", Host: "api.itick.org"}), Token: "secret"}
	if _, err := get(t, context.Background(), a, "https://api.itick.org/stock/quotes"); err != nil {
		t.Fatal(err)
	}
	if got := rt.last.Load().Header.Get("token"); got != "secret" {
		t.Errorf("token to its host = %q", got)
	}
	req, _ := http.NewRequest(http.MethodGet, "https://evil.example/x", nil)
	req.Header.Set("token", "secret")
	if _, err := a.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if got := rt.last.Load().Header.Get("token"); got != "" {
		t.Errorf("token to another host = %q", got)
	}
	if req.Header.Get("token") != "secret" {
		t.Error("RoundTrip changed the caller's request")
	}
	if a.Attempts() != 2 {
		t.Errorf("Attempts = %d, want 2", a.Attempts())
	}
}

// TestAttempt_BodyBound: a body over MaxBody is ErrBodyTooLarge, with or
// without a Content-Length; a body at the bound is read whole.
func TestAttempt_BodyBound(t *testing.T) {
	t.Parallel()
	for _, noLen := range []bool{false, true} {
		rt := &fakeRT{status: 200, body: strings.Repeat("x", 101), noLen: noLen}
		a := &Attempt{Base: rt, MaxBody: 100}
		if _, err := get(t, context.Background(), a, "https://h/x"); !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("noLen %v: err = %v, want ErrBodyTooLarge", noLen, err)
		}
		rt.body = strings.Repeat("y", 100)
		r, err := get(t, context.Background(), a, "https://h/x")
		if err != nil {
			t.Fatalf("noLen %v: %v", noLen, err)
		}
		b, ok := r.Body.(interface{ Bytes() []byte })
		if !ok || string(b.Bytes()) != rt.body {
			t.Errorf("noLen %v: body not buffered whole", noLen)
		}
		all, _ := io.ReadAll(r.Body)
		if string(all) != rt.body {
			t.Errorf("noLen %v: reading the body gave %d bytes", noLen, len(all))
		}
	}
}

type refusingLimiter struct{ err error }

func (l refusingLimiter) Wait(context.Context) error { return l.err }

// limiterFunc is a limiter made of a func, as itick.LimiterFunc is.
type limiterFunc func(ctx context.Context) error

func (f limiterFunc) Wait(ctx context.Context) error { return f(ctx) }

// rateFunc waits on l through a func, wrapping its error with format.
func rateFunc(l *rate.Limiter, format string) Limiter {
	return limiterFunc(func(ctx context.Context) error {
		if err := l.Wait(ctx); err != nil {
			return fmt.Errorf(format, err)
		}
		return nil
	})
}

type storeError struct{ store string }

func (e *storeError) Error() string { return e.store + " is unreachable" }

// TestAttempt_LimiterErrors: a limiter's own error comes back wrapped, and
// matches a context error only when the context was the reason; nothing is
// sent.
func TestAttempt_LimiterErrors(t *testing.T) {
	t.Parallel()
	refusal := errors.New("shared quota store is down")
	withDeadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	spent := func() *rate.Limiter {
		l := rate.NewLimiter(rate.Every(2*time.Hour), 1)
		l.Allow()
		return l
	}
	cases := []struct {
		name    string
		ctx     context.Context
		lim     Limiter
		want    error
		notWant error
	}{
		{"own error before deadline", withDeadline, refusingLimiter{refusal}, refusal, context.DeadlineExceeded},
		{"own error without deadline", context.Background(), refusingLimiter{refusal}, refusal, context.DeadlineExceeded},
		{"own error type", withDeadline, refusingLimiter{fmt.Errorf("quota: %w", &storeError{"redis"})}, &storeError{}, context.DeadlineExceeded},
		{"refusal wrapping the deadline", withDeadline, refusingLimiter{fmt.Errorf("slot past deadline: %w", context.DeadlineExceeded)}, context.DeadlineExceeded, context.Canceled},
		{"rate.Limiter past the deadline", withDeadline, spent(), context.DeadlineExceeded, context.Canceled},
		{"rate.Limiter cancelled", cancelled, spent(), context.Canceled, context.DeadlineExceeded},
		// rate's own refusal is a plain error; a func over a *rate.Limiter
		// passes it on, as it is or wrapped.
		{"func over rate.Limiter past the deadline", withDeadline, rateFunc(spent(), "%w"), context.DeadlineExceeded, context.Canceled},
		{"func over rate.Limiter, wrapped", withDeadline, rateFunc(spent(), "pacer: %w"), context.DeadlineExceeded, context.Canceled},
		{"func over rate.Limiter, burst", withDeadline, rateFunc(rate.NewLimiter(1, 0), "%w"), nil, context.DeadlineExceeded},
		{"cancelled", cancelled, refusingLimiter{context.Canceled}, context.Canceled, context.DeadlineExceeded},
		{"cancelled, own error", cancelled, refusingLimiter{refusal}, context.Canceled, nil},
		{"no limiter, cancelled", cancelled, nil, context.Canceled, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { // not parallel: the contexts end with the parent
			rt := &fakeRT{status: 200, body: "{}"}
			a := &Attempt{Base: rt, Limiter: tc.lim}
			_, err := get(t, tc.ctx, a, "https://h/x")
			// A refusal before the context ended is early: a spent quota.
			early := tc.ctx.Err() == nil && errors.Is(tc.want, context.DeadlineExceeded)
			var limErr *LimiterError
			if tc.lim != nil && !errors.As(err, &limErr) {
				t.Fatalf("err = %v (%T), want a *LimiterError", err, err)
			} else if tc.lim != nil && limErr.Early != early {
				t.Errorf("Early = %v, want %v", limErr.Early, early)
			}
			if tc.want == nil {
				// Only what it must not match.
			} else if target := new(*storeError); errors.As(tc.want, target) {
				if !errors.As(err, target) {
					t.Errorf("err = %v, want one errors.As finds as %T", err, tc.want)
				}
			} else if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if tc.notWant != nil && errors.Is(err, tc.notWant) {
				t.Errorf("err = %v matches %v, though the context was not the reason", err, tc.notWant)
			}
			if rt.last.Load() != nil {
				t.Error("a request was sent")
			}
		})
	}
}

// TestAttempt_RateLimiterRefusalGivesBackItsToken: a rate.Limiter wait
// refused for the deadline leaves the limiter as it was, so refused callers
// do not push later ones back.
func TestAttempt_RateLimiterRefusalGivesBackItsToken(t *testing.T) {
	t.Parallel()
	l := rate.NewLimiter(rate.Every(time.Hour), 1)
	l.Allow()
	before := l.Tokens()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := &Attempt{Base: &fakeRT{status: 200, body: "{}"}, Limiter: l}
	for range 5 {
		if _, err := get(t, ctx, a, "https://h/x"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	}
	// Tokens refill with time, so allow a little more, never less.
	if after := l.Tokens(); after < before {
		t.Errorf("tokens %v after refused waits, %v before: the refusals kept reservations", after, before)
	}
}

// TestAttempt_LogLine: one debug line per attempt with the attempt number,
// never the token.
func TestAttempt_LogLine(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rt := &fakeRT{err: errors.New("dial tcp: token secret rejected")}
	a := &Attempt{Base: rt, Token: "secret", Logger: logger}
	var call Call
	ctx := WithCall(context.Background(), &call)
	for range 2 {
		_, _ = get(t, ctx, a, "https://h/stock/quotes?region=HK&codes=700")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	for i, l := range lines {
		for _, part := range []string{"path=/stock/quotes", fmt.Sprintf("attempt=%d", i+1), "error="} {
			if !strings.Contains(l, part) {
				t.Errorf("line %d lacks %q: %s", i, part, l)
			}
		}
	}
	if strings.Contains(buf.String(), "secret") {
		t.Errorf("log carries the token:\n%s", buf.String())
	}
	if diff := cmp.Diff("itick.transport", fmt.Sprintf("%v|%#v", a, a)[:len("itick.transport")]); diff != "" {
		t.Error(diff)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if strings.Contains(fmt.Sprintf(verb, a), "secret") {
			t.Errorf("%s of the Attempt prints the token", verb)
		}
	}
}

// A redirect's hop goes through the transport as a request of its own, but
// it is the same attempt: it neither counts as another attempt of the call
// nor logs as one.
func TestAttempt_RedirectHopIsNotAnotherAttempt(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := &Attempt{Base: &fakeRT{status: 200}, Token: "secret", Logger: logger}
	var call Call
	ctx := WithCall(context.Background(), &call)
	first, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://h/stock/quote", nil)
	if err != nil {
		t.Fatal(err)
	}
	hop := first.Clone(ctx)
	hop.URL.Path = "/v2/stock/quote"
	hop.Response = &http.Response{StatusCode: http.StatusFound, Request: first}
	for _, req := range []*http.Request{first, hop} {
		resp, err := a.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := call.Attempts(); got != 1 {
		t.Errorf("attempt counter = %d after a request and its redirect, want 1", got)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "attempt=1") || !strings.Contains(lines[1], "redirect=true") ||
		strings.Contains(lines[0], "redirect") {
		t.Errorf("log lines, want the hop logged as attempt 1, redirect=true:\n%s", buf.String())
	}
}
