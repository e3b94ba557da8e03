package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/d19c4e34/itick/internal/wait"
)

// MaxRetryAfter is the longest Retry-After the client waits for. Past it the
// call ends and reports what the service asked for, so the caller decides.
const MaxRetryAfter = time.Minute

// Config describes a retrying client.
type Config struct {
	HTTPClient *http.Client // its Transport is already an *Attempt
	Retries    int
	MinBackoff time.Duration
	MaxBackoff time.Duration
}

// Retrier sends requests under the retry policy, through go-retryablehttp.
type Retrier struct {
	cfg Config
	rc  *retryablehttp.Client
}

// New returns the retrier the itick client sends every request through.
func New(cfg Config) *Retrier {
	r := &Retrier{cfg: cfg}
	r.rc = &retryablehttp.Client{
		HTTPClient:   cfg.HTTPClient,
		RetryWaitMin: cfg.MinBackoff,
		RetryWaitMax: cfg.MaxBackoff,
		RetryMax:     cfg.Retries,
		CheckRetry:   r.checkAndWait,
		// checkAndWait has waited already.
		Backoff:      func(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 },
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	return r
}

// Do sends req and retries it under the policy. req's context carries the
// call's state (WithCall); one without gets its own. The wait before each
// retry is known before it starts and refused at once when it would pass
// the context's deadline: the error is then a *RefusedWait, returned with
// the response that asked for the wait, if there was one.
func (r *Retrier) Do(req *retryablehttp.Request) (*http.Response, error) {
	if _, ok := req.Context().Value(callKey{}).(*Call); !ok {
		req = req.WithContext(WithCall(req.Context(), new(Call)))
	}
	return r.rc.Do(req)
}

// checkAndWait is the retry policy, run when an attempt ends: CheckRetry
// decides, then, for a retry, the wait before it (the response's
// Retry-After, or a backoff) is drawn and refused at once when it would
// pass the deadline; otherwise it is waited here, until it ends or ctx
// does. go-retryablehttp then retries at once. A wait cut short by ctx
// ends the call with ctx's error, saying what it waited for.
func (r *Retrier) checkAndWait(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, checkErr := CheckRetry(ctx, resp, err)
	if ctx.Err() != nil {
		return retry, checkErr
	}
	if err == nil && resp != nil && Retryable(resp.StatusCode) {
		if ra, ok := RetryAfter(resp.Header, time.Now()); ok && PastDeadline(ctx, ra) {
			// The service said when to come back, and it is past the
			// deadline: no retry in time, however many are left.
			return false, &RefusedWait{Wait: ra, RetryAfter: true}
		}
	}
	call, _ := ctx.Value(callKey{}).(*Call)
	if !retry || call == nil || call.retries >= r.cfg.Retries {
		return retry, checkErr // go-retryablehttp stops without waiting
	}
	delay := Backoff(r.cfg.MinBackoff, r.cfg.MaxBackoff, call.retries, resp)
	call.retries++
	if PastDeadline(ctx, delay) {
		return false, &RefusedWait{Wait: delay, Err: err}
	}
	if resp != nil {
		if b, ok := resp.Body.(*Body); ok {
			// Read whole in the attempt: closing it gives its share
			// of memory back for the wait, and it can still be read.
			b.Close()
		}
	}
	if !wait.Sleep(ctx, delay) {
		// The text of what asked for the wait, not the error itself:
		// the call ends because ctx did.
		var why string
		if err != nil {
			why = err.Error()
		} else {
			why = "HTTP " + strconv.Itoa(resp.StatusCode)
		}
		return false, fmt.Errorf("waiting %v to retry after %s: %w", delay.Round(time.Millisecond), why, ctx.Err())
	}
	return true, checkErr
}

// RefusedWait is a wait before a retry that was not started because it
// would pass the context's deadline: a response's Retry-After, or a
// backoff. It matches context.DeadlineExceeded and unwraps to the
// attempt's transport error, if the attempt had one.
type RefusedWait struct {
	Wait       time.Duration
	RetryAfter bool  // the wait is the Retry-After a response asked for, not a backoff
	Err        error // the attempt's transport error; nil when there was a response
}

func (e *RefusedWait) Error() string {
	what := "backoff"
	if e.RetryAfter {
		what = "Retry-After"
	}
	msg := "not retried: a " + what + " of " + e.Wait.Round(time.Millisecond).String() +
		" would pass the deadline: " + context.DeadlineExceeded.Error()
	if e.Err != nil {
		return e.Err.Error() + ": " + msg
	}
	return msg
}

// Unwrap returns the attempt's transport error.
func (e *RefusedWait) Unwrap() error { return e.Err }

// Is matches context.DeadlineExceeded.
func (e *RefusedWait) Is(target error) bool { return target == context.DeadlineExceeded }

// Retryable reports whether an HTTP status is worth another attempt.
func Retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// CheckRetry retries transport errors and the statuses of Retryable, and
// nothing once the context has ended.
func CheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err != nil {
			return false, err
		}
		return false, ctxErr
	}
	if err != nil {
		return retryableError(err), err
	}
	if !Retryable(resp.StatusCode) {
		return false, nil
	}
	if ra, ok := RetryAfter(resp.Header, time.Now()); ok && (ra > MaxRetryAfter || PastDeadline(ctx, ra)) {
		return false, nil
	}
	return true, nil
}

// PastDeadline reports whether waiting d from now would pass ctx's
// deadline: a wait not worth starting.
func PastDeadline(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Now().Add(d).After(deadline)
}

// retryableError reports whether a failed attempt is worth repeating. It is
// called only while the call's context is alive, so a deadline here is the
// attempt's own Timeout, which another attempt may beat.
func retryableError(err error) bool {
	var limErr *LimiterError
	if errors.As(err, &limErr) || errors.Is(err, ErrBodyTooLarge) {
		return false
	}
	// A certificate the client does not trust will not become trusted on
	// the next attempt. x509 returns UnknownAuthorityError as a value.
	var verifyErr *tls.CertificateVerificationError
	if errors.As(err, &verifyErr) {
		return false
	}
	var certErr x509.UnknownAuthorityError
	if errors.As(err, &certErr) {
		return false
	}
	var hostErr x509.HostnameError
	if errors.As(err, &hostErr) {
		return false
	}
	msg := err.Error()
	if strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "stopped after") {
		return false
	}
	return true
}

// Backoff waits what a Retry-After header asks for, even past max, and
// otherwise an exponential delay with jitter, kept within [min, max].
func Backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if ra, ok := RetryAfter(resp.Header, time.Now()); ok {
			return ra
		}
	}
	return Jitter(min, max, attempt, rand.Float64())
}

// Jitter returns the delay before retry number attempt (0-based): the
// exponential step min*2^attempt capped at max, then drawn from its upper
// half by r in [0, 1), and never below min.
func Jitter(min, max time.Duration, attempt int, r float64) time.Duration {
	if max <= 0 {
		return 0
	}
	step := float64(min) * math.Pow(2, float64(attempt))
	if step > float64(max) || math.IsInf(step, 0) {
		step = float64(max)
	}
	d := time.Duration(step/2 + r*step/2)
	if d < min {
		d = min
	}
	if d > max {
		d = max
	}
	return d
}

// RetryAfter parses a Retry-After header given as seconds or as an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, false
		}
		if secs > float64(24*time.Hour/time.Second) {
			secs = float64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
