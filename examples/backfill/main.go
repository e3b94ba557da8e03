// Command backfill writes two years of daily candles of 50 US stocks as
// CSV (code, date, open, high, low, close, volume, turnover), to a file or
// to stdout, with a progress line on stderr. It makes one KlinesRange
// call: a handful of requests on any plan.
//
//	go run ./examples/backfill -out candles.csv
//
// Offline (no ITICK_TOKEN), -plan picks the simulated plan and -speedup
// runs its quota that many times faster, so the Free plan's 5 calls a
// minute can be tried without waiting minutes.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() {
	exampleenv.Main("backfill", func(ctx context.Context, w io.Writer) error {
		return run(ctx, os.Args[1:], w, os.Stderr)
	})
}

// usStocks are 50 large US companies.
var usStocks = []string{
	"AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "BRK.B", "JPM", "KO",
	"V", "MA", "UNH", "XOM", "JNJ", "WMT", "PG", "HD", "CVX", "LLY",
	"ABBV", "MRK", "PEP", "AVGO", "COST", "ORCL", "ADBE", "CRM", "NFLX", "AMD",
	"INTC", "CSCO", "TMO", "ABT", "MCD", "NKE", "DIS", "BAC", "WFC", "PFE",
	"QCOM", "TXN", "IBM", "CAT", "GE", "HON", "UPS", "BA", "GS", "SBUX",
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backfill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "-", `CSV file to write ("-": stdout)`)
	years := fs.Int("years", 2, "years of history")
	planName := fs.String("plan", "base", "plan whose batch size and quota apply (default online: ITICK_PLAN's)")
	speedup := fs.Float64("speedup", 1, "run the plan's quota this many times faster (offline only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	plan, err := itick.ParsePlan(*planName)
	if err != nil {
		return err
	}
	if *years < 1 || *speedup <= 0 {
		return fmt.Errorf("-years must be at least 1 and -speedup above 0")
	}

	var opts []itick.Option
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "plan" {
			opts = append(opts, itick.WithPlan(plan))
		}
	})
	if offline := os.Getenv("ITICK_TOKEN") == ""; offline {
		opts = append(opts, itick.WithPlan(plan))
		// The simulator's client has no limiter; put the plan's quota
		// back, sped up: the whole quota at once, then a steady rate.
		perMinute := float64(plan.CallsPerMinute()) * *speedup
		opts = append(opts, itick.WithRateLimit(rate.Limit(perMinute/60), plan.CallsPerMinute()))
	}
	env, err := exampleenv.Open(stderr, opts...)
	if err != nil {
		return err
	}
	defer env.Close()

	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}

	to := time.Now().UTC().Truncate(24 * time.Hour)
	from := to.AddDate(-*years, 0, 0)
	start := time.Now()
	progress := func(p itick.RangeProgress) {
		fmt.Fprintf(stderr, "\r%3.0f%%  %d requests  %d candles  %d of %d stocks done  back to %s  %s",
			100*p.Fraction(), p.Requests, p.Candles, p.Done, p.Codes, p.Reached.Format(time.DateOnly),
			time.Since(start).Round(time.Second))
	}
	candles, rangeErr := env.Client.Stock.KlinesRange(ctx, itick.RegionUS, usStocks, itick.OneDay, from, to,
		itick.WithProgress(progress))
	fmt.Fprintln(stderr)
	var be *itick.BatchError
	if rangeErr != nil && !errors.As(rangeErr, &be) {
		return rangeErr
	}

	cw := csv.NewWriter(w)
	cw.Write([]string{"code", "date", "open", "high", "low", "close", "volume", "turnover"})
	rows := 0
	for _, code := range usStocks {
		for _, k := range candles[code] {
			cw.Write([]string{code, k.Time.Format(time.DateOnly), num(k.Open), num(k.High), num(k.Low), num(k.Close),
				num(k.Volume), num(k.Turnover)})
			rows++
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	if *out != "-" {
		if err := w.(*os.File).Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "%d candles of %d stocks from %s to %s in %s\n", rows, len(candles),
		from.Format(time.DateOnly), to.Format(time.DateOnly), time.Since(start).Round(time.Millisecond))
	if be != nil {
		return fmt.Errorf("incomplete ranges for %v: %w", be.FailedCodes(), rangeErr)
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
