package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The examples run against markettest, the offline stand-in for the
// service, with its seed and clock pinned so every answer is the same on
// every run. Swap srv.Client() for itick.NewClient(token) to reach the
// service itself.

// NewClient checks the token and every option, and sends nothing;
// WithBaseURL points the client at another address, here a simulator.
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
	fmt.Println("empty token refused:", errors.Is(err, itick.ErrInvalidArgument))

	srv := markettest.NewServer(markettest.WithSeed(7),
		markettest.WithClock(func() time.Time { return time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) }))
	defer srv.Close()
	sim, err := itick.NewClient(srv.Token, itick.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	q, err := sim.Stock.Quote(context.Background(), itick.RegionHK, "700")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("700 last:", q.Last)
	// Output:
	// base URL: https://api.itick.org
	// codes per request: 20
	// empty token refused: true
	// 700 last: 363
}

// NewClientFromEnv reads ITICK_TOKEN, and ITICK_BASE_URL and ITICK_PLAN
// when set. A deployment sets them outside the program; here they point at
// a simulator.
func ExampleNewClientFromEnv() {
	srv := markettest.NewServer(markettest.WithSeed(7),
		markettest.WithClock(func() time.Time { return time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) }))
	defer srv.Close()
	os.Setenv("ITICK_TOKEN", srv.Token)
	os.Setenv("ITICK_BASE_URL", srv.URL)
	os.Setenv("ITICK_PLAN", "premium")
	defer os.Unsetenv("ITICK_TOKEN")
	defer os.Unsetenv("ITICK_BASE_URL")
	defer os.Unsetenv("ITICK_PLAN")

	client, err := itick.NewClientFromEnv(itick.WithRetries(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("codes per request:", client.BatchSize())
	quotes, err := client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("700 last:", quotes["700"].Last)
	// Output:
	// codes per request: 50
	// 700 last: 363
}

// Quotes takes any number of codes and answers with one map keyed by code.
func ExampleStockService_Quotes() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) // 10:30 on a Friday in Hong Kong: the market trades

	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	quotes, err := client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"})
	if err != nil {
		log.Fatal(err)
	}
	for _, code := range []string{"700", "9988"} {
		q := quotes[code]
		fmt.Printf("%s last %v, change %+.2f (%+.2f%%) at %s\n", code, q.Last, q.Change, q.ChangePercent, q.Time.Format(time.RFC3339))
	}
	// Output:
	// 700 last 363, change -3.20 (-0.87%) at 2025-12-12T02:30:00Z
	// 9988 last 80.85, change -1.95 (-2.36%) at 2025-12-12T02:30:00Z
}

// Depth returns a pair's order book, best level first on each side.
func ExampleCryptoService_Depth() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	book, err := client.Crypto.Depth(context.Background(), itick.RegionBA, "BTCUSDT")
	if err != nil {
		log.Fatal(err)
	}
	ask, bid := book.Asks[0], book.Bids[0]
	fmt.Printf("%s: %d levels a side\n", book.Symbol, len(book.Asks))
	fmt.Printf("best ask %v for %v, best bid %v for %v\n", ask.Price, ask.Volume, bid.Price, bid.Volume)
	// Output:
	// BTCUSDT: 5 levels a side
	// best ask 65244.1 for 0.19052, best bid 65244 for 0.28275
}

// Klines returns the latest candles of each code, oldest first; WithEnd
// moves the window back in time.
func ExampleStockService_Klines() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	end := time.Date(2025, 12, 11, 16, 0, 0, 0, time.FixedZone("HKT", 8*60*60)) // Thursday's close
	klines, err := client.Stock.Klines(context.Background(), itick.RegionHK, []string{"700"}, itick.OneDay, 3, itick.WithEnd(end))
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range klines["700"] {
		fmt.Printf("%s open %v close %v\n", k.Time.Format(time.DateOnly), k.Open, k.Close)
	}
	// Output:
	// 2025-12-09 open 357.8 close 359.6
	// 2025-12-10 open 360.8 close 362.6
	// 2025-12-11 open 360.8 close 366.2
}

// KlinesRange backfills every candle of a time range, however many
// requests that takes; WithProgress reports each page as it arrives.
func ExampleStockService_KlinesRange() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	var last itick.RangeProgress
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	klines, err := client.Stock.KlinesRange(context.Background(), itick.RegionHK, []string{"700", "9988"}, itick.OneDay, from, to,
		itick.WithPageSize(100),
		itick.WithProgress(func(p itick.RangeProgress) { last = p }), // a progress bar would draw p.Fraction()
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d requests, %d candles, %d of %d codes done, %.0f%%\n", last.Requests, last.Candles, last.Done, last.Codes, 100*last.Fraction())
	for _, code := range []string{"700", "9988"} {
		ks := klines[code]
		fmt.Printf("%s: %d candles, %s to %s\n", code, len(ks), ks[0].Time.Format(time.DateOnly), ks[len(ks)-1].Time.Format(time.DateOnly))
	}
	// Output:
	// 3 requests, 458 candles, 2 of 2 codes done, 100%
	// 700: 229 candles, 2025-01-02 to 2025-11-28
	// 9988: 229 candles, 2025-01-02 to 2025-11-28
}

// Splits iterates over every split record, fetching pages as the loop
// needs them.
func ExampleStockService_Splits() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	n := 0
	for rec, err := range client.Stock.Splits(context.Background(), itick.RegionUS) {
		if err != nil {
			log.Fatal(err)
		}
		if n < 3 {
			fmt.Println(rec.ExDate.Format(time.DateOnly), rec.Code, rec.Ratio)
		}
		n++
	}
	fmt.Println(n, "records in", client.Stats().Requests, "pages")
	// Output:
	// 2025-12-09 AF 1:50
	// 2025-12-08 QH 5:4
	// 2025-12-04 LQ 1:25
	// 53 records in 3 pages
}

// All iterates over the news feed page after page; breaking out of the
// loop stops fetching.
func ExampleNewsService_All() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	q := itick.NewsQuery{Market: "stock", Lang: "en", Limit: 2}
	n := 0
	for item, err := range client.News.All(context.Background(), q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(item.Published.Format(time.RFC3339), item.Provider)
		if n++; n == 5 {
			break
		}
	}
	fmt.Println(client.Stats().Requests, "pages fetched")
	// Output:
	// 2025-12-12T02:29:30Z MarketWire
	// 2025-12-12T02:24:33Z Street Insider
	// 2025-12-12T02:17:36Z MarketWire
	// 2025-12-12T02:13:13Z Street Insider
	// 2025-12-12T02:01:09Z Finance Daily
	// 3 pages fetched
}

// Get returns one article; its id comes from the news list.
func ExampleNewsService_Get() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	page, err := client.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	a, err := client.News.Get(ctx, page.Items[0].ID, "en")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Title)
	fmt.Println(a.Published.Format("2006-01-02 15:04 MST"), a.Markets, a.Tags)

	_, err = client.News.Get(ctx, "no-such-article", "en")
	fmt.Println("unknown id:", errors.Is(err, itick.ErrNotFound))
	// Output:
	// Stark trims workforce in restructuring
	// 2025-12-12 02:29 UTC [US JP] [Stark trims stock]
	// unknown id: true
}

// A refused token is an *APIError holding the service's answer, and
// matches ErrUnauthorized whichever form the refusal takes.
func ExampleAPIError() {
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithFixedClock(time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)))
	defer srv.Close()
	client, err := itick.NewClient("wrong-token", itick.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"})
	var apiErr *itick.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Path, apiErr.Message)
	}
	fmt.Println("unauthorized:", errors.Is(err, itick.ErrUnauthorized))
	fmt.Println("rate limited:", errors.Is(err, itick.ErrRateLimited))

	// Some deployments refuse with HTTP 200 and an E-number as text in code.
	textSrv := markettest.NewServer(markettest.WithSeed(7), markettest.WithFixedClock(time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)), markettest.WithTextCodes())
	defer textSrv.Close()
	client, err = itick.NewClient("wrong-token", itick.WithBaseURL(textSrv.URL))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"})
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.CodeText, apiErr.Message)
	}
	fmt.Println("unauthorized:", errors.Is(err, itick.ErrUnauthorized))
	// Output:
	// 401 /stock/quotes Invalid API key in request
	// unauthorized: true
	// rate limited: false
	// 200 E002 auth failed
	// unauthorized: true
}

// When some chunks of a batch call fail, the results that arrived come back
// with a *BatchError naming the codes to ask for again.
func ExampleBatchError_FailedCodes() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client(itick.WithBatchSize(2), itick.WithRetries(1))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// Every request carrying 1810 fails: the chunk [5 1810] does, the other arrives.
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusBadGateway, Code: "1810"})
	quotes, err := client.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "9988", "5", "1810"})
	fmt.Println("got", len(quotes), "quotes")
	var batchErr *itick.BatchError
	if !errors.As(err, &batchErr) {
		log.Fatal(err)
	}
	failed := batchErr.FailedCodes() // in request order
	fmt.Println("failed:", failed)

	srv.ClearFaults() // the server recovers
	more, err := client.Stock.Quotes(ctx, itick.RegionHK, failed)
	if err != nil {
		log.Fatal(err)
	}
	for code, q := range more {
		quotes[code] = q
	}
	fmt.Println("after the retry:", len(quotes), "quotes")
	// Output:
	// got 2 quotes
	// failed: [5 1810]
	// after the retry: 4 quotes
}

// Quote returns one product's quote; TradingStatus reads its status code.
func ExampleStockService_Quote() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) // 10:30 on a Friday in Hong Kong: the market trades
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	q, err := client.Stock.Quote(context.Background(), itick.RegionHK, "700")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s last %v (%+.2f%%), %s\n", q.Symbol, q.Last, q.ChangePercent, q.TradingStatus())
	// Output:
	// 700 last 363 (-0.87%), normal
}

// Tick returns a product's latest trade, with its session for stocks.
func ExampleStockService_Tick() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) // 10:30 on a Friday in Hong Kong: the market trades
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	t, err := client.Stock.Tick(context.Background(), itick.RegionHK, "700")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %v x %v, %s session, %s\n", t.Symbol, t.Last, t.Volume, t.Session, t.Time.Format(time.RFC3339))
	// Output:
	// 700 363 x 200, regular session, 2025-12-12T02:30:00Z
}

// Status says whether a market trades now, in its own time zone.
func ExampleMarketService_Status() {
	// 12:31 in Hong Kong: the lunch break.
	at := time.Date(2025, 12, 12, 12, 31, 5, 0, time.FixedZone("HKT", 8*60*60))
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	statuses, err := client.Market.Status(context.Background(), itick.RegionHK)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range statuses {
		fmt.Printf("%s: %s at %s (%s)\n", s.Code, s.State, s.LocalTime, s.Zone)
	}
	// Output:
	// HK: lunch break at 2025-12-12 12:31:05 (Asia/Hong_Kong)
}

// Holidays returns each market's calendar of days without trading.
func ExampleMarketService_Holidays() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	hs, err := client.Market.Holidays(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hs {
		if h.Market == "US" {
			fmt.Printf("%s %d: %d holidays, trading %s\n", h.Market, h.Year, len(h.Dates), h.TradingHours)
			for _, d := range h.Dates[:3] {
				fmt.Println(d.Format("Mon 2 Jan 2006"))
			}
		}
	}
	// Output:
	// US 2025: 10 holidays, trading 09:30 - 16:00
	// Wed 1 Jan 2025
	// Mon 20 Jan 2025
	// Mon 17 Feb 2025
}

// IPOs iterates over a region's upcoming listings, fetching pages as the
// loop needs them.
func ExampleStockService_IPOs() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	n := 0
	for ipo, err := range client.Stock.IPOs(context.Background(), itick.IPOUpcoming, itick.RegionUS) {
		if err != nil {
			log.Fatal(err)
		}
		if n < 2 {
			fmt.Printf("%s (%s) lists %s at %s; subscription closes %s\n", ipo.Company, ipo.Code,
				ipo.ListingDate.Format(time.DateOnly), ipo.Price, ipo.SubscriptionEnd.Format(time.DateOnly))
		}
		n++
	}
	fmt.Println(n, "upcoming listings")
	// Output:
	// Umbrella Technologies (SL) lists 2025-12-16 at 8.00-9.00; subscription closes 2025-12-12
	// Vandelay Industries (AAV) lists 2025-12-22 at 14.50-15.50; subscription closes 2025-12-18
	// 13 upcoming listings
}

// Get reaches /symbol/info, which the SDK does not model, under the same
// limiter, retries and success rule as the typed calls.
func ExampleClient_Get() {
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithFixedClock(time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	var info struct {
		Code     string `json:"c"`
		Name     string `json:"n"`
		Exchange string `json:"e"`
	}
	q := url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"700"}}
	if err := client.Get(ctx, "/symbol/info", q, &info); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s on %s\n", info.Code, info.Name, info.Exchange)

	// A *json.RawMessage takes the data as it came.
	var raw json.RawMessage
	if err := client.Get(ctx, "/symbol/info", q, &raw); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(raw))

	q.Set("code", "NOPE")
	err = client.Get(ctx, "/symbol/info", q, &info)
	fmt.Println("NOPE not found:", errors.Is(err, itick.ErrNotFound))
	// Output:
	// 700: Tencent Holdings Ltd. on HKEX
	// {"c":"700","n":"Tencent Holdings Ltd.","t":"stock","e":"HKEX","s":null,"l":"Tencent"}
	// NOPE not found: true
}

// Stats counts what the client has done, retries included, for a
// service's metrics.
func ExampleClient_Stats() {
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithFixedClock(time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}

	srv.FailNext(1, http.StatusServiceUnavailable) // retried
	if _, err := client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"}); err != nil {
		log.Fatal(err)
	}
	st := client.Stats()
	fmt.Printf("requests %d, attempts %d, retries %d, errors %d\n", st.Requests, st.Attempts, st.Retries, st.Errors)
	// Output:
	// requests 1, attempts 2, retries 1, errors 0
}

// Events come through a channel rather than an iterator so that a bot can
// select on them beside its own timers and contexts; the Stream reconnects
// underneath and says so with a GapEvent.
func ExampleClient_Stream() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC) // 10:30 on a Friday in Hong Kong: 700 trades, so it pushes
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }),
		markettest.WithStreamInterval(10*time.Millisecond))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	stream, err := client.Stream(ctx, itick.AssetStock, itick.WithBuffer(1024, itick.DropOldest))
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	err = stream.Subscribe(ctx, []string{"700$HK"}, itick.ChannelQuote, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute))
	if err != nil {
		log.Fatal(err)
	}

	// Wait for one push of each channel; the order they come in varies.
	var quote *itick.QuoteEvent
	var depth *itick.DepthEvent
	var kline *itick.KlineEvent
	for quote == nil || depth == nil || kline == nil {
		select {
		case ev, ok := <-stream.Events():
			if !ok {
				log.Fatal("stream ended: ", stream.Err())
			}
			switch ev := ev.(type) {
			case itick.QuoteEvent:
				quote = &ev
			case itick.DepthEvent:
				depth = &ev
			case itick.KlineEvent:
				kline = &ev
			case itick.GapEvent:
				// Fill the hole over REST, e.g. with client.Stock.KlinesRange.
				fmt.Println("missed", ev.Symbols, "from", ev.From, "to", ev.To, "because", ev.Reason)
			}
		case <-ctx.Done():
			log.Fatal(ctx.Err())
		}
	}
	fmt.Println(quote.Symbol(), "last", quote.Quote.Last)
	fmt.Println(depth.Symbol(), "best bid", depth.Depth.Bids[0].Price, "best ask", depth.Depth.Asks[0].Price)
	fmt.Println(kline.Symbol(), kline.Interval, "candle of", kline.Kline.Time.Format(time.RFC3339), "close", kline.Kline.Close)
	// Output:
	// 700$HK last 363
	// 700$HK best bid 363 best ask 363.2
	// 700$HK 1m candle of 2025-12-12T02:30:00Z close 363
}

// Subscribe returns once the service has acknowledged the products; a
// refusal is a *StreamError, and a bad symbol is refused before anything
// is sent.
func ExampleStream_Subscribe() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }),
		markettest.WithStreamInterval(10*time.Millisecond),
		markettest.WithStreamMaxSymbols(1)) // the service takes one product a connection
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	stream, err := client.Stream(ctx, itick.AssetCrypto)
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()

	if err := stream.Subscribe(ctx, []string{"BTCUSDT$BA"}, itick.ChannelQuote, itick.ChannelDepth); err != nil {
		log.Fatal(err)
	}
	err = stream.Subscribe(ctx, []string{"ETHUSDT$BA"}, itick.ChannelQuote)
	var streamErr *itick.StreamError
	if errors.As(err, &streamErr) {
		fmt.Printf("%s refused: %q, plan limit: %t\n", streamErr.Action, streamErr.Message, errors.Is(err, itick.ErrPlanLimit))
	}
	err = stream.Subscribe(ctx, []string{"BTCUSDT"}, itick.ChannelQuote)
	fmt.Println("no region:", errors.Is(err, itick.ErrInvalidArgument))

	var quote *itick.QuoteEvent
	var depth *itick.DepthEvent
	for quote == nil || depth == nil {
		ev, ok := <-stream.Events()
		if !ok {
			log.Fatal("stream ended: ", stream.Err())
		}
		switch ev := ev.(type) {
		case itick.QuoteEvent:
			quote = &ev
		case itick.DepthEvent:
			depth = &ev
		}
	}
	fmt.Println(quote.Symbol(), "last", quote.Quote.Last, "at", quote.Quote.Time.Format(time.RFC3339))
	fmt.Println(depth.Symbol(), "best bid", depth.Depth.Bids[0].Price, "best ask", depth.Depth.Asks[0].Price)
	fmt.Println("subscribed:", stream.Stats().Symbols)
	// Output:
	// subscribe refused: "exceeding the maximum subscription limit", plan limit: true
	// no region: true
	// BTCUSDT$BA last 65244.1 at 2025-12-12T02:30:00Z
	// BTCUSDT$BA best bid 65244 best ask 65244.1
	// subscribed: 1
}

// A caller-supplied Limiter paces every attempt, retries included. One
// rate.Limiter shared by two clients keeps both within one quota, and a
// call whose deadline the wait would pass is refused before it is sent.
func ExampleWithLimiter() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()

	lim := rate.NewLimiter(rate.Every(time.Minute), 3) // three at once, then one a minute
	quotes, err := srv.Client(itick.WithLimiter(lim))
	if err != nil {
		log.Fatal(err)
	}
	books, err := srv.Client(itick.WithLimiter(lim))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	srv.FailNext(1, http.StatusServiceUnavailable) // the retry takes a token too
	if _, err := quotes.Stock.Quote(ctx, itick.RegionHK, "700"); err != nil {
		log.Fatal(err)
	}
	if _, err := books.Stock.Depth(ctx, itick.RegionHK, "700"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("attempts:", quotes.Stats().Attempts+books.Stats().Attempts)

	// The next token comes in a minute; this call may wait a second.
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = books.Stock.Depth(ctx, itick.RegionHK, "9988")
	fmt.Println("refused:", errors.Is(err, itick.ErrRateLimited))
	wait, _ := itick.RetryAfter(err)
	fmt.Println("retry after about", wait.Round(time.Minute))
	fmt.Println("requests the server saw:", srv.Stats().Requests)
	// Output:
	// attempts: 3
	// refused: true
	// retry after about 1m0s
	// requests the server saw: 3
}

// A LimiterFunc wraps another limiter in view: here one that counts the
// waits, retries included, and logs none of them.
func ExampleLimiterFunc() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }))
	defer srv.Close()

	inner := rate.NewLimiter(rate.Every(50*time.Millisecond), 10)
	var waits atomic.Int64
	counting := itick.LimiterFunc(func(ctx context.Context) error {
		waits.Add(1)
		return inner.Wait(ctx)
	})
	client, err := srv.Client(itick.WithLimiter(counting))
	if err != nil {
		log.Fatal(err)
	}
	srv.FailNext(1, http.StatusBadGateway) // retried: two attempts, two waits
	if _, err := client.Stock.Quote(context.Background(), itick.RegionHK, "700"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("waits:", waits.Load())
	// Output:
	// waits: 2
}

// RetryAfter says how long a spent quota asks the caller to wait, for a
// bot to pause or a service to pass on to its own callers.
func ExampleRetryAfter() {
	clock := markettest.NewManualClock(time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC))
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(clock.Now), markettest.WithQuota(1))
	defer srv.Close()
	// Without retries the 429 comes back at once; with them, the client
	// would wait out the Retry-After itself.
	client, err := srv.Client(itick.WithRetries(0))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	if _, err := client.Stock.Quote(ctx, itick.RegionHK, "700"); err != nil {
		log.Fatal(err)
	}
	clock.Advance(15 * time.Second)
	_, err = client.Stock.Quote(ctx, itick.RegionHK, "700")
	fmt.Println("rate limited:", errors.Is(err, itick.ErrRateLimited))
	if wait, ok := itick.RetryAfter(err); ok {
		fmt.Println("retry after:", wait.Round(time.Second))
	}
	// Output:
	// rate limited: true
	// retry after: 45s
}

// The service answers a market outside the plan with no data and no
// error; MissingCodes names the codes that came back empty.
func ExampleMissingCodes() {
	at := time.Date(2025, 12, 12, 2, 30, 0, 0, time.UTC)
	// The plan covers Hong Kong only.
	srv := markettest.NewServer(markettest.WithSeed(7), markettest.WithClock(func() time.Time { return at }),
		markettest.WithRegions(itick.RegionHK))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	watchlist := []struct {
		region itick.Region
		codes  []string
	}{
		{itick.RegionHK, []string{"700", "9988"}},
		{itick.RegionUS, []string{"AAPL", "MSFT"}},
	}
	for _, w := range watchlist {
		quotes, err := client.Stock.Quotes(ctx, w.region, w.codes)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d quotes, missing %v\n", w.region, len(quotes), itick.MissingCodes(w.codes, quotes))
	}
	// Output:
	// HK: 2 quotes, missing []
	// US: 0 quotes, missing [AAPL MSFT]
}
