// Command splits lists stock splits and reverse splits of a market: one
// page with SplitPage, then every record with Splits, which fetches the
// pages as the loop needs them.
//
//	go run ./examples/splits
package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("splits", run) }

func run(ctx context.Context, w io.Writer) error {
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	first, err := c.Stock.SplitPage(ctx, itick.RegionUS, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "US splits: %d records on %d pages of %d.\n", first.TotalElements, first.TotalPages, first.Size)

	var reverse, forward int
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EX-DATE\tCODE\tNAME\tRATIO\t")
	n := 0
	for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
		if err != nil {
			return err
		}
		n++
		var from, to int
		if _, err := fmt.Sscanf(r.Ratio, "%d:%d", &from, &to); err == nil && from > to {
			reverse++
		} else {
			forward++
		}
		if n <= 10 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.ExDate.Format("2006-01-02"), r.Code, r.Name, r.Ratio)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Read %d records through Splits (the first 10 above): %d with more shares after, %d with fewer.\n",
		n, forward, reverse)
	return nil
}
