package itick

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on text a stream server controls: maxServerText for a field the
// SDK passes on (StreamError.Message), maxErrorText for a whole error's
// text. Without them a hostile or broken server turns one 1 MiB message
// into a 1 MiB error string in every log line.
const (
	maxServerText = 256
	maxErrorText  = 512
)

// minTokenPiece is the shortest piece of the token that counts as a leak
// when it shows up in server text without the rest of the token, as when
// an echo was cut short before it reached the SDK.
const minTokenPiece = 8

const redacted = "[redacted]"

// scrubber removes a token from text a server sent, in every form the
// server may echo it back in: as it is, query-escaped, path-escaped or
// Go-quoted.
type scrubber struct {
	forms []string // longest first
}

func newScrubber(token string) scrubber {
	if token == "" {
		return scrubber{}
	}
	quoted := strconv.Quote(token)
	forms := []string{token, url.QueryEscape(token), url.PathEscape(token), quoted[1 : len(quoted)-1]}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return scrubber{forms: slices.Compact(forms)}
}

// text redacts every whole form of the token first, so no cut can leave
// part of one behind, then bounds s to limit bytes on a UTF-8 boundary,
// and last masks any piece of a form the server itself cut short.
func (sc scrubber) text(s string, limit int) string {
	for _, f := range sc.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, redacted)
		}
	}
	s = truncate(s, limit)
	for _, f := range sc.forms {
		s = maskPieces(s, f)
	}
	return truncate(s, limit)
}

// err returns err itself when its text is clean and short, and otherwise
// an error with the clean text that matches what err matches.
func (sc scrubber) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := sc.text(msg, maxErrorText)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// truncate cuts s to at most limit bytes without splitting a character,
// and marks the cut.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const mark = "...(truncated)"
	i := limit - len(mark)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.ToValidUTF8(s[:i], "") + mark
}

// maskPieces replaces every run of minTokenPiece or more bytes of s that
// also occurs in form.
func maskPieces(s, form string) string {
	if len(form) < minTokenPiece || len(s) < minTokenPiece {
		return s
	}
	var b strings.Builder
	masked := false
	for i := 0; i < len(s); {
		n := 0
		if i+minTokenPiece <= len(s) && strings.Contains(form, s[i:i+minTokenPiece]) {
			n = minTokenPiece
			for i+n < len(s) && strings.Contains(form, s[i:i+n+1]) {
				n++
			}
		}
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(redacted)
		masked = true
		i += n
	}
	if !masked {
		return s
	}
	return b.String()
}

// scrubbedError carries an error whose text held the token or was too
// long. It has no Unwrap, so no caller reaches the original text by
// unwrapping and printing; errors.Is still sees every error in the
// original chain, and errors.As the SDK's own error types, whose text is
// clean already.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// GoString keeps %#v, which prints struct fields, on the clean text.
func (e *scrubbedError) GoString() string { return strconv.Quote(e.msg) }

func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

func (e *scrubbedError) As(target any) bool {
	switch target.(type) {
	case **StreamError, **APIError:
		return errors.As(e.err, target)
	}
	return false
}
