// Command klines fetches daily candles that end at a chosen time, then
// pages further back by passing the oldest candle's time as the next end.
//
//	go run ./examples/klines
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
		fmt.Fprintln(os.Stderr, "klines:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("klines", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: klines

Klines fetches daily candles of a stock that end a month ago, then pages
further back; from the iTick service when ITICK_TOKEN is set and from an
offline simulator otherwise.
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

	const code, perPage, pages = "AAPL", 5, 2
	// Candles up to a month ago, on the client's clock: the simulator's
	// offline, which a test pins.
	end := c.Now().UTC().AddDate(0, 0, -30)
	fmt.Fprintf(w, "Daily candles of %s (US) up to %s, %d a page.\n", code, end.Format("2006-01-02 15:04"), perPage)
	for page := 1; page <= pages; page++ {
		got, err := c.Stock.Klines(ctx, itick.RegionUS, []string{code}, itick.OneDay, perPage, itick.WithEnd(end))
		if err != nil {
			return err
		}
		candles := got[code] // oldest first
		if len(candles) == 0 {
			fmt.Fprintln(w, "No more candles.")
			return nil
		}
		fmt.Fprintf(w, "\nPage %d: ending at %s\n", page, end.Format("2006-01-02 15:04"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "DATE\tOPEN\tHIGH\tLOW\tCLOSE\tVOLUME\tTURNOVER\t")
		for _, k := range candles {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k.Time.Format("2006-01-02"), num(k.Open), num(k.High),
				num(k.Low), num(k.Close), num(k.Volume), num(k.Turnover))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// The next page ends just before the oldest candle of this one.
		end = candles[0].Time.Add(-time.Millisecond)
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
