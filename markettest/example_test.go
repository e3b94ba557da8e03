package markettest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
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
	srv := markettest.NewServer(markettest.WithFixedClock(time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)))
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

// WithClock pins the simulator's time: every answer is reproducible, and a
// ManualClock moves it on demand. Prices move only while the market trades.
func ExampleWithClock() {
	// Friday 6 June 2025, 15:30 in New York: the market trades.
	clock := markettest.NewManualClock(time.Date(2025, 6, 6, 19, 30, 0, 0, time.UTC))
	srv := markettest.NewServer(markettest.WithClock(clock.Now))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	q, err := client.Stock.Quote(ctx, itick.RegionUS, "AAPL")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("quote at", q.Time.Format(time.RFC3339Nano))
	clock.Advance(time.Minute)
	if q, err = client.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("a minute later, at", q.Time.Format(time.RFC3339Nano))

	// On Saturday the quote is Friday's last trade, the day's close.
	clock.Set(time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC))
	if q, err = client.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil {
		log.Fatal(err)
	}
	days, err := client.Stock.Kline(ctx, itick.RegionUS, "AAPL", itick.OneDay, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("on Saturday, at", q.Time.Format(time.RFC3339Nano), "- Friday's close:", q.Last == days[0].Close)
	// Output:
	// quote at 2025-06-06T19:30:00Z
	// a minute later, at 2025-06-06T19:31:00Z
	// on Saturday, at 2025-06-06T19:59:59.999Z - Friday's close: true
}

// FailNext fails the next requests with a status; the client retries
// them within its budget, and Stats counts what the server saw.
func ExampleServer_FailNext() {
	srv := markettest.NewServer(markettest.WithFixedClock(time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)))
	defer srv.Close()
	client, err := srv.Client(itick.WithRetries(1)) // two attempts a call
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	srv.FailNext(3, http.StatusServiceUnavailable)
	_, err = client.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
	var apiErr *itick.APIError
	fmt.Println("first call:", errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusServiceUnavailable,
		"- requests:", srv.Stats().Requests)
	_, err = client.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
	fmt.Println("second call:", err, "- requests:", srv.Stats().Requests)
	// Output:
	// first call: true - requests: 2
	// second call: <nil> - requests: 4
}

// SetRandomFaults fails a share of requests at random, the same ones for
// a seed and an order of requests, to soak a client or a bot.
func ExampleServer_SetRandomFaults() {
	srv := markettest.NewServer(markettest.WithFixedClock(time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)))
	defer srv.Close()
	client, err := srv.Client(itick.WithRetries(5))
	if err != nil {
		log.Fatal(err)
	}
	srv.SetRandomFaults(markettest.RandomFaults{
		Probability: 0.3,
		Seed:        7,
		Kinds:       []markettest.FaultKind{markettest.FaultStatus}, // 503s, which the client retries
	})
	ok := 0
	for range 20 {
		if _, err := client.Crypto.Quotes(context.Background(), itick.RegionBA, []string{"BTCUSDT"}); err == nil {
			ok++
		}
	}
	st := srv.Stats()
	fmt.Printf("%d of 20 calls succeeded; the server failed %d of %d requests\n", ok, st.Faults, st.Requests)
	// Output:
	// 20 of 20 calls succeeded; the server failed 8 of 28 requests
}

// OpenEnv is the switch a program makes between the service and the
// simulator: with ITICK_TOKEN set, the client talks to the service;
// without it, to a simulator started on 127.0.0.1.
func ExampleOpenEnv() {
	// clock: real time, as the service runs on: a program offline sees the
	// markets as they are now. ITICK_SIM_TIME=2025-06-04T15:30:00Z runs it
	// at another instant, and a test pins it with WithFixedClock in simOpts.
	env, err := markettest.OpenEnv([]markettest.Option{markettest.WithSeed(7)})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	if env.Offline() {
		fmt.Println("ITICK_TOKEN is not set: simulated data from", env.Server.URL)
	} else {
		fmt.Println("live data from", env.Client.BaseURL())
	}
	quotes, err := env.Client.Crypto.Quotes(context.Background(), itick.RegionBA, []string{"BTCUSDT"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("BTCUSDT", quotes["BTCUSDT"].Last)
}

// Exists says which products the simulator serves: those of a region
// their class has, with a code of their market's form. For any other,
// the server answers E001, as the service does.
func ExampleExists() {
	fmt.Println(markettest.Exists(markettest.Stock, itick.RegionUS, "AAPL"))
	fmt.Println(markettest.Exists(markettest.Stock, itick.RegionUS, "C042")) // made up, of the right form
	fmt.Println(markettest.Exists(markettest.Stock, "USA", "AAPL"))
	fmt.Println(markettest.Exists(markettest.Stock, itick.RegionUS, "NOSUCHCODE"))
	fmt.Println(markettest.Exists(markettest.Crypto, itick.RegionUS, "BTCUSDT"))
	// Output:
	// true
	// true
	// false
	// false
	// false
}

// A test pins the clock at an instant the market it is about trades: the
// stream pushes US stocks only in New York's session on the simulator's
// clock, which the client reads too.
func ExampleWithFixedClock() {
	at := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC) // 11:30 on a Wednesday in New York
	srv := markettest.NewServer(markettest.WithFixedClock(at), markettest.WithStreamInterval(10*time.Millisecond))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := client.Stream(ctx, itick.AssetStock)
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	if err := stream.Subscribe(ctx, []string{"AAPL$US"}, itick.ChannelQuote); err != nil {
		log.Fatal(err)
	}
	for ev := range stream.Events() {
		if q, ok := ev.(itick.QuoteEvent); ok {
			fmt.Println("pushed", q.Code, "at", q.Quote.Time.UTC().Format(time.RFC3339), "- the client's now:", client.Now().Format(time.RFC3339))
			return
		}
	}
	// Output: pushed AAPL at 2025-06-04T15:30:00Z - the client's now: 2025-06-04T15:30:00Z
}
