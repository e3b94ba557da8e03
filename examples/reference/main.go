// Command reference prints reference data: whether the Hong Kong and US
// markets are open, a few listed symbols, the next US listings, and the
// latest trade of the first symbol listed.
//
//	go run ./examples/reference
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
		fmt.Fprintln(os.Stderr, "reference:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("reference", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: reference

Reference prints reference data: market status, listed symbols, upcoming
IPOs and a latest trade; from the iTick service when ITICK_TOKEN is set
and from an offline simulator otherwise.
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

	fmt.Fprintln(w, "\nMarket status:")
	for _, region := range []itick.Region{itick.RegionHK, itick.RegionUS} {
		statuses, err := c.Market.Status(ctx, region)
		if err != nil {
			return err
		}
		for _, st := range statuses {
			line := fmt.Sprintf("  %s (%s): %s, local time %s (%s)", st.Code, st.Region, st.State, st.LocalTime, st.Zone)
			if st.Holiday != "" {
				line += ", holiday: " + st.Holiday
			}
			fmt.Fprintln(w, line)
		}
	}

	symbols, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d US stocks listed; the first five:\n", len(symbols))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tEXCHANGE\tNAME\t")
	for _, s := range symbols[:min(5, len(symbols))] {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", s.Code, s.Exchange, s.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	// IPOs fetches pages as the loop needs them; breaking out stops fetching.
	fmt.Fprintln(w, "\nUpcoming US IPOs (the first five):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LISTING\tCODE\tPRICE\tMARKET CAP\tCOMPANY\t")
	n := 0
	for ipo, err := range c.Stock.IPOs(ctx, itick.IPOUpcoming, itick.RegionUS) {
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", ipo.ListingDate.Format(time.DateOnly), ipo.Code, ipo.Price, ipo.MarketCap, ipo.Company)
		if n++; n == 5 {
			break
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(symbols) == 0 {
		return nil
	}
	s := symbols[0]
	tick, err := c.Stock.Tick(ctx, itick.RegionUS, s.Code, itick.WithQuoteExchange(s.Exchange))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nLatest trade of %s: %v x %v at %s (%s session)\n", tick.Symbol, tick.Last, tick.Volume,
		tick.Time.UTC().Format("2006-01-02 15:04:05.000 UTC"), tick.Session)
	return nil
}
