package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The end-to-end tests run the SDK against the simulator in markettest:
// real HTTP on 127.0.0.1, the service's wire form, its rules and faults.

// wantQuote is the generator's quote as the SDK decodes it: crypto quotes
// carry no p, ch and chp, so those stay zero.
func wantQuote(g *markettest.Generator, class markettest.Class, region itick.Region, code string) itick.Quote {
	q := g.Quote(class, region, code, e2eNow)
	if class == markettest.Crypto {
		q.PrevClose, q.Change, q.ChangePercent = 0, 0, 0
	}
	return q
}

func TestE2EEveryServiceMethod(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	g := srv.Generator()
	ctx := t.Context()

	type batchCall struct {
		name   string
		class  markettest.Class
		region itick.Region
		codes  []string
		quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
		depths func(context.Context, itick.Region, []string) (map[string]itick.DepthBook, error)
		klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	}
	calls := []batchCall{
		{"stock", markettest.Stock, itick.RegionHK, []string{"700", "5"}, c.Stock.Quotes, c.Stock.Depths, c.Stock.Klines},
		{"crypto", markettest.Crypto, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"}, c.Crypto.Quotes, c.Crypto.Depths, c.Crypto.Klines},
		{"forex", markettest.Forex, itick.RegionGB, []string{"EURUSD", "GBPUSD"}, c.Forex.Quotes, c.Forex.Depths, c.Forex.Klines},
		{"future", markettest.Future, itick.RegionUS, []string{"GC", "CL"}, c.Future.Quotes, c.Future.Depths, c.Future.Klines},
		{"fund", markettest.Fund, itick.RegionUS, []string{"QQQ"}, nil, c.Fund.Depths, nil},
		{"indices", markettest.Indices, itick.RegionGB, []string{"HSI", "SPX"}, c.Indices.Quotes, c.Indices.Depths, c.Indices.Klines},
	}
	for _, bc := range calls {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			wantDepths := map[string]itick.DepthBook{}
			wantQuotes := map[string]itick.Quote{}
			wantKlines := map[string][]itick.Kline{}
			for _, code := range bc.codes {
				wantDepths[code] = g.Depth(bc.class, bc.region, code, e2eNow)
				wantQuotes[code] = wantQuote(g, bc.class, bc.region, code)
				wantKlines[code] = g.Klines(bc.class, bc.region, code, itick.FifteenMinutes, 20, time.Time{}, e2eNow)
			}
			depths, err := bc.depths(ctx, bc.region, bc.codes)
			if err != nil {
				t.Fatalf("Depths: %v", err)
			}
			if diff := cmp.Diff(wantDepths, depths); diff != "" {
				t.Errorf("Depths (-want +got):\n%s", diff)
			}
			if bc.quotes != nil {
				quotes, err := bc.quotes(ctx, bc.region, bc.codes)
				if err != nil {
					t.Fatalf("Quotes: %v", err)
				}
				if diff := cmp.Diff(wantQuotes, quotes); diff != "" {
					t.Errorf("Quotes (-want +got):\n%s", diff)
				}
			}
			if bc.klines != nil {
				klines, err := bc.klines(ctx, bc.region, bc.codes, itick.FifteenMinutes, 20)
				if err != nil {
					t.Fatalf("Klines: %v", err)
				}
				if diff := cmp.Diff(wantKlines, klines); diff != "" {
					t.Errorf("Klines (-want +got):\n%s", diff)
				}
			}
		})
	}

	t.Run("single depth", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			class markettest.Class
			depth func(context.Context, itick.Region, string) (*itick.DepthBook, error)
			code  string
		}{
			{markettest.Stock, c.Stock.Depth, "700"},
			{markettest.Crypto, c.Crypto.Depth, "BTCUSDT"},
		} {
			region := itick.RegionHK
			if tt.class == markettest.Crypto {
				region = itick.RegionBA
			}
			got, err := tt.depth(ctx, region, tt.code)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g.Depth(tt.class, region, tt.code, e2eNow), *got); diff != "" {
				t.Errorf("%s Depth (-want +got):\n%s", tt.class, diff)
			}
		}
	})

	t.Run("klines with exchange and end", func(t *testing.T) {
		t.Parallel()
		end := e2eNow.Add(-72 * time.Hour)
		got, err := c.Stock.Klines(ctx, itick.RegionUS, []string{"AAPL"}, itick.OneHour, 5,
			itick.WithExchange("NASDAQ"), itick.WithEnd(end))
		if err != nil {
			t.Fatal(err)
		}
		want := g.Klines(markettest.Stock, itick.RegionUS, "AAPL", itick.OneHour, 5, end, e2eNow)
		if diff := cmp.Diff(map[string][]itick.Kline{"AAPL": want}, got); diff != "" {
			t.Errorf("Klines (-want +got):\n%s", diff)
		}
		var sent []string
		for _, r := range srv.Requests() {
			if r.Path == "/stock/klines" && r.Query.Get("exchange") != "" {
				sent = append(sent, r.Query.Get("exchange"), r.Query.Get("et"))
			}
		}
		if diff := cmp.Diff([]string{"NASDAQ", fmt.Sprint(end.UnixMilli())}, sent); diff != "" {
			t.Errorf("exchange and et sent (-want +got):\n%s", diff)
		}
	})

	t.Run("split pages and splits", func(t *testing.T) {
		t.Parallel()
		all := g.Splits(itick.RegionUS, e2eNow)
		p, err := c.Stock.SplitPage(ctx, itick.RegionUS, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := markettest.SplitPageSize
		want := &itick.SplitPage{Records: all[n:min(2*n, len(all))], Page: 1, Size: n,
			TotalPages: (len(all) + n - 1) / n, TotalElements: len(all), Last: len(all) <= 2*n}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("SplitPage (-want +got):\n%s", diff)
		}
		var got []itick.SplitRecord
		for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if diff := cmp.Diff(all, got); diff != "" {
			t.Errorf("Splits (-want +got):\n%s", diff)
		}
	})

	t.Run("news list and all", func(t *testing.T) {
		t.Parallel()
		q := itick.NewsQuery{Market: "stock", Lang: "en", Limit: 30}
		page, err := c.News.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		items, more := g.News("stock", "en", time.Time{}, 30, e2eNow)
		if !more || !page.HasMore || page.Count != 30 || page.NextCursor == "" {
			t.Errorf("first page: HasMore %v Count %d NextCursor %q", page.HasMore, page.Count, page.NextCursor)
		}
		for i := range items {
			items[i].Published = items[i].Published.Truncate(time.Second) // pt is in seconds
		}
		if diff := cmp.Diff(items, page.Items); diff != "" {
			t.Errorf("List (-want +got):\n%s", diff)
		}
		next, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: 30, Cursor: page.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(next.Items) == 0 || next.Items[0].ID == page.Items[0].ID || next.Items[0].Published.After(page.Items[29].Published) {
			t.Errorf("the cursor did not move on: %+v", next.Items[:1])
		}
		seen := map[string]bool{}
		for it, err := range c.News.All(ctx, q) {
			if err != nil {
				t.Fatal(err)
			}
			if seen[it.ID] {
				t.Fatalf("All repeated %s", it.ID)
			}
			seen[it.ID] = true
		}
		if len(seen) < 100 {
			t.Errorf("All gave %d items, want the whole feed", len(seen))
		}
	})
}

func e2eCodes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%03d", i)
	}
	return out
}

func TestE2EChunkedBatchMergesResults(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil) // Base plan: 10 codes a request
	want := e2eCodes(345)
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, append(want, " C000 ", "C001"))
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(got))
	for k, q := range got {
		keys = append(keys, k)
		if q.Symbol != k {
			t.Errorf("quote under %s has symbol %s", k, q.Symbol)
		}
	}
	slices.Sort(keys)
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("merged keys (-want +got):\n%s", diff)
	}
	var sent []string
	reqs := srv.Requests()
	for _, r := range reqs {
		if n := len(r.Codes()); n > srv.BatchSize() {
			t.Errorf("a request carried %d codes", n)
		}
		sent = append(sent, r.Codes()...)
	}
	slices.Sort(sent)
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	if len(reqs) != 35 {
		t.Errorf("%d requests, want 35", len(reqs))
	}
}

func TestE2ERetriesThroughFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault markettest.Fault
	}{
		{"503 twice", markettest.Fault{Kind: markettest.FaultStatus, Times: 2}},
		{"502 once", markettest.Fault{Kind: markettest.FaultStatus, Times: 1, Status: http.StatusBadGateway}},
		{"429 without Retry-After", markettest.Fault{Kind: markettest.FaultStatus, Times: 3, Status: http.StatusTooManyRequests}},
		{"dropped connection", markettest.Fault{Kind: markettest.FaultDrop, Times: 2}},
		{"dropped mid-body", markettest.Fault{Kind: markettest.FaultDropMidBody, Times: 1}},
		{"truncated body", markettest.Fault{Kind: markettest.FaultTruncate, Times: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, srv := newSimClient(t, nil)
			srv.Inject(tt.fault)
			got, err := c.Crypto.Quotes(t.Context(), itick.RegionBA, []string{"BTCUSDT"})
			if err != nil {
				t.Fatalf("after %d faults with 3 retries: %v", tt.fault.Times, err)
			}
			if diff := cmp.Diff(wantQuote(srv.Generator(), markettest.Crypto, itick.RegionBA, "BTCUSDT"), got["BTCUSDT"]); diff != "" {
				t.Errorf("quote (-want +got):\n%s", diff)
			}
			if n := srv.Stats().Requests; n != tt.fault.Times+1 {
				t.Errorf("%d requests, want %d", n, tt.fault.Times+1)
			}
		})
	}
}

func TestE2EFaultsThatAreNotRetried(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	srv.Inject(markettest.Fault{Kind: markettest.FaultMalformed, Times: 1})
	_, err := c.Forex.Quotes(t.Context(), itick.RegionGB, []string{"EURUSD"})
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 200 || apiErr.Path != "/forex/quotes" {
		t.Errorf("malformed body: %v, want an *APIError for /forex/quotes with status 200", err)
	}
	if n := srv.Stats().Requests; n != 1 {
		t.Errorf("%d requests, want 1 (a 200 is not retried)", n)
	}

	// Retries spent: the last status comes back.
	srv.Reset()
	srv.FailNext(10, http.StatusServiceUnavailable)
	_, err = c.Forex.Quotes(t.Context(), itick.RegionGB, []string{"EURUSD"})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Errorf("after the retries: %v, want HTTP 503", err)
	}
	if n := srv.Stats().Requests; n != itick.DefaultRetries+1 {
		t.Errorf("%d requests, want %d", n, itick.DefaultRetries+1)
	}
}

func TestE2EHangEndsWithTheContext(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	srv.Inject(markettest.Fault{Kind: markettest.FaultHang})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hanging server: %v, want context.DeadlineExceeded", err)
	}
}

func TestE2EWrongToken(t *testing.T) {
	t.Parallel()
	_, srv := newSimClient(t, []markettest.Option{markettest.WithToken("right-token")})
	const wrong = "wrong-token-5f3a"
	c, err := itick.NewClient(wrong, itick.WithBaseURL(srv.URL), itick.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Message != markettest.MsgInvalidKey {
		t.Errorf("err = %#v, want HTTP 401 with the gateway's message", apiErr)
	}
	if strings.Contains(err.Error(), wrong) {
		t.Error("the error carries the token")
	}
	if n := srv.Stats().Unauthorized; n != 1 {
		t.Errorf("%d refused requests, want 1 (401 is not retried)", n)
	}
}

func TestE2EQuota(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(e2eNow)
	// No retries: a Retry-After of up to a minute would be waited for.
	c, _ := newSimClient(t, []markettest.Option{markettest.WithQuota(2), markettest.WithClock(clock.Now)}, itick.WithRetries(0))
	call := func() error {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionUS, []string{"AAPL"})
		return err
	}
	for i := range 2 {
		if err := call(); err != nil {
			t.Fatalf("call %d within the quota: %v", i, err)
		}
	}
	clock.Advance(15 * time.Second)
	err := call()
	if !errors.Is(err, itick.ErrRateLimited) {
		t.Fatalf("past the quota: %v, want ErrRateLimited", err)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 45*time.Second {
		t.Errorf("RetryAfter = %v, want 45s", apiErr.RetryAfter)
	}
	clock.Advance(45 * time.Second)
	if err := call(); err != nil {
		t.Errorf("once the window slid: %v", err)
	}
}

func TestE2EOneFailedChunkIsABatchError(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	all := e2eCodes(30) // three chunks of ten
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusInternalServerError,
		Path: "/stock/klines", Code: "C015"})
	got, err := c.Stock.Klines(t.Context(), itick.RegionUS, all, itick.OneDay, 2)
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BatchError", err)
	}
	if diff := cmp.Diff(all[10:20], be.FailedCodes()); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("errors.As through the BatchError: %v", apiErr)
	}
	var keys []string
	for k, ks := range got {
		keys = append(keys, k)
		if len(ks) != 2 {
			t.Errorf("%s: %d candles", k, len(ks))
		}
	}
	slices.Sort(keys)
	if diff := cmp.Diff(append(slices.Clone(all[:10]), all[20:]...), keys); diff != "" {
		t.Errorf("results that arrived (-want +got):\n%s", diff)
	}
}

func TestE2EPlanLimit(t *testing.T) {
	t.Parallel()
	_, srv := newSimClient(t, nil) // the server enforces Base: 10 codes
	c, err := srv.Client(itick.WithBatchSize(20))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Future.Depths(t.Context(), itick.RegionUS, e2eCodes(15))
	if !errors.Is(err, itick.ErrPlanLimit) {
		t.Errorf("15 codes in one request on Base: %v, want ErrPlanLimit", err)
	}
}
