// Command depth prints order books: ten levels of a Hong Kong stock, five
// of a crypto pair, and the single level the service gives forex pairs,
// with the spread of each.
//
// For crypto pairs the service sends each level's volume again where the
// order count goes, fractional: the program labels that column for what
// it holds rather than as a number of orders.
//
//	go run ./examples/depth
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"text/tabwriter"
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
		fmt.Fprintln(os.Stderr, "depth:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("depth", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: depth

Depth prints the order books of a Hong Kong stock, a crypto pair and three
forex pairs, with their spreads, from the iTick service when ITICK_TOKEN
is set and from an offline simulator otherwise.
`)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	// One book at a time: Depth.
	stock, err := c.Stock.Depth(ctx, itick.RegionHK, "700")
	if err != nil {
		return fmt.Errorf("stock depth: %w", err)
	}
	if err := printBook(w, itick.AssetStock, "HK", *stock); err != nil {
		return err
	}
	crypto, err := c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT")
	if err != nil {
		return fmt.Errorf("crypto depth: %w", err)
	}
	if err := printBook(w, itick.AssetCrypto, "BA", *crypto); err != nil {
		return err
	}

	// Many books in one call: Depths, keyed by code.
	pairs := []string{"EURUSD", "GBPUSD", "USDJPY"}
	books, err := c.Forex.Depths(ctx, itick.RegionGB, pairs)
	if err != nil {
		return fmt.Errorf("forex depths: %w", err)
	}
	for _, code := range pairs {
		if b, ok := books[code]; ok {
			if err := printBook(w, itick.AssetForex, "GB", b); err != nil {
				return err
			}
		}
	}
	return nil
}

func printBook(w io.Writer, class itick.AssetType, region string, b itick.DepthBook) error {
	fmt.Fprintf(w, "\n%s (%s): %d bid and %d ask levels", b.Symbol, region, len(b.Bids), len(b.Asks))
	if len(b.Bids) > 0 && len(b.Asks) > 0 && b.Bids[0].Price > 0 {
		spread := b.Asks[0].Price - b.Bids[0].Price
		fmt.Fprintf(w, ", spread %s", num(math.Round(spread*1e8)/1e8))
	}
	fmt.Fprintln(w)
	// Crypto books carry each level's volume where the order count goes:
	// say so in the header, and below the table.
	bidOrders, askOrders := "BID ORDERS", "ASK ORDERS"
	if class == itick.AssetCrypto {
		bidOrders, askOrders = "BID ORDERS*", "ASK ORDERS*"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "LEVEL\t%s\tBID VOLUME\tBID\tASK\tASK VOLUME\t%s\t\n", bidOrders, askOrders)
	for i := 0; i < max(len(b.Bids), len(b.Asks)); i++ {
		var bid, ask itick.DepthLevel
		if i < len(b.Bids) {
			bid = b.Bids[i]
		}
		if i < len(b.Asks) {
			ask = b.Asks[i]
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", i+1, num(bid.Orders), num(bid.Volume), num(bid.Price),
			num(ask.Price), num(ask.Volume), num(ask.Orders))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if class == itick.AssetCrypto {
		fmt.Fprintln(w, "* not a number of orders: for crypto the service sends the level's volume again here.")
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
