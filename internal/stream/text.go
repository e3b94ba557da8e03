package stream

import (
	"errors"
	"reflect"
	"strconv"

	"github.com/d19c4e34/itick/internal/redact"
)

// Bounds on text a stream server controls: MaxServerText for a field
// passed on (a refusal's message, a pushed symbol no subscription names),
// maxErrorText for a whole error's text. Without them a hostile or broken
// server turns one 1 MiB message into a 1 MiB error string in every log
// line.
const (
	MaxServerText = redact.MaxText
	maxErrorText  = 2 * redact.MaxText
)

// text is text the server sent, fit to pass on: without the token
// (in any form the server may echo it in, or any piece of it) and bounded
// to MaxServerText.
func (e *Engine[E]) text(msg string) string { return e.red.Bound(msg, MaxServerText) }

// cleanErr returns err itself when its text is clean and short, and
// otherwise an error with the clean text that matches what err matches.
func (e *Engine[E]) cleanErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := e.red.Bound(msg, maxErrorText)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err, red: e.red}
}

// scrubbedError carries an error whose text held the token or was too
// long. It has no Unwrap, so no caller reaches the original text by
// unwrapping and printing; errors.Is still sees every error in the
// original chain, and errors.As those whose own text is clean (the SDK's
// own error types, whose text is scrubbed when they are made).
type scrubbedError struct {
	msg string
	err error
	red *redact.Redactor
}

func (e *scrubbedError) Error() string { return e.msg }

// GoString keeps %#v, which prints struct fields, on the clean text.
func (e *scrubbedError) GoString() string { return strconv.Quote(e.msg) }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

func (e *scrubbedError) As(target any) bool {
	if !errors.As(e.err, target) {
		return false
	}
	v := reflect.ValueOf(target).Elem()
	if found, ok := v.Interface().(error); ok && (found == nil || e.red.Bound(found.Error(), maxErrorText) == found.Error()) {
		return true
	}
	v.SetZero()
	return false
}
