package itick

import (
	"context"
	"errors"
	"strings"

	"github.com/d19c4e34/itick/internal/batch"
)

// WithSplitAdjusted makes a stock K-line call (Kline, Klines, KlineRange,
// KlinesRange) return candles adjusted for splits: each candle's open, high,
// low and close are divided, and its volume multiplied, by the product of
// the ratios of the code's splits whose ex-date is after the candle's time.
// A "4:1" split divides the prices before it by 4 and multiplies their
// volumes by 4; a reverse "1:10" multiplies the prices before it by 10.
// Turnover, price times volume, is left as it is.
//
// The splits are those Stock.Splits lists for the region, fetched at most
// once per region and trading day of the client (its clock, WithClock,
// says which day) and shared by every call and goroutine. A candle that
// starts on an ex-date is after the split and is not adjusted for it; a
// split the service lists ahead of its ex-date applies to every candle
// before it, so adjusted prices are already at its shares; a code matches
// its splits whatever its case. A candle
// longer than a day that spans an ex-date (a week, a month) is adjusted as
// a whole, as its start says. A record whose ratio is not two positive
// numbers "a:b" is an error for the codes it names, never skipped. With
// WithResume, the candles given back are kept as they are: pass ones
// adjusted the same way. On other asset classes it is ErrInvalidArgument.
// docs/backfill.md says more.
func WithSplitAdjusted() KlineOption {
	return func(o *klineOptions) { o.splitAdjusted = true }
}

// splitAdjusted reports whether opts ask for split-adjusted candles, and
// refuses them on a class other than stocks.
func (m market) splitAdjusted(opts []KlineOption) (bool, error) {
	var o klineOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.splitAdjusted && m.class != "stock" {
		return false, invalidArg("WithSplitAdjusted applies to stock candles only, not %s", m.class)
	}
	return o.splitAdjusted, nil
}

// splitsIfAdjusted returns, when opts ask for WithSplitAdjusted, the
// splits of region, once the call's other arguments are known to be good:
// a call refused for them sends nothing. nil otherwise.
func (m market) splitsIfAdjusted(ctx context.Context, region Region, codes []string, opts []KlineOption) (regionSplits, error) {
	adjusted, err := m.splitAdjusted(opts)
	if err != nil || !adjusted {
		return nil, err
	}
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	if _, err := batch.Normalize(codes); err != nil {
		return nil, invalidArg("%v", err)
	}
	return m.splitsFor(ctx, region)
}

// withFailed adds the codes whose splits could not be read to a batch
// call's error: they join its *BatchError, or make one.
func withFailed(err error, failed []ChunkError) error {
	if len(failed) == 0 {
		return err
	}
	var be *BatchError
	switch {
	case err == nil:
		return &BatchError{Chunks: failed}
	case errors.As(err, &be):
		be.Chunks = append(be.Chunks, failed...)
		return be
	}
	return err
}

// adjustRange readies run, a range call's, for WithSplitAdjusted when
// opts ask for it: its pages are adjusted as they arrive, so the candles
// WithResume gave back are kept as they are. The codes whose splits
// cannot be read are ended at once, before any of their pages is asked
// for, and returned with their errors.
func (m market) adjustRange(ctx context.Context, run *rangeRun, region Region, codes []string, opts []KlineOption) ([]ChunkError, error) {
	adjusted, err := m.splitAdjusted(opts)
	if err != nil || !adjusted || len(run.Unfinished()) == 0 {
		return nil, err
	}
	splits, err := m.splitsFor(ctx, region)
	if err != nil {
		return nil, err
	}
	run.splits = splits
	var failed []ChunkError
	for _, code := range codes {
		if err := splits.check(code); err != nil {
			failed = append(failed, run.fail([]string{code}, err))
		}
	}
	return failed, nil
}

// adjust divides the prices and multiplies the volumes of code's candles by
// the ratios of its splits after each candle's time.
// It changes ks in place, or returns the error of a split of code it
// cannot read.
func (rs regionSplits) adjust(code string, ks []Kline) error {
	if err := rs.check(code); err != nil {
		return err
	}
	splits := rs[strings.ToUpper(strings.TrimSpace(code))]
	for i := range ks {
		f := 1.0
		for _, s := range splits {
			if s.exDate.After(ks[i].Time) {
				f *= s.ratio
			}
		}
		if f != 1 {
			k := &ks[i]
			k.Open, k.High, k.Low, k.Close = k.Open/f, k.High/f, k.Low/f, k.Close/f
			k.Volume *= f
		}
	}
	return nil
}

// check returns the error of a split of code whose ratio cannot be read.
func (rs regionSplits) check(code string) error {
	for _, s := range rs[strings.ToUpper(strings.TrimSpace(code))] {
		if s.bad != nil {
			return s.bad
		}
	}
	return nil
}

// adjustAll adjusts every code's candles in got and takes the codes whose
// splits cannot be read out of it, returning them with their errors.
func (rs regionSplits) adjustAll(got map[string][]Kline) []ChunkError {
	if rs == nil {
		return nil
	}
	var failed []ChunkError
	for code, ks := range got {
		if err := rs.adjust(code, ks); err != nil {
			delete(got, code)
			failed = append(failed, ChunkError{Codes: []string{code}, Err: err})
		}
	}
	return failed
}
