package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of Client.Get, the call to endpoints the SDK does not model.

// TestGetRequest: the path joins the base URL's own path, the query is sent
// as given, and the request carries what every typed call's does.
func TestGetRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		basePath  string
		path      string
		query     url.Values
		wantPath  string // as the server sees it, escaped
		wantQuery string
	}{
		{"root", "", "/stock/quote", url.Values{"region": {"HK"}, "code": {"700"}}, "/stock/quote", "code=700&region=HK"},
		{"base path", "/v1", "/stock/quote", url.Values{"region": {"HK"}}, "/v1/stock/quote", "region=HK"},
		{"base path with slash", "/v1/", "/symbol/info", nil, "/v1/symbol/info", ""},
		{"nil query", "", "/symbol/v2/holidays", nil, "/symbol/v2/holidays", ""},
		{"trailing slash", "", "/news/", nil, "/news/", ""},
		{"escaped segment", "/v1", "/news/a%20b", nil, "/v1/news/a%20b", ""},
		{"escaped percent", "", "/news/100%25", nil, "/news/100%25", ""},
		{"unescaped space", "", "/news/a b", nil, "/news/a%20b", ""},
		{"dots inside a name", "", "/stock/BRK.B/...x", nil, "/stock/BRK.B/...x", ""},
		{"query needing escapes", "", "/news", url.Values{"cursor": {"a&b=c d"}}, "/news", "cursor=a%26b%3Dc+d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := newScript(ok(`{"code":0,"msg":null,"data":{"x":1}}`))
			srv := httptest.NewServer(script)
			c := newServerClient(t, srv, testToken, itick.WithBaseURL(srv.URL+tt.basePath), itick.WithUserAgent("bot/2"))
			var got json.RawMessage
			if err := c.Get(t.Context(), tt.path, tt.query, &got); err != nil {
				t.Fatal(err)
			}
			if string(got) != `{"x":1}` {
				t.Errorf("out = %s, want the data as sent", got)
			}
			reqs := script.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodGet || r.URL.EscapedPath() != tt.wantPath || r.URL.RawQuery != tt.wantQuery {
				t.Errorf("%s %s?%s, want GET %s?%s", r.Method, r.URL.EscapedPath(), r.URL.RawQuery, tt.wantPath, tt.wantQuery)
			}
			if r.Header.Get("token") != testToken || r.Header.Get("Accept") != "application/json" ||
				!strings.HasPrefix(r.Header.Get("User-Agent"), "bot/2 itick-go/") {
				t.Errorf("headers %v", r.Header)
			}
		})
	}
}

// TestGetRefusesBadPaths: a path that could leave the base URL's endpoints,
// or that servers read differently, is ErrInvalidArgument and sends nothing.
func TestGetRefusesBadPaths(t *testing.T) {
	t.Parallel()
	script := newScript(ok(`{"code":0,"data":{}}`))
	srv := httptest.NewServer(script)
	c := newServerClient(t, srv, testToken, itick.WithBaseURL(srv.URL+"/v1"))
	bad := []string{
		"",
		"stock/quote",
		"./stock/quote",
		"http://evil.example/x",
		"https://evil.example",
		"//evil.example/x",
		"///x",
		"/stock/quote?region=HK",
		"/stock/quote#top",
		"/stock/?",
		"/..",
		"/.",
		"/stock/../news",
		"/stock/./quote",
		"/stock/quote/..",
		"/a/%2e%2e/b",
		"/a/%2E%2e/b",
		"/a/.%2E/b",
		"/a/%2e/b",
		"/a/%252e%252e/b",
		"/a/%25252E./b",
		"/a/..%2fb",
		"/a%2F..%2Fb",
		"/a/%2f",
		"/a/%252F",
		"/a/%5c..",
		"/a\\..\\b",
		"/a//b",
		"/a/%zz",
		"/a/%",
		"/a/\x00",
		"/a/b\n",
	}
	for _, p := range bad {
		err := c.Get(t.Context(), p, nil, nil)
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Get(%q) = %v, want ErrInvalidArgument", p, err)
		}
	}
	var wrongOut struct{ X int }
	var nilPtr *json.RawMessage
	for _, out := range []any{wrongOut, nilPtr, "x"} {
		if err := c.Get(t.Context(), "/stock/quote", nil, out); !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Get(out %T) = %v, want ErrInvalidArgument", out, err)
		}
	}
	var nilCtx context.Context
	if err := c.Get(nilCtx, "/stock/quote", nil, nil); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("nil context: %v, want ErrInvalidArgument", err)
	}
	if n := len(script.requests()); n != 0 {
		t.Errorf("%d requests reached the server, want none", n)
	}
	if st := c.Stats(); st.Requests != 0 || st.Errors != 0 {
		t.Errorf("refused calls counted as requests: %+v", st)
	}
}

// Behaviour (Client.Get): segments that proxies reinterpret are refused as
// an encoded '/' is: "..;" (Tomcat and Spring read it as ".."), and an
// encoded '?' or '#' (a decoding proxy moves the rest into the query or the
// fragment).
func TestGetRefusesSegmentsProxiesReinterpret(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"code":0,"data":null}`))
	}))
	c := newServerClient(t, srv, testToken)
	for _, path := range []string{
		"/..;/admin", "/stock/..;/admin", "/.;x/admin", "/stock/%2e%2e;/admin", "/stock/..%3B/admin",
		"/stock/quote%3Fcode=1", "/stock/quote%23frag", "/stock/%253F/x", "/stock/%2523",
	} {
		if err := c.Get(context.Background(), path, nil, nil); !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Get(%q) = %v, want ErrInvalidArgument", path, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
	if err := c.Get(context.Background(), "/stock/quote;v=1", nil, nil); err != nil {
		t.Errorf("a segment with a parameter that is not a dot segment: %v", err)
	}
}

// getLikeJSON calls Get with a fresh T (set to init) and decodes the same
// body as encoding/json would, into a wrapper of the same T.
func getLikeJSON[T any](t *testing.T, c *itick.Client, body string, init T) (got, want T) {
	t.Helper()
	got = init
	if err := c.Get(t.Context(), "/anything", nil, &got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	wrapper := struct {
		Data T `json:"data"`
	}{init}
	if err := json.Unmarshal([]byte(body), &wrapper); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return got, wrapper.Data
}

// TestGetDecodesAsEncodingJSON: out receives data exactly as encoding/json
// decodes it, null and a missing data included.
func TestGetDecodesAsEncodingJSON(t *testing.T) {
	t.Parallel()
	type symbol struct {
		Code string  `json:"c"`
		Cap  float64 `json:"mcb"`
	}
	bodies := []string{
		`{"code":0,"msg":null,"data":{"c":"700","mcb":5.1e12,"extra":[1,2]}}`,
		`{"code":0,"msg":"ok","data":null}`,
		`{"code":0,"msg":"ok"}`,
		`{"code":200,"msg":"ok","data":{"c":"AAPL"}}`,
		`{"code":0,"data":{ "c" : "9988" ,"mcb": 1}}`,
	}
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			script := newScript(ok(body))
			srv := httptest.NewServer(script)
			c := newServerClient(t, srv, testToken)
			if got, want := getLikeJSON(t, c, body, json.RawMessage(nil)); string(got) != string(want) {
				t.Errorf("RawMessage %q, encoding/json %q", got, want)
			}
			if got, want := getLikeJSON(t, c, body, json.RawMessage(`"before"`)); string(got) != string(want) {
				t.Errorf("RawMessage over a value %q, encoding/json %q", got, want)
			}
			got, want := getLikeJSON(t, c, body, &symbol{Code: "before"})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pointer to struct (-encoding/json +Get):\n%s", diff)
			}
			gotMap, wantMap := getLikeJSON(t, c, body, map[string]any{"kept": true})
			if diff := cmp.Diff(wantMap, gotMap); diff != "" {
				t.Errorf("map (-encoding/json +Get):\n%s", diff)
			}
			if err := c.Get(t.Context(), "/anything", nil, nil); err != nil {
				t.Errorf("nil out: %v", err)
			}
		})
	}
}

// TestGetAppliesTheSuccessRule: what fails a typed call fails Get, also
// with a nil out, as an *APIError carrying the path.
func TestGetAppliesTheSuccessRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  scriptReply
		is     error
		status int
		code   int
	}{
		{"not found", ok(`{"code":1,"msg":"E001 not found this produce","data":null}`), itick.ErrNotFound, 200, 1},
		{"auth text with code 0", ok(`{"code":0,"msg":"auth failed","data":null}`), itick.ErrUnauthorized, 200, 0},
		{"string E-code", ok(`{"code":"E003","msg":"exceeding the maximum subscription limit"}`), itick.ErrPlanLimit, 200, 0},
		{"gateway 401", scriptReply{status: 401, body: `{"message":"Invalid API key"}`}, itick.ErrUnauthorized, 401, 0},
		{"gateway body on 200", ok(`{"message":"Forbidden"}`), nil, 200, 0},
		{"not JSON", ok(`<html>oops</html>`), nil, 200, 0},
		{"truncated", ok(`{"code":0,"data":{"c":`), nil, 200, 0},
		{"empty", ok(``), nil, 200, 0},
		{"not found status", scriptReply{status: 404, body: `404 page not found`}, itick.ErrNotFound, 404, 0},
		{"bad request", scriptReply{status: 400, body: `{"code":400,"msg":"region is required"}`}, nil, 400, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := newScript(tt.reply)
			srv := httptest.NewServer(script)
			c := newServerClient(t, srv, testToken)
			for _, out := range []any{nil, new(json.RawMessage)} {
				err := c.Get(t.Context(), "/symbol/info", url.Values{"code": {"700"}}, out)
				var apiErr *itick.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("out %T: %v, want an *APIError", out, err)
				}
				if apiErr.Path != "/symbol/info" || apiErr.StatusCode != tt.status || apiErr.Code != tt.code {
					t.Errorf("out %T: %+v", out, apiErr)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("out %T: %v, want %v", out, err, tt.is)
				}
				if raw, ok := out.(*json.RawMessage); ok && *raw != nil {
					t.Errorf("a failed call filled out with %s", *raw)
				}
			}
		})
	}
}

// TestGetRetries: Get retries what typed calls retry, honours Retry-After,
// and gives up on a Retry-After past the bound with the wait in the error.
func TestGetRetries(t *testing.T) {
	t.Parallel()
	okBody := `{"code":0,"data":[1,2]}`
	t.Run("429 and 503 then success", func(t *testing.T) {
		t.Parallel()
		script := newScript(scriptReply{status: 429, header: http.Header{"Retry-After": {"0"}}, body: `{"code":429}`},
			scriptReply{status: 503, body: `busy`},
			ok(okBody))
		srv := httptest.NewServer(script)
		lim := &countingLimiter{}
		c := newServerClient(t, srv, testToken, itick.WithLimiter(lim))
		var got []int
		if err := c.Get(t.Context(), "/stock/quote", nil, &got); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(got, []int{1, 2}) || len(script.requests()) != 3 || lim.n.Load() != 3 {
			t.Errorf("got %v after %d requests and %d limiter waits, want [1 2], 3, 3", got, len(script.requests()), lim.n.Load())
		}
	})
	t.Run("Retry-After past the bound", func(t *testing.T) {
		t.Parallel()
		script := newScript(scriptReply{status: 429, header: http.Header{"Retry-After": {"3600"}}, body: `{}`})
		srv := httptest.NewServer(script)
		c := newServerClient(t, srv, testToken)
		err := c.Get(t.Context(), "/stock/quote", nil, nil)
		var apiErr *itick.APIError
		if !errors.Is(err, itick.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour {
			t.Errorf("%v, want ErrRateLimited with RetryAfter 1h", err)
		}
		if n := len(script.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("not retried", func(t *testing.T) {
		t.Parallel()
		script := newScript(scriptReply{status: 400, body: `{"code":400,"msg":"bad"}`}, ok(okBody))
		srv := httptest.NewServer(script)
		c := newServerClient(t, srv, testToken)
		if err := c.Get(t.Context(), "/stock/quote", nil, nil); err == nil || len(script.requests()) != 1 {
			t.Errorf("%v after %d requests, want an error after 1", err, len(script.requests()))
		}
	})
	t.Run("retries off", func(t *testing.T) {
		t.Parallel()
		script := newScript(scriptReply{status: 503, body: `busy`}, ok(okBody))
		srv := httptest.NewServer(script)
		c := newServerClient(t, srv, testToken, itick.WithRetries(0))
		if err := c.Get(t.Context(), "/stock/quote", nil, nil); err == nil || len(script.requests()) != 1 {
			t.Errorf("%v after %d requests, want an error after 1", err, len(script.requests()))
		}
	})
}

// TestGetSizeBound: a body over WithMaxResponseBytes is an error and is not
// retried.
func TestGetSizeBound(t *testing.T) {
	t.Parallel()
	big := `{"code":0,"data":"` + strings.Repeat("x", 4096) + `"}`
	script := newScript(ok(big))
	srv := httptest.NewServer(script)
	c := newServerClient(t, srv, testToken, itick.WithMaxResponseBytes(1024))
	var got json.RawMessage
	err := c.Get(t.Context(), "/news", nil, &got)
	if err == nil || got != nil {
		t.Fatalf("%v, %d bytes; want an error", err, len(got))
	}
	if n := len(script.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (not retried)", n)
	}
}

// TestGetCancelled: a cancelled context ends Get with context.Canceled.
func TestGetCancelled(t *testing.T) {
	t.Parallel()
	lim := &blockingLimiter{entered: make(chan struct{}, 1)}
	script := newScript(ok(`{"code":0}`))
	srv := httptest.NewServer(script)
	c := newServerClient(t, srv, testToken, itick.WithLimiter(lim))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Get(ctx, "/stock/quote", nil, nil) }()
	waitOrFail(t, lim.entered, "the limiter wait")
	cancel()
	if err := waitOrFail(t, done, "Get to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("%v, want context.Canceled", err)
	}
	if n := len(script.requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

// TestGetKeepsTheToken: the token goes only to the base URL's origin, and
// appears in no error or log line, whatever the service echoes.
func TestGetKeepsTheToken(t *testing.T) {
	t.Parallel()
	otherScript := newScript(ok(`{"code":0,"data":{"moved":true}}`))
	other := httptest.NewServer(otherScript)
	t.Cleanup(other.Close)
	homeScript := newScript(scriptReply{status: 302, header: http.Header{"Location": {other.URL + "/elsewhere"}}},
		scriptReply{status: 500, body: `{"code":500,"msg":"bad token ` + testToken + `"}`})
	home := httptest.NewServer(homeScript)
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newServerClient(t, home, testToken, itick.WithLogger(logger), itick.WithRetries(0))

	var got map[string]bool
	if err := c.Get(t.Context(), "/symbol/info", url.Values{"code": {"700"}}, &got); err != nil || !got["moved"] {
		t.Fatalf("%v, %v; want the redirect followed", got, err)
	}
	if r := otherScript.requests(); len(r) != 1 {
		t.Errorf("the other origin got %d requests, want 1", len(r))
	} else if tok := r[0].Header.Get("token"); tok != "" {
		t.Errorf("the other origin got token %q", tok)
	}
	if r := homeScript.requests(); r[0].Header.Get("token") != testToken {
		t.Errorf("the base URL's origin got token %q", r[0].Header.Get("token"))
	}
	err := c.Get(t.Context(), "/symbol/info", nil, nil)
	if err == nil || strings.Contains(err.Error(), testToken) || strings.Contains(fmt.Sprintf("%+v", err), testToken) {
		t.Errorf("error %v: want one without the token", err)
	}
	out := logs.String()
	if strings.Count(out, "path=/symbol/info") < 2 || strings.Contains(out, testToken) {
		t.Errorf("log lines name no path or carry the token:\n%s", out)
	}
}

// TestGetAgainstMarkettest calls the simulator's /symbol/info, which the SDK
// does not model, and a modelled endpoint, comparing with the typed call.
func TestGetAgainstMarkettest(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC)
	c, _ := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return now })})
	ctx := t.Context()

	var info struct {
		Code     string `json:"c"`
		Name     string `json:"n"`
		Exchange string `json:"e"`
	}
	if err := c.Get(ctx, "/symbol/info", url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"700"}}, &info); err != nil {
		t.Fatal(err)
	}
	syms, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionHK, "700")
	if err != nil || len(syms) != 1 {
		t.Fatalf("%v, %v", syms, err)
	}
	if info.Code != syms[0].Code || info.Name != syms[0].Name || info.Exchange != syms[0].Exchange {
		t.Errorf("Get gave %+v, the symbol list %+v", info, syms[0])
	}
	err = c.Get(ctx, "/symbol/info", url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"NOPE"}}, &info)
	if !errors.Is(err, itick.ErrNotFound) {
		t.Errorf("an unknown code: %v, want ErrNotFound", err)
	}

	var raw json.RawMessage
	if err := c.Get(ctx, "/stock/quote", url.Values{"region": {"HK"}, "code": {"700"}}, &raw); err != nil {
		t.Fatal(err)
	}
	var fromRaw itick.Quote
	if err := json.Unmarshal(raw, &fromRaw); err != nil {
		t.Fatal(err)
	}
	typed, err := c.Stock.Quote(ctx, itick.RegionHK, "700")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*typed, fromRaw); diff != "" {
		t.Errorf("Get and Stock.Quote differ (-typed +Get):\n%s", diff)
	}
}
