package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// Tests of the plumbing every call shares: the success rule, empty
// answers, batches split into chunks and merged, and the rules that stop
// a batch.

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

// TestCodes_Escaped: codes with characters that mean something in a query
// string reach the service intact.
func TestCodes_Escaped(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	in := []string{"BRK.B", "A&B", "X=Y", "ES#1", "600519.SH", "a b"}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("BRK.B,A&B,X=Y,ES#1,600519.SH,a b", rec.all()[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if len(got) != len(in) {
		t.Errorf("%d quotes, want %d", len(got), len(in))
	}
}

// Behaviour 1: codes are trimmed and de-duplicated, first occurrence first,
// and case is kept.
func TestCodesTrimmedDedupedCaseKept(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, []string{" aapl", "AAPL ", "aapl", "\tMSFT\n", "AAPL", "Msft"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff("aapl,AAPL,MSFT,Msft", reqs[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"AAPL", "MSFT", "Msft", "aapl"}, sortedKeys(got)); diff != "" {
		t.Errorf("map keys (-want +got):\n%s", diff)
	}
}

// chunkServer answers quote requests for any codes, recording the chunk
// sizes and the most requests in flight at once. Requests hold until limit
// of them are in flight together and a moment has passed (or a safety
// bound passes), so a client that runs chunks concurrently reaches its
// limit and one that runs more than it shows them.
type chunkServer struct {
	limit    int
	inFlight atomic.Int64
	maxSeen  atomic.Int64
	once     sync.Once
	gate     chan struct{}
	mu       sync.Mutex
	sizes    []int
	sent     []string
}

func (s *chunkServer) responder(skip map[string]bool) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		cs := requestedCodes(req)
		s.mu.Lock()
		s.sizes = append(s.sizes, len(cs))
		s.sent = append(s.sent, cs...)
		s.mu.Unlock()
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxSeen.Load()
			if n <= m || s.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		if n >= int64(s.limit) {
			// Hold the gate a moment longer, so that a client running more
			// chunks than its limit shows them here.
			s.once.Do(func() { time.AfterFunc(30*time.Millisecond, func() { close(s.gate) }) })
		}
		select {
		case <-s.gate:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(5 * time.Second):
		}
		return httpmock.NewStringResponse(200, quotesEnvelope(cs, skip)), nil
	}
}

func newChunkServer(limit int) *chunkServer {
	return &chunkServer{limit: limit, gate: make(chan struct{})}
}

// Behaviour 2: codes go out in chunks of at most the batch size (plan or
// WithBatchSize), at most WithConcurrency at once, and come back merged into
// one map.
func TestChunksByPlanAndConcurrency(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		opts        []itick.Option
		n           int
		wantSizes   []int
		concurrency int
	}{
		{"PlanBase", []itick.Option{itick.WithPlan(itick.PlanBase)}, 25, []int{5, 10, 10}, 3},
		{"default plan and concurrency", nil, 50, []int{10, 10, 10, 10, 10}, 4},
		{"PlanProfessional", []itick.Option{itick.WithPlan(itick.PlanProfessional)}, 45, []int{5, 20, 20}, 3},
		{"PlanPremium", []itick.Option{itick.WithPlan(itick.PlanPremium)}, 120, []int{20, 50, 50}, 3},
		{"WithBatchSize over plan", []itick.Option{itick.WithPlan(itick.PlanPremium), itick.WithBatchSize(7)}, 20, []int{6, 7, 7}, 3},
		{"WithBatchSize before plan", []itick.Option{itick.WithBatchSize(3), itick.WithPlan(itick.PlanProfessional)}, 7, []int{1, 3, 3}, 3},
		{"WithConcurrency 2", []itick.Option{itick.WithBatchSize(1), itick.WithConcurrency(2)}, 10, slices.Repeat([]int{1}, 10), 2},
		{"WithConcurrency 1", []itick.Option{itick.WithBatchSize(2), itick.WithConcurrency(1)}, 6, []int{2, 2, 2}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, tc.opts...)
			itick.ConfirmClient(c) // fans out from the first chunk
			srv := newChunkServer(tc.concurrency)
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", srv.responder(nil))
			in := codes(tc.n)
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, in)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(srv.sizes)
			if diff := cmp.Diff(tc.wantSizes, srv.sizes); diff != "" {
				t.Errorf("chunk sizes (-want +got):\n%s", diff)
			}
			if m := srv.maxSeen.Load(); m != int64(tc.concurrency) {
				t.Errorf("max chunks in flight = %d, want %d", m, tc.concurrency)
			}
			slices.Sort(srv.sent)
			want := slices.Sorted(slices.Values(in))
			if diff := cmp.Diff(want, srv.sent); diff != "" {
				t.Errorf("codes sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, sortedKeys(got)); diff != "" {
				t.Errorf("merged keys (-want +got):\n%s", diff)
			}
			for _, code := range in {
				if got[code].Symbol != code {
					t.Errorf("got[%q].Symbol = %q", code, got[code].Symbol)
				}
			}
		})
	}
}

// Behaviour 2: a code the service leaves out is not in the map and is not an
// error, in one chunk or several.
func TestMissingCodeIsAbsent(t *testing.T) {
	t.Parallel()
	for _, batchSize := range []int{10, 2} {
		t.Run(fmt.Sprintf("batch%d", batchSize), func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithBatchSize(batchSize))
			mt.RegisterResponder("GET", mockBase+"/crypto/quotes", func(req *http.Request) (*http.Response, error) {
				return httpmock.NewStringResponse(200, quotesEnvelope(requestedCodes(req), map[string]bool{"C3": true})), nil
			})
			got, err := c.Crypto.Quotes(t.Context(), itick.RegionBA, codes(5))
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if diff := cmp.Diff([]string{"C0", "C1", "C2", "C4"}, sortedKeys(got)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if _, ok := got["C3"]; ok {
				t.Error("C3 is in the map")
			}
		})
	}
}

// Behaviour 3: a call that fits one chunk returns that chunk's *APIError
// itself, not a *BatchError.
func TestSingleChunkErrorAsIs(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(401, string(fixture(t, "error_gateway.json"))))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	if got != nil {
		t.Errorf("map = %v, want nil", got)
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		t.Fatalf("err is a *BatchError: %v", err)
	}
	apiErr, ok := err.(*itick.APIError)
	if !ok {
		t.Fatalf("err is %T (%v), want *itick.APIError as is", err, err)
	}
	want := &itick.APIError{StatusCode: 401, Message: "Invalid API key in request", Path: "/stock/quotes"}
	if diff := cmp.Diff(want, apiErr, ignoreEvidence); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Error("err does not match ErrUnauthorized")
	}
}

// Behaviour 3: with several chunks, the merged results of the chunks that
// succeeded come back with a *BatchError naming exactly the missing codes;
// errors.Is/As see each chunk's error.
func TestPartialResultsAndBatchError(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/stock/klines", func(req *http.Request) (*http.Response, error) {
		cs := requestedCodes(req)
		switch cs[0] {
		case "C2":
			return httpmock.NewStringResponse(200, string(fixture(t, "error_e001.json"))), nil
		case "C6": // not E003 nor a refused token: those end the whole batch (behaviour 11)
			return httpmock.NewStringResponse(500, `{"code":500,"msg":"internal error"}`), nil
		}
		data := map[string]string{}
		for _, code := range cs {
			data[code] = fmt.Sprintf(`[{"t":1765526400000,"o":1,"h":2,"l":0.5,"c":%d,"v":10,"tu":20}]`, len(code))
		}
		parts := make([]string, 0, len(data))
		for k, v := range data {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
		return httpmock.NewStringResponse(200, `{"code":0,"msg":null,"data":{`+strings.Join(parts, ",")+`}}`), nil
	})
	got, err := c.Stock.Klines(t.Context(), itick.RegionHK, codes(8), itick.OneDay, 1)
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C0", "C1", "C4", "C5"}, sortedKeys(got)); diff != "" {
		t.Errorf("partial results (-want +got):\n%s", diff)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"C2", "C3", "C6", "C7"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if len(be.Chunks) != 2 {
		t.Fatalf("%d failed chunks, want 2", len(be.Chunks))
	}
	for _, ch := range be.Chunks {
		if len(ch.Codes) != 2 || ch.Err == nil {
			t.Errorf("chunk %+v: want 2 codes and an error", ch)
		}
	}
	if len(be.Unwrap()) != 2 {
		t.Errorf("Unwrap gives %d errors, want 2", len(be.Unwrap()))
	}
	if !errors.Is(err, itick.ErrNotFound) {
		t.Errorf("errors.Is does not see through the BatchError to ErrNotFound: %v", err)
	}
	if !slices.ContainsFunc(be.Unwrap(), func(e error) bool {
		var ae *itick.APIError
		return errors.As(e, &ae) && ae.StatusCode == 500
	}) {
		t.Errorf("no chunk carries the 500: %v", err)
	}
	if errors.Is(err, itick.ErrUnauthorized) {
		t.Error("err matches ErrUnauthorized, which no chunk had")
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.Path != "/stock/klines" || apiErr.StatusCode != 200 {
		t.Errorf("errors.As(*APIError) = %+v", apiErr)
	}
	if !strings.Contains(err.Error(), "2 chunk") {
		t.Errorf("BatchError text %q does not count the failed chunks", err)
	}
}

// Behaviour 3: every chunk failing still gives a *BatchError with every
// code, and an empty map.
func TestAllChunksFail(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(3), itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/future/quotes", body(500, "upstream exploded"))
	got, err := c.Future.Quotes(t.Context(), itick.RegionUS, codes(7))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	if len(got) != 0 {
		t.Errorf("map = %v, want empty", got)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff(codes(7), failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("errors.As(*APIError) = %+v, want status 500", apiErr)
	}
}

// TestTicksChunked: Ticks splits its codes like every batch call and reports
// a failed chunk's codes.
func TestTicksChunked(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	var mu sync.Mutex
	var chunks [][]string
	mt.RegisterResponder(http.MethodGet, mockBase+"/crypto/ticks", func(req *http.Request) (*http.Response, error) {
		codes := strings.Split(req.URL.Query().Get("codes"), ",")
		mu.Lock()
		chunks = append(chunks, codes)
		mu.Unlock()
		if slices.Contains(codes, "BAD") {
			return httpmock.NewStringResponse(http.StatusBadRequest, `{"code":400,"msg":"bad request","data":null}`), nil
		}
		data := map[string]any{}
		for i, code := range codes {
			data[code] = map[string]any{"s": code, "ld": i + 1, "t": 1765526889000, "v": 0.5}
		}
		b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
		return httpmock.NewBytesResponse(http.StatusOK, b), nil
	})

	got, err := c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "C", "A", "D", "E"})
	if err != nil {
		t.Fatalf("Ticks: %v", err)
	}
	if len(chunks) != 3 {
		t.Fatalf("sent %d chunks, want 3: %v", len(chunks), chunks)
	}
	var sent []string
	for _, ch := range chunks {
		if len(ch) > 2 {
			t.Errorf("chunk %v has more than 2 codes", ch)
		}
		sent = append(sent, ch...)
	}
	slices.Sort(sent)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	keys := make([]string, 0, len(got))
	for k, v := range got {
		if v.Symbol != k {
			t.Errorf("got[%q].Symbol = %q", k, v.Symbol)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, keys); diff != "" {
		t.Errorf("merged keys (-want +got):\n%s", diff)
	}

	got, err = c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "BAD", "C"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"BAD", "C"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if _, ok := got["A"]; !ok || len(got) != 2 {
		t.Errorf("partial results = %v, want A and B", got)
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

// Behaviour 11: a refused token or a plan limit fails every chunk alike, so
// the first one ends the call: no further chunk is sent and the error comes
// back as it is, with no results.
func TestRefusalEndsTheBatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		is     error
	}{
		{"401", http.StatusUnauthorized, `{"code":401,"msg":"Invalid API key"}`, itick.ErrUnauthorized},
		{"403", http.StatusForbidden, `{"message":"Forbidden"}`, itick.ErrUnauthorized},
		{"E002", http.StatusOK, `{"code":2,"msg":"E002 auth failed","data":null}`, itick.ErrUnauthorized},
		{"E003", http.StatusOK, `{"code":3,"msg":"E003 exceeding the maximum subscription limit","data":null}`, itick.ErrPlanLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n.Add(1)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			c := newServerClient(t, srv, testToken, itick.WithPlan(itick.PlanBase), itick.WithConcurrency(1))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
			if _, ok := err.(*itick.APIError); !ok {
				t.Fatalf("err = %v (%T), want the chunk's *APIError as it is", err, err)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if got != nil {
				t.Errorf("results = %v, want none", got)
			}
			if m := n.Load(); m != 1 {
				t.Errorf("%d requests for 30 chunks, want 1", m)
			}
		})
	}
}

// Behaviour 11: with several chunks in flight, the first refusal cancels the
// others and sends no more.
func TestRefusalCancelsChunksInFlight(t *testing.T) {
	t.Parallel()
	const conc = 4
	var n, cancelled atomic.Int64
	arrived := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if requestedCodes(r)[0] == "C0" {
			// Refuse only once the other chunks are in flight.
			for range conc - 1 {
				select {
				case <-arrived:
				case <-r.Context().Done():
					return
				}
			}
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":401,"msg":"Invalid API key"}`)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // held until the client gives up on it
		cancelled.Add(1)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(10), itick.WithConcurrency(conc))
	itick.ConfirmClient(c) // fans out from the first chunk
	done := make(chan error, 1)
	go func() {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
		done <- err
	}()
	err := waitOrFail(t, done, "the batch to end")
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		t.Errorf("err is a *BatchError: %v", err)
	}
	if m := n.Load(); m != conc {
		t.Errorf("%d requests, want the %d in flight and no more", m, conc)
	}
	// The held chunks' requests end because the client cancelled them.
	deadline := time.Now().Add(10 * time.Second)
	for cancelled.Load() != conc-1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if m := cancelled.Load(); m != conc-1 {
		t.Errorf("%d chunks in flight were cancelled, want %d", m, conc-1)
	}
}

// Behaviour 11: a 429 asking for more than a minute stops the batch: the
// results that arrived come back with a *BatchError whose unsent chunks
// carry that 429.
func TestLongRetryAfterSendsNoMoreChunks(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		cs := requestedCodes(r)
		if cs[0] == "C2" {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			return
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(1), itick.WithRetries(3))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C0", "C1"}, sortedKeys(got)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if m := n.Load(); m != 2 {
		t.Errorf("%d requests, want 2: none after the long 429", m)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 2*time.Minute {
			t.Errorf("chunk %v: err = %v, want the 429 with RetryAfter 2m", ch.Codes, ch.Err)
		}
	}
	if !errors.Is(err, itick.ErrRateLimited) {
		t.Errorf("err = %v, want one matching ErrRateLimited", err)
	}
}

// Behaviour 11: a chunk already in flight when the long 429 arrives
// finishes, and its results are kept. (How many chunks a second worker
// starts before the 429 is seen depends on scheduling, so only
// TestLongRetryAfterSendsNoMoreChunks counts requests.)
func TestLongRetryAfterKeepsChunksInFlight(t *testing.T) {
	t.Parallel()
	// The 429 is answered only once the second chunk is in flight, and
	// that chunk is answered only after the 429, so the second chunk is in
	// flight when the call learns of the 429 however the workers are
	// scheduled.
	refused, inFlight := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs := requestedCodes(r)
		switch cs[0] {
		case "C0":
			select {
			case <-inFlight:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			close(refused)
			return
		case "C2":
			close(inFlight)
			select {
			case <-refused:
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(2))
	itick.ConfirmClient(c) // fans out from the first chunk
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if _, ok := got["C2"]; !ok {
		t.Errorf("results = %v, want the chunk in flight (C2, C3) kept", sortedKeys(got))
	}
	all := append(sortedKeys(got), be.FailedCodes()...)
	slices.Sort(all)
	if diff := cmp.Diff(codes(10), all); diff != "" {
		t.Errorf("results and FailedCodes together (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Hour {
			t.Errorf("chunk %v: err = %v, want the 429", ch.Codes, ch.Err)
		}
	}
	if !slices.Contains(be.FailedCodes(), "C0") {
		t.Errorf("FailedCodes = %v, want the 429's chunk among them", be.FailedCodes())
	}
}

// Behaviour 16: until the client has had one success, a batch call sends
// its first chunk alone, so a refused token costs one request; once one
// call has succeeded, batch calls fan out at once.
func TestBadTokenCostsOneRequest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var inFlight, most, requests int
	token := "good-token-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		if r.Header.Get("token") != token {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Invalid API key in request"}`))
			return
		}
		time.Sleep(20 * time.Millisecond) // long enough for chunks sent together to overlap
		codes := strings.Split(r.URL.Query().Get("codes"), ",")
		var b strings.Builder
		for i, c := range codes {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `%q:{"s":%q,"ld":1}`, c, c)
		}
		fmt.Fprintf(w, `{"code":0,"data":{%s}}`, b.String())
	}))
	codes := make([]string, 300)
	for i := range codes {
		codes[i] = fmt.Sprintf("C%d", i)
	}
	bad := newServerClient(t, srv, "bad-token-0123456789")
	if _, err := bad.Stock.Quotes(context.Background(), itick.RegionHK, codes); !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	mu.Lock()
	if requests != 1 {
		t.Errorf("a refused token cost %d requests, want 1", requests)
	}
	mu.Unlock()

	good := newServerClient(t, srv, token, itick.WithConcurrency(4))
	for round := range 2 {
		mu.Lock()
		requests, most = 0, 0
		mu.Unlock()
		got, err := good.Stock.Quotes(context.Background(), itick.RegionHK, codes[:80])
		if err != nil || len(got) != 80 {
			t.Fatalf("round %d: %d quotes, %v", round, len(got), err)
		}
		mu.Lock()
		if round == 1 && most < 2 {
			t.Errorf("after a success, %d chunk at most in flight, want the batch fanned out", most)
		}
		if requests != 8 {
			t.Errorf("round %d: %d requests for 80 codes, want 8", round, requests)
		}
		mu.Unlock()
	}
}

// Behaviour 17: a result map holds only what was asked; a code the service
// sent but nobody asked for is dropped, and no code is both in the map and
// in FailedCodes.
func TestResultMapsHoldOnlyRequestedCodes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		codes := r.URL.Query().Get("codes")
		if strings.Contains(codes, "FAIL") {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		first, _, _ := strings.Cut(codes, ",")
		// Every answer names codes of another chunk and a code nobody asked for.
		fmt.Fprintf(w, `{"code":0,"data":{%q:{"ld":1},"FAIL1":{"ld":2},"EXTRA":{"ld":3},"aapl":{"ld":4}}}`, first)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	got, err := c.Stock.Quotes(context.Background(), itick.RegionUS, []string{"AAPL", "MSFT", "FAIL1", "FAIL2", "IBM"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BatchError", err)
	}
	keys := slices.Sorted(maps.Keys(got))
	if diff := cmp.Diff([]string{"AAPL", "IBM"}, keys); diff != "" {
		t.Errorf("result map keys (-want +got):\n%s", diff)
	}
	for _, code := range be.FailedCodes() {
		if _, ok := got[code]; ok {
			t.Errorf("%s is both in the map and in FailedCodes", code)
		}
	}
	if diff := cmp.Diff([]string{"MSFT", "FAIL1", "FAIL2"}, itick.MissingCodes([]string{"AAPL", "MSFT", "FAIL1", "FAIL2", "IBM"}, got)); diff != "" {
		t.Errorf("MissingCodes (-want +got):\n%s", diff)
	}
}

// MissingCodes normalises as the batch calls do, keeps request order and
// skips codes a batch call refuses; a REST code in the stream's code$REGION
// form is refused before anything is sent.
func TestMissingCodesAndTheStreamsForm(t *testing.T) {
	t.Parallel()
	got := map[string]itick.Quote{"700": {}, "9988": {}}
	want := []string{"3690", "5"}
	if diff := cmp.Diff(want, itick.MissingCodes([]string{" 700", "3690 ", "", "a,b", "9988", "3690", "5", "700$HK", "x\ty"}, got)); diff != "" {
		t.Errorf("MissingCodes (-want +got):\n%s", diff)
	}
	if m := itick.MissingCodes[itick.Quote](nil, nil); m != nil {
		t.Errorf("MissingCodes(nil, nil) = %v", m)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := newServerClient(t, srv, testToken)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"Quotes": func() error { _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700$HK"}); return err },
		"Quote":  func() error { _, err := c.Stock.Quote(ctx, itick.RegionHK, "700$HK"); return err },
		"Klines": func() error {
			_, err := c.Stock.Klines(ctx, itick.RegionHK, []string{"9988", "700$HK"}, itick.OneDay, 5)
			return err
		},
	} {
		err := call()
		if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), `"700"`) || !strings.Contains(err.Error(), `"HK"`) {
			t.Errorf("%s with 700$HK: %v, want ErrInvalidArgument naming the code and the region apart", name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
