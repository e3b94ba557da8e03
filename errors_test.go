package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"golang.org/x/time/rate"
)

// Tests of APIError: its text, and the evidence it keeps (body and header,
// bounded, with the token taken out).

// TestAPIError_Text: the error text carries status, code, message and path.
func TestAPIError_Text(t *testing.T) {
	t.Parallel()
	e := &itick.APIError{StatusCode: 200, Code: 3, Message: "E003 exceeding the maximum subscription limit", Path: "/crypto/depths"}
	for _, part := range []string{"200", "3", "E003", "/crypto/depths"} {
		if !strings.Contains(e.Error(), part) {
			t.Errorf("%q lacks %q", e.Error(), part)
		}
	}
	e = &itick.APIError{StatusCode: 200, CodeText: "E002", Message: "auth failed", Path: "/stock/quote"}
	if got, want := e.Error(), "itick: /stock/quote: HTTP 200, code E002: auth failed"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// evidenceHandler answers every request with status, body and header,
// and adds a request ID and a header that echoes the token.
func evidenceHandler(status int, header http.Header, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-123")
		w.Header().Set("X-Echo", "you sent "+r.Header.Get("token"))
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	})
}

func TestAPIErrorCarriesEvidence(t *testing.T) {
	t.Parallel()
	quotes := func(c *itick.Client) error {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
		return err
	}
	symbols := func(c *itick.Client) error {
		_, err := c.Market.Symbols(t.Context(), itick.AssetStock, itick.RegionHK, "")
		return err
	}
	get := func(c *itick.Client) error {
		var out []int
		return c.Get(t.Context(), "/x/list", nil, &out)
	}
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   string
		call   func(*itick.Client) error
		is     error
	}{
		{"status error", 400, nil, `{"code":400,"msg":"bad request ` + testToken + `"}`, quotes, nil},
		{"envelope error", 200, nil, `{"code":1,"msg":"E001 not found this produce","data":null}`, quotes, itick.ErrNotFound},
		{"gateway HTML", 502, http.Header{"Content-Type": {"text/html"}}, `<html>Bad Gateway ` + testToken + `</html>`, symbols, nil},
		{"gateway message", 401, nil, `{"message":"Invalid API key ` + testToken + `"}`, get, itick.ErrUnauthorized},
		{"body that does not parse", 200, nil, `{"code":0,"data":{"700":`, quotes, nil},
		{"decode failure, typed", 200, nil, `{"code":0,"data":{"700":{"s":"700","ld":"` + testToken + `"}}}`, quotes, nil},
		{"decode failure, reference", 200, nil, `{"code":0,"data":{"c":"700"}}`, symbols, nil},
		{"decode failure, Get", 200, nil, `{"code":0,"data":["` + testToken + `"]}`, get, nil},
		{"429 not waited for", 429, http.Header{"Retry-After": {"3600"}}, `{"code":429,"msg":"slow down"}`, get, itick.ErrRateLimited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(evidenceHandler(tc.status, tc.header, tc.body))
			c := newServerClient(t, srv, testToken, itick.WithRetries(0))
			err := tc.call(c)
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("got %v (%T), want an *APIError", err, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not match %v", err, tc.is)
			}
			if want := strings.ReplaceAll(tc.body, testToken, "[redacted]"); apiErr.Body != want {
				t.Errorf("Body = %q, want %q", apiErr.Body, want)
			}
			if got := apiErr.Header.Get("X-Request-Id"); got != "req-123" {
				t.Errorf("Header X-Request-Id = %q, want req-123 (header %v)", got, apiErr.Header)
			}
			if got := apiErr.Header.Get("X-Echo"); got != "you sent [redacted]" {
				t.Errorf("Header X-Echo = %q, want the token redacted", got)
			}
			for k, v := range tc.header {
				if got := apiErr.Header.Get(k); got != v[0] {
					t.Errorf("Header %s = %q, want %q", k, got, v[0])
				}
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n") || len(msg) > 400 || strings.Contains(msg, "req-123") {
				t.Errorf("Error() is not one short line without the evidence: %q", msg)
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
				noToken(t, verb+" of the error", fmt.Sprintf(verb, err))
				noToken(t, verb+" of the *APIError", fmt.Sprintf(verb, apiErr))
			}
		})
	}
}

// TestAPIErrorBodyTokenAtTheBound puts the token across the 1 KiB bound at
// every offset near it: redaction runs on the whole body before the cut,
// so no piece of the token survives on the near side.
func TestAPIErrorBodyTokenAtTheBound(t *testing.T) {
	t.Parallel()
	const bound = 1 << 10
	page := func(n int) string { return strings.Repeat("z", n) + testToken + strings.Repeat("z", 100) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page(n))
	}))
	c := newServerClient(t, srv, testToken, itick.WithRetries(0))
	for n := bound - len(testToken) - 16; n <= bound+2; n++ {
		err := c.Get(t.Context(), "/page", url.Values{"n": {strconv.Itoa(n)}}, nil)
		var apiErr *itick.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("n=%d: got %v, want an *APIError", n, err)
		}
		body := apiErr.Body
		full := strings.ReplaceAll(page(n), testToken, "[redacted]")
		switch {
		case len(body) > bound:
			t.Errorf("n=%d: Body is %d bytes, want at most %d", n, len(body), bound)
		case !strings.HasSuffix(body, "...") || !strings.HasPrefix(full, strings.TrimSuffix(body, "...")):
			t.Errorf("n=%d: Body %q is not a cut of the redacted body", n, body)
		case n+len("[redacted]") <= bound-len("...") && !strings.Contains(body, "[redacted]"):
			t.Errorf("n=%d: Body %q lost the placeholder that fits", n, body)
		}
		noPiece(t, fmt.Sprintf("n=%d: Body", n), body, 3)
	}
}

func TestAPIErrorHeaderIsBoundedAndRedacted(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"Location":                 {"https://elsewhere.example/login?token=" + url.QueryEscape(testToken) + "&next=%2F"},
		"Set-Cookie":               {"session=s3cr3t-session; Path=/; HttpOnly", "plain"},
		"X-Big":                    {strings.Repeat("b", 10<<10)},
		"X-" + testToken:           {"named after the token"},
		"X-Tail-" + testToken[:12]: {"a piece of it"},
	}
	for i := range 100 {
		vs := make([]string, 20)
		for j := range vs {
			vs[j] = fmt.Sprintf("v%d", j)
		}
		h[fmt.Sprintf("X-H-%03d", i)] = vs
	}
	srv := httptest.NewServer(evidenceHandler(400, h, `{"code":400,"msg":"no"}`))
	c := newServerClient(t, srv, testToken, itick.WithRetries(0))
	err := c.Get(t.Context(), "/x", nil, nil)
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %v, want an *APIError", err)
	}
	total := 0
	for k, vs := range apiErr.Header {
		noToken(t, "header name", k)
		if len(k) > 128 {
			t.Errorf("header name of %d bytes", len(k))
		}
		if len(vs) > 8 {
			t.Errorf("header %s has %d values, want at most 8", k, len(vs))
		}
		for _, v := range vs {
			noToken(t, "header "+k, v)
			if len(v) > 512 {
				t.Errorf("header %s has a value of %d bytes, want at most 512", k, len(v))
			}
		}
		total += len(vs)
	}
	if total > 64 {
		t.Errorf("Header holds %d values, want at most 64", total)
	}
	loc := apiErr.Header.Get("Location")
	if !strings.HasPrefix(loc, "https://elsewhere.example/login?token=[redacted]") {
		t.Errorf("Location = %q, want it kept with the token redacted", loc)
	}
	if got := apiErr.Header["Set-Cookie"]; len(got) != 2 || got[0] != "session=[redacted]; Path=/; HttpOnly" || got[1] != "=[redacted]" {
		t.Errorf("Set-Cookie = %q, want the cookie values masked", got)
	}
	if got := apiErr.Header.Get("X-Big"); len(got) != 512 || !strings.HasSuffix(got, "...") {
		t.Errorf("X-Big is %d bytes, want it cut to 512", len(got))
	}
	if got := apiErr.Header.Get("X-Request-Id"); got != "" && got != "req-123" {
		t.Errorf("X-Request-Id = %q", got)
	}
}

// TestAPIErrorHeaderIsACopy changes the error's Header and checks that the
// response the transport saw, and the next error, are untouched.
func TestAPIErrorHeaderIsACopy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(evidenceHandler(400, http.Header{"X-Multi": {"a", "b"}}, `{"code":400,"msg":"no"}`))
	var seen []*http.Response
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil {
			seen = append(seen, resp)
		}
		return resp, err
	})
	c := newServerClient(t, srv, testToken, itick.WithRetries(0), itick.WithHTTPClient(&http.Client{Transport: rt}))
	var first, second *itick.APIError
	if err := c.Get(t.Context(), "/x", nil, nil); !errors.As(err, &first) {
		t.Fatalf("got %v, want an *APIError", err)
	}
	first.Header["X-Multi"][0] = "changed"
	first.Header.Set("X-Request-Id", "changed")
	first.Header.Add("X-New", "added")
	if got := seen[0].Header["X-Multi"]; got[0] != "a" || seen[0].Header.Get("X-Request-Id") != "req-123" || seen[0].Header.Get("X-New") != "" {
		t.Errorf("the response's header changed with the error's: %v", seen[0].Header)
	}
	if err := c.Get(t.Context(), "/x", nil, nil); !errors.As(err, &second) {
		t.Fatalf("got %v, want an *APIError", err)
	}
	if got := second.Header["X-Multi"]; len(got) != 2 || got[0] != "a" || second.Header.Get("X-New") != "" {
		t.Errorf("the next error's header = %v", second.Header)
	}
}

// TestDecodeFailureSaysWhere checks that a body that does not decode is an
// *APIError naming the JSON path, the byte offset and the type of the value
// it failed on, and never the value.
func TestDecodeFailureSaysWhere(t *testing.T) {
	t.Parallel()
	quotes := func(c *itick.Client) error {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700", "5"})
		return err
	}
	depths := func(c *itick.Client) error {
		_, err := c.Stock.Depths(t.Context(), itick.RegionHK, []string{"700"})
		return err
	}
	klines := func(c *itick.Client) error {
		_, err := c.Stock.Klines(t.Context(), itick.RegionHK, []string{"700"}, itick.OneMinute, 10)
		return err
	}
	symbols := func(c *itick.Client) error {
		_, err := c.Market.Symbols(t.Context(), itick.AssetStock, itick.RegionHK, "")
		return err
	}
	holidays := func(c *itick.Client) error {
		_, err := c.Market.Holidays(t.Context())
		return err
	}
	get := func(c *itick.Client) error {
		var out []struct {
			X int `json:"x"`
		}
		return c.Get(t.Context(), "/x/list", nil, &out)
	}
	for _, tc := range []struct {
		name, body string
		call       func(*itick.Client) error
		path, kind string
		at         string // the text the offset must point at
	}{
		{"quote field, fast path", `{"code":0,"data":{"5":{"ld":1},"700":{"s":"700","ld":{"v":1}}}}`, quotes, "data.700.ld", "object", `{"v":1}`},
		{"quote field echoing the token", `{"code":0,"data":{"700":{"s":"700","ld":"` + testToken + `"}}}`, quotes, "data.700.ld", "string", `"` + testToken},
		{"kline in an array", `{"code":0,"data":{"700":[{"t":1},{"t":"soon"}]}}`, klines, "data.700[1].t", "string", `"soon"`},
		{"kline array of the wrong type", `{"code":0,"data":{"700":{"t":1}}}`, klines, "data.700", "object", `{"t":1}`},
		{"symbol field", `{"code":0,"data":[{"c":"A"},{"c":"B"},{"c":"C"},{"c":{"x":1}}]}`, symbols, "data[3].c", "object", `{"x":1}`},
		{"symbols not a list", `{"code":0,"data":{"c":"700"}}`, symbols, "data", "object", `{"c":"700"}`},
		{"holiday dates", `{"code":0,"data":[{"c":"US","v":"[\"2025-01-01\"]"},{"c":"HK","v":"[\"tomorrow\"]"}]}`, holidays, "data[1].v", "string", `"[\"tomorrow`},
		{"holiday year", `{"code":0,"data":[{"c":"US","ey":"MMXXV"}]}`, holidays, "data[0].ey", "string", `"MMXXV"`},
		{"Get into a struct", `{"code":0,"data":[{"x":1},{"x":"two"}]}`, get, "data[1].x", "string", `"two"`},
		{"quoted key", `{"code":0,"data":{"7.00":{"ld":true}}}`, quotes, `data["7.00"].ld`, "boolean", `true`},
		{"envelope code", `{"code":{"n":0},"data":{}}`, quotes, "code", "object", `{"n":0}`},
		// Past 2^53 a float64 rounds: 9007199254740993 would read as ...992.
		{"integer past 2^53", `{"code":0,"data":{"700":{"s":"700","ts":9007199254740993}}}`, quotes, "data.700.ts", "number", `9007199254740993`},
		{"integer past 2^53 in a string", `{"code":0,"data":{"700":{"s":"700","a":[{"po":"9007199254740993"}]}}}`, depths, "data.700.a[0].po", "string", `"9007199254740993"`},
		{"envelope code past 2^53", `{"code":"9007199254740993","data":{}}`, quotes, "code", "string", `"9007199254740993"`},
		{"truncated body", `{"code":0,"data":{"700":{"ld":`, quotes, "data.700.ld", "", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(evidenceHandler(200, nil, tc.body))
			c := newServerClient(t, srv, testToken, itick.WithRetries(0))
			err := tc.call(c)
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 200 {
				t.Fatalf("got %v (%T), want an *APIError for HTTP 200", err, err)
			}
			msg := apiErr.Message
			t.Log(msg)
			offset := strings.Index(tc.body, tc.at)
			if tc.at == "" {
				offset = len(tc.body)
			}
			if !strings.Contains(msg, tc.path+":") && !strings.Contains(msg, "in "+tc.path) {
				t.Errorf("Message %q does not name the path %s", msg, tc.path)
			}
			if !strings.Contains(msg, fmt.Sprintf("at byte %d", offset)) {
				t.Errorf("Message %q does not name the offset %d", msg, offset)
			}
			if tc.kind != "" && !strings.Contains(msg, " "+tc.kind+" ") {
				t.Errorf("Message %q does not name the type %s", msg, tc.kind)
			}
			noToken(t, "Message", msg)
			if strings.Contains(msg, "[redacted]") || strings.Contains(msg, "soon") || strings.Contains(msg, "two") || strings.Contains(msg, "tomorrow") {
				t.Errorf("Message %q quotes the value", msg)
			}
		})
	}
}

// roundTripFunc is an in-process http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RetryAfter gives a service the wait to pass on to its callers: a 429's
// Retry-After, or the wait the client's limiter refused.
func TestRetryAfterOfAQuotaError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("codes") == "LIMIT" {
			w.Header().Set("Retry-After", "42")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(`{"code":0,"data":{"700":{"s":"700","ld":1}}}`))
	}))
	defer srv.Close()
	c := newServerClient(t, srv, testToken, itick.WithRetries(0), itick.WithRateLimit(rate.Every(time.Hour), 2))
	_, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"LIMIT"})
	if d, ok := itick.RetryAfter(err); !ok || d != 42*time.Second {
		t.Errorf("RetryAfter(%v) = %v, %v; want 42s", err, d, ok)
	}
	if _, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if d, ok := itick.RetryAfter(err); !ok || d < 59*time.Minute || d > time.Hour {
		t.Errorf("RetryAfter(%v) = %v, %v; want about an hour", err, d, ok)
	}
	for _, other := range []error{nil, errors.New("x"), context.DeadlineExceeded, itick.ErrRateLimited} {
		if d, ok := itick.RetryAfter(other); ok {
			t.Errorf("RetryAfter(%v) = %v, want none", other, d)
		}
	}
}
