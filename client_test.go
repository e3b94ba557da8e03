package itick_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"go.uber.org/goleak"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// Tests of NewClient and NewClientFromEnv: arguments, defaults, the
// environment, and one client used from many goroutines.

// TestNewClient_InvalidArguments: an empty token and every bad option fail
// with ErrInvalidArgument, naming what was wrong.
func TestNewClient_InvalidArguments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		token   string
		opt     itick.Option
		wantMsg string
	}{
		{"empty token", "", nil, "token"},
		{"blank token", "  \t", nil, "token"},
		{"token with newline", "abc\ndef", nil, "token"},
		{"nil option", testToken, nil, "option"},
		{"base URL without scheme", testToken, itick.WithBaseURL("api.itick.org"), "api.itick.org"},
		{"base URL ftp", testToken, itick.WithBaseURL("ftp://api.itick.org"), "ftp://api.itick.org"},
		{"base URL without host", testToken, itick.WithBaseURL("https://"), "https://"},
		{"base URL unparseable", testToken, itick.WithBaseURL("http://[::1"), "http://[::1"},
		{"base URL with query", testToken, itick.WithBaseURL("https://api.itick.org/?token=x"), "query"},
		{"nil http.Client", testToken, itick.WithHTTPClient(nil), "WithHTTPClient"},
		{"unknown plan", testToken, itick.WithPlan(itick.Plan(42)), "42"},
		{"negative plan", testToken, itick.WithPlan(itick.Plan(-1)), "-1"},
		{"batch size 0", testToken, itick.WithBatchSize(0), "0"},
		{"batch size negative", testToken, itick.WithBatchSize(-4), "-4"},
		{"rate 0", testToken, itick.WithRateLimit(0, 1), "WithRateLimit"},
		{"rate negative", testToken, itick.WithRateLimit(-2, 1), "-2"},
		{"burst 0", testToken, itick.WithRateLimit(10, 0), "burst 0"},
		{"nil limiter", testToken, itick.WithLimiter(nil), "WithLimiter"},
		{"max response 0", testToken, itick.WithMaxResponseBytes(0), "0"},
		{"max response negative", testToken, itick.WithMaxResponseBytes(-1), "-1"},
		{"retries negative", testToken, itick.WithRetries(-1), "-1"},
		{"backoff min negative", testToken, itick.WithBackoff(-time.Second, time.Second), "-1s"},
		{"backoff max below min", testToken, itick.WithBackoff(2*time.Second, time.Second), "2s"},
		{"concurrency 0", testToken, itick.WithConcurrency(0), "0"},
		{"user agent empty", testToken, itick.WithUserAgent(" "), "WithUserAgent"},
		{"user agent two lines", testToken, itick.WithUserAgent("a\r\nX-Evil: 1"), "WithUserAgent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []itick.Option
			if tc.opt != nil || tc.name == "nil option" {
				opts = append(opts, tc.opt)
			}
			c, err := itick.NewClient(tc.token, opts...)
			if c != nil {
				t.Errorf("client = %v, want nil", c)
			}
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q, want it to name %q", err, tc.wantMsg)
			}
		})
	}
}

// TestNewClient_Defaults: a client with no options talks to the default
// base URL with PlanBase's batch size.
func TestNewClient_Defaults(t *testing.T) {
	t.Parallel()
	c, err := itick.NewClient(testToken)
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != itick.DefaultBaseURL || c.BatchSize() != 10 {
		t.Errorf("BaseURL %q, BatchSize %d; want %q and 10", c.BaseURL(), c.BatchSize(), itick.DefaultBaseURL)
	}
	for name, svc := range map[string]any{"Stock": c.Stock, "Crypto": c.Crypto, "Forex": c.Forex, "Future": c.Future,
		"Fund": c.Fund, "Indices": c.Indices, "News": c.News} {
		if svc == nil {
			t.Errorf("%s is nil", name)
		}
	}
}

// TestNewClient_BaseURLPathPrefix: a base URL with a path prefix keeps it,
// with or without a trailing slash.
func TestNewClient_BaseURLPathPrefix(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"https://gw.example.test/itick", "https://gw.example.test/itick/"} {
		c, mt := newMockClient(t, testToken, itick.WithBaseURL(base))
		mt.RegisterResponder("GET", "https://gw.example.test/itick/stock/quotes", body(200, okQuotes))
		if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestNewClientFromEnv reads ITICK_TOKEN, ITICK_BASE_URL and ITICK_PLAN,
// and options win over the environment. (t.Setenv rules out t.Parallel.)
func TestNewClientFromEnv(t *testing.T) {
	t.Run("token, base URL and plan", func(t *testing.T) {
		t.Setenv("ITICK_TOKEN", testToken)
		t.Setenv("ITICK_BASE_URL", "https://api0.itick.example")
		t.Setenv("ITICK_PLAN", "professional")
		mt := httpmock.NewMockTransport()
		var rec recorder
		mt.RegisterResponder("GET", "https://api0.itick.example/stock/quotes", record(&rec, body(200, okQuotes)))
		c, err := itick.NewClientFromEnv(itick.WithHTTPClient(&http.Client{Transport: mt}), itick.WithRateLimit(rate.Inf, 0))
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != "https://api0.itick.example" || c.BatchSize() != 20 {
			t.Errorf("BaseURL %q, BatchSize %d", c.BaseURL(), c.BatchSize())
		}
		if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
			t.Fatal(err)
		}
		if got := rec.all()[0].Header.Get("token"); got != testToken {
			t.Errorf("token header %q, want ITICK_TOKEN's", got)
		}
	})
	t.Run("options win", func(t *testing.T) {
		t.Setenv("ITICK_TOKEN", testToken)
		t.Setenv("ITICK_BASE_URL", "https://api0.itick.example")
		t.Setenv("ITICK_PLAN", "professional")
		c, err := itick.NewClientFromEnv(itick.WithBaseURL("https://api-free.itick.example"), itick.WithPlan(itick.PlanPremium))
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != "https://api-free.itick.example" || c.BatchSize() != 50 {
			t.Errorf("BaseURL %q, BatchSize %d; want the options'", c.BaseURL(), c.BatchSize())
		}
	})
	t.Run("defaults without base URL and plan", func(t *testing.T) {
		t.Setenv("ITICK_TOKEN", testToken)
		t.Setenv("ITICK_BASE_URL", "")
		t.Setenv("ITICK_PLAN", "")
		c, err := itick.NewClientFromEnv()
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != itick.DefaultBaseURL || c.BatchSize() != 10 {
			t.Errorf("BaseURL %q, BatchSize %d", c.BaseURL(), c.BatchSize())
		}
	})
	for name, env := range map[string][3]string{
		"no token":       {"", "", ""},
		"blank token":    {"  ", "", ""},
		"bad plan":       {testToken, "", "platinum"},
		"bad base URL":   {testToken, "ftp://x", ""},
		"scheme missing": {testToken, "api.itick.org", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("ITICK_TOKEN", env[0])
			t.Setenv("ITICK_BASE_URL", env[1])
			t.Setenv("ITICK_PLAN", env[2])
			_, err := itick.NewClientFromEnv()
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("err carries the token: %v", err)
			}
		})
	}
}

// TestClient_ConcurrentUse: one client serves many goroutines at once.
func TestClient_ConcurrentUse(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(3))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", echoQuotes())
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
			if err == nil && len(got) != 10 {
				err = errors.New("short result")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := mt.GetTotalCallCount(); n != 16*4 {
		t.Errorf("%d requests, want %d", n, 16*4)
	}
}

// wrappedTransport stands for a tracing or metrics wrapper around
// http.DefaultTransport.
type wrappedTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (w *wrappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w.n.Add(1)
	return w.base.RoundTrip(req)
}

// swapDefaultTransport replaces http.DefaultTransport for the test. The
// test must not be parallel: the variable is global.
func swapDefaultTransport(t *testing.T) *wrappedTransport {
	t.Helper()
	orig := http.DefaultTransport
	w := &wrappedTransport{base: orig}
	http.DefaultTransport = w
	t.Cleanup(func() { http.DefaultTransport = orig })
	return w
}

// Behaviour 12: with http.DefaultTransport wrapped, NewClient works and its
// requests go through the wrapper.
func TestNewClient_WrappedDefaultTransport(t *testing.T) { // not parallel: swaps a global
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, okQuotes)
	}))
	defer srv.Close()
	wrapped := swapDefaultTransport(t)
	c, err := itick.NewClient(testToken, itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["700"]; !ok {
		t.Errorf("quotes = %v, want 700", got)
	}
	if n := wrapped.n.Load(); n != 1 {
		t.Errorf("the wrapped default transport saw %d requests, want 1", n)
	}
}

// TestNewClient_NamesTheBadValue checks NewClient's token and every option.
func TestNewClient_NamesTheBadValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
		opts  []itick.Option
		want  string
	}{
		{"empty token", "", nil, "token"},
		{"blank token", " \t", nil, "token"},
		{"token with a newline", "abc\ndef", nil, "token"},
		{"nil option", "t", []itick.Option{nil}, "option 0"},
		{"nil option after a good one", "t", []itick.Option{itick.WithRetries(1), nil}, "option 1"},
		{"WithBaseURL empty", "t", []itick.Option{itick.WithBaseURL("")}, "base URL"},
		{"WithBaseURL no scheme", "t", []itick.Option{itick.WithBaseURL("api.itick.org")}, "api.itick.org"},
		{"WithBaseURL ftp", "t", []itick.Option{itick.WithBaseURL("ftp://api.itick.org")}, "ftp://api.itick.org"},
		{"WithBaseURL no host", "t", []itick.Option{itick.WithBaseURL("https://")}, "https://"},
		{"WithBaseURL with query", "t", []itick.Option{itick.WithBaseURL("https://h.example/?token=x")}, "h.example"},
		{"WithBaseURL with user info", "t", []itick.Option{itick.WithBaseURL("https://u:p@h.example")}, "base URL"},
		{"WithBaseURL unparsable", "t", []itick.Option{itick.WithBaseURL("http://[::1")}, "http://[::1"},
		{"WithHTTPClient nil", "t", []itick.Option{itick.WithHTTPClient(nil)}, "WithHTTPClient"},
		{"WithPlan negative", "t", []itick.Option{itick.WithPlan(itick.Plan(-1))}, "-1"},
		{"WithPlan unknown", "t", []itick.Option{itick.WithPlan(itick.Plan(99))}, "99"},
		{"WithBatchSize 0", "t", []itick.Option{itick.WithBatchSize(0)}, "WithBatchSize"},
		{"WithBatchSize negative", "t", []itick.Option{itick.WithBatchSize(-4)}, "-4"},
		{"WithRateLimit zero rate", "t", []itick.Option{itick.WithRateLimit(0, 1)}, "WithRateLimit"},
		{"WithRateLimit negative rate", "t", []itick.Option{itick.WithRateLimit(-2, 1)}, "-2"},
		{"WithRateLimit zero burst", "t", []itick.Option{itick.WithRateLimit(10, 0)}, "burst"},
		{"WithLimiter nil", "t", []itick.Option{itick.WithLimiter(nil)}, "WithLimiter"},
		{"WithLimiter typed nil", "t", []itick.Option{itick.WithLimiter((*rate.Limiter)(nil))}, "WithLimiter"},
		{"WithMaxResponseBytes 0", "t", []itick.Option{itick.WithMaxResponseBytes(0)}, "WithMaxResponseBytes"},
		{"WithMaxResponseBytes negative", "t", []itick.Option{itick.WithMaxResponseBytes(-1)}, "-1"},
		{"WithRetries negative", "t", []itick.Option{itick.WithRetries(-1)}, "-1"},
		{"WithBackoff negative min", "t", []itick.Option{itick.WithBackoff(-time.Second, time.Second)}, "-1s"},
		{"WithBackoff max below min", "t", []itick.Option{itick.WithBackoff(2*time.Second, time.Second)}, "WithBackoff"},
		{"WithConcurrency 0", "t", []itick.Option{itick.WithConcurrency(0)}, "WithConcurrency"},
		{"WithConcurrency negative", "t", []itick.Option{itick.WithConcurrency(-7)}, "-7"},
		{"WithUserAgent empty", "t", []itick.Option{itick.WithUserAgent("")}, "WithUserAgent"},
		{"WithUserAgent two lines", "t", []itick.Option{itick.WithUserAgent("bot/1\r\nX-Evil: 1")}, "WithUserAgent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := itick.NewClient(tt.token, tt.opts...)
			if c != nil {
				t.Errorf("NewClient returned a client with its error")
			}
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("error %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

// TestNewClient_AcceptsEdgeValues checks that every option takes the values
// at the edge of what it allows.
func TestNewClient_AcceptsEdgeValues(t *testing.T) {
	t.Parallel()
	c, err := itick.NewClient(" tok ",
		itick.WithBaseURL("http://127.0.0.1:8080/prefix/"),
		itick.WithHTTPClient(&http.Client{}),
		itick.WithPlan(itick.PlanFree),
		itick.WithPlan(itick.PlanEnterprise),
		itick.WithBatchSize(1),
		itick.WithRateLimit(rate.Inf, 0),
		itick.WithRateLimit(0.001, 1),
		itick.WithLimiter(rate.NewLimiter(1, 1)),
		itick.WithMaxResponseBytes(1),
		itick.WithRetries(0),
		itick.WithBackoff(0, 0),
		itick.WithConcurrency(1),
		itick.WithUserAgent("bot/1.0 (+https://example.com)"),
		itick.WithLogger(nil),
	)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if got, want := c.BaseURL(), "http://127.0.0.1:8080/prefix"; got != want {
		t.Errorf("BaseURL() = %q, want %q", got, want)
	}
	if got := c.BatchSize(); got != 1 {
		t.Errorf("BatchSize() = %d, want 1", got)
	}
}

// TestNewClientFromEnv_NamesTheBadValue checks the environment's values the
// same way. It sets environment variables, so it does not run in parallel.
func TestNewClientFromEnv_NamesTheBadValue(t *testing.T) {
	tests := []struct {
		name                 string
		token, baseURL, plan string
		want                 string
	}{
		{"no token", "", "", "", "ITICK_TOKEN"},
		{"blank token", "  ", "", "", "ITICK_TOKEN"},
		{"bad base URL", "t", "gopher://x", "", "gopher://x"},
		{"bad plan", "t", "", "platinum", "platinum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ITICK_TOKEN", tt.token)
			t.Setenv("ITICK_BASE_URL", tt.baseURL)
			t.Setenv("ITICK_PLAN", tt.plan)
			c, err := itick.NewClientFromEnv()
			if c != nil {
				t.Errorf("NewClientFromEnv returned a client with its error")
			}
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("error %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
	t.Run("options win over the environment", func(t *testing.T) {
		t.Setenv("ITICK_TOKEN", "t")
		t.Setenv("ITICK_BASE_URL", "https://api0.itick.org")
		t.Setenv("ITICK_PLAN", "premium")
		c, err := itick.NewClientFromEnv(itick.WithBaseURL("https://api-free.itick.org"), itick.WithPlan(itick.PlanBase))
		if err != nil {
			t.Fatalf("NewClientFromEnv: %v", err)
		}
		if c.BaseURL() != "https://api-free.itick.org" || c.BatchSize() != itick.PlanBase.BatchSize() {
			t.Errorf("client %v: the options did not win", c)
		}
	})
}

// CloseIdleConnections leaves no keep-alive connection, nor the goroutines
// that serve it, while the upstream is up.
func TestCloseIdleConnectionsLeavesNoGoroutine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"code":0,"data":{"700":{"s":"700","ld":1}}}`))
	}))
	defer srv.Close()
	before := goleak.IgnoreCurrent()
	c := newServerClient(t, srv, testToken)
	if _, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	c.CloseIdleConnections()
	if err := goleak.Find(before); err != nil {
		t.Errorf("after CloseIdleConnections: %v", err)
	}
}

// idleCloser wraps a transport, says which, and has a CloseIdleConnections
// of its own, which it counts before passing it on.
type idleCloser struct {
	wrapping
	calls *atomic.Int32
}

func (c idleCloser) CloseIdleConnections() {
	c.calls.Add(1)
	c.inner.(interface{ CloseIdleConnections() }).CloseIdleConnections()
}

// CloseIdleConnections closes the idle connections of a transport under
// wrappers that say what they wrap (Unwrap() http.RoundTripper), and lets
// the first wrapper that closes its own do so: the next request opens a
// new connection.
func TestCloseIdleConnectionsFollowsUnwrap(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	for _, tc := range []struct {
		name      string
		wrap      func(*http.Transport) http.RoundTripper
		wantCalls int32
	}{
		{"one wrapper", func(tr *http.Transport) http.RoundTripper { return wrapping{tr} }, 0},
		{"wrappers in a row", func(tr *http.Transport) http.RoundTripper { return wrapping{wrapping{wrapping{tr}}} }, 0},
		{"a wrapper that closes its own", func(tr *http.Transport) http.RoundTripper {
			return wrapping{idleCloser{wrapping{tr}, &calls}}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, `{"code":0,"data":{"700":{"s":"700","ld":1}}}`)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			c := newServerClient(t, srv, testToken, itick.WithHTTPClient(&http.Client{Transport: tc.wrap(tr)}))
			ctx := within(t)
			for i := range 2 {
				if _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"}); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					c.CloseIdleConnections()
				}
			}
			if n := conns.Load(); n != 2 {
				t.Errorf("%d connections for two requests with CloseIdleConnections between them, want 2", n)
			}
			if n := calls.Load(); n != tc.wantCalls {
				t.Errorf("the wrapper's CloseIdleConnections called %d times, want %d", n, tc.wantCalls)
			}
		})
	}
}
