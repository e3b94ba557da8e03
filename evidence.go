package itick

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	redactpkg "github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/transport"
)

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
