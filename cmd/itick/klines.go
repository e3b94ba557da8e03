package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

// defaultKlineLimit is how many candles klines prints without --from or --limit.
const defaultKlineLimit = 100

// klinesRequest is one klines command line, read and checked.
type klinesRequest struct {
	products []itick.Product
	groups   []group
	interval itick.Interval
	limit    int
	from, to time.Time
	exchange string
	closed   bool   // --closed-only
	adjust   bool   // --adjust splits
	resume   string // --resume FILE
	dryRun   bool
	format   format
}

// options are the SDK options every call of the request takes.
func (r *klinesRequest) options() []itick.KlineOption {
	var opts []itick.KlineOption
	if r.exchange != "" {
		opts = append(opts, itick.WithExchange(r.exchange))
	}
	if r.closed {
		opts = append(opts, itick.WithClosedOnly())
	}
	if r.adjust {
		opts = append(opts, itick.WithSplitAdjusted())
	}
	return opts
}

func (a *app) klinesCommand() *cobra.Command {
	var (
		intervalText, fromText, toText, adjust string
		req                                    klinesRequest
	)
	cmd := &cobra.Command{
		Use:   "klines " + productsUse,
		Short: "Print candles: the latest ones, or every one in a range",
		Long: `Print K-line candles of one or more products, oldest first, product by
product. ` + productsHelp + ` Rows carry the class, region and code.

Without --from it prints the last --limit candles (at most 500), up to --to
if given. With --from it prints every candle from --from up to --to (now by
default), however many requests that takes, pacing them to the plan's quota;
on a terminal a progress bar on stderr shows the requests made and left, the
candles and the time spent waiting for the quota, and a line on stderr sums
the run up at the end. Dates are 2024-01-31 (midnight UTC) or RFC 3339
times, from 1970-01-01 on. A code without any candle is named on stderr,
with exit code 6, after the others are written.

--resume FILE reads the candles FILE holds (CSV, JSON or Parquet, as klines
writes them), fetches only what each product lacks at both ends of the
range (its newest candle again, which may have been forming), and writes
FILE anew with them all, atomically: a crash or Ctrl-C never leaves half a
file. A FILE that does not exist yet is written whole, so one command both
starts a backfill and goes on with it. --dry-run prints the requests the
range sends at most and how long they take on the plan's quota, and sends
none. --closed-only leaves out the candle still forming. --adjust splits
adjusts stock candles for splits (prices divided, volumes multiplied by the
ratios of later splits) and says so: a split_adjusted_as_of column in CSV,
JSON and the table, metadata in Parquet.

A failed request ends the fetch: the candles that arrived before it, the
newest part of each product's range, are written, and the error says so and
how to go on. Ctrl-C (or the end of --timeout) stops the fetch at once and
writes the candles that arrived as whole rows, says the command that goes
on from them, and exits with 130 (1 for --timeout, 5 when the quota ends
it); a second Ctrl-C stops the writing too, at a row boundary, and a third
exits at once.`,
		Example: `  itick klines stock US AAPL --interval 1d --limit 30
  itick klines stock:US:AAPL crypto:BA:BTCUSDT --interval 1d --from 2024-01-01 --to 2025-01-01 > daily.csv
  itick klines stock US AAPL MSFT --interval 1m --from 2025-05-01 --resume minutes.parquet
  itick klines stock US NVDA --interval 1d --from 2024-01-01 --adjust splits --closed-only
  itick klines crypto BA BTCUSDT --interval 1m --from 2024-01-01 --dry-run`,
		Args: productArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if req.products, err = parseProducts(args); err != nil {
				return err
			}
			req.groups = groupsOf(req.products)
			if req.interval, err = parseInterval(intervalText); err != nil {
				return err
			}
			if cmd.Flags().Changed("from") {
				if req.from, err = parseTime("from", fromText); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("to") {
				if req.to, err = parseTime("to", toText); err != nil {
					return err
				}
			}
			if err := stockOnly("--exchange", req.exchange != "", req.products); err != nil {
				return err
			}
			switch adjust {
			case "", "none":
			case "splits":
				req.adjust = true
				if err := stockOnly("--adjust splits", true, req.products); err != nil {
					return err
				}
			default:
				return invalidf("--adjust %q is not splits or none", adjust)
			}
			if req.from.IsZero() {
				if req.resume != "" || req.dryRun {
					return invalidf("--resume and --dry-run go with --from: they are about a range")
				}
				if req.format, err = a.rowsFormat(true); err != nil {
					return err
				}
				return a.klinesLatest(cmd, req)
			}
			if cmd.Flags().Changed("limit") {
				return invalidf("--limit and --from do not go together: --from fetches every candle up to --to")
			}
			if !req.to.IsZero() && !req.from.Before(req.to) {
				return invalidf("--from %s is not before --to %s", text(req.from), text(req.to))
			}
			if req.resume != "" {
				req.format, err = fileFormat(req.resume, a.format)
			} else if !req.dryRun {
				req.format, err = a.rowsFormat(true)
			}
			if err != nil {
				return err
			}
			return a.klinesRange(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&intervalText, "interval", "1d", "candle interval: "+intervalList)
	f.IntVar(&req.limit, "limit", defaultKlineLimit, "how many of the latest candles, without --from (1 to 500)")
	f.StringVar(&fromText, "from", "", "the first candle's earliest time: fetch every candle from here to --to")
	f.StringVar(&toText, "to", "", "the end: candles before this time (default now)")
	f.StringVar(&req.exchange, "exchange", "", "a secondary exchange of the stock market (the e of the symbol list)")
	f.BoolVar(&req.closed, "closed-only", false, "leave out the candle still forming")
	f.StringVar(&adjust, "adjust", "", "splits: adjust stock candles for splits (default: none, as the service sends them)")
	f.StringVar(&req.resume, "resume", "", "read FILE, fetch only what it lacks, and write it anew with everything (with --from)")
	f.BoolVar(&req.dryRun, "dry-run", false, "print the requests the range sends at most and how long they take; send none")
	return cmd
}

// klinesLatest prints the last req.limit candles of each product, up to
// req.to when set, with one Klines call per class and region.
func (a *app) klinesLatest(cmd *cobra.Command, req klinesRequest) error {
	if req.limit < 1 || req.limit > itick.MaxKlineLimit {
		return invalidf("--limit %d is not between 1 and %d; --from fetches more", req.limit, itick.MaxKlineLimit)
	}
	opts := req.options()
	if !req.to.IsZero() {
		opts = append(opts, itick.WithEnd(req.to))
	}
	return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
		candles, errs := perGroup(req.products, func(g group) (map[string][]itick.Kline, error) {
			return marketOf(c, g.class).Klines(ctx, g.region, g.codes, req.interval, req.limit, opts...)
		})
		if len(candles) == 0 && errs.err() != nil {
			return errs.err()
		}
		var missing []string
		for _, p := range req.products {
			if len(candles[p]) == 0 && !errs.failed[p] {
				missing = append(missing, productName(req.products, p))
			}
		}
		_, werr := a.writeCandles(a.klineSink(req, splitAsOf(req, c)), req.products, candles, false)
		return errors.Join(werr, errs.err(), missingErr(missing))
	})
}

// klineSink writes candles to stdout in the request's format.
func (a *app) klineSink(req klinesRequest, asOf string) klineSink {
	var w io.Writer = a.writer()
	if req.format == formatParquet {
		w = a.rawOut // binary: no line to redact, and the values are the command line's
	}
	return newKlineSink(w, req.format, req.interval, asOf)
}

// splitAsOf is the time candles adjusted for splits now are adjusted up
// to, on the client's clock; "" without --adjust.
func splitAsOf(req klinesRequest, c *itick.Client) string {
	if !req.adjust {
		return ""
	}
	return c.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
}

// summary is the line that sums a range fetch up: requests, candles,
// products, time and quota wait.
func summary(c *itick.Client, start time.Time, candles map[itick.Product][]itick.Kline, products int) string {
	st := c.Stats()
	return fmt.Sprintf("%s, %s of %s in %s, quota wait %s", plural(int(st.Requests), "request"),
		plural(countKlines(candles), "candle"), plural(products, "product"),
		time.Since(start).Round(100*time.Millisecond), st.LimiterWait.Round(100*time.Millisecond))
}

// countKlines is how many candles a result holds.
func countKlines[K comparable](candles map[K][]itick.Kline) int {
	n := 0
	for _, ks := range candles {
		n += len(ks)
	}
	return n
}
