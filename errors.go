package itick

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/errtext"
	redactpkg "github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/transport"
)

// Sentinel errors. Match them with errors.Is; an *APIError maps onto them by
// its HTTP status and by the service's published error texts.
var (
	// ErrInvalidArgument reports bad input caught before any request is sent.
	ErrInvalidArgument = errors.New("itick: invalid argument")
	// ErrUnauthorized reports a refused token: HTTP 401 or 403, "auth failed",
	// "Invalid API key" or E002.
	ErrUnauthorized = errors.New("itick: unauthorized")
	// ErrRateLimited reports HTTP 429 once the retries are spent.
	ErrRateLimited = errors.New("itick: rate limited")
	// ErrNotFound reports E001 ("not found this produce") or HTTP 404.
	ErrNotFound = errors.New("itick: not found")
	// ErrPlanLimit reports E003: more than the plan allows.
	ErrPlanLimit = errors.New("itick: beyond the plan's limit")
	// ErrResponseTooLarge reports a response body over WithMaxResponseBytes
	// (64 MiB by default). It is not retried: the next answer would be
	// just as large.
	ErrResponseTooLarge = transport.ErrBodyTooLarge
)

// invalidArg wraps ErrInvalidArgument with what was wrong.
func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// checkContext refuses a nil context, which would otherwise panic deep in
// the transport.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return invalidArg("ctx is nil (use context.Background())")
	}
	return nil
}

// APIError is a response the service sent that is not a success: a non-2xx
// status, a non-zero envelope code, an error text in msg, or a body that is
// not a whole envelope.
type APIError struct {
	StatusCode int           // HTTP status
	Code       int           // envelope code, when there was one and it was a number
	Message    string        // envelope msg, or the gateway's message
	Path       string        // e.g. "/stock/quotes"; never the token
	RetryAfter time.Duration // what the service asked for, when it did

	// CodeText is the envelope code when it arrived as text that is not a
	// number, such as "E002" (Code is then 0); at most 64 bytes.
	CodeText string

	// Body is the start of the response body, at most 1 KiB, for a report
	// to the provider. The token is taken out of the whole body before it
	// is cut, in every form a server may echo it in, so no part of it
	// shows; a cut body ends in "...".
	Body string

	// Header is a copy of the response's headers, with the token taken out
	// of every name and value. It is bounded: at most 64 values, 8 per
	// name, names in sorted order; a name is at most 128 bytes and a value
	// at most 512 (a cut one ends in "..."). The values of Authorization,
	// Proxy-Authorization and Cookie, and the cookie value of Set-Cookie,
	// are masked. Changing it changes nothing else.
	Header http.Header
}

// Error is one short line: the path, the status, the code and the
// message. Body and Header stay out of it; they are for a closer look.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("itick: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	if e.Code != 0 {
		fmt.Fprintf(&b, ", code %d", e.Code)
	} else if e.CodeText != "" {
		fmt.Fprintf(&b, ", code %s", e.CodeText)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}

// Is maps the error onto ErrUnauthorized, ErrRateLimited, ErrNotFound and
// ErrPlanLimit, by the status, the code (a number, or an E-number such as
// "E002") and the service's error texts in the message.
func (e *APIError) Is(target error) bool {
	msg := e.Message + " " + e.CodeText
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden ||
			e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden ||
			errtext.Is(msg, errtext.Unauthorized)
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests || e.Code == http.StatusTooManyRequests
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound || e.Code == http.StatusNotFound ||
			errtext.Is(msg, errtext.NotFound)
	case ErrPlanLimit:
		return errtext.Is(msg, errtext.PlanLimit)
	}
	return false
}

// quotaError is the client's limiter refusing a slot that lies past the
// call's deadline: a spent quota. The call ends at once, and the error
// matches ErrRateLimited and context.DeadlineExceeded both, so a caller
// can tell a spent quota from a slow network; it unwraps to the limiter's
// error, which may say how long the wait was.
type quotaError struct{ err error }

// Error is the text of the error it carries.
func (e *quotaError) Error() string { return e.err.Error() }

// Unwrap returns the limiter's error.
func (e *quotaError) Unwrap() error { return e.err }

// Is matches ErrRateLimited and context.DeadlineExceeded.
func (e *quotaError) Is(target error) bool {
	return target == ErrRateLimited || target == context.DeadlineExceeded
}

// refusedError is a response that asked for a wait (its Retry-After, or
// the backoff before the retry its status earns) which the call did not
// start because it would pass the context's deadline. It matches what the
// *APIError matches (ErrRateLimited for a 429) and
// context.DeadlineExceeded, and errors.As finds the *APIError.
type refusedError struct {
	api  *APIError
	wait *transport.RefusedWait
}

// Error is the response's error and the wait that was not started.
func (e *refusedError) Error() string { return e.api.Error() + ": " + e.wait.Error() }

// Unwrap returns the *APIError and the refused wait.
func (e *refusedError) Unwrap() []error { return []error{e.api, e.wait} }

// RetryAfter returns how long to wait before asking again when err says:
// the Retry-After the service sent with an *APIError (a 429 most often),
// or the wait a limiter refused because it would pass the call's deadline.
// A backoff the client chose itself is not such a wait.
// A service answering its own callers can pass it on as their Retry-After.
func RetryAfter(err error) (time.Duration, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return apiErr.RetryAfter, true
	}
	var w interface{ RetryAfter() time.Duration }
	if errors.As(err, &w) && w.RetryAfter() > 0 {
		return w.RetryAfter(), true
	}
	return 0, false
}

// BatchError reports the chunks of a batch call that failed. The call's map
// still holds every result that arrived.
type BatchError struct {
	Chunks []ChunkError // one entry per failed chunk
}

// ChunkError is one failed chunk: the codes it carried and why it failed.
type ChunkError struct {
	Codes []string // the chunk's codes, trimmed, as the request carried them
	Err   error    // why the chunk failed; errors.Is and errors.As see it through BatchError
}

// Error says how many chunks and codes failed, and the first chunk's error.
func (e *BatchError) Error() string {
	n := 0
	for _, c := range e.Chunks {
		n += len(c.Codes)
	}
	if len(e.Chunks) == 0 {
		return "itick: batch failed"
	}
	return fmt.Sprintf("itick: %d chunk(s) failed, %d code(s) without results; first: %v",
		len(e.Chunks), n, e.Chunks[0].Err)
}

// Unwrap returns each chunk's error, so errors.Is and errors.As see them.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, 0, len(e.Chunks))
	for _, c := range e.Chunks {
		errs = append(errs, c.Err)
	}
	return errs
}

// FailedCodes returns every code without a result, to retry just those.
func (e *BatchError) FailedCodes() []string {
	var codes []string
	for _, c := range e.Chunks {
		codes = append(codes, c.Codes...)
	}
	return codes
}

// Bounds on the evidence an *APIError carries. A hostile or broken server
// can send a body of megabytes and thousands of headers; an error is kept,
// logged and printed, so what it holds of them is small and fixed.
const (
	// maxErrorBody bounds APIError.Body, in bytes.
	maxErrorBody = 1 << 10
	// maxErrorHeaderValues bounds the values in APIError.Header, over all
	// names; maxErrorNameValues bounds them per name, so that one repeated
	// header (Set-Cookie) cannot crowd out the others.
	maxErrorHeaderValues = 64
	maxErrorNameValues   = 8
	// maxErrorHeaderValue and maxErrorHeaderName bound one value and one
	// name, in bytes.
	maxErrorHeaderValue = 512
	maxErrorHeaderName  = 128
)

// newAPIError is the *APIError for a response that is not a success: its
// status, the path, why it failed (f, if known), the wait the service
// asked for, and the evidence (Body and Header), with the token taken out
// before anything is cut. Every *APIError built from a response comes from
// here.
func newAPIError(path string, status int, header http.Header, body []byte, red *redactpkg.Redactor, f *codec.Failure) *APIError {
	e := &APIError{
		StatusCode: status,
		Path:       path,
		Body:       red.BoundBytes(body, maxErrorBody),
		Header:     evidenceHeader(header, red),
	}
	if f != nil {
		e.Code, e.CodeText, e.Message = f.Code, f.CodeText, f.Message
	}
	if ra, ok := transport.RetryAfter(header, time.Now()); ok {
		e.RetryAfter = ra
	}
	return e
}

// evidenceHeader copies h for an error: names in sorted order until the
// bounds are reached, each name and value with the token taken out and
// then cut to its bound, and the values of credential headers masked. The
// copy shares nothing with h.
func evidenceHeader(h http.Header, red *redactpkg.Redactor) http.Header {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for k, vs := range h {
		if len(vs) > 0 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	out := make(http.Header, min(len(names), maxErrorHeaderValues))
	n := 0
	for _, k := range names {
		if n == maxErrorHeaderValues {
			break
		}
		canon := http.CanonicalHeaderKey(k)
		name := red.Bound(k, maxErrorHeaderName)
		if red.HasFold(k) {
			// Go canonicalised the name's case, which redaction misses.
			name = redactpkg.Placeholder
		}
		vs := h[k][:min(len(h[k]), maxErrorNameValues, maxErrorHeaderValues-n)]
		kept := make([]string, 0, len(vs))
		for _, v := range vs {
			kept = append(kept, headerValue(canon, v, red))
		}
		// Two names that redact alike share one entry.
		out[name] = append(out[name], kept...)
		n += len(kept)
	}
	return out
}

// headerValue is one header value fit for an error. The token is taken out
// in every form the redactor knows, which covers a Location that carries
// it in its query. Authorization and cookies are credentials of their own,
// whoever issued them: their values are masked whole, a Set-Cookie keeping
// its name and attributes.
func headerValue(name, v string, red *redactpkg.Redactor) string {
	switch name {
	case "Authorization", "Proxy-Authorization", "Cookie":
		return redactpkg.Placeholder
	case "Set-Cookie":
		v = maskCookie(v)
	}
	return red.Bound(v, maxErrorHeaderValue)
}

// maskCookie replaces the value of a Set-Cookie header's cookie with the
// placeholder, keeping the cookie's name and attributes.
func maskCookie(v string) string {
	pair, attrs, hasAttrs := strings.Cut(v, ";")
	name, _, ok := strings.Cut(pair, "=")
	if !ok {
		name = ""
	}
	masked := strings.TrimSpace(name) + "=" + redactpkg.Placeholder
	if hasAttrs {
		masked += ";" + attrs
	}
	return masked
}

// dataError is the *APIError for a response whose envelope passed the
// success rule but whose data (a part of body, or a copy of one) did not
// decode: it says where, the type found there and what was wanted.
func dataError(path string, status int, header http.Header, body, data []byte, err error, red *redactpkg.Redactor) error {
	return newAPIError(path, status, header, body, red, &codec.Failure{
		Message: codec.ServerText("cannot decode data: "+codec.Detail(body, data, err, red), red)})
}
