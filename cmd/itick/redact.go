package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"sync"
)

// redacted replaces the token wherever it would be printed.
const redacted = "[redacted]"

// lineRedactor passes whole lines to w with every form of the token in them
// (any case; percent-, JSON-, base64- and hex-encoded) replaced, so nothing a
// server sends, echoed in data or an error, can print it. Holding back the
// end of a line also means a process stopped between two writes leaves only
// whole lines behind. Flush writes what is held.
type lineRedactor struct {
	mu     sync.Mutex
	w      io.Writer
	forms  [][]byte // lower-case forms of the token
	maxLen int
	buf    []byte
}

// holdLimit is how much of a line without an end is held before its head is
// written anyway.
const holdLimit = 1 << 20

func newLineRedactor(w io.Writer, token string) *lineRedactor {
	r := &lineRedactor{w: w}
	if token == "" {
		return r
	}
	js, _ := json.Marshal(token)
	seen := map[string]bool{}
	for _, f := range []string{
		token, url.QueryEscape(token), url.PathEscape(token), string(js[1 : len(js)-1]),
		base64.StdEncoding.EncodeToString([]byte(token)), base64.RawStdEncoding.EncodeToString([]byte(token)),
		base64.URLEncoding.EncodeToString([]byte(token)), base64.RawURLEncoding.EncodeToString([]byte(token)),
		hex.EncodeToString([]byte(token)),
	} {
		lf := string(asciiLower([]byte(f)))
		if f == "" || seen[lf] {
			continue
		}
		seen[lf] = true
		r.forms = append(r.forms, []byte(lf))
		r.maxLen = max(r.maxLen, len(lf))
	}
	return r
}

func (r *lineRedactor) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	var out, rest []byte
	if cut := bytes.LastIndexByte(r.buf, '\n') + 1; cut > 0 {
		out, rest = r.redact(r.buf[:cut]), r.buf[cut:]
	} else if len(r.buf) > holdLimit {
		// A form of the token may start in the last maxLen-1 bytes and
		// end in the next write: hold those back.
		red := r.redact(r.buf)
		cut := len(red) - max(r.maxLen-1, 0)
		out, rest = red[:cut], red[cut:]
	} else {
		return len(p), nil
	}
	_, err := r.w.Write(out)
	r.buf = append(r.buf[:0:0], rest...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held of an unfinished line.
func (r *lineRedactor) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) > 0 {
		r.w.Write(r.redact(r.buf)) //nolint:errcheck // nothing is left to report it to
		r.buf = r.buf[:0]
	}
}

// redact returns b with every form of the token replaced, matching ASCII
// letters in any case.
func (r *lineRedactor) redact(b []byte) []byte {
	lower := asciiLower(bytes.Clone(b))
	hit := false
	for _, f := range r.forms {
		if bytes.Contains(lower, f) {
			hit = true
			break
		}
	}
	if !hit {
		return b
	}
	var out []byte
	for i := 0; i < len(b); {
		matched := 0
		for _, f := range r.forms {
			if bytes.HasPrefix(lower[i:], f) && len(f) > matched {
				matched = len(f)
			}
		}
		if matched > 0 {
			out = append(out, redacted...)
			i += matched
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// asciiLower lowers A to Z in place, keeping every byte where it is.
func asciiLower(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}
