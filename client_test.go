package itick_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

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

// TestPlan_BatchSize: the published batch sizes, and PlanBase for an
// unknown plan.
func TestPlan_BatchSize(t *testing.T) {
	t.Parallel()
	got := map[itick.Plan]int{}
	for _, p := range []itick.Plan{itick.PlanFree, itick.PlanBase, itick.PlanProfessional, itick.PlanPremium, itick.PlanEnterprise, itick.Plan(9)} {
		got[p] = p.BatchSize()
	}
	want := map[itick.Plan]int{itick.PlanFree: 10, itick.PlanBase: 10, itick.PlanProfessional: 20,
		itick.PlanPremium: 50, itick.PlanEnterprise: 50, itick.Plan(9): 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BatchSize (-want +got):\n%s", diff)
	}
	if itick.PlanBase != 1 || itick.PlanFree != 0 || itick.PlanEnterprise != 4 {
		t.Error("plan constants moved")
	}
}

// TestPlan_ClientBatchSize: WithPlan sets the client's batch size and
// WithBatchSize overrides it in either order.
func TestPlan_ClientBatchSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts []itick.Option
		want int
	}{
		{nil, 10},
		{[]itick.Option{itick.WithPlan(itick.PlanProfessional)}, 20},
		{[]itick.Option{itick.WithPlan(itick.PlanPremium)}, 50},
		{[]itick.Option{itick.WithPlan(itick.PlanEnterprise), itick.WithBatchSize(200)}, 200},
		{[]itick.Option{itick.WithBatchSize(3), itick.WithPlan(itick.PlanPremium)}, 3},
	}
	for _, tc := range cases {
		c, err := itick.NewClient(testToken, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.BatchSize() != tc.want {
			t.Errorf("BatchSize = %d, want %d", c.BatchSize(), tc.want)
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

// TestOptions_LimiterOrder: WithRateLimit and WithLimiter set the same
// limiter, so the later one wins.
func TestOptions_LimiterOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		opts      func(l itick.Limiter) []itick.Option
		wantWaits int32
	}{
		{"WithLimiter last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithRateLimit(rate.Inf, 0), itick.WithLimiter(l)}
		}, 2},
		{"WithRateLimit last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithRateLimit(rate.Inf, 0)}
		}, 0},
		{"WithRateLimit finite last", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithRateLimit(1000, 10)}
		}, 0},
		{"second WithLimiter wins", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithLimiter(&countingLimiter{})}
		}, 0},
		{"WithPlan does not replace a limiter", func(l itick.Limiter) []itick.Option {
			return []itick.Option{itick.WithLimiter(l), itick.WithPlan(itick.PlanFree)}
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lim countingLimiter
			c, mt := newMockClient(t, testToken, tc.opts(&lim)...)
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
			for range 2 {
				if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
					t.Fatal(err)
				}
			}
			if got := lim.n.Load(); got != tc.wantWaits {
				t.Errorf("counting limiter waited %d times, want %d", got, tc.wantWaits)
			}
		})
	}
}

// TestOptions_DefaultLimiterFollowsPlan: without WithRateLimit or
// WithLimiter, PlanFree's quota of 5 calls a minute lets 5 calls go and
// makes the sixth wait longer than a short deadline.
func TestOptions_DefaultLimiterFollowsPlan(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	c, err := itick.NewClient(testToken, itick.WithHTTPClient(&http.Client{Transport: mt}), itick.WithPlan(itick.PlanFree))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err = c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the plan's limiter to refuse with DeadlineExceeded", err)
	}
	if n := mt.GetTotalCallCount(); n != 5 {
		t.Errorf("%d requests, want 5", n)
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
