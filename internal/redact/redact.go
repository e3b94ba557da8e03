// Package redact takes a secret out of text that came from elsewhere (a
// server's message, a body, a URL it redirected to) and bounds that text,
// in that order: redacting after a cut could leave part of the secret on
// the near side of the cut, where a whole-secret search no longer finds it.
//
// What counts as the secret is generous, because a server or proxy may echo
// it in several forms: the secret itself, percent-escaped (query and path
// escaping, either hex case), JSON-escaped (\u0041 for A, \/ for /),
// Go-quoted as strconv.Quote and %q write it (\x41, \t), '+' for a space,
// any mix of those, and any fragment of it at least
// MinFragment bytes long (a server that echoes a prefix, or one that cut
// the echo itself).
package redact

import (
	"strings"
	"unicode/utf8"
)

// MaxText is the bound, in bytes, on any text a server controls that ends
// up in an error or a log line: an 8 MiB message must not become an 8 MiB
// error string. It is large enough for every message the service is known
// to send.
const MaxText = 256

// MinFragment is the length of the shortest run of the secret's bytes that
// is taken out. Shorter runs are left: they occur by chance in ordinary text
// and give away too little to matter.
const MinFragment = 8

// Placeholder replaces each occurrence of the secret.
const Placeholder = "[redacted]"

// Ellipsis ends a text that was cut at its bound.
const Ellipsis = "..."

// Redactor removes one secret. The zero value and a nil *Redactor remove
// nothing but still bound. It is safe for concurrent use.
type Redactor struct {
	secret string
	min    int // fragment length that is redacted
	// starts[c] lists the offsets in secret holding byte c, the places a
	// match beginning with c may start from.
	starts [256][]int
	// lower redacts the secret in lower case, for HasFold; nil when the
	// secret has no upper case.
	lower *Redactor
}

// New returns a Redactor for secret; an empty secret redacts nothing.
func New(secret string) *Redactor {
	r := &Redactor{secret: secret, min: min(MinFragment, len(secret))}
	for i := 0; i < len(secret); i++ {
		r.starts[secret[i]] = append(r.starts[secret[i]], i)
	}
	if l := strings.ToLower(secret); l != secret {
		r.lower = New(l)
	}
	return r
}

// HasFold reports whether s holds the secret, in any of its forms or a
// fragment of it long enough to be redacted, ignoring ASCII case. It is for
// text whose case was changed on the way, such as a header name that Go
// canonicalised, where redaction itself would miss it.
func (r *Redactor) HasFold(s string) bool {
	if r == nil || r.secret == "" {
		return false
	}
	l := r
	if r.lower != nil {
		l = r.lower
	}
	s = strings.ToLower(s)
	return clean(l, s, 0) != s
}

// String returns s without the secret, cut to MaxText bytes.
func (r *Redactor) String(s string) string { return clean(r, s, MaxText) }

// Bytes is String for a byte slice, reading only as much of b as the
// bound needs: a body of any size costs O(MaxText) to describe.
func (r *Redactor) Bytes(b []byte) string { return clean(r, b, MaxText) }

// Bound returns s without the secret, cut to max bytes (including the
// Ellipsis that marks a cut); max <= 0 means no bound.
func (r *Redactor) Bound(s string, max int) string { return clean(r, s, max) }

// BoundBytes is Bound for a byte slice. It reads only as much of b as the
// bound needs, so a body of any size costs O(max) to redact and cut.
func (r *Redactor) BoundBytes(b []byte, max int) string { return clean(r, b, max) }

// Truncate cuts s to at most max bytes on a UTF-8 boundary, marking a cut
// with Ellipsis. It does not redact: use it only on text already redacted.
func Truncate(s string, max int) string { return clean[string](nil, s, max) }

// clean writes in to a new string, replacing each run of the secret (in any
// of its forms) with Placeholder, and stopping at max bytes. A cut falls
// only between whole runes and whole placeholders, never inside either, and
// the text before it has been redacted, so no part of a secret that spans
// the cut survives.
func clean[T string | []byte](r *Redactor, in T, max int) string {
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	if len(in) <= max && (r == nil || r.secret == "") {
		return string(in)
	}
	limit := max - len(Ellipsis)
	if limit < 0 {
		limit = 0
	}
	var b strings.Builder
	b.Grow(min(len(in), max))
	keep := -1 // length of b at the last boundary within limit
	for i := 0; i < len(in); {
		if b.Len() <= limit {
			keep = b.Len()
		}
		if n := match(r, in, i); n > 0 {
			if b.Len()+len(Placeholder) > max {
				return b.String()[:keep] + Ellipsis
			}
			b.WriteString(Placeholder)
			i += n
			continue
		}
		_, w := decodeRune(in[i:])
		if b.Len()+w > max {
			return b.String()[:keep] + Ellipsis
		}
		b.WriteString(string(in[i : i+w]))
		i += w
	}
	return b.String()
}

func decodeRune[T string | []byte](s T) (rune, int) {
	switch s := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(s)
	case []byte:
		return utf8.DecodeRune(s)
	}
	return utf8.RuneError, 1
}

// match returns how many bytes of in, from i, are a run of at least r.min
// consecutive bytes of the secret, each in any of its forms; 0 if none. The
// longest run wins.
func match[T string | []byte](r *Redactor, in T, i int) int {
	if r == nil || r.secret == "" {
		return 0
	}
	best := 0
	try := func(first byte) {
		for _, j := range r.starts[first] {
			p, k := i, j
			for k < len(r.secret) && p < len(in) {
				w := unit(in, p, r.secret[k])
				if w == 0 {
					break
				}
				p, k = p+w, k+1
			}
			if k-j >= r.min && p-i > best {
				best = p - i
			}
		}
	}
	try(in[i])
	if c, ok := escaped(in, i); ok && c != in[i] {
		try(c)
	}
	return best
}

// unit returns the length of the form of byte want at in[p]: the byte
// itself, %XX, +, or a JSON escape; 0 if in[p] is none of them.
func unit[T string | []byte](in T, p int, want byte) int {
	if in[p] == want {
		return 1
	}
	if c, ok := escaped(in, p); ok && c == want {
		switch in[p] {
		case '%':
			return 3
		case '+':
			return 1
		case '\\':
			switch in[p+1] {
			case 'u':
				return 6
			case 'x':
				return 4
			}
			return 2
		}
	}
	return 0
}

// escaped decodes the escape at in[p], if one starts there: %XX (percent
// escaping, either hex case), + (a space in a query), \uXXXX for an ASCII
// byte, \xXX for any byte (Go's quoting), and the two-byte escapes JSON and
// Go write for quotes, backslashes, slashes and control bytes.
func escaped[T string | []byte](in T, p int) (byte, bool) {
	switch in[p] {
	case '%':
		if p+2 < len(in) {
			hi, ok1 := unhex(in[p+1])
			lo, ok2 := unhex(in[p+2])
			return hi<<4 | lo, ok1 && ok2
		}
	case '+':
		return ' ', true
	case '\\':
		if p+1 >= len(in) {
			return 0, false
		}
		switch c := in[p+1]; c {
		case '"', '\\', '/', '\'':
			return c, true
		case 'a', 'b', 'f', 'n', 'r', 't', 'v':
			return controlEscapes[c], true
		case 'x':
			if p+3 >= len(in) {
				return 0, false
			}
			hi, ok1 := unhex(in[p+2])
			lo, ok2 := unhex(in[p+3])
			return hi<<4 | lo, ok1 && ok2
		case 'u':
			if p+5 >= len(in) {
				return 0, false
			}
			v := 0
			for _, c := range [...]byte{in[p+2], in[p+3], in[p+4], in[p+5]} {
				d, ok := unhex(c)
				if !ok {
					return 0, false
				}
				v = v<<4 | int(d)
			}
			return byte(v), v < 0x80
		}
	}
	return 0, false
}

// controlEscapes maps the letter of a two-byte escape to the control byte
// it stands for.
var controlEscapes = [256]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
