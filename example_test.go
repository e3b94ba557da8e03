package itick_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

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
