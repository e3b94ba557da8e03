// Command stream prints live quotes for a few products until interrupted.
//
// With ITICK_TOKEN set it streams from the service (ITICK_BASE_URL and
// ITICK_PLAN apply as for any client). Without it, it starts the markettest
// simulator on 127.0.0.1, which serves the WebSocket channel beside the
// REST endpoints, and streams simulated quotes, so it runs offline as it is.
//
// Crypto pairs, the default, trade at any hour. Stocks are quoted only
// while their market trades; for a market that is closed, it says so:
//
//	go run ./examples/stream -duration 5s
//	go run ./examples/stream -class stock -symbols '700$HK,AAPL$US'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, out io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	fs.SetOutput(out)
	class := fs.String("class", "crypto", "asset class: stock, forex, indices, crypto, future or fund")
	symbols := fs.String("symbols", "BTCUSDT$BA,ETHUSDT$BA,DOGEUSDT$BA", "comma-separated code$REGION products")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: stream [flags]

Stream subscribes to the quotes of a few products over the iTick WebSocket
channel and prints each quote as it arrives, until interrupted or for
-duration. It streams from the service when ITICK_TOKEN is set and from an
offline simulator otherwise. Stocks are quoted only while their market
trades.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}

	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(out, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(out, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	products := strings.Split(*symbols, ",")
	fmt.Fprintf(out, "streaming %s quotes for %s\n", *class, strings.Join(products, ", "))
	if err := noteClosedMarkets(ctx, out, env.Client, itick.AssetType(*class), products); err != nil {
		return err
	}

	stream, err := env.Client.Stream(ctx, itick.AssetType(*class))
	if err != nil {
		return err
	}
	defer stream.Close()
	if err := stream.Subscribe(ctx, products, itick.ChannelQuote); err != nil {
		return err
	}

	quotes := 0
	for ev := range stream.Events() {
		switch ev := ev.(type) {
		case itick.QuoteEvent:
			quotes++
			q := ev.Quote
			fmt.Fprintf(out, "%s %s last=%s high=%s low=%s volume=%s\n", q.Time.UTC().Format("15:04:05.000"),
				ev.Symbol(), num(q.Last), num(q.High), num(q.Low), num(q.Volume))
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

// noteClosedMarkets says which of the stock markets of products are closed
// now: their quotes arrive only once they open.
func noteClosedMarkets(ctx context.Context, out io.Writer, c *itick.Client, class itick.AssetType, products []string) error {
	if class != itick.AssetStock {
		return nil
	}
	var regions []string
	for _, p := range products {
		if i := strings.LastIndexByte(p, '$'); i >= 0 && !slices.Contains(regions, p[i+1:]) {
			regions = append(regions, p[i+1:])
		}
	}
	for _, region := range regions {
		statuses, err := c.Market.Status(ctx, itick.Region(region))
		if errors.Is(err, itick.ErrNotFound) || errors.Is(err, itick.ErrInvalidArgument) {
			continue // a market without a status; Subscribe judges the product
		}
		if err != nil {
			return fmt.Errorf("market status of %s: %w", region, err)
		}
		for _, st := range statuses {
			if st.State != itick.MarketOpen && st.State != itick.MarketHolidayHalfDay {
				fmt.Fprintf(out, "the %s market is %s (local time %s): its quotes arrive once it opens\n",
					st.Code, st.State, st.LocalTime)
			}
		}
	}
	return nil
}

// num prints a price or a volume with every digit it has: a crypto pair
// quoted at 0.11342 is not 0.11.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
