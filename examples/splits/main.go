// Command splits lists stock splits and reverse splits of a market: one
// page with SplitPage, then every record with Splits, which fetches the
// pages as the loop needs them.
//
//	go run ./examples/splits
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
		fmt.Fprintln(os.Stderr, "splits:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("splits", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: splits

Splits lists the stock splits and reverse splits of the US market; from
the iTick service when ITICK_TOKEN is set and from an offline simulator
otherwise.
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

	first, err := c.Stock.SplitPage(ctx, itick.RegionUS, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "US splits: %d records on %d pages of %d.\n", first.TotalElements, first.TotalPages, first.Size)

	// A ratio is shares after the split to shares before it: 10:1 gives
	// ten shares for one, 1:5 is a reverse split, one share for five.
	var forward, reverse, unread int
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EX-DATE\tCODE\tNAME\tRATIO\t")
	n := 0
	for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
		if err != nil {
			return err
		}
		n++
		var after, before float64
		_, scanErr := fmt.Sscanf(r.Ratio, "%g:%g", &after, &before)
		switch {
		case scanErr != nil || after <= 0 || before <= 0 || after == before:
			unread++
		case after > before:
			forward++
		default:
			reverse++
		}
		if n <= 10 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.ExDate.Format("2006-01-02"), r.Code, r.Name, r.Ratio)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Read %d records through Splits (the first 10 above): %d with more shares after, %d with fewer",
		n, forward, reverse)
	if unread > 0 {
		fmt.Fprintf(w, ", %d with a ratio that is not a split", unread)
	}
	fmt.Fprintln(w, ".")
	return nil
}
