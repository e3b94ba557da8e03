package wait

import (
	"context"
	"errors"
	"strings"
)

// Err is ctx.Err() made to match ctx's cause too, when ctx has one of its
// own (context.WithCancelCause, WithTimeoutCause); nil while ctx is alive.
func Err(ctx context.Context) error { return Ended(ctx, ctx.Err()) }

// Ended returns err made to say that ctx ended: with ctx alive or err nil,
// err as it is; otherwise an error that matches ctx.Err() and ctx's cause,
// whatever err already matched. net/http, for one, returns a cause alone,
// which matches neither context.Canceled nor DeadlineExceeded.
func Ended(ctx context.Context, err error) error {
	ctxErr := ctx.Err()
	if err == nil || ctxErr == nil {
		return err
	}
	ends := []error{ctxErr}
	if cause := context.Cause(ctx); cause != nil && cause != ctxErr {
		if errors.Is(cause, ctxErr) {
			ends = ends[:0] // the cause says both
		}
		ends = append(ends, cause)
	}
	var missing []error
	for _, e := range ends {
		if !errors.Is(err, e) {
			missing = append(missing, e)
		}
	}
	if len(missing) == 0 {
		return err
	}
	return &endedError{err: err, missing: missing}
}

// endedError is an error of a call whose context ended, with what ended it
// and did not show: the context's error, its cause, or both.
type endedError struct {
	err     error
	missing []error
}

// Error is err's text, followed by the parts of the context's end that it
// does not already say.
func (e *endedError) Error() string {
	msg := e.err.Error()
	var b strings.Builder
	b.WriteString(msg)
	for _, m := range e.missing {
		if text := m.Error(); !strings.Contains(msg, text) {
			b.WriteString(": ")
			b.WriteString(text)
		}
	}
	return b.String()
}

// Unwrap returns err and what it lacked, for errors.Is and errors.As.
func (e *endedError) Unwrap() []error { return append([]error{e.err}, e.missing...) }
