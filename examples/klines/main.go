// Command klines fetches daily candles that end at a chosen time, then
// pages further back by passing the oldest candle's time as the next end.
//
//	go run ./examples/klines
package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("klines", run) }

func run(ctx context.Context, w io.Writer) error {
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
	c := env.Client
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	const code, perPage, pages = "AAPL", 5, 2
	end := time.Now().UTC().AddDate(0, 0, -30) // candles up to a month ago
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
