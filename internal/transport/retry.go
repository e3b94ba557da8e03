package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
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

// New returns the retrying client the itick client sends every request through.
func New(cfg Config) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   cfg.HTTPClient,
		RetryWaitMin: cfg.MinBackoff,
		RetryWaitMax: cfg.MaxBackoff,
		RetryMax:     cfg.Retries,
		CheckRetry:   CheckRetry,
		Backoff:      Backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

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
