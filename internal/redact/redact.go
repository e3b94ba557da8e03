// Package redact takes a secret out of text that came from elsewhere (a
// server's message, a body, a URL it redirected to) and bounds that text,
// in that order: redacting after a cut could leave part of the secret on
// the near side of the cut, where a whole-secret search no longer finds it.
//
// What counts as the secret is generous, because a server or proxy may echo
// it in several forms: the secret itself in any letter case,
// percent-escaped (query and path escaping, either hex case), JSON-escaped
// (\u0041 for A, \/ for /), Go-quoted as strconv.Quote and %q write it
// (\x41, \t), as HTML character references (&#65; and &#x41;), '+' for a
// space, any mix of those; encoded as a whole in hex or base64 (standard or
// URL alphabet, padded or not, alone or inside a longer encoded text); and
// any fragment of any of these at least MinFragment bytes long (a server
// that echoes a prefix, or one that cut the echo itself).
package redact

import (
	"encoding/base64"
	"encoding/hex"
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
	forms []form // the secret, then its encodings
	// starts[c] lists the places in the forms holding byte c,
	// lower-cased: where a match beginning with c may start from.
	starts [256][]place
	// pairs has the bit of every two bytes, lower-cased, that follow one
	// another in a form: text whose next two bytes are no such pair, and
	// no escape, starts no match, which most text shows at once.
	pairs *[1 << 16 / 64]uint64
	short bool // a form of one byte: every byte may start a match
}

// form is one byte sequence that stands for the secret: the secret itself,
// or one of its encodings. Runs of it are matched ignoring ASCII case.
type form struct {
	text string
	min  int // fragment length that is redacted
}

// place is an offset in one of the forms.
type place struct {
	form, off int
}

func (r *Redactor) add(text string) {
	fi := len(r.forms)
	r.forms = append(r.forms, form{text: text, min: min(MinFragment, len(text))})
	if r.pairs == nil {
		r.pairs = new([1 << 16 / 64]uint64)
	}
	r.short = r.short || len(text) < 2
	for i := 0; i < len(text); i++ {
		c := lower(text[i])
		r.starts[c] = append(r.starts[c], place{fi, i})
		if i+1 < len(text) {
			pair := uint16(c)<<8 | uint16(lower(text[i+1]))
			r.pairs[pair/64] |= 1 << (pair % 64)
		}
	}
}

// mayStart reports whether a match may start at in[i]: its two bytes are
// a pair of some form, or one of them may be an escape.
func mayStart[T string | []byte](r *Redactor, in T, i int) bool {
	if i+1 >= len(in) || r.short {
		return true
	}
	a, b := in[i], in[i+1]
	if isEscapeStart(a) || isEscapeStart(b) {
		return true
	}
	pair := uint16(lower(a))<<8 | uint16(lower(b))
	return r.pairs[pair/64]&(1<<(pair%64)) != 0
}

func isEscapeStart(c byte) bool { return c == '%' || c == '+' || c == '&' || c == '\\' }

// New returns a Redactor for secret; an empty secret redacts nothing.
func New(secret string) *Redactor {
	r := &Redactor{}
	if secret == "" {
		return r
	}
	r.add(secret)
	for _, enc := range encodings(secret) {
		if len(enc) >= MinFragment {
			r.add(enc)
		}
	}
	return r
}

// encodings returns the secret encoded as a whole: in hex, and in base64
// in both alphabets at each of the three alignments it can have inside a
// longer encoded text (only the characters that depend on the secret's
// bytes alone, so that they match wherever it sits).
func encodings(secret string) []string {
	out := []string{hex.EncodeToString([]byte(secret))}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for pad := 0; pad < 3; pad++ {
			b := append(make([]byte, pad, pad+len(secret)), secret...)
			e := enc.WithPadding(base64.NoPadding).EncodeToString(b)
			first := (pad*8 + 5) / 6 // the first character of the secret's bits alone
			last := (pad + len(secret)) * 8 / 6
			if pad == 0 {
				last = len(e) // it ends the encoding: its last character is the secret's too
			}
			if first < last {
				out = append(out, e[first:last])
			}
		}
	}
	return out
}

// HasFold reports whether s holds the secret, in any of its forms or a
// fragment of it long enough to be redacted. Redaction ignores ASCII case
// too; HasFold is for deciding, without building the redacted text, about
// text whose case was changed on the way, such as a header name that Go
// canonicalised.
func (r *Redactor) HasFold(s string) bool {
	if r == nil || len(r.forms) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if match(r, s, i) > 0 {
			return true
		}
	}
	return false
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
	if len(in) <= max && (r == nil || len(r.forms) == 0) {
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

// match returns how many bytes of in, from i, are a run of at least
// MinFragment consecutive bytes of one of the secret's forms (or the whole
// form, when it is shorter), each byte in any of its escapes and any letter
// case; 0 if none. The longest run wins.
func match[T string | []byte](r *Redactor, in T, i int) int {
	if r == nil || len(r.forms) == 0 || !mayStart(r, in, i) {
		return 0
	}
	best := 0
	try := func(first byte) {
		for _, at := range r.starts[lower(first)] {
			f := &r.forms[at.form]
			p, k := i, at.off
			for k < len(f.text) && p < len(in) {
				w := unit(in, p, f.text[k])
				if w == 0 {
					break
				}
				p, k = p+w, k+1
			}
			if k-at.off >= f.min && p-i > best {
				best = p - i
			}
		}
	}
	try(in[i])
	if c, _, ok := escaped(in, i); ok && lower(c) != lower(in[i]) {
		try(c)
	}
	return best
}

// unit returns the length of the form of byte want at in[p]: the byte
// itself in either case, or one of its escapes; 0 if in[p] is none of them.
func unit[T string | []byte](in T, p int, want byte) int {
	if lower(in[p]) == lower(want) {
		return 1
	}
	if c, w, ok := escaped(in, p); ok && lower(c) == lower(want) {
		return w
	}
	return 0
}

// lower is c in lower case, when it is an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// escaped decodes the escape at in[p], if one starts there, and says how
// long it is: %XX (percent escaping, either hex case), + (a space in a
// query), \uXXXX for an ASCII byte, \xXX for any byte (Go's quoting), the
// two-byte escapes JSON and Go write for quotes, backslashes, slashes and
// control bytes, and HTML's character references &#NN; and &#xHH; for an
// ASCII byte.
func escaped[T string | []byte](in T, p int) (byte, int, bool) {
	switch in[p] {
	case '%':
		if p+2 < len(in) {
			hi, ok1 := unhex(in[p+1])
			lo, ok2 := unhex(in[p+2])
			return hi<<4 | lo, 3, ok1 && ok2
		}
	case '+':
		return ' ', 1, true
	case '&':
		return entity(in, p)
	case '\\':
		if p+1 >= len(in) {
			return 0, 0, false
		}
		switch c := in[p+1]; c {
		case '"', '\\', '/', '\'':
			return c, 2, true
		case 'a', 'b', 'f', 'n', 'r', 't', 'v':
			return controlEscapes[c], 2, true
		case 'x':
			if p+3 >= len(in) {
				return 0, 0, false
			}
			hi, ok1 := unhex(in[p+2])
			lo, ok2 := unhex(in[p+3])
			return hi<<4 | lo, 4, ok1 && ok2
		case 'u':
			if p+5 >= len(in) {
				return 0, 0, false
			}
			v := 0
			for _, c := range [...]byte{in[p+2], in[p+3], in[p+4], in[p+5]} {
				d, ok := unhex(c)
				if !ok {
					return 0, 0, false
				}
				v = v<<4 | int(d)
			}
			return byte(v), 6, v < 0x80
		}
	}
	return 0, 0, false
}

// entity decodes an HTML numeric character reference for an ASCII byte at
// in[p]: &#65; or &#x41;, at most three digits or two hex digits, with its
// semicolon.
func entity[T string | []byte](in T, p int) (byte, int, bool) {
	q := p + 2
	if q >= len(in) || in[p+1] != '#' {
		return 0, 0, false
	}
	base, maxDigits := 10, 3
	if in[q] == 'x' || in[q] == 'X' {
		base, maxDigits, q = 16, 2, q+1
	}
	v, n := 0, 0
	for ; q < len(in) && n < maxDigits; q, n = q+1, n+1 {
		d, ok := unhex(in[q])
		if !ok || int(d) >= base {
			break
		}
		v = v*base + int(d)
	}
	if n == 0 || q >= len(in) || in[q] != ';' || v >= 0x80 {
		return 0, 0, false
	}
	return byte(v), q + 1 - p, true
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
