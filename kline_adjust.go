package itick

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/wait"
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
// split whose ex-date is after the client's now has not happened yet and
// is left out; a code matches its splits whatever its case. A candle
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
	run.splits, run.now = splits, m.c.Now()
	var failed []ChunkError
	for _, code := range codes {
		if err := splits.check(code); err != nil {
			failed = append(failed, run.fail([]string{code}, err))
		}
	}
	return failed, nil
}

// split is one split of a code, as the adjustment uses it.
type split struct {
	exDate time.Time
	ratio  float64 // shares after over shares before: 4 for "4:1"
	bad    error   // the record's ratio could not be read
}

// regionSplits are a region's splits by upper-case code.
type regionSplits map[string][]split

// splitCache holds each region's splits for one trading day. Calls that
// need a region while it is fetched wait for that fetch rather than send
// their own.
type splitCache struct {
	mu      sync.Mutex
	regions map[Region]*splitFetch
}

// splitFetch is one fetch of a region's splits: done is closed when
// splits or err is set.
type splitFetch struct {
	day    int // the trading day it is for, yyyymmdd
	done   chan struct{}
	splits regionSplits
	err    error
	ended  bool // err is the fetching call's context ending, no failure of the fetch
}

// splitsFor returns region's splits for the client's trading day,
// fetching them when no call has yet today.
func (m market) splitsFor(ctx context.Context, region Region) (regionSplits, error) {
	c := m.c
	key := Region(strings.ToUpper(string(region)))
	for {
		day, _, _ := tradingDay(c.Now(), string(key))
		sc := c.splits
		sc.mu.Lock()
		f := sc.regions[key]
		if f == nil || f.day != day {
			f = &splitFetch{day: day, done: make(chan struct{})}
			if sc.regions == nil {
				sc.regions = map[Region]*splitFetch{}
			}
			sc.regions[key] = f
			sc.mu.Unlock()
			f.splits, f.err = m.fetchSplits(ctx, region)
			f.ended = f.err != nil && ctx.Err() != nil
			if f.err != nil {
				sc.mu.Lock()
				if sc.regions[key] == f {
					delete(sc.regions, key) // a failure is not kept: the next call asks again
				}
				sc.mu.Unlock()
			}
			close(f.done)
			return f.splits, f.err
		}
		sc.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, wait.Err(ctx)
		case <-f.done:
		}
		if !f.ended {
			return f.splits, f.err
		}
		// The call that fetched them ended first; this one asks itself.
	}
}

// fetchSplits reads every split record of region.
func (m market) fetchSplits(ctx context.Context, region Region) (regionSplits, error) {
	out := regionSplits{}
	svc := &StockService{m}
	for r, err := range svc.Splits(ctx, region) {
		if err != nil {
			return nil, fmt.Errorf("splits of %s for WithSplitAdjusted: %w", region, err)
		}
		s := split{exDate: r.ExDate}
		if s.ratio, s.bad = parseRatio(r.Ratio); s.bad != nil {
			s.bad = &APIError{StatusCode: http.StatusOK, Path: "/stock/split", Message: fmt.Sprintf(
				"split of %s on %s: %v", r.Code, r.ExDate.UTC().Format(time.DateOnly), s.bad)}
		}
		code := strings.ToUpper(strings.TrimSpace(r.Code))
		out[code] = append(out[code], s)
	}
	return out, nil
}

// parseRatio reads a split's "a:b", shares after to shares before, as a/b.
func parseRatio(v string) (float64, error) {
	a, b, ok := strings.Cut(v, ":")
	x, errA := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, errB := strconv.ParseFloat(strings.TrimSpace(b), 64)
	r := x / y
	if !ok || errA != nil || errB != nil || !(x > 0) || !(y > 0) || math.IsInf(r, 0) || !(r > 0) {
		return 0, fmt.Errorf("ratio %q is not two positive numbers a:b", v)
	}
	return r, nil
}

// adjust divides the prices and multiplies the volumes of code's candles by
// the ratios of its splits after each candle's time and at or before now.
// It changes ks in place, or returns the error of a split of code it
// cannot read.
func (rs regionSplits) adjust(code string, ks []Kline, now time.Time) error {
	if err := rs.check(code); err != nil {
		return err
	}
	splits := rs[strings.ToUpper(strings.TrimSpace(code))]
	for i := range ks {
		f := 1.0
		for _, s := range splits {
			if s.exDate.After(ks[i].Time) && !s.exDate.After(now) {
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
func (rs regionSplits) adjustAll(got map[string][]Kline, now time.Time) []ChunkError {
	if rs == nil {
		return nil
	}
	var failed []ChunkError
	for code, ks := range got {
		if err := rs.adjust(code, ks, now); err != nil {
			delete(got, code)
			failed = append(failed, ChunkError{Codes: []string{code}, Err: err})
		}
	}
	return failed
}
