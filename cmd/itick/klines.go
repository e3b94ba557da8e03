package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var klineColumns = cols("code", "time", "open", "high", "low", "close", "volume", "turnover")

// defaultKlineLimit is how many candles klines prints without --from or --limit.
const defaultKlineLimit = 100

// klinesRequest is one klines command line, read and checked.
type klinesRequest struct {
	class    itick.AssetType
	region   itick.Region
	codes    []string
	interval itick.Interval
	limit    int
	from, to time.Time
	opts     []itick.KlineOption
}

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
(midnight UTC) or RFC 3339 times, from 1970-01-01 on. A code without any
candle is named on stderr, with exit code 6, after the others are written.
A failed request ends the fetch: the candles that arrived before it, the
newest part of each code's range, are written, and the error says so.

Ctrl-C (or the end of --timeout) stops the fetch at once and writes the
candles that arrived, the newest part of each code's range, as whole rows,
then exits with 130 (1 for --timeout); a second Ctrl-C stops the writing
too, at a row boundary, and a third exits at once.`,
		Example: `  itick klines stock US AAPL --interval 1d --limit 30
  itick klines stock US AAPL MSFT --interval 1d --from 2024-01-01 --to 2025-01-01 > daily.csv
  itick klines crypto BA BTCUSDT --interval 1h --from 2025-06-01 --format json`,
		Args: minArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := klinesRequest{limit: limit}
			var err error
			if req.class, req.region, req.codes, err = parseProducts(args); err != nil {
				return err
			}
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
			if exchange != "" {
				req.opts = append(req.opts, itick.WithExchange(exchange))
			}
			if req.from.IsZero() {
				return a.klinesLatest(cmd, req)
			}
			if cmd.Flags().Changed("limit") {
				return invalidf("--limit and --from do not go together: --from fetches every candle up to --to")
			}
			return a.klinesRange(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&intervalText, "interval", "1d", "candle interval: "+intervalList)
	f.IntVar(&limit, "limit", defaultKlineLimit, "how many of the latest candles, without --from (1 to 500)")
	f.StringVar(&fromText, "from", "", "the first candle's earliest time: fetch every candle from here to --to")
	f.StringVar(&toText, "to", "", "the end: candles before this time (default now)")
	f.StringVar(&exchange, "exchange", "", "a secondary exchange of the market (the e of the symbol list)")
	return cmd
}

// klinesLatest prints the last req.limit candles of each code, up to req.to
// when set, with one Klines call.
func (a *app) klinesLatest(cmd *cobra.Command, req klinesRequest) error {
	if req.limit < 1 || req.limit > itick.MaxKlineLimit {
		return invalidf("--limit %d is not between 1 and %d; --from fetches more", req.limit, itick.MaxKlineLimit)
	}
	if !req.to.IsZero() {
		req.opts = append(req.opts, itick.WithEnd(req.to))
	}
	return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
		candles, err := marketOf(c, req.class).Klines(ctx, req.region, req.codes, req.interval, req.limit, req.opts...)
		var be *itick.BatchError
		if err != nil && !errors.As(err, &be) {
			return err
		}
		missing, werr := a.writeKlines(req.codes, candles, failedSet(be))
		return errors.Join(werr, partial(err, be), missingErr(missing))
	})
}

// klinesRange prints every candle of each code from req.from to req.to
// (now on the client's clock when unset: the simulator's offline), with one
// KlinesRange call and a progress bar.
func (a *app) klinesRange(cmd *cobra.Command, req klinesRequest) error {
	badRange := func() error { return invalidf("--from %s is not before --to %s", text(req.from), text(req.to)) }
	if !req.to.IsZero() && !req.from.Before(req.to) {
		return badRange()
	}
	return a.withClient(cmd, 0, func(ctx context.Context, c *itick.Client) error {
		if req.to.IsZero() {
			req.to = c.Now()
			if !req.from.Before(req.to) {
				return badRange()
			}
		}
		bar := a.newRangeBar(c, len(req.codes), req.interval, req.from, req.to)
		opts := append(req.opts, itick.WithProgress(bar.update))
		candles, err := marketOf(c, req.class).KlinesRange(ctx, req.region, req.codes, req.interval, req.from, req.to, opts...)
		bar.finish()
		if err != nil && ctx.Err() != nil {
			// Interrupted or out of time: keep what arrived.
			n, werr := a.writeKlinesCut(req.codes, candles)
			kept := fmt.Sprintf("wrote the %d candles that arrived, the newest part of each code's range", n)
			if a.sig.interrupted() {
				return errors.Join(werr, interruptedError{kept})
			}
			return errors.Join(werr, fmt.Errorf("%w; %s", err, kept))
		}
		var be *itick.BatchError
		if err != nil && !errors.As(err, &be) {
			// One chunk, failed: its pages that arrived are kept.
			if countKlines(candles) == 0 {
				return err
			}
			n, werr := a.writeKlinesCut(req.codes, candles)
			return errors.Join(werr, keptError{err,
				fmt.Sprintf("wrote the %d candles that arrived, the newest part of each code's range", n)})
		}
		missing, werr := a.writeKlines(req.codes, candles, failedSet(be))
		return errors.Join(werr, rangePartial(err, be, candles), missingErr(missing))
	})
}

// countKlines is how many candles a result holds.
func countKlines(candles map[string][]itick.Kline) int {
	n := 0
	for _, ks := range candles {
		n += len(ks)
	}
	return n
}

// rangePartial is partial for a range: of the codes that failed, those
// whose newest candles arrived before the failure are written, and named
// as incomplete rather than as without a result.
func rangePartial(err error, be *itick.BatchError, candles map[string][]itick.Kline) error {
	if be == nil {
		return err
	}
	var none, some []string
	for _, code := range be.FailedCodes() {
		if ks, _ := lookup(candles, code); len(ks) > 0 {
			some = append(some, code)
		} else {
			none = append(none, code)
		}
	}
	var notes []string
	if len(none) > 0 {
		notes = append(notes, "no result for "+named(none))
	}
	if len(some) > 0 {
		notes = append(notes, "incomplete, only the newest part of the range written: "+named(some))
	}
	return keptError{err, strings.Join(notes, "; ")}
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
