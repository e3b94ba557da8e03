package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

// klinesRange prints, or writes to --resume's file, every candle of each
// product from req.from to req.to (now on the client's clock when unset:
// the simulator's with --sim), with one KlinesRange call per class and
// region and a progress bar.
func (a *app) klinesRange(cmd *cobra.Command, req klinesRequest) error {
	file, err := a.resumeFile(req)
	if err != nil {
		return err
	}
	if req.dryRun {
		return a.klinesDryRun(req, file)
	}
	return a.withClient(cmd, 0, func(ctx context.Context, c *itick.Client) error {
		start := time.Now()
		if req.to.IsZero() {
			req.to = c.Now()
			if !req.from.Before(req.to) {
				return invalidf("--from %s is not before --to %s", text(req.from), text(req.to))
			}
		}
		asOf := splitAsOf(req, c)
		have := map[itick.Product][]itick.Kline{}
		if file != nil {
			have = file.candles
			if req.adjust && file.splitAsOf != asOf {
				if err := a.dropSplitSince(ctx, c, req, file.splitAsOf, have); err != nil {
					return err
				}
			}
		}

		bar := a.newRangeBar(c, req)
		got := map[itick.Product][]itick.Kline{}
		var fails []rangeFailure
		for i, g := range req.groups {
			opts := append(req.options(), itick.WithProgress(bar.part(i)))
			if file != nil {
				opts = append(opts, itick.WithResume(haveOf(have, g)))
			}
			res, err := marketOf(c, g.class).KlinesRange(ctx, g.region, g.codes, req.interval, req.from, req.to, opts...)
			for _, p := range g.products() {
				if ks, ok := lookup(res, p.Code); ok {
					got[p] = ks
				}
			}
			if err != nil {
				fails = append(fails, rangeFailure{g, err})
				if ctx.Err() != nil || errors.Is(err, itick.ErrRateLimited) || fatal(err) {
					break // every later call would end alike
				}
			}
		}
		bar.finish()

		// What is written: each product's range as it now stands, the
		// file's candles for those the fetch brought nothing for.
		out := map[itick.Product][]itick.Kline{}
		for _, p := range req.products {
			if ks, ok := got[p]; ok {
				out[p] = ks
			} else if len(have[p]) > 0 {
				out[p] = have[p]
			}
		}
		fmt.Fprintln(a.stderr, "itick: "+summary(c, start, out, len(req.products)))

		err := joinFailures(fails)
		cut := ctx.Err() != nil
		if err != nil && !cut && len(got) == 0 {
			return err // nothing arrived: nothing to write, and the same command goes on
		}
		n, werr := a.writeRange(req, asOf, out, cut, len(got) > 0)
		if werr != nil || err == nil {
			return errors.Join(werr, missingErr(missingOf(req.products, out)))
		}
		where := ""
		if req.resume != "" {
			where = " to " + req.resume
		}
		kept := fmt.Sprintf("wrote the %d candles that arrived%s, the newest part of each product's range", n, where)
		if !fatal(err) {
			kept += "; to go on: " + resumeCommand(firstOf(req.resume, stdoutPath(os.Stdout), "FILE"))
		}
		switch {
		case a.sig.interrupted():
			return interruptedError{kept}
		case cut:
			return fmt.Errorf("%w; %s", err, kept)
		}
		return keptError{err, partialNote(fails, got) + "; " + kept}
	})
}

// firstOf is the first of vs that is not empty.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// resumeFile reads --resume's file, if given and there, and checks that
// the command goes on with it: the same format, adjusted alike, and no
// product the command does not name.
func (a *app) resumeFile(req klinesRequest) (*klineFile, error) {
	if req.resume == "" {
		return nil, nil
	}
	var single *group
	if len(req.groups) == 1 {
		single = &req.groups[0]
	}
	f, err := readKlineFile(req.resume, single)
	if err != nil || f == nil || len(f.candles) == 0 {
		return f, err
	}
	if f.format != req.format {
		return nil, invalidf("--resume %s holds %s; give --format %s, or another file", req.resume, f.format, f.format)
	}
	switch {
	case f.splitAsOf != "" && !req.adjust:
		return nil, invalidf("--resume %s holds candles adjusted for splits: go on with --adjust splits", req.resume)
	case f.splitAsOf == "" && req.adjust:
		return nil, invalidf("--resume %s holds candles as the service sends them: go on without --adjust", req.resume)
	}
	named := map[itick.Product]bool{}
	for _, p := range req.products {
		named[p] = true
	}
	for p := range f.candles {
		if !named[p] {
			return nil, invalidf("--resume %s holds candles of %s, which the command does not name: name every product of the file",
				req.resume, p)
		}
	}
	return f, nil
}

// haveOf is what have holds of g's products, keyed by code, for
// itick.WithResume.
func haveOf(have map[itick.Product][]itick.Kline, g group) map[string][]itick.Kline {
	out := map[string][]itick.Kline{}
	for _, p := range g.products() {
		if ks := have[p]; len(ks) > 0 {
			out[p.Code] = ks
		}
	}
	return out
}

// dropSplitSince takes out of have the products of a file adjusted for
// splits up to asOf that have split since: their older candles miss that
// split, so they are fetched again whole.
func (a *app) dropSplitSince(ctx context.Context, c *itick.Client, req klinesRequest, asOf string,
	have map[itick.Product][]itick.Kline) error {
	since, err := time.Parse(time.RFC3339, asOf)
	if err != nil {
		return invalidf("--resume %s: %s %q is not an RFC 3339 time", req.resume, splitColumn, asOf)
	}
	for _, g := range req.groups {
		for r, err := range c.Stock.Splits(ctx, g.region) {
			if err != nil {
				return fmt.Errorf("the splits since the file was adjusted: %w", err)
			}
			p := itick.Product{Class: g.class, Region: g.region, Code: strings.TrimSpace(r.Code)}
			if r.ExDate.After(since) && len(have[p]) > 0 {
				fmt.Fprintf(a.stderr, "itick: %s split %s on %s, after the file was adjusted: fetching it again whole\n",
					p, r.Ratio, r.ExDate.UTC().Format(time.RFC3339))
				delete(have, p)
			}
		}
	}
	return nil
}

// writeRange writes the candles of a range: to --resume's file, anew and
// atomically, when anything arrived (the file stays as it was otherwise),
// or to stdout. After an interrupt (cut) a second one stops the writing to
// stdout at a row boundary; the file is written whole, since it holds the
// candles of earlier runs too, and a third Ctrl-C leaves it as it was.
func (a *app) writeRange(req klinesRequest, asOf string, out map[itick.Product][]itick.Kline, cut, arrived bool) (int, error) {
	if req.resume == "" {
		return a.writeCandles(a.klineSink(req, asOf), req.products, out, cut)
	}
	n := countKlines(out)
	if !arrived {
		return n, nil
	}
	err := writeFileAtomic(req.resume, func(w io.Writer) error {
		var err error
		n, err = a.writeCandles(newKlineSink(w, req.format, req.interval, asOf), req.products, out, false)
		return err
	})
	return n, err
}

// rangeFailure is the error of one class and region's range call.
type rangeFailure struct {
	g   group
	err error
}

// fatal reports an error after which nothing can go on: a refused token,
// a plan limit, an argument the service or the SDK refused.
func fatal(err error) bool {
	return errors.Is(err, itick.ErrUnauthorized) || errors.Is(err, itick.ErrPlanLimit) ||
		errors.Is(err, itick.ErrInvalidArgument)
}

// joinFailures is the failures as one error.
func joinFailures(fails []rangeFailure) error {
	switch len(fails) {
	case 0:
		return nil
	case 1:
		return fails[0].err
	}
	errs := make([]error, len(fails))
	for i, f := range fails {
		errs[i] = f.err
	}
	return errors.Join(errs...)
}

// partialNote names the products whose ranges failed: those with none of
// their candles, and those with the newest part only.
func partialNote(fails []rangeFailure, got map[itick.Product][]itick.Kline) string {
	var all []itick.Product
	for _, f := range fails {
		all = append(all, f.g.products()...)
	}
	var none, some []string
	for _, f := range fails {
		failed := map[string]bool{}
		var be *itick.BatchError
		if errors.As(f.err, &be) {
			for _, c := range be.FailedCodes() {
				failed[c] = true
			}
		} else {
			for _, c := range f.g.codes {
				failed[c] = true
			}
		}
		for _, p := range f.g.products() {
			switch {
			case !failed[p.Code]:
			case len(got[p]) > 0:
				some = append(some, productName(all, p))
			default:
				none = append(none, productName(all, p))
			}
		}
	}
	var notes []string
	if len(none) > 0 {
		notes = append(notes, "no result for "+named(none))
	}
	if len(some) > 0 {
		notes = append(notes, "incomplete, only the newest part of the range written: "+named(some))
	}
	return strings.Join(notes, "; ")
}

// missingOf names the products without a candle, for a fetch that did not
// fail.
func missingOf(products []itick.Product, out map[itick.Product][]itick.Kline) []string {
	var missing []string
	for _, p := range products {
		if len(out[p]) == 0 {
			missing = append(missing, productName(products, p))
		}
	}
	return missing
}
