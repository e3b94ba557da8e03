// Command depth prints order books: ten levels of a Hong Kong stock, five
// of a crypto pair, and the single level the service gives forex pairs,
// with the spread of each.
//
//	go run ./examples/depth
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("depth", run) }

func run(ctx context.Context, w io.Writer) error {
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	// One book at a time: Depth.
	stock, err := c.Stock.Depth(ctx, itick.RegionHK, "700")
	if err != nil {
		return fmt.Errorf("stock depth: %w", err)
	}
	if err := printBook(w, "HK", *stock); err != nil {
		return err
	}
	crypto, err := c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT")
	if err != nil {
		return fmt.Errorf("crypto depth: %w", err)
	}
	if err := printBook(w, "BA", *crypto); err != nil {
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
			if err := printBook(w, "GB", b); err != nil {
				return err
			}
		}
	}
	return nil
}

func printBook(w io.Writer, region string, b itick.DepthBook) error {
	fmt.Fprintf(w, "\n%s (%s): %d bid and %d ask levels", b.Symbol, region, len(b.Bids), len(b.Asks))
	if len(b.Bids) > 0 && len(b.Asks) > 0 && b.Bids[0].Price > 0 {
		spread := b.Asks[0].Price - b.Bids[0].Price
		fmt.Fprintf(w, ", spread %s", num(math.Round(spread*1e8)/1e8))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LEVEL\tBID ORDERS\tBID VOLUME\tBID\tASK\tASK VOLUME\tASK ORDERS\t")
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
	return tw.Flush()
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
