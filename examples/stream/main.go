// Command stream prints live quotes for a few products until interrupted.
//
// With ITICK_TOKEN set it streams from the service (ITICK_BASE_URL and
// ITICK_PLAN apply as for any client). Without it, it starts the markettest
// simulator on 127.0.0.1, which serves the WebSocket channel beside the
// REST endpoints, and streams simulated quotes, so it runs offline as it is:
//
//	go run ./examples/stream -symbols 700\$HK,AAPL\$US -duration 5s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() {
	exampleenv.Main("stream", func(ctx context.Context, w io.Writer) error {
		return run(ctx, os.Args[1:], w)
	})
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	class := fs.String("class", "stock", "asset class: stock, forex, indices, crypto, future or fund")
	symbols := fs.String("symbols", "700$HK,AAPL$US,TSLA$US", "comma-separated code$REGION products")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	env, err := exampleenv.Open(out)
	if err != nil {
		return err
	}
	defer env.Close()
	fmt.Fprintf(out, "streaming %s quotes for %s\n", *class, *symbols)

	stream, err := env.Client.Stream(ctx, itick.AssetType(*class))
	if err != nil {
		return err
	}
	defer stream.Close()
	if err := stream.Subscribe(ctx, strings.Split(*symbols, ","), itick.ChannelQuote); err != nil {
		return err
	}

	quotes := 0
	for ev := range stream.Events() {
		switch ev := ev.(type) {
		case itick.QuoteEvent:
			quotes++
			q := ev.Quote
			fmt.Fprintf(out, "%s %s$%s last=%.2f high=%.2f low=%.2f volume=%.0f\n",
				q.Time.Format("15:04:05.000"), ev.Code, ev.Region, q.Last, q.High, q.Low, q.Volume)
		case itick.GapEvent:
			fmt.Fprintf(out, "gap on connection %d from %s to %s: %v\n",
				ev.Conn, ev.From.Format(time.TimeOnly), ev.To.Format(time.TimeOnly), ev.Reason)
		case itick.ErrorEvent:
			fmt.Fprintf(out, "error on connection %d: %v\n", ev.Conn, ev.Err)
		}
	}
	fmt.Fprintf(out, "%d quotes, %d dropped\n", quotes, stream.Dropped())
	if err := stream.Err(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
