// Command backfill writes two years of daily candles of 50 US stocks as
// CSV (code, date, open, high, low, close, volume, turnover), to a file or
// to stdout, with a progress line on stderr. It makes one KlinesRange
// call: a handful of requests on any plan.
//
//	go run ./examples/backfill -out candles.csv
//
// With -resume FILE it stores as it goes: each group of stocks' candles
// are appended to FILE as soon as they arrive, and FILE.state records the
// range and the stocks that are complete. Started again after an
// interruption (Ctrl-C, a spent quota), it asks only for what is missing,
// and once every stock is complete FILE is what a single run writes.
//
//	go run ./examples/backfill -resume candles.csv
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
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "backfill:", err)
		os.Exit(1)
	}
}

// usStocks are 50 large US companies.
var usStocks = []string{
	"AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "BRK.B", "JPM", "KO",
	"V", "MA", "UNH", "XOM", "JNJ", "WMT", "PG", "HD", "CVX", "LLY",
	"ABBV", "MRK", "PEP", "AVGO", "COST", "ORCL", "ADBE", "CRM", "NFLX", "AMD",
	"INTC", "CSCO", "TMO", "ABT", "MCD", "NKE", "DIS", "BAC", "WFC", "PFE",
	"QCOM", "TXN", "IBM", "CAT", "GE", "HON", "UPS", "BA", "GS", "SBUX",
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("backfill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "-", `CSV file to write ("-": stdout)`)
	resume := fs.String("resume", "", "CSV file to write as candles arrive, or to complete after an interruption")
	years := fs.Int("years", 2, "years of history")
	planName := fs.String("plan", "base", "plan whose batch size and quota apply (default online: ITICK_PLAN's)")
	speedup := fs.Float64("speedup", 1, "run the plan's quota this many times faster (offline only)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: backfill [flags]

Backfill writes years of daily candles of %d large US stocks as CSV, with
a progress line on stderr, from the iTick service when ITICK_TOKEN is set
and from an offline simulator otherwise. With -resume FILE, candles are
appended to FILE as they arrive, and a run started again after an
interruption asks only for what FILE lacks.

Flags:
`, len(usStocks))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	plan, err := itick.ParsePlan(*planName)
	if err != nil {
		return err
	}
	if *years < 1 || *speedup <= 0 {
		return fmt.Errorf("-years must be at least 1 and -speedup above 0")
	}

	var opts []itick.Option
	outSet := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "plan":
			opts = append(opts, itick.WithPlan(plan))
		case "out":
			outSet = true
		}
	})
	if *resume != "" && outSet {
		return fmt.Errorf("-out and -resume both name the output: give one")
	}
	if offline := os.Getenv("ITICK_TOKEN") == ""; offline {
		opts = append(opts, itick.WithPlan(plan))
		// The simulator's client has no limiter; put the plan's quota
		// back, sped up: the whole quota at once, then a steady rate.
		perMinute := float64(plan.CallsPerMinute()) * *speedup
		opts = append(opts, itick.WithRateLimit(rate.Limit(perMinute/60), plan.CallsPerMinute()))
		sim = append([]markettest.Option{markettest.WithPlan(plan)}, sim...)
	}
	env, err := markettest.OpenEnv(sim, opts...)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(stderr, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(stderr, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}

	from, to := dates(env.Client, *years)
	if *resume != "" {
		return backfillResume(ctx, env.Client, *resume, from, to, stderr)
	}
	if *out == "-" {
		return backfill(ctx, env.Client, stdout, from, to, stderr)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	err = backfill(ctx, env.Client, f, from, to, stderr)
	return errors.Join(err, f.Close())
}

// dates returns the range of a backfill of years: whole days up to today
// on the client's clock, so that today's candle, still forming, is left
// out. The client's clock is the simulator's offline, which a test pins.
func dates(c *itick.Client, years int) (from, to time.Time) {
	to = c.Now().UTC().Truncate(24 * time.Hour)
	return to.AddDate(-years, 0, 0), to
}

// backfill writes the daily candles of every stock from from to to as CSV
// to w, in one range call, with a progress line on stderr.
func backfill(ctx context.Context, c *itick.Client, w io.Writer, from, to time.Time, stderr io.Writer) error {
	start := time.Now()
	progress := func(p itick.RangeProgress) {
		fmt.Fprintf(stderr, "\r%3d%%  %d requests  %d candles  %d of %d stocks done  back to %s  %s",
			percent(p), p.Requests, p.Candles, p.Done, p.Codes, p.Reached.Format(time.DateOnly),
			time.Since(start).Round(time.Second))
	}
	candles, rangeErr := c.Stock.KlinesRange(ctx, itick.RegionUS, usStocks, itick.OneDay, from, to,
		itick.WithProgress(progress))
	fmt.Fprintln(stderr)
	var be *itick.BatchError
	if rangeErr != nil && !errors.As(rangeErr, &be) {
		return rangeErr
	}

	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	rows := 0
	for _, code := range usStocks {
		for _, k := range candles[code] {
			cw.Write(row(code, k))
			rows++
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d candles of %d stocks from %s to %s in %s\n", rows, len(candles),
		from.Format(time.DateOnly), to.Format(time.DateOnly), time.Since(start).Round(time.Millisecond))
	if be != nil {
		return fmt.Errorf("incomplete ranges for %v: %w", be.FailedCodes(), rangeErr)
	}
	return nil
}

// percent is how far the range has come, rounded down: 100 only once
// every stock is done, never for 99.6% of the way.
func percent(p itick.RangeProgress) int {
	pct := int(math.Floor(100 * p.Fraction()))
	if p.Done < p.Codes {
		pct = min(pct, 99)
	}
	return pct
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// row is a candle's CSV row. Its date is the day when the candle starts at
// midnight UTC, as the simulator's do, and the whole time otherwise, so
// that reading it back gives the same instant.
func row(code string, k itick.Kline) []string {
	date := k.Time.UTC().Format(time.RFC3339Nano)
	if k.Time.Equal(k.Time.Truncate(24 * time.Hour)) {
		date = k.Time.UTC().Format(time.DateOnly)
	}
	return []string{code, date, num(k.Open), num(k.High), num(k.Low), num(k.Close), num(k.Volume), num(k.Turnover)}
}

// parseRow reads a row that row wrote.
func parseRow(rec []string) (itick.Kline, error) {
	var k itick.Kline
	t, err := time.Parse(time.DateOnly, rec[1])
	if err != nil {
		if t, err = time.Parse(time.RFC3339Nano, rec[1]); err != nil {
			return k, fmt.Errorf("date %q: %w", rec[1], err)
		}
	}
	k.Time = t.UTC()
	for i, p := range []*float64{&k.Open, &k.High, &k.Low, &k.Close, &k.Volume, &k.Turnover} {
		if *p, err = strconv.ParseFloat(rec[2+i], 64); err != nil {
			return k, fmt.Errorf("%s %q: %w", csvHeader[2+i], rec[2+i], err)
		}
	}
	return k, nil
}
