package itick

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/transport"
	"github.com/d19c4e34/itick/internal/wait"
)

// The request path every call shares: a typed call validates its input,
// get sends it under the retry policy (fetch) and decodes the answer with
// the call's reader (decode), which applies the success rule and reads the
// envelope's data in one pass over the body.

// market is the plumbing every asset class shares; a service is a thin
// typed front over it.
type market struct {
	c     *Client
	class string // path segment: "stock", "crypto", ...
}

func (m market) path(endpoint string) string { return "/" + m.class + "/" + endpoint }

// get sends one GET of path (escaped form) and decodes the envelope's data
// with read. Service errors come back as *APIError unwrapped; transport
// errors are wrapped with the path. Its callers have checked ctx.
func get[T any](ctx context.Context, c *Client, path string, q url.Values, read codec.Reader[T]) (T, error) {
	var v T
	r, err := c.fetch(ctx, path, q)
	if err == nil {
		v, err = decode(path, r.status, r.header, r.body.Blocks(), c.attempt.Redactor(), read)
		r.body.Close()
		if err == nil {
			c.confirmed.Store(true)
		}
		err = r.refusal(err)
	}
	c.stats.end(err)
	return v, err
}

// decode reads one response with read: the envelope, its data on the way,
// then the success rule. A body the decoder refuses is an *APIError saying
// where and why; data of a failing response is not read at all.
func decode[T any](path string, status int, header http.Header, blocks [][]byte, red *redact.Redactor,
	read codec.Reader[T]) (T, error) {
	var zero T
	if status < 200 || status > 299 {
		read = nil // failing anyway: only the envelope matters
	}
	st := codec.GetBlocks(blocks)
	defer codec.Put(st)
	var env codec.Envelope
	v, err := codec.ScanEnvelope(st, &env, read)
	// A success pays for none of the evidence, nor for the body in one slice.
	if f := codec.Check(status, &env, err, blocks, red); f != nil {
		return zero, newAPIError(path, status, header, codec.Join(blocks), red, f)
	}
	if env.DataErr != nil {
		return zero, dataError(path, status, header, codec.Join(blocks), nil, env.DataErr, red)
	}
	if !env.Parsed {
		return zero, nil
	}
	return v, nil
}

// response is what fetch brings back: the final attempt's status, headers
// and body, read whole. Closing the body gives back its share of the
// client's memory budget, so it is closed once it has been decoded.
type response struct {
	status int
	header http.Header
	body   *transport.Body
	// refused is the wait this response asked for (its Retry-After, or
	// a backoff) that was not started because it would pass the
	// context's deadline; nil when none was refused.
	refused *transport.RefusedWait
}

// refusal is err, the response's error, made to say that the wait it
// asked for was refused: it then also matches context.DeadlineExceeded.
func (r response) refusal(err error) error {
	if r.refused == nil {
		return err
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	return &refusedError{api: apiErr, wait: r.refused}
}

// fetch sends one GET of path (escaped form) with q under the retry policy
// and returns the final response, whatever its status. It is the request
// path of every call, typed or not; its callers have checked ctx.
func (c *Client) fetch(ctx context.Context, path string, q url.Values) (response, error) {
	c.stats.requests.Add(1)
	u := *c.baseURL
	u.Path = c.baseURL.Path + path
	if strings.Contains(path, "%") {
		raw, err := url.PathUnescape(path)
		if err != nil {
			return response{}, fmt.Errorf("itick: GET %s: %w", path, err)
		}
		u.Path = c.baseURL.Path + raw
		u.RawPath = c.baseURL.EscapedPath() + path
	}
	u.RawQuery = q.Encode()

	var call transport.Call
	req, err := retryablehttp.NewRequestWithContext(transport.WithCall(ctx, &call),
		http.MethodGet, u.String(), nil)
	if err != nil {
		return response{}, fmt.Errorf("itick: GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)

	resp, err := c.rc.Do(req)
	if n := call.Attempts(); n > 1 {
		c.stats.retries.Add(int64(n - 1))
	}
	var refused *transport.RefusedWait
	if err != nil && errors.As(err, &refused) && refused.Err == nil && resp != nil {
		err = nil // the response is the error: the caller decodes it
	}
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		if refused != nil && refused.Err != nil {
			// The transport's error is redacted apart, so that the
			// refusal's own text stays.
			err = &transport.RefusedWait{Wait: refused.Wait, Err: c.redactErr(refused.Err)}
		} else {
			err = c.redactErr(err)
		}
		err = fmt.Errorf("itick: GET %s: %w", path, err)
		var limErr *transport.LimiterError
		if errors.As(err, &limErr) && limErr.Early {
			err = &quotaError{err} // the limiter's slot lies past the deadline
		}
		// Whatever the transport made of the context's end (net/http
		// returns a cause alone), the error matches it.
		return response{}, wait.Ended(ctx, err)
	}
	// Every response comes from the transport's attempt, which read its
	// body whole; the http.Client under the retries has no Timeout of its
	// own (the attempt applies it), so nothing wraps that body.
	body, ok := resp.Body.(*transport.Body)
	if !ok {
		resp.Body.Close()
		return response{}, fmt.Errorf("itick: GET %s: response body of type %T was not read by the transport", path, resp.Body)
	}
	return response{resp.StatusCode, resp.Header, body, refused}, nil
}

// redactErr gives err a text without the token and with every part a
// server chose bounded. A *url.Error keeps its shape (op, URL, cause),
// with the URL, which a redirect may have chosen, and the cause bounded
// apart, so a long URL cannot crowd out why the request failed.
func (c *Client) redactErr(err error) error {
	orig := err.Error()
	msg := c.attempt.Redact(orig)
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		msg = ue.Op + " " + strconv.Quote(c.attempt.Redact(ue.URL)) + ": " + c.attempt.Redact(ue.Err.Error())
	}
	if msg == orig {
		return err
	}
	return redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

// Error is the text without the token.
func (e redactedError) Error() string { return e.msg }

// Unwrap returns the error whose text was redacted, for errors.Is and As.
func (e redactedError) Unwrap() error { return e.err }

// query starts the query string every market endpoint takes.
func query(region Region, kv ...string) url.Values {
	q := make(url.Values, 2+len(kv)/2)
	q.Set("region", string(region))
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// codeQuery validates region and one code and builds their query, with
// extra's parameters added.
func codeQuery(region Region, code string, extra url.Values) (url.Values, error) {
	if err := region.validate(); err != nil {
		return nil, err
	}
	code, err := batch.Code(code)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	q := query(region, "code", code)
	for k, v := range extra {
		q[k] = v
	}
	return q, nil
}

// fetchOne fetches the single-code form of an endpoint, whose data is one
// object read by read. An answer with no data, null or {} (what the
// service is reported to send for a market outside the plan), is
// ErrNotFound: never a zero value that looks like a product.
func fetchOne[T any](ctx context.Context, c *Client, path string, region Region, code string, extra url.Values,
	read codec.Reader[*T]) (*T, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	q, err := codeQuery(region, code, extra)
	if err != nil {
		return nil, err
	}
	out, err := get(ctx, c, path, q, read)
	if err != nil {
		return nil, err
	}
	if isEmpty(out) {
		return nil, c.notFound("%s: no data for %s in %s", path, q.Get("code"), region)
	}
	return out, nil
}

// notFound is ErrNotFound for a call the service answered with nothing
// (data null or {}): a success by the envelope, but the call's error, so
// Stats counts it as one.
func (c *Client) notFound(format string, args ...any) error {
	c.stats.errors.Add(1)
	return fmt.Errorf("%w: "+format, append([]any{ErrNotFound}, args...)...)
}

// isEmpty reports a decoded single object that carried nothing: nil for
// null data, the zero value for {}.
func isEmpty[T any](v *T) bool { return v == nil || reflect.ValueOf(v).Elem().IsZero() }
