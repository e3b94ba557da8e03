package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// Tests of Client.Stats.

// TestStatsCountScriptedFaults: each counter against a server whose replies
// are scripted.
func TestStatsCountScriptedFaults(t *testing.T) {
	t.Parallel()
	const (
		limited = `{"code":429,"msg":"too many requests"}`
		busy    = `upstream busy`
		success = `{"code":0,"msg":null,"data":{"700":{"s":"700","ld":616}}}`
		refused = `{"code":0,"msg":"auth failed","data":null}`
	)
	retryNow := http.Header{"Retry-After": {"0"}}
	tests := []struct {
		name    string
		replies []scriptReply
		calls   int
		want    itick.Stats
	}{
		{
			name:    "one 429 then success",
			replies: []scriptReply{{status: 429, header: retryNow, body: limited}, ok(success)},
			calls:   1,
			want: itick.Stats{Requests: 1, Attempts: 2, Retries: 1, RateLimited: 1,
				BytesRead: int64(len(limited) + len(success))},
		},
		{
			name:    "success",
			replies: []scriptReply{ok(success)},
			calls:   3,
			want:    itick.Stats{Requests: 3, Attempts: 3, BytesRead: int64(3 * len(success))},
		},
		{
			name: "429, 503, 429 then success",
			replies: []scriptReply{{status: 429, header: retryNow, body: limited}, {status: 503, body: busy},
				{status: 429, header: retryNow, body: limited}, ok(success)},
			calls: 1,
			want: itick.Stats{Requests: 1, Attempts: 4, Retries: 3, RateLimited: 2,
				BytesRead: int64(2*len(limited) + len(busy) + len(success))},
		},
		{
			name:    "429s past the retries",
			replies: []scriptReply{{status: 429, header: retryNow, body: limited}},
			calls:   1,
			want: itick.Stats{Requests: 1, Errors: 1, Attempts: 4, Retries: 3, RateLimited: 4,
				BytesRead: int64(4 * len(limited))},
		},
		{
			name:    "a long Retry-After is not waited for",
			replies: []scriptReply{{status: 429, header: http.Header{"Retry-After": {"600"}}, body: limited}},
			calls:   2,
			want: itick.Stats{Requests: 2, Errors: 2, Attempts: 2, RateLimited: 2,
				BytesRead: int64(2 * len(limited))},
		},
		{
			name:    "a refusal is not retried",
			replies: []scriptReply{ok(refused), ok(success)},
			calls:   2,
			want:    itick.Stats{Requests: 2, Errors: 1, Attempts: 2, BytesRead: int64(len(refused) + len(success))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := newScript(tt.replies...)
			srv := httptest.NewServer(script)
			c := newServerClient(t, srv, testToken, itick.WithRetries(3))
			if diff := cmp.Diff(itick.Stats{}, c.Stats()); diff != "" {
				t.Fatalf("a new client's stats are not zero:\n%s", diff)
			}
			for i := 0; i < tt.calls; i++ {
				_, _ = c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			}
			if diff := cmp.Diff(tt.want, c.Stats()); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatsCountEveryKindOfCall: batch chunks, iterator pages and Get count
// as requests; calls refused before sending do not.
func TestStatsCountEveryKindOfCall(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", echoQuotes())
	mt.RegisterResponder("GET", mockBase+"/symbol/info", body(200, `{"code":0,"data":{}}`))

	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"1", "2", "3", "4", "5"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), "/symbol/info", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, nil); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), "/../x", nil, nil); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Requests != 4 || st.Attempts != 4 || st.Errors != 0 || st.Retries != 0 {
		t.Errorf("stats %+v, want 4 requests (3 chunks and a Get) in 4 attempts", st)
	}
}

// An answer with nothing in it is the call's error, and Stats counts it as
// one; a redirect's hop is not a retry.
func TestStatsCountEmptyAnswersAndNotRedirects(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old/stock/quote":
			http.Redirect(w, r, "/stock/quote?"+r.URL.RawQuery, http.StatusFound)
		case "/stock/quote":
			w.Write([]byte(`{"code":0,"msg":null,"data":{"s":"700","ld":616}}`))
		default:
			w.Write([]byte(`{"code":0,"msg":null,"data":{}}`))
		}
	}))
	ctx := context.Background()

	c := newServerClient(t, srv, testToken)
	for _, call := range []func() error{
		func() error { _, err := c.Stock.Depth(ctx, itick.RegionHK, "700"); return err },
		func() error { _, err := c.Stock.Kline(ctx, itick.RegionHK, "700", itick.OneDay, 5); return err },
		func() error { _, err := c.Market.Status(ctx, itick.RegionHK); return err },
		func() error { _, err := c.News.Get(ctx, "n-1", "en"); return err },
	} {
		if err := call(); !errors.Is(err, itick.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	}
	if st := c.Stats(); st.Requests != 4 || st.Errors != 4 {
		t.Errorf("Stats = %+v, want 4 requests and 4 errors", st)
	}

	r := newServerClient(t, srv, testToken, itick.WithBaseURL(srv.URL+"/old"))
	if _, err := r.Stock.Quote(ctx, itick.RegionHK, "700"); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Requests != 1 || st.Retries != 0 || st.Errors != 0 {
		t.Errorf("Stats after a redirected call = %+v, want 1 request, no retry, no error", st)
	}
}

// TestStatsErrorsCountCancelledCalls: a call whose context ends in the
// limiter is a request that failed, with no attempt.
func TestStatsErrorsCountCancelledCalls(t *testing.T) {
	t.Parallel()
	lim := &blockingLimiter{entered: make(chan struct{}, 1)}
	script := newScript(ok(`{"code":0}`))
	srv := httptest.NewServer(script)
	c := newServerClient(t, srv, testToken, itick.WithLimiter(lim))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Get(ctx, "/x", nil, nil) }()
	waitOrFail(t, lim.entered, "the limiter wait")
	cancel()
	if err := waitOrFail(t, done, "Get"); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Requests != 1 || st.Errors != 1 || st.Attempts != 0 || st.LimiterWait <= 0 {
		t.Errorf("stats %+v, want 1 failed request, no attempt, some limiter wait", st)
	}
}

// slowLimiter lets every wait through after d, or when ctx ends.
type slowLimiter struct{ d time.Duration }

func (l slowLimiter) Wait(ctx context.Context) error {
	timer := time.NewTimer(l.d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestStatsLimiterWait: the time attempts spend in the limiter adds up, and
// with client-side limiting off there is none.
func TestStatsLimiterWait(t *testing.T) {
	t.Parallel()
	script := newScript(scriptReply{status: 503, body: `busy`}, ok(`{"code":0}`))
	srv := httptest.NewServer(script)
	const d = 20 * time.Millisecond
	c := newServerClient(t, srv, testToken, itick.WithLimiter(slowLimiter{d}))
	if err := c.Get(t.Context(), "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Attempts != 2 || st.LimiterWait < 2*d {
		t.Errorf("stats %+v, want 2 attempts and at least %v of limiter wait", st, 2*d)
	}

	unlimited := newServerClient(t, srv, testToken, itick.WithRateLimit(rate.Inf, 0))
	if err := unlimited.Get(t.Context(), "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if st := unlimited.Stats(); st.Attempts != 1 || st.LimiterWait != 0 {
		t.Errorf("stats %+v, want 1 attempt and no limiter wait", st)
	}
}

// TestStatsConcurrent: counters stay exact under concurrent calls and reads.
func TestStatsConcurrent(t *testing.T) {
	t.Parallel()
	const success = `{"code":0,"data":{}}`
	script := newScript(ok(success))
	srv := httptest.NewServer(script)
	c := newServerClient(t, srv, testToken)
	const goroutines, calls = 8, 10
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if err := c.Get(t.Context(), "/x", url.Values{"n": {"1"}}, nil); err != nil {
					t.Error(err)
				}
				_ = c.Stats()
			}
		}()
	}
	wg.Wait()
	want := itick.Stats{Requests: goroutines * calls, Attempts: goroutines * calls,
		BytesRead: goroutines * calls * int64(len(success))}
	if diff := cmp.Diff(want, c.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

// Stats and StreamStats marshal with snake_case keys, for expvar and JSON
// logs.
func TestStatsMarshalSnakeCase(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(itick.Stats{Requests: 3, RateLimited: 1, BytesRead: 10, LimiterWait: time.Second})
	want := `{"requests":3,"errors":0,"attempts":0,"retries":0,"rate_limited":1,"bytes_read":10,"limiter_wait_ns":1000000000}`
	if err != nil || string(b) != want {
		t.Errorf("Stats = %s, %v; want %s", b, err, want)
	}
	b, err = json.Marshal(itick.StreamStats{Conns: 2, Down: 1, Gaps: 1})
	want = `{"conns":2,"down":1,"symbols":0,"events":0,"dropped":0,"reconnects":0,"gaps":1}`
	if err != nil || string(b) != want {
		t.Errorf("StreamStats = %s, %v; want %s", b, err, want)
	}
}
