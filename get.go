package itick

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
)

// Get calls an endpoint the SDK does not model, such as "/stock/quote",
// under every rule of the typed calls: the limiter, retries, the success
// rule, the size bound, redaction and logging. It decodes the envelope's
// data into out as encoding/json would; a nil out discards it. path is in
// escaped form and joins the base URL's own path; query may be nil. A path
// that is empty or relative, carries a scheme, host, '?', '#' or backslash,
// has an empty segment other than a trailing slash, or a segment that
// decodes (however many times) to "." or ".." (also before a ';') or
// holds an encoded '/', '\', '?' or '#', is ErrInvalidArgument and nothing
// is sent.
func (c *Client) Get(ctx context.Context, path string, query url.Values, out any) error {
	if err := checkRawPath(path); err != nil {
		return err
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			return invalidArg("out must be nil or a non-nil pointer, not %T", out)
		}
	}
	if err := checkContext(ctx); err != nil {
		return err
	}
	r, err := c.fetch(ctx, path, query)
	if err == nil {
		err = decodeRaw(path, r.status, r.header, r.body.Bytes(), c.attempt.Redactor(), out)
		err = r.refusal(err)
		r.body.Close()
	}
	c.stats.end(err)
	return err
}

// decodeRaw applies the success rule and then decodes data with
// encoding/json, so that out sees exactly what json.Unmarshal gives: a
// null data sets a pointer or a *json.RawMessage as it would, and a
// missing one leaves out alone.
func decodeRaw(path string, status int, header http.Header, body []byte, red *redact.Redactor, out any) error {
	st := codec.Get(body)
	defer codec.Put(st)
	var env codec.Envelope
	_, err := codec.ScanEnvelope[struct{}](st, &env, nil)
	if f := codec.Check(status, &env, err, [][]byte{body}, red); f != nil {
		return newAPIError(path, status, header, body, red, f)
	}
	data := env.Data
	if out == nil || data == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return dataError(path, status, header, body, data, err, red)
	}
	return nil
}

// checkRawPath refuses a path for Get that could reach anything but an
// endpoint under the base URL.
func checkRawPath(p string) error {
	switch {
	case p == "":
		return invalidArg("path is empty")
	case strings.Contains(p, "://"):
		return invalidArg("path %q carries a scheme and host: give only the path, such as /stock/quote", p)
	case p[0] != '/':
		return invalidArg("path %q is relative: it must start with /", p)
	case strings.HasPrefix(p, "//"):
		return invalidArg("path %q names a host", p)
	case strings.ContainsAny(p, "?#"):
		return invalidArg("path %q carries a query or fragment: pass the query as url.Values", p)
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }):
		return invalidArg("path %q contains a backslash or a control character", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, seg := range segs {
		if seg == "" {
			if i == len(segs)-1 {
				break // a trailing slash
			}
			return invalidArg("path %q has an empty segment", p)
		}
		dec, err := unescapeAll(seg)
		if err != nil {
			return invalidArg("path %q: %v", p, err)
		}
		// Tomcat and Spring read a segment's ";..." as path parameters, so
		// "..;x" is their "..".
		if name, _, _ := strings.Cut(dec, ";"); name == "." || name == ".." {
			return invalidArg("path %q has a dot segment", p)
		}
		if strings.ContainsAny(dec, "/\\") {
			return invalidArg("path %q has an encoded slash or backslash", p)
		}
		// A proxy that decodes the path once would move the rest of it
		// into the query or the fragment.
		if strings.ContainsAny(dec, "?#") {
			return invalidArg("path %q has an encoded '?' or '#'", p)
		}
	}
	return nil
}

// unescapeAll percent-decodes a path segment until nothing changes, so that
// "%252e" is seen as the "." a server that decodes twice would see. Only
// the first decoding must succeed: a segment such as "100%25" is a valid
// "100%" that a second decoding would refuse.
func unescapeAll(seg string) (string, error) {
	dec, err := url.PathUnescape(seg)
	if err != nil {
		return "", err
	}
	for strings.Contains(dec, "%") {
		next, err := url.PathUnescape(dec)
		if err != nil || next == dec {
			break
		}
		dec = next
	}
	return dec, nil
}
