package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The examples of the package documentation. A local server stands in for
// the service and answers with the fixtures in testdata.

// exampleClient returns a client sending token to a local server that
// stands in for the service, and a function that stops the server. The
// server answers every request with testdata/fixture; with no fixture it
// serves the fixtures the way the service would: /stock/quotes answers
// with stock_quotes.json, split pages by their page parameter, news pages
// by their cursor, a token other than demo-token gets the gateway's
// refusal, and a code starting with "BAD" gets E001.
func exampleClient(fixture, token string, opts ...itick.Option) (*itick.Client, func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, status := strings.TrimSuffix(fixture, ".json"), http.StatusOK
		if fixture == "" {
			name, status = exampleRoute(r)
		}
		b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}))
	c, err := itick.NewClient(token, append([]itick.Option{
		itick.WithBaseURL(srv.URL),
		itick.WithRateLimit(rate.Inf, 0),
		itick.WithBackoff(time.Millisecond, 10*time.Millisecond),
	}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return c, srv.Close
}

// exampleRoute is the fixture, and the status, that answers r.
func exampleRoute(r *http.Request) (string, int) {
	q := r.URL.Query()
	name := strings.ReplaceAll(strings.TrimPrefix(r.URL.Path, "/"), "/", "_")
	switch {
	case r.Header.Get("token") != "demo-token":
		return "error_gateway", http.StatusUnauthorized
	case strings.HasPrefix(q.Get("codes"), "BAD"):
		name = "error_e001"
	case r.URL.Path == "/stock/split":
		name += "_page" + q.Get("page")
	case r.URL.Path == "/news" && q.Get("cursor") == "":
		name += "_page1"
	case r.URL.Path == "/news":
		name += "_page2"
	}
	return name, http.StatusOK
}

func ExampleNewClient() {
	c, err := itick.NewClient("your-token",
		itick.WithPlan(itick.PlanProfessional),
		itick.WithRetries(5),
		itick.WithUserAgent("quantbot/2.1"),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("base URL:", c.BaseURL())
	fmt.Println("codes per request:", c.BatchSize())

	_, err = itick.NewClient("")
	fmt.Println(errors.Is(err, itick.ErrInvalidArgument))
	// Output:
	// base URL: https://api.itick.org
	// codes per request: 20
	// true
}

func ExampleNewClientFromEnv() {
	// ITICK_TOKEN holds the token; ITICK_BASE_URL and ITICK_PLAN are optional.
	c, err := itick.NewClientFromEnv(itick.WithRetries(2))
	if err != nil {
		log.Fatal(err)
	}
	quotes, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(quotes["700"].Last)
}

func ExampleStockService_Quotes() {
	c, stop := exampleClient("", "demo-token")
	defer stop()

	quotes, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"})
	if err != nil {
		log.Fatal(err)
	}
	for _, code := range []string{"700", "9988"} {
		q := quotes[code]
		fmt.Printf("%s last %.2f change %+.2f (%+.2f%%) at %s\n", code, q.Last, q.Change, q.ChangePercent, q.Time.Format(time.RFC3339))
	}
	// Output:
	// 700 last 616.00 change +8.00 (+1.32%) at 2025-12-12T08:08:09Z
	// 9988 last 82.35 change -1.30 (-1.55%) at 2025-12-12T08:08:09Z
}

func ExampleCryptoService_Depth() {
	c, stop := exampleClient("", "demo-token")
	defer stop()

	book, err := c.Crypto.Depth(context.Background(), itick.RegionBA, "BTCUSDT")
	if err != nil {
		log.Fatal(err)
	}
	best := book.Asks[0]
	fmt.Printf("%s best ask %.1f for %g (%d levels a side)\n", book.Symbol, best.Price, best.Volume, len(book.Asks))
	// Output:
	// BTCUSDT best ask 92311.5 for 0.01234 (5 levels a side)
}

func ExampleStockService_Klines() {
	c, stop := exampleClient("", "demo-token")
	defer stop()

	end := time.Date(2025, 12, 12, 0, 0, 0, 0, time.UTC)
	klines, err := c.Stock.Klines(context.Background(), itick.RegionHK, []string{"700"}, itick.OneDay, 3, itick.WithEnd(end))
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range klines["700"] { // oldest first
		fmt.Printf("%s open %g close %g\n", k.Time.Format("2006-01-02"), k.Open, k.Close)
	}
	// Output:
	// 2025-12-09 open 598 close 601
	// 2025-12-10 open 601 close 604
	// 2025-12-11 open 604 close 608
}

func ExampleStockService_Splits() {
	c, stop := exampleClient("", "demo-token")
	defer stop()

	for rec, err := range c.Stock.Splits(context.Background(), itick.RegionUS) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.ExDate.Format("2006-01-02"), rec.Code, rec.Ratio)
	}
	// Output:
	// 2025-12-08 NVDA 10:1
	// 2025-12-05 WBA 1:20
	// 2025-12-02 CMG 50:1
}

func ExampleNewsService_All() {
	c, stop := exampleClient("", "demo-token")
	defer stop()

	q := itick.NewsQuery{Market: "stock", Lang: "hk"}
	for item, err := range c.News.All(context.Background(), q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(item.Published.Format(time.RFC3339), item.Provider)
	}
	// Output:
	// 2025-12-12T08:00:00Z Reuters
	// 2025-12-12T07:00:00Z AASTOCKS
	// 2025-12-12T06:00:00Z HKET
}

func ExampleAPIError() {
	c, stop := exampleClient("", "wrong-token")
	defer stop()

	_, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"})
	var apiErr *itick.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Path, apiErr.Message)
	}
	fmt.Println("unauthorized:", errors.Is(err, itick.ErrUnauthorized))
	fmt.Println("rate limited:", errors.Is(err, itick.ErrRateLimited))
	// Output:
	// 401 /stock/quotes Invalid API key in request
	// unauthorized: true
	// rate limited: false
}

func ExampleBatchError_FailedCodes() {
	c, stop := exampleClient("", "demo-token", itick.WithBatchSize(2))
	defer stop()

	// The chunk carrying BAD1 and BAD2 fails; the others arrive.
	quotes, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988", "BAD1", "BAD2"})
	var batchErr *itick.BatchError
	if errors.As(err, &batchErr) {
		failed := batchErr.FailedCodes()
		slices.Sort(failed)
		fmt.Println("retry:", failed)
		fmt.Println("not found:", errors.Is(err, itick.ErrNotFound))
	}
	fmt.Println("got:", len(quotes), "quotes")
	// Output:
	// retry: [BAD1 BAD2]
	// not found: true
	// got: 2 quotes
}

func ExampleStockService_Quote() {
	c, stop := exampleClient("stock_quote.json", "your-token")
	defer stop()

	q, err := c.Stock.Quote(context.Background(), itick.RegionHK, "700")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s last %.2f (%+.2f%%), %s\n", q.Symbol, q.Last, q.ChangePercent, q.TradingStatus())
	// Output: 700 last 616.00 (+1.32%), normal
}

func ExampleStockService_Tick() {
	c, stop := exampleClient("stock_tick.json", "your-token")
	defer stop()

	t, err := c.Stock.Tick(context.Background(), itick.RegionHK, "700")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %.2f x %.0f, %s session, %s\n", t.Symbol, t.Last, t.Volume, t.Session, t.Time.Format("2006-01-02 15:04:05 MST"))
	// Output: 700 567.00 x 1134500, regular session, 2025-08-07 08:08:07 UTC
}

func ExampleMarketService_Status() {
	c, stop := exampleClient("market_status.json", "your-token")
	defer stop()

	statuses, err := c.Market.Status(context.Background(), itick.RegionHK)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range statuses {
		fmt.Printf("%s: %s at %s (%s)\n", s.Code, s.State, s.LocalTime, s.Zone)
	}
	// Output: HK: lunch break at 2025-12-12 12:31:05 (Asia/Hong_Kong)
}

func ExampleMarketService_Holidays() {
	c, stop := exampleClient("symbol_holidays.json", "your-token")
	defer stop()

	hs, err := c.Market.Holidays(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hs {
		if h.Market == "US" {
			for _, d := range h.Dates {
				fmt.Println(d.Format("Mon 2 Jan 2006"))
			}
		}
	}
	// Output:
	// Wed 1 Jan 2025
	// Mon 20 Jan 2025
	// Fri 4 Jul 2025
	// Thu 25 Dec 2025
}

func ExampleStockService_IPOs() {
	c, stop := exampleClient("stock_ipo_page1.json", "your-token")
	defer stop()

	for ipo, err := range c.Stock.IPOs(context.Background(), itick.IPOUpcoming, itick.RegionUS) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%s) lists %s at %s; subscription closes %s\n", ipo.Company, ipo.Code,
			ipo.ListingDate.Format(time.DateOnly), ipo.Price, ipo.SubscriptionEnd.Format(time.DateOnly))
	}
	// Output: Quarry Point Minerals (QPM) lists 2025-12-22 at 5.00-6.00; subscription closes 2025-12-20
}

func ExampleNewsService_Get() {
	c, stop := exampleClient("news_detail.json", "your-token")
	defer stop()

	a, err := c.News.Get(context.Background(), "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "en")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Title)
	fmt.Println(a.Published.Format("2006-01-02 15:04 MST"), a.Markets, a.Tags)
	// Output:
	// Tencent shares rise as gaming revenue beats estimates
	// 2025-12-12 08:00 UTC [HK US] [Tencent gaming 700]
}

// Get reaches /symbol/info, which the SDK does not model, under the same
// limiter, retries and success rule as the typed calls.
func ExampleClient_Get() {
	srv := markettest.NewServer() // stands in for the service
	defer srv.Close()
	c, err := srv.Client()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	var info struct {
		Code     string `json:"c"`
		Name     string `json:"n"`
		Exchange string `json:"e"`
	}
	q := url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"700"}}
	if err := c.Get(ctx, "/symbol/info", q, &info); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s on %s\n", info.Code, info.Name, info.Exchange)

	// A *json.RawMessage takes the data as it came.
	var raw json.RawMessage
	if err := c.Get(ctx, "/symbol/info", q, &raw); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(raw))

	q.Set("code", "NOPE")
	err = c.Get(ctx, "/symbol/info", q, &info)
	fmt.Println(errors.Is(err, itick.ErrNotFound))
	// Output:
	// 700: Tencent Holdings Ltd. on HKEX
	// {"c":"700","n":"Tencent Holdings Ltd.","t":"stock","e":"HKEX","s":null,"l":"Tencent"}
	// true
}

func ExampleClient_Stats() {
	srv := markettest.NewServer()
	defer srv.Close()
	c, err := srv.Client()
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.FailNext(1, 503) // retried
	if _, err := c.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"}); err != nil {
		fmt.Println(err)
		return
	}
	st := c.Stats()
	fmt.Printf("requests %d, attempts %d, retries %d, errors %d\n", st.Requests, st.Attempts, st.Retries, st.Errors)
	// Output: requests 1, attempts 2, retries 1, errors 0
}

// Events come through a channel rather than an iterator so that a bot can
// select on them beside its own timers and contexts; the Stream reconnects
// underneath and says so with a GapEvent.
func ExampleClient_Stream() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	client, err := itick.NewClientFromEnv()
	if err != nil {
		fmt.Println(err)
		return
	}
	stream, err := client.Stream(ctx, "stock", itick.WithBuffer(1024, itick.DropOldest))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()

	err = stream.Subscribe(ctx, []string{"700$HK", "AAPL$US"},
		itick.ChannelQuote, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute))
	if err != nil {
		fmt.Println(err)
		return
	}

	report := time.NewTicker(time.Minute)
	defer report.Stop()
	for {
		select {
		case ev, ok := <-stream.Events():
			if !ok {
				fmt.Println("stream ended:", stream.Err())
				return
			}
			switch ev := ev.(type) {
			case itick.QuoteEvent:
				fmt.Println(ev.Code, ev.Region, ev.Quote.Last)
			case itick.DepthEvent:
				if len(ev.Depth.Bids) > 0 {
					fmt.Println(ev.Code, "best bid", ev.Depth.Bids[0].Price)
				}
			case itick.KlineEvent:
				fmt.Println(ev.Code, ev.Interval, ev.Kline.Close)
			case itick.GapEvent:
				// Fill the hole over REST, e.g. with client.Stock.Klines.
				fmt.Println("missed", ev.Symbols, "from", ev.From, "to", ev.To, "because", ev.Reason)
			}
		case <-report.C:
			fmt.Println("dropped so far:", stream.Dropped())
		}
	}
}
