package itick_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/d19c4e34/itick"
)

// Tests of the plumbing every call shares: the success rule and empty
// answers. Batches, their chunks and the rules that stop them are in the
// batch files.

var sentinels = []struct {
	name string
	err  error
}{
	{"ErrUnauthorized", itick.ErrUnauthorized},
	{"ErrRateLimited", itick.ErrRateLimited},
	{"ErrNotFound", itick.ErrNotFound},
	{"ErrPlanLimit", itick.ErrPlanLimit},
	{"ErrInvalidArgument", itick.ErrInvalidArgument},
}

// ignoreEvidence leaves Body and Header out of a comparison of errors;
// the tests below check them.
var ignoreEvidence = cmpopts.IgnoreFields(itick.APIError{}, "Body", "Header")

// Behaviour 5: only a 2xx status with a whole envelope whose code is 0 or
// 200 and whose msg carries no error text is a success; everything else is
// an *APIError with status, code, message and path, and the matching
// sentinel.
func TestSuccessRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		status       int
		body         string
		wantOK       bool
		wantErr      *itick.APIError // Message compared only when not empty
		wantContains string          // part of Message when wantErr.Message is empty
		sentinel     error
	}{
		{name: "code 0 msg null", status: 200, body: `{"code":0,"msg":null,"data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{name: "code 0 msg ok", status: 200, body: `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{name: "code 200 accepted", status: 200, body: `{"code":200,"msg":"success","data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{name: "code 0 as string", status: 200, body: `{"code":"0","msg":null,"data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{name: "HTTP 201 with envelope", status: 201, body: `{"code":0,"msg":null,"data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{
			name: "gateway 401", status: 401, body: string(fixture(t, "error_gateway.json")),
			wantErr:  &itick.APIError{StatusCode: 401, Message: "Invalid API key in request", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "gateway body with 200", status: 200, body: string(fixture(t, "error_gateway.json")),
			wantErr:  &itick.APIError{StatusCode: 200, Message: "Invalid API key in request", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "code 0 msg auth failed", status: 200, body: string(fixture(t, "error_auth_failed.json")),
			wantErr:  &itick.APIError{StatusCode: 200, Code: 0, Message: "auth failed", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "E001", status: 200, body: string(fixture(t, "error_e001.json")),
			wantErr:  &itick.APIError{StatusCode: 200, Code: 1, Message: "E001 not found this produce", Path: "/stock/quotes"},
			sentinel: itick.ErrNotFound,
		},
		{
			name: "E002 with code 0", status: 200, body: string(fixture(t, "error_e002.json")),
			wantErr:  &itick.APIError{StatusCode: 200, Code: 0, Message: "E002 auth failed", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "E003", status: 200, body: string(fixture(t, "error_e003.json")),
			wantErr:  &itick.APIError{StatusCode: 200, Code: 3, Message: "E003 exceeding the maximum subscription limit", Path: "/stock/quotes"},
			sentinel: itick.ErrPlanLimit,
		},
		{name: "code 200 as string", status: 200, body: `{"code":"200","msg":"ok","data":{"700":{"s":"700","ld":616}}}`, wantOK: true},
		{
			name: "E001 as string code", status: 200, body: string(fixture(t, "error_code_e001_string.json")),
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "E001", Message: "not found this produce", Path: "/stock/quotes"},
			sentinel: itick.ErrNotFound,
		},
		{
			name: "E002 as string code", status: 200, body: string(fixture(t, "error_code_e002_string.json")),
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "E002", Message: "auth failed", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "E003 as string code", status: 200, body: string(fixture(t, "error_code_e003_string.json")),
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "E003", Message: "exceeding the maximum subscription limit", Path: "/stock/quotes"},
			sentinel: itick.ErrPlanLimit,
		},
		{
			name: "E001 code alone", status: 200, body: `{"code":"E001","msg":null,"data":null}`,
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "E001", Path: "/stock/quotes"},
			sentinel: itick.ErrNotFound,
		},
		{
			name: "E002 code alone", status: 200, body: `{"code":"E002","msg":null,"data":null}`,
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "E002", Path: "/stock/quotes"},
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "e003 code alone, lower case", status: 200, body: `{"code":"e003","data":null}`,
			wantErr:  &itick.APIError{StatusCode: 200, CodeText: "e003", Path: "/stock/quotes"},
			sentinel: itick.ErrPlanLimit,
		},
		{
			name: "other text code", status: 200, body: string(fixture(t, "error_code_text_other.json")),
			wantErr: &itick.APIError{StatusCode: 200, CodeText: "E500", Message: "service busy, try later", Path: "/stock/quotes"},
		},
		{
			name: "text code with data", status: 200, body: `{"code":"OK?","msg":null,"data":{"700":{"s":"700","ld":616}}}`,
			wantErr: &itick.APIError{StatusCode: 200, CodeText: "OK?", Path: "/stock/quotes"},
		},
		{
			name: "non-zero code", status: 200, body: `{"code":500,"msg":"internal error","data":null}`,
			wantErr: &itick.APIError{StatusCode: 200, Code: 500, Message: "internal error", Path: "/stock/quotes"},
		},
		{
			name: "missing code", status: 200, body: `{"msg":null,"data":{"700":{"s":"700"}}}`,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "code",
		},
		{
			name: "empty object", status: 200, body: `{}`,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "code",
		},
		{
			name: "HTML body", status: 200, body: `<html><body>502 Bad Gateway</body></html>`,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "Bad Gateway",
		},
		{
			name: "truncated body", status: 200, body: `{"code":0,"msg":null,"data":{"700":{"s":"70`,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "JSON",
		},
		{
			name: "empty body", status: 200, body: ``,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "empty",
		},
		{
			name: "data of the wrong shape", status: 200, body: `{"code":0,"msg":null,"data":"nothing here"}`,
			wantErr: &itick.APIError{StatusCode: 200, Path: "/stock/quotes"}, wantContains: "decode",
		},
		{
			name: "404 with envelope", status: 404, body: `{"code":404,"msg":"Not Found","data":null}`,
			wantErr:  &itick.APIError{StatusCode: 404, Code: 404, Message: "Not Found", Path: "/stock/quotes"},
			sentinel: itick.ErrNotFound,
		},
		{
			name: "403 plain text", status: 403, body: `Forbidden`,
			wantErr: &itick.APIError{StatusCode: 403, Path: "/stock/quotes"}, wantContains: "Forbidden",
			sentinel: itick.ErrUnauthorized,
		},
		{
			name: "400 envelope with code 0", status: 400, body: `{"code":0,"msg":"bad request","data":null}`,
			wantErr: &itick.APIError{StatusCode: 400, Message: "bad request", Path: "/stock/quotes"},
		},
		{
			name: "429 after retries", status: 429, body: `{"code":429,"msg":"too many requests"}`,
			wantErr:  &itick.APIError{StatusCode: 429, Code: 429, Message: "too many requests", Path: "/stock/quotes"},
			sentinel: itick.ErrRateLimited,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(0))
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(tc.status, tc.body))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if tc.wantOK {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				if diff := cmp.Diff(map[string]itick.Quote{"700": {Symbol: "700", Last: 616}}, got); diff != "" {
					t.Errorf("quotes (-want +got):\n%s", diff)
				}
				return
			}
			if got != nil {
				t.Errorf("map = %v, want nil on error", got)
			}
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (%T), want *APIError", err, err)
			}
			want := *tc.wantErr
			if want.Message == "" {
				if !strings.Contains(apiErr.Message, tc.wantContains) {
					t.Errorf("Message = %q, want it to contain %q", apiErr.Message, tc.wantContains)
				}
				want.Message = apiErr.Message
			}
			if diff := cmp.Diff(&want, apiErr, ignoreEvidence); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
			for _, s := range sentinels {
				if is := errors.Is(err, s.err); is != (s.err == tc.sentinel) {
					t.Errorf("errors.Is(err, %s) = %v", s.name, is)
				}
			}
			if !strings.Contains(err.Error(), "/stock/quotes") {
				t.Errorf("error text %q does not name the path", err)
			}
		})
	}
}

// A code-0 reply carrying an error text fails whatever the message's
// length: the rule reads the whole message, not the text an error keeps
// of it, and the kept text still classifies the error.
func TestSuccessRuleReadsTheWholeMessage(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("the service says more than fits in an error; ", 8)
	for _, tc := range []struct {
		text     string
		sentinel error
	}{
		{"exceeding the maximum subscription limit", itick.ErrPlanLimit},
		{"E003", itick.ErrPlanLimit},
		{"Auth Failed", itick.ErrUnauthorized},
		{"Invalid API key in request", itick.ErrUnauthorized},
		{"Unauthorized", itick.ErrUnauthorized},
		{"not found this produce", itick.ErrNotFound},
		{"E001", itick.ErrNotFound},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(0))
			msg := pad + tc.text
			mt.RegisterResponder("GET", mockBase+"/stock/quotes",
				body(200, `{"code":0,"msg":"`+msg+`","data":{"700":{"s":"700","ld":616}}}`))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if err == nil || got != nil {
				t.Fatalf("a %d-byte msg ending in %q: got %v, %v; want a failure", len(msg), tc.text, got, err)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("err = %v, want it to match %v", err, tc.sentinel)
			}
		})
	}
}

// Behaviour 5: the success rule holds on every kind of endpoint, not just
// quotes.
func TestErrorTextInEveryKindOfEndpoint(t *testing.T) {
	t.Parallel()
	kinds := map[string]bool{}
	for _, name := range []string{"Stock.Depth", "Stock.Depths", "Stock.Quotes", "Stock.Klines", "Stock.SplitPage",
		"Crypto.Depth", "Crypto.Depths", "Crypto.Quotes", "Crypto.Klines", "Forex.Depths", "Forex.Quotes", "Forex.Klines",
		"Future.Depths", "Future.Quotes", "Future.Klines", "Fund.Depths", "Indices.Depths", "Indices.Quotes",
		"Indices.Klines", "News.List"} {
		kinds[name] = true
	}
	for _, tc := range endpoints() {
		if !kinds[tc.name] {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder("GET", mockBase+tc.path, body(200, string(fixture(t, "error_auth_failed.json"))))
			_, err := tc.call(t.Context(), c)
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) || apiErr.Path != tc.path || !errors.Is(err, itick.ErrUnauthorized) {
				t.Errorf("err = %v, want an *APIError for %s matching ErrUnauthorized", err, tc.path)
			}
		})
	}
}

// TestServiceErrorPassesThrough: the success rule applies to the new
// endpoints as to the old.
func TestServiceErrorPassesThrough(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder(http.MethodGet, mockBase+"/stock/quote", body(http.StatusOK, `{"code":0,"msg":"E001 not found this produce","data":null}`))
	_, err := c.Stock.Quote(t.Context(), itick.RegionUS, "ZZZZ")
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, itick.ErrNotFound) || apiErr.Path != "/stock/quote" {
		t.Fatalf("err = %#v, want an *APIError for /stock/quote matching ErrNotFound", err)
	}
}

// TestEmptyDataIsNotFound: the documented bodies with null and {} data are
// ErrNotFound for every single-object call, market status and news articles
// included.
func TestEmptyDataIsNotFound(t *testing.T) {
	t.Parallel()
	calls := []struct {
		path string
		call func(ctx context.Context, c *itick.Client) (any, error)
	}{
		{"/stock/quote", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Quote(ctx, itick.RegionHK, "700")
		}},
		{"/stock/depth", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Depth(ctx, itick.RegionHK, "700")
		}},
		{"/stock/tick", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Tick(ctx, itick.RegionHK, "700")
		}},
		{"/stock/info", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Info(ctx, itick.RegionHK, "700")
		}},
		{"/crypto/quote", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Crypto.Quote(ctx, itick.RegionBA, "BTCUSDT")
		}},
		{"/fund/depth", func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Fund.Depth(ctx, itick.RegionUS, "QQQ")
		}},
		{"/market/status", func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Status(ctx, itick.RegionHK) }},
		{"/news/42", func(ctx context.Context, c *itick.Client) (any, error) { return c.News.Get(ctx, "42", "en") }},
	}
	for _, fx := range []string{"empty_data_null.json", "empty_data_object.json"} {
		for _, tc := range calls {
			t.Run(fx+tc.path, func(t *testing.T) {
				t.Parallel()
				c, mt := newMockClient(t, testToken)
				mt.RegisterResponder(http.MethodGet, mockBase+tc.path, body(http.StatusOK, string(fixture(t, fx))))
				got, err := tc.call(t.Context(), c)
				if !errors.Is(err, itick.ErrNotFound) {
					t.Fatalf("err = %v, want ErrNotFound", err)
				}
				if v := reflect.ValueOf(got); !v.IsNil() {
					t.Errorf("got %v with the error, want nil", got)
				}
			})
		}
	}
	t.Run("kline {}", func(t *testing.T) {
		t.Parallel()
		c, mt := newMockClient(t, testToken)
		mt.RegisterResponder(http.MethodGet, mockBase+"/stock/kline", body(http.StatusOK, string(fixture(t, "empty_data_object.json"))))
		ks, err := c.Stock.Kline(t.Context(), itick.RegionHK, "700", itick.OneDay, 5)
		if !errors.Is(err, itick.ErrNotFound) || ks != nil {
			t.Fatalf("Kline = %v, %v; want nil, ErrNotFound", ks, err)
		}
	})
	t.Run("batch", func(t *testing.T) {
		t.Parallel()
		for _, fx := range []string{"empty_data_null.json", "empty_data_object.json"} {
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder(http.MethodGet, mockBase+"/stock/quotes", body(http.StatusOK, string(fixture(t, fx))))
			m, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if err != nil || m == nil || len(m) != 0 {
				t.Fatalf("%s: Quotes = %v (nil: %v), %v; want an empty map", fx, m, m == nil, err)
			}
		}
	})
}

// TestSingularNoDataIsNotFound: a quote, tick or depth answer with null data
// is ErrNotFound, never a nil value with a nil error.
func TestSingularNoDataIsNotFound(t *testing.T) {
	t.Parallel()
	calls := map[string]func(ctx context.Context, c *itick.Client) (any, error){
		"/forex/quote": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Forex.Quote(ctx, itick.RegionGB, "XXXYYY")
		},
		"/stock/tick": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Tick(ctx, itick.RegionUS, "NOPE")
		},
		"/fund/depth": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Fund.Depth(ctx, itick.RegionUS, "NOPE")
		},
	}
	for path, call := range calls {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder(http.MethodGet, mockBase+path, body(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
			got, err := call(t.Context(), c)
			if !errors.Is(err, itick.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path", err)
			}
			if v := reflect.ValueOf(got); !v.IsNil() {
				t.Errorf("got a value %v with the error", got)
			}
		})
	}
}

// TestDepthEmptyDataIsNotFound: a single depth whose data is null is
// ErrNotFound, not a nil book with a nil error.
func TestDepthEmptyDataIsNotFound(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder("GET", mockBase+"/stock/depth", body(200, `{"code":0,"msg":null,"data":null}`))
	book, err := c.Stock.Depth(t.Context(), itick.RegionHK, "700")
	if book != nil || !errors.Is(err, itick.ErrNotFound) {
		t.Fatalf("Depth = %v, %v; want nil and ErrNotFound", book, err)
	}
}

// TestKlineNoDataIsEmpty: a product without candles is an empty result.
func TestKlineNoDataIsEmpty(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder(http.MethodGet, mockBase+"/crypto/kline", body(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
	ks, err := c.Crypto.Kline(t.Context(), itick.RegionBA, "NEWUSDT", itick.OneDay, 5)
	if err != nil || len(ks) != 0 {
		t.Fatalf("Kline = %v, %v; want no candles and no error", ks, err)
	}
}

// Behaviour 4: every service's klines come back oldest first whatever order
// the service used.
func TestKlinesSortedOldestFirst(t *testing.T) {
	t.Parallel()
	type klinesFn func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	services := []struct {
		name string
		path string
		fn   func(c *itick.Client) klinesFn
	}{
		{"Stock", "/stock/klines", func(c *itick.Client) klinesFn { return c.Stock.Klines }},
		{"Crypto", "/crypto/klines", func(c *itick.Client) klinesFn { return c.Crypto.Klines }},
		{"Forex", "/forex/klines", func(c *itick.Client) klinesFn { return c.Forex.Klines }},
		{"Future", "/future/klines", func(c *itick.Client) klinesFn { return c.Future.Klines }},
		{"Indices", "/indices/klines", func(c *itick.Client) klinesFn { return c.Indices.Klines }},
	}
	const n = 60
	base := int64(1765000000000)
	var want []itick.Kline
	var wire []string
	for i := range n {
		want = append(want, itick.Kline{Time: ms(base + int64(i)*60000), Open: float64(i), Close: float64(i) + 0.5})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(n) {
		wire = append(wire, fmt.Sprintf(`{"t":%d,"o":%d,"c":%v}`, base+int64(i)*60000, i, float64(i)+0.5))
	}
	envelope := `{"code":0,"msg":null,"data":{"A":[` + strings.Join(wire, ",") + `],"B":[` +
		fmt.Sprintf(`{"t":%d,"o":2},{"t":%d,"o":1}`, base+60000, base) + `]}}`
	for _, svc := range services {
		t.Run(svc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder("GET", mockBase+svc.path, body(200, envelope))
			got, err := svc.fn(c)(t.Context(), "XX", []string{"A", "B"}, itick.OneMinute, n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got["A"]); diff != "" {
				t.Errorf("A (-want +got):\n%s", diff)
			}
			wantB := []itick.Kline{{Time: ms(base), Open: 1}, {Time: ms(base + 60000), Open: 2}}
			if diff := cmp.Diff(wantB, got["B"]); diff != "" {
				t.Errorf("B (-want +got):\n%s", diff)
			}
		})
	}
}
