package itick_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/d19c4e34/itick"
)

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
