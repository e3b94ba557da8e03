package markettest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// A bot's test streams against the simulator as it would against the
// service: clients from Server.Client find the WebSocket on their own.
// With the clock pinned, a pushed quote equals the REST quote, and a
// dropped connection shows how the bot copes with a gap.
func ExampleServer_stream() {
	// 10:09 in Hong Kong, on a Friday: the market trades, so quotes flow.
	clock := markettest.NewManualClock(time.Date(2025, 3, 14, 2, 9, 26, 0, time.UTC))
	srv := markettest.NewServer(markettest.WithClock(clock.Now),
		markettest.WithStreamInterval(10*time.Millisecond))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	stream, err := client.Stream(ctx, "stock")
	if err != nil {
		panic(err)
	}
	defer stream.Close()
	if err := stream.Subscribe(ctx, []string{"700$HK"}, itick.ChannelQuote); err != nil {
		panic(err)
	}

	dropped, gap := false, false
	for ev := range stream.Events() {
		switch ev := ev.(type) {
		case itick.QuoteEvent:
			if dropped && !gap {
				continue // sent before the drop, or before the gap was reported
			}
			rest, err := client.Stock.Quotes(ctx, itick.RegionHK, []string{ev.Code})
			if err != nil {
				panic(err)
			}
			fmt.Println("pushed", ev.Code, ev.Region, "same as REST:", ev.Quote.Last == rest[ev.Code].Last)
			if gap {
				return
			}
			dropped = true
			srv.DropStreams() // the network fails
		case itick.GapEvent:
			gap = true
			fmt.Println("gap for", ev.Symbols)
		}
	}
	// Output:
	// pushed 700 HK same as REST: true
	// gap for [700$HK]
	// pushed 700 HK same as REST: true
}
