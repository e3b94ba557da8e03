package markettest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func ExampleNewServer() {
	srv := markettest.NewServer(markettest.WithSeed(1),
		markettest.WithClock(func() time.Time { return time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC) }))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		panic(err)
	}
	quotes, err := client.Stock.Quotes(context.Background(), itick.RegionUS, []string{"AAPL", "MSFT"})
	if err != nil {
		panic(err)
	}
	q := quotes["AAPL"]
	fmt.Println(len(quotes), q.Symbol, q.Time.Format(time.RFC3339), q.Low <= q.Last && q.Last <= q.High)
	// Output: 2 AAPL 2025-01-02T15:04:05Z true
}

func ExampleServer_Inject() {
	srv := markettest.NewServer()
	defer srv.Close()
	client, _ := srv.Client()
	ctx := context.Background()

	// Two 503s are retried away; the client never sees them.
	srv.FailNext(2, http.StatusServiceUnavailable)
	_, err := client.Crypto.Quotes(ctx, itick.RegionBA, []string{"BTCUSDT"})
	fmt.Println("after two 503s:", err, "- requests:", srv.Stats().Requests)

	// A fault on every request for one code fails the chunk that carries it.
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusBadGateway, Code: "ETHUSDT"})
	_, err = client.Crypto.Quotes(ctx, itick.RegionBA, []string{"ETHUSDT"})
	var apiErr *itick.APIError
	fmt.Println("a targeted fault:", errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// after two 503s: <nil> - requests: 3
	// a targeted fault: true 502
}

func ExampleWithQuota() {
	clock := markettest.NewManualClock(time.Date(2025, 1, 2, 9, 0, 0, 0, time.UTC))
	srv := markettest.NewServer(markettest.WithQuota(1), markettest.WithClock(clock.Now))
	defer srv.Close()
	client, _ := srv.Client(itick.WithRetries(0))
	ctx := context.Background()

	_, err := client.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
	fmt.Println("first:", err)
	clock.Advance(20 * time.Second)
	_, err = client.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
	var apiErr *itick.APIError
	errors.As(err, &apiErr)
	fmt.Println("second:", errors.Is(err, itick.ErrRateLimited), apiErr.RetryAfter)
	clock.Advance(40 * time.Second)
	_, err = client.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
	fmt.Println("a minute after the first:", err)
	// Output:
	// first: <nil>
	// second: true 40s
	// a minute after the first: <nil>
}
