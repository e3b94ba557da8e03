package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The end-to-end tests run the SDK against the simulator in markettest:
// real HTTP on 127.0.0.1, the service's wire form, its rules and faults.

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

// TestE2ETextErrorCodes: the service's E-numbers sent as a string in code
// map to their sentinels and are kept in APIError.CodeText.
func TestE2ETextErrorCodes(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, []markettest.Option{markettest.WithTextCodes(), markettest.WithBatchSize(2)})
	ctx := t.Context()

	check := func(t *testing.T, err error, sentinel error, code string) {
		t.Helper()
		var apiErr *itick.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v (%T), want an *APIError", err, err)
		}
		if !errors.Is(err, sentinel) || apiErr.CodeText != code || apiErr.Code != 0 {
			t.Errorf("err = %#v, want %v with CodeText %q", apiErr, sentinel, code)
		}
		if !strings.Contains(err.Error(), "code "+code) {
			t.Errorf("error text %q does not show the code", err)
		}
	}
	t.Run("E001", func(t *testing.T) {
		t.Parallel()
		_, err := c.Market.Status(ctx, itick.Region("ZZ"))
		check(t, err, itick.ErrNotFound, "E001")
	})
	t.Run("E002", func(t *testing.T) {
		t.Parallel()
		bad, err := itick.NewClient("not-the-token", itick.WithBaseURL(srv.URL), itick.WithRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"})
		check(t, err, itick.ErrUnauthorized, "E002")
	})
	t.Run("E003", func(t *testing.T) {
		t.Parallel()
		wide, err := srv.Client(itick.WithBatchSize(3))
		if err != nil {
			t.Fatal(err)
		}
		_, err = wide.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL", "MSFT", "TSLA"})
		check(t, err, itick.ErrPlanLimit, "E003")
	})
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		if _, err := c.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL", "MSFT"}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestE2EUncoveredMarketIsNotFound: code 0 with data {} (a market outside
// the plan) is ErrNotFound on every call that returns one object, and an
// empty map, not an error, on batch calls.
func TestE2EUncoveredMarketIsNotFound(t *testing.T) {
	t.Parallel()
	c, _ := newSimClient(t, []markettest.Option{markettest.WithRegions(itick.RegionUS)})
	ctx := t.Context()
	const r = itick.RegionJP
	single := map[string]func() (any, error){
		"Stock.Quote":    func() (any, error) { return c.Stock.Quote(ctx, r, "7203") },
		"Stock.Depth":    func() (any, error) { return c.Stock.Depth(ctx, r, "7203") },
		"Stock.Tick":     func() (any, error) { return c.Stock.Tick(ctx, r, "7203") },
		"Stock.Info":     func() (any, error) { return c.Stock.Info(ctx, r, "7203") },
		"Stock.Kline":    func() (any, error) { return c.Stock.Kline(ctx, r, "7203", itick.OneDay, 5) },
		"Crypto.Quote":   func() (any, error) { return c.Crypto.Quote(ctx, itick.RegionBA, "BTCUSDT") },
		"Crypto.Depth":   func() (any, error) { return c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT") },
		"Forex.Tick":     func() (any, error) { return c.Forex.Tick(ctx, itick.RegionGB, "EURUSD") },
		"Indices.Quote":  func() (any, error) { return c.Indices.Quote(ctx, itick.RegionGB, "UKX") },
		"Future.Depth":   func() (any, error) { return c.Future.Depth(ctx, itick.RegionHK, "HSI") },
		"Fund.Tick":      func() (any, error) { return c.Fund.Tick(ctx, itick.RegionHK, "2800") },
		"Indices.Kline":  func() (any, error) { return c.Indices.Kline(ctx, itick.RegionGB, "UKX", itick.OneHour, 5) },
		"Forex.Quote GB": func() (any, error) { return c.Forex.Quote(ctx, itick.RegionGB, "GBPUSD") },
	}
	for name, call := range single {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := call()
			if !errors.Is(err, itick.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if v := reflect.ValueOf(got); !v.IsNil() {
				t.Errorf("got %v with the error, want nil", got)
			}
		})
	}
	batch := map[string]func() (int, error){
		"Stock.Quotes": func() (int, error) { m, err := c.Stock.Quotes(ctx, r, []string{"7203", "6758"}); return len(m), err },
		"Stock.Depths": func() (int, error) { m, err := c.Stock.Depths(ctx, r, []string{"7203"}); return len(m), err },
		"Stock.Ticks":  func() (int, error) { m, err := c.Stock.Ticks(ctx, r, []string{"7203"}); return len(m), err },
		"Stock.Klines": func() (int, error) {
			m, err := c.Stock.Klines(ctx, r, []string{"7203"}, itick.OneDay, 5)
			return len(m), err
		},
	}
	for name, call := range batch {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, err := call()
			if err != nil || n != 0 {
				t.Fatalf("got %d entries, %v; want an empty map and no error", n, err)
			}
		})
	}
	// The covered region still answers.
	if q, err := c.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil || q.Symbol != "AAPL" {
		t.Fatalf("covered region: %v, %v", q, err)
	}
}

// TestE2EWireFields: stock ticks carry their trade direction, index, forex
// and fund quotes their previous close and change, and the stock calls with
// options send exchange on every request, singular and batch.
func TestE2EWireFields(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, []markettest.Option{markettest.WithBatchSize(2)})
	g := srv.Generator()
	ctx := t.Context()
	codes := []string{"AAPL", "MSFT", "TSLA", "NVDA", "AMZN", "META", "KO", "JPM"}

	ticks, err := c.Stock.TicksWith(ctx, itick.RegionUS, codes, itick.WithQuoteExchange("NASDAQ"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[itick.TradeDirection]bool{}
	for _, code := range codes {
		want := g.Tick(markettest.Stock, itick.RegionUS, code, e2eNow)
		if got := ticks[code]; !cmp.Equal(got, want) {
			t.Errorf("tick %s = %+v, want %+v", code, got, want)
		}
		seen[ticks[code].Direction] = true
	}
	if !seen[itick.DirectionBuy] && !seen[itick.DirectionSell] {
		t.Errorf("no buy or sell among %d ticks: directions %v", len(codes), seen)
	}

	quotes, err := c.Stock.QuotesWith(ctx, itick.RegionUS, codes[:3], itick.WithQuoteExchange("NASDAQ"))
	if err != nil || len(quotes) != 3 {
		t.Fatalf("QuotesWith = %d quotes, %v", len(quotes), err)
	}
	books, err := c.Stock.DepthsWith(ctx, itick.RegionUS, codes[:3], itick.WithQuoteExchange("NASDAQ"))
	if err != nil || len(books) != 3 {
		t.Fatalf("DepthsWith = %d books, %v", len(books), err)
	}
	book, err := c.Stock.DepthWith(ctx, itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ"))
	if err != nil || book.Symbol != "AAPL" {
		t.Fatalf("DepthWith = %v, %v", book, err)
	}
	for _, r := range srv.Requests() {
		if r.Query.Get("exchange") != "NASDAQ" {
			t.Errorf("%s?%s was sent without exchange=NASDAQ", r.Path, r.Query.Encode())
		}
	}

	for _, tc := range []struct {
		class  markettest.Class
		region itick.Region
		code   string
		quote  func(context.Context, itick.Region, string) (*itick.Quote, error)
	}{
		{markettest.Indices, itick.RegionGB, "UKX", c.Indices.Quote},
		{markettest.Forex, itick.RegionGB, "EURUSD", c.Forex.Quote},
		{markettest.Fund, itick.RegionUS, "QQQ", c.Fund.Quote},
	} {
		q, err := tc.quote(ctx, tc.region, tc.code)
		if err != nil {
			t.Fatal(err)
		}
		want := g.Quote(tc.class, tc.region, tc.code, e2eNow)
		if q.PrevClose == 0 || q.PrevClose != want.PrevClose || q.Change != want.Change || q.ChangePercent != want.ChangePercent {
			t.Errorf("%s quote p/ch/chp = %v/%v/%v, want %v/%v/%v", tc.class, q.PrevClose, q.Change, q.ChangePercent,
				want.PrevClose, want.Change, want.ChangePercent)
		}
	}
}

// classCalls are one asset class's single-code and batch methods.
type classCalls struct {
	class  markettest.Class
	region itick.Region
	codes  []string
	quote  func(context.Context, itick.Region, string) (*itick.Quote, error)
	kline  func(context.Context, itick.Region, string, itick.Interval, int, ...itick.KlineOption) ([]itick.Kline, error)
	depth  func(context.Context, itick.Region, string) (*itick.DepthBook, error)
	tick   func(context.Context, itick.Region, string) (*itick.Tick, error)
	ticks  func(context.Context, itick.Region, []string) (map[string]itick.Tick, error)
	quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
	klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	depths func(context.Context, itick.Region, []string) (map[string]itick.DepthBook, error)
}

func everyClass(c *itick.Client) []classCalls {
	stockQuote := func(ctx context.Context, r itick.Region, code string) (*itick.Quote, error) {
		return c.Stock.Quote(ctx, r, code, itick.WithQuoteExchange("NASDAQ"))
	}
	stockTick := func(ctx context.Context, r itick.Region, code string) (*itick.Tick, error) {
		return c.Stock.Tick(ctx, r, code, itick.WithQuoteExchange("NASDAQ"))
	}
	return []classCalls{
		{markettest.Stock, itick.RegionUS, []string{"AAPL", "TSLA", "MSFT"}, stockQuote, c.Stock.Kline, c.Stock.Depth,
			stockTick, c.Stock.Ticks, c.Stock.Quotes, c.Stock.Klines, c.Stock.Depths},
		{markettest.Crypto, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"}, c.Crypto.Quote, c.Crypto.Kline, c.Crypto.Depth,
			c.Crypto.Tick, c.Crypto.Ticks, c.Crypto.Quotes, c.Crypto.Klines, c.Crypto.Depths},
		{markettest.Forex, itick.RegionGB, []string{"EURUSD", "USDJPY"}, c.Forex.Quote, c.Forex.Kline, c.Forex.Depth,
			c.Forex.Tick, c.Forex.Ticks, c.Forex.Quotes, c.Forex.Klines, c.Forex.Depths},
		{markettest.Indices, itick.RegionGB, []string{"HSI", "SPX"}, c.Indices.Quote, c.Indices.Kline, c.Indices.Depth,
			c.Indices.Tick, c.Indices.Ticks, c.Indices.Quotes, c.Indices.Klines, c.Indices.Depths},
		{markettest.Future, itick.RegionUS, []string{"GC", "CL"}, c.Future.Quote, c.Future.Kline, c.Future.Depth,
			c.Future.Tick, c.Future.Ticks, c.Future.Quotes, c.Future.Klines, c.Future.Depths},
		{markettest.Fund, itick.RegionUS, []string{"QQQ", "SPY"}, c.Fund.Quote, c.Fund.Kline, c.Fund.Depth,
			c.Fund.Tick, c.Fund.Ticks, c.Fund.Quotes, c.Fund.Klines, c.Fund.Depths},
	}
}

func TestE2ESingularAndTickMethodsOfEveryClass(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	g := srv.Generator()
	ctx := t.Context()
	end := e2eNow.Add(-36 * time.Hour)
	for _, cc := range everyClass(c) {
		t.Run(string(cc.class), func(t *testing.T) {
			t.Parallel()
			quotes, err := cc.quotes(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Quotes: %v", err)
			}
			klines, err := cc.klines(ctx, cc.region, cc.codes, itick.FiveMinutes, 30, itick.WithEnd(end))
			if err != nil {
				t.Fatalf("Klines: %v", err)
			}
			depths, err := cc.depths(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Depths: %v", err)
			}
			ticks, err := cc.ticks(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Ticks: %v", err)
			}
			if len(ticks) != len(cc.codes) {
				t.Errorf("Ticks gave %d, want %d", len(ticks), len(cc.codes))
			}
			for _, code := range cc.codes {
				q, err := cc.quote(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Quote(%s): %v", code, err)
				}
				if diff := cmp.Diff(wantQuote(g, cc.class, cc.region, code), *q); diff != "" {
					t.Errorf("Quote(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(quotes[code], *q); diff != "" {
					t.Errorf("Quote(%s) differs from Quotes (-batch +single):\n%s", code, diff)
				}

				ks, err := cc.kline(ctx, cc.region, code, itick.FiveMinutes, 30, itick.WithEnd(end))
				if err != nil {
					t.Fatalf("Kline(%s): %v", code, err)
				}
				if diff := cmp.Diff(g.Klines(cc.class, cc.region, code, itick.FiveMinutes, 30, end, e2eNow), ks); diff != "" {
					t.Errorf("Kline(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(klines[code], ks); diff != "" {
					t.Errorf("Kline(%s) differs from Klines (-batch +single):\n%s", code, diff)
				}

				book, err := cc.depth(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Depth(%s): %v", code, err)
				}
				if diff := cmp.Diff(depths[code], *book); diff != "" {
					t.Errorf("Depth(%s) differs from Depths (-batch +single):\n%s", code, diff)
				}

				tk, err := cc.tick(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Tick(%s): %v", code, err)
				}
				if diff := cmp.Diff(g.Tick(cc.class, cc.region, code, e2eNow), *tk); diff != "" {
					t.Errorf("Tick(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(ticks[code], *tk); diff != "" {
					t.Errorf("Tick(%s) differs from Ticks (-batch +single):\n%s", code, diff)
				}
				// The last trade is the quote's last price at the same instant.
				if tk.Last != q.Last || !tk.Time.Equal(q.Time) || tk.Volume <= 0 {
					t.Errorf("%s: tick %v at %s, quote %v at %s", code, tk.Last, tk.Time, q.Last, q.Time)
				}
				if (cc.class == markettest.Crypto) != (tk.Turnover > 0) {
					t.Errorf("%s: tick turnover %v (crypto only)", code, tk.Turnover)
				}
			}
		})
	}
}

func TestE2EStockTickSessionAndExchange(t *testing.T) {
	t.Parallel()
	preMarket := time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC) // 08:00 in New York
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return preMarket })})
	tk, err := c.Stock.Tick(t.Context(), itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ"))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Session != itick.SessionPreMarket {
		t.Errorf("session %v at 08:00 in New York, want pre-market", tk.Session)
	}
	if _, err := c.Stock.Quote(t.Context(), itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ")); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, r := range srv.Requests() {
		sent = append(sent, r.Path+" "+r.Query.Get("exchange"))
	}
	if diff := cmp.Diff([]string{"/stock/tick NASDAQ", "/stock/quote NASDAQ"}, sent); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestE2EReferenceData(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	g := srv.Generator()
	ctx := t.Context()

	t.Run("symbols", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			typ    itick.AssetType
			class  markettest.Class
			region itick.Region
		}{
			{itick.AssetStock, markettest.Stock, itick.RegionUS},
			{itick.AssetStock, markettest.Stock, itick.RegionJP},
			{itick.AssetCrypto, markettest.Crypto, itick.RegionBA},
			{itick.AssetFund, markettest.Fund, itick.RegionUS},
		} {
			syms, err := c.Market.Symbols(ctx, tt.typ, tt.region, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g.Listings(tt.class, tt.region), syms); diff != "" || len(syms) == 0 {
				t.Errorf("%s %s (-generator +got):\n%s", tt.typ, tt.region, diff)
			}
			// A listed code can be asked for alone, and quoted.
			one, err := c.Market.Symbols(ctx, tt.typ, tt.region, syms[len(syms)-1].Code)
			if err != nil || len(one) != 1 || one[0] != syms[len(syms)-1] {
				t.Errorf("%s %s by code: %v, %v", tt.typ, tt.region, one, err)
			}
		}
		// A code with a dot goes through as it is.
		brk, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "BRK.B")
		if err != nil || len(brk) != 1 || brk[0].Code != "BRK.B" || brk[0].Exchange != "NYSE" {
			t.Errorf("BRK.B: %v, %v", brk, err)
		}
		syms, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "AAPL")
		if err != nil || len(syms) != 1 {
			t.Fatalf("%v, %v", syms, err)
		}
		q, err := c.Stock.Quote(ctx, itick.RegionUS, syms[0].Code, itick.WithQuoteExchange(syms[0].Exchange))
		if err != nil || q.Symbol != "AAPL" || q.Last <= 0 {
			t.Errorf("quote of a listed symbol: %+v, %v", q, err)
		}
	})

	t.Run("holidays", func(t *testing.T) {
		t.Parallel()
		hs, err := c.Market.Holidays(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var us *itick.Holiday
		for i := range hs {
			if hs[i].Market == "US" {
				us = &hs[i]
			}
		}
		if us == nil || us.Year != e2eNow.Year() || us.UTCOffset != -5 || us.TradingHours != "09:30 - 16:00" ||
			!slices.ContainsFunc(us.Dates, func(d time.Time) bool { return d.Equal(time.Date(2025, 12, 25, 0, 0, 0, 0, time.UTC)) }) {
			t.Errorf("US calendar %+v", us)
		}
	})

	t.Run("status", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			region itick.Region
			state  itick.MarketState
			local  string
		}{
			{itick.RegionUS, itick.MarketOpen, "2025-06-03 10:30:15"}, // 14:30 UTC in June
			{itick.RegionHK, itick.MarketClosed, "2025-06-03 22:30:15"},
		} {
			st, err := c.Market.Status(ctx, tt.region)
			if err != nil {
				t.Fatal(err)
			}
			if len(st) != 1 || st[0].Code != string(tt.region) || st[0].State != tt.state ||
				st[0].Open != (tt.state == itick.MarketOpen) || st[0].LocalTime != tt.local || st[0].Zone == "" {
				t.Errorf("%s: %+v", tt.region, st)
			}
		}
		if _, err := c.Market.Status(ctx, "ZZ"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("status of an unknown market: %v, want ErrNotFound", err)
		}
	})

	t.Run("stock info", func(t *testing.T) {
		t.Parallel()
		info, err := c.Stock.Info(ctx, itick.RegionUS, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(g.StockInfo(itick.RegionUS, "AAPL", e2eNow), *info); diff != "" {
			t.Errorf("Info (-generator +got):\n%s", diff)
		}
		q, err := c.Stock.Quote(ctx, itick.RegionUS, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		if got := info.MarketCap / info.Shares; got < q.Last*0.999 || got > q.Last*1.001 {
			t.Errorf("market cap / shares = %v, quote %v", got, q.Last)
		}
	})

	t.Run("IPOs", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []itick.IPOKind{itick.IPOUpcoming, itick.IPORecent} {
			var got []itick.IPO
			for ipo, err := range c.Stock.IPOs(ctx, kind, itick.RegionHK) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ipo)
			}
			want := g.IPOs(kind, itick.RegionHK, e2eNow)
			if diff := cmp.Diff(want, got); diff != "" || len(got) <= markettest.IPOPageSize {
				t.Errorf("%s IPOs (%d, want more than a page) (-generator +got):\n%s", kind, len(got), diff)
			}
			p, err := c.Stock.IPOPage(ctx, kind, itick.RegionHK, 1)
			if err != nil {
				t.Fatal(err)
			}
			n := markettest.IPOPageSize
			wantPage := &itick.IPOPage{Records: want[n:min(2*n, len(want))], Page: 1, Size: n,
				TotalPages: (len(want) + n - 1) / n, TotalElements: len(want), Last: len(want) <= 2*n}
			if diff := cmp.Diff(wantPage, p); diff != "" {
				t.Errorf("%s IPOPage(1) (-want +got):\n%s", kind, diff)
			}
		}
	})

	t.Run("news detail", func(t *testing.T) {
		t.Parallel()
		page, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			a, err := c.News.Get(ctx, it.ID, "en")
			if err != nil {
				t.Fatalf("Get(%s): %v", it.ID, err)
			}
			want, ok := g.NewsArticle(it.ID, "en", e2eNow)
			if diff := cmp.Diff(want, *a); !ok || diff != "" {
				t.Errorf("Get(%s) (-generator +got):\n%s", it.ID, diff)
			}
			if a.Title != it.Title || !a.Published.Equal(it.Published) || a.Link != it.Link || a.Market != it.Market ||
				a.Lang != it.Lang || !strings.Contains(a.Body, strings.Fields(it.Title)[0]) {
				t.Errorf("article %+v does not match the item %+v", a, it)
			}
		}
		if _, err := c.News.Get(ctx, "no-such-article", "en"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("Get of an unknown id: %v, want ErrNotFound", err)
		}
	})
}

// Behaviours 15 to 18 against the simulator, as a user's tests would run
// them.
func TestServiceBehavioursAgainstTheSimulator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	codes := make([]string, 300)
	for i := range codes {
		codes[i] = fmt.Sprintf("C%d", i)
	}

	t.Run("a spent quota under a deadline ends at once", func(t *testing.T) {
		t.Parallel()
		c, _ := newSimClient(t, []markettest.Option{markettest.WithQuota(1)})
		if _, err := c.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"}); err != nil {
			t.Fatal(err)
		}
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := c.Stock.Quotes(dctx, itick.RegionUS, []string{"AAPL"})
		var apiErr *itick.APIError
		if !errors.Is(err, itick.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) ||
			!errors.As(err, &apiErr) || apiErr.RetryAfter <= 0 || dctx.Err() != nil {
			t.Errorf("err = %v, want a 429 with its RetryAfter, matching ErrRateLimited and DeadlineExceeded, before the deadline", err)
		}
	})

	t.Run("a bad token costs one request", func(t *testing.T) {
		t.Parallel()
		_, srv := newSimClient(t, nil)
		c, err := itick.NewClient("not-the-simulators-token", itick.WithBaseURL(srv.URL), itick.WithRateLimit(rate.Inf, 0))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Stock.Quotes(ctx, itick.RegionUS, codes); !errors.Is(err, itick.ErrUnauthorized) {
			t.Fatalf("err = %v, want ErrUnauthorized", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})

	t.Run("products outside the plan are missing, not an error", func(t *testing.T) {
		t.Parallel()
		c, _ := newSimClient(t, []markettest.Option{markettest.WithRegions(itick.RegionUS)})
		got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "9988"})
		if err != nil || len(got) != 0 {
			t.Fatalf("Quotes = %v, %v; want an empty map and no error", got, err)
		}
		if diff := cmp.Diff([]string{"700", "9988"}, itick.MissingCodes([]string{" 700", "9988", "700"}, got)); diff != "" {
			t.Errorf("MissingCodes (-want +got):\n%s", diff)
		}
		if _, err := c.Stock.Quote(ctx, itick.RegionHK, "700"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("Quote = %v, want ErrNotFound", err)
		}
	})

	t.Run("a lost stream is reported at once and renewed", func(t *testing.T) {
		t.Parallel()
		c, srv := newSimClient(t, []markettest.Option{markettest.WithStreamInterval(5 * time.Millisecond)})
		s, err := c.Stream(ctx, itick.AssetCrypto, itick.WithReconnectBackoff(0, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Subscribe(ctx, []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		nextOf[itick.QuoteEvent](t, s)
		srv.DropStreams()
		d, _ := nextOf[itick.DisconnectEvent](t, s)
		g, _ := nextOf[itick.GapEvent](t, s)
		if !slices.Equal(d.Symbols, []string{"BTCUSDT$BA"}) || !g.From.Equal(d.At) || s.Stats().Down != 0 {
			t.Errorf("DisconnectEvent %+v, GapEvent %+v, Stats %+v", d, g, s.Stats())
		}
		if q, _ := nextOf[itick.QuoteEvent](t, s); q.Code != "BTCUSDT" {
			t.Errorf("after the renewal: %+v", q)
		}
	})
}
