// Command batchquotes asks for quotes of 300 Hong Kong stocks in one call.
// The client splits the codes into requests the plan allows, sends a few at
// once, and merges the answers into one map; it prints the biggest movers.
//
//	go run ./examples/batchquotes
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
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
		fmt.Fprintln(os.Stderr, "batchquotes:", err)
		os.Exit(1)
	}
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("batchquotes", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: batchquotes

Batchquotes asks for the quotes of 300 Hong Kong stocks in one call, which
the client splits into the requests the plan allows, and prints the
biggest movers; from the iTick service when ITICK_TOKEN is set and from an
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
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	// Hong Kong stock codes 1 to 300.
	codes := make([]string, 300)
	for i := range codes {
		codes[i] = strconv.Itoa(i + 1)
	}
	chunks := (len(codes) + c.BatchSize() - 1) / c.BatchSize()
	fmt.Fprintf(w, "Asking for %d quotes in %d requests of up to %d codes.\n", len(codes), chunks, c.BatchSize())

	start := time.Now()
	quotes, err := c.Stock.Quotes(ctx, itick.RegionHK, codes)
	var be *itick.BatchError
	switch {
	case errors.As(err, &be):
		// Some chunks failed: the map still holds every quote that arrived.
		fmt.Fprintf(w, "%d codes got no quote (%v); retry just those with be.FailedCodes().\n", len(be.FailedCodes()), err)
	case err != nil:
		return err
	}
	fmt.Fprintf(w, "Got %d quotes in %s.\n", len(quotes), time.Since(start).Round(time.Millisecond))

	movers := make([]itick.Quote, 0, len(quotes))
	for _, q := range quotes {
		movers = append(movers, q)
	}
	slices.SortFunc(movers, func(a, b itick.Quote) int {
		return cmp.Or(cmp.Compare(b.ChangePercent, a.ChangePercent), cmp.Compare(a.Symbol, b.Symbol))
	})
	n := min(5, len(movers)/2)
	if err := printMovers(w, "Top gainers", movers[:n]); err != nil {
		return err
	}
	losers := slices.Clone(movers[len(movers)-n:])
	slices.Reverse(losers)
	return printMovers(w, "Top losers", losers)
}

func printMovers(w io.Writer, title string, qs []itick.Quote) error {
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SYMBOL\tLAST\tPREV CLOSE\tCHANGE %\tVOLUME\t")
	for _, q := range qs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%+.2f%%\t%s\t\n", q.Symbol, num(q.Last), num(q.PrevClose), q.ChangePercent, num(q.Volume))
	}
	return tw.Flush()
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
