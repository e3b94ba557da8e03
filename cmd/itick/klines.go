package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var klineColumns = cols("code", "time", "open", "high", "low", "close", "volume", "turnover")

// defaultKlineLimit is how many candles klines prints without --from or --limit.
const defaultKlineLimit = 100

func (a *app) klinesCommand() *cobra.Command {
	var (
		intervalText, fromText, toText, exchange string
		limit                                    int
	)
	cmd := &cobra.Command{
		Use:   "klines CLASS REGION CODE...",
		Short: "Print candles: the latest ones, or every one in a range",
		Long: `Print K-line candles of one or more products, oldest first, code by code.

Without --from it prints the last --limit candles (at most 500), up to --to
if given. With --from it prints every candle from --from up to --to (now by
default), however many requests that takes, pacing them to the plan's quota;
on a terminal a progress bar on stderr shows the requests made and left, the
candles and the time spent waiting for the quota. Dates are 2024-01-31
(midnight UTC) or RFC 3339 times.

Ctrl-C (or the end of --timeout) stops the fetch at once and writes the
candles that arrived, the newest part of each code's range, as whole rows,
then exits with 130 (1 for --timeout); a second Ctrl-C stops the writing
too, at a row boundary.`,
		Example: `  itick klines stock US AAPL --interval 1d --limit 30
  itick klines stock US AAPL MSFT --interval 1d --from 2024-01-01 --to 2025-01-01 > daily.csv
  itick klines crypto BA BTCUSDT --interval 1h --from 2025-06-01 --format json`,
		Args: minArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			class, err := parseClass(args[0])
			if err != nil {
				return err
			}
			region, err := parseRegion(args[1])
			if err != nil {
				return err
			}
			codes, err := parseCodes(args[2:])
			if err != nil {
				return err
			}
			interval, err := parseInterval(intervalText)
			if err != nil {
				return err
			}
			var from, to time.Time
			if fromText != "" {
				if from, err = parseTime("from", fromText); err != nil {
					return err
				}
			}
			if toText != "" {
				if to, err = parseTime("to", toText); err != nil {
					return err
				}
			}
			var opts []itick.KlineOption
			if exchange != "" {
				opts = append(opts, itick.WithExchange(exchange))
			}
			if from.IsZero() {
				if limit < 1 || limit > itick.MaxKlineLimit {
					return invalidf("--limit %d is not between 1 and %d; --from fetches more", limit, itick.MaxKlineLimit)
				}
				if !to.IsZero() {
					opts = append(opts, itick.WithEnd(to))
				}
				return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
					candles, err := marketOf(c, class).Klines(ctx, region, codes, interval, limit, opts...)
					var be *itick.BatchError
					if err != nil && !errors.As(err, &be) {
						return err
					}
					missing, werr := a.writeKlines(codes, candles, failedSet(be))
					return errors.Join(werr, partial(err, be), missingErr(missing))
				})
			}
			if cmd.Flags().Changed("limit") {
				return invalidf("--limit and --from do not go together: --from fetches every candle up to --to")
			}
			if to.IsZero() {
				to = time.Now()
			}
			if !from.Before(to) {
				return invalidf("--from %s is not before --to %s", text(from), text(to))
			}
			return a.withClient(cmd, 0, func(ctx context.Context, c *itick.Client) error {
				bar := a.newRangeBar(c, len(codes), interval, from, to)
				opts = append(opts, itick.WithProgress(bar.update))
				candles, err := marketOf(c, class).KlinesRange(ctx, region, codes, interval, from, to, opts...)
				bar.finish()
				if err != nil && ctx.Err() != nil {
					// Interrupted or out of time: keep what arrived.
					n, werr := a.writeKlinesCut(codes, candles)
					kept := fmt.Sprintf("wrote the %d candles that arrived, the newest part of each code's range", n)
					if a.sig.interrupted() {
						return errors.Join(werr, interruptedError{kept})
					}
					return errors.Join(werr, fmt.Errorf("%w; %s", err, kept))
				}
				var be *itick.BatchError
				if err != nil && !errors.As(err, &be) {
					return err
				}
				missing, werr := a.writeKlines(codes, candles, failedSet(be))
				return errors.Join(werr, partial(err, be), missingErr(missing))
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&intervalText, "interval", "1d", "candle interval: "+intervalList)
	f.IntVar(&limit, "limit", defaultKlineLimit, "how many of the latest candles, without --from (1 to 500)")
	f.StringVar(&fromText, "from", "", "the first candle's earliest time: fetch every candle from here to --to")
	f.StringVar(&toText, "to", "", "the end (exclusive with --from; default now)")
	f.StringVar(&exchange, "exchange", "", "a secondary exchange of the market (the e of the symbol list)")
	return cmd
}

// writeKlines writes every code's candles in the order of codes and names
// the codes without any (other than those failed says failed).
func (a *app) writeKlines(codes []string, candles map[string][]itick.Kline, failed map[string]bool) ([]string, error) {
	w := newRowWriter(a.writer(), a.outFormat(formatCSV), klineColumns)
	var missing []string
	for _, code := range codes {
		ks, _ := lookup(candles, code)
		if len(ks) == 0 && !failed[code] {
			missing = append(missing, code)
		}
		for _, k := range ks {
			if err := w.Write(klineRow(code, k)); err != nil {
				return nil, err
			}
		}
	}
	return missing, w.Close()
}

// writeKlinesCut writes what arrived before an interrupt, stopping at a
// row boundary if a second one comes, and returns how many rows it wrote.
func (a *app) writeKlinesCut(codes []string, candles map[string][]itick.Kline) (int, error) {
	w := newRowWriter(a.writer(), a.outFormat(formatCSV), klineColumns)
	n := 0
rows:
	for _, code := range codes {
		ks, _ := lookup(candles, code)
		for _, k := range ks {
			if a.sig.again() {
				break rows
			}
			if err := w.Write(klineRow(code, k)); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, w.Close()
}

func klineRow(code string, k itick.Kline) row {
	return row{code, k.Time, k.Open, k.High, k.Low, k.Close, k.Volume, k.Turnover}
}
