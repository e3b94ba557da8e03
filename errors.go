package itick

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/errtext"
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
	// ErrResponseTooLarge reports a response body over WithMaxResponseBytes.
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
	// is cut (see internal/redact), so no part of it shows; a cut body
	// ends in "...".
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

// BatchError reports the chunks of a batch call that failed. The call's map
// still holds every result that arrived.
type BatchError struct {
	Chunks []ChunkError // one entry per failed chunk
}

// ChunkError is one failed chunk: the codes it carried and why it failed.
type ChunkError struct {
	Codes []string
	Err   error
}

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
