package itick

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
)

// rangeSpec is a checked range request.
type rangeSpec struct {
	region   Region
	interval Interval
	from, to time.Time
	page     int
	exchange string
	progress func(RangeProgress)
}

// newRangeSpec checks the arguments every range call shares. A to in the
// future means now.
func newRangeSpec(region Region, interval Interval, from, to time.Time, opts []KlineOption) (rangeSpec, error) {
	if err := region.validate(); err != nil {
		return rangeSpec{}, err
	}
	if !interval.valid() {
		return rangeSpec{}, invalidArg("unknown interval %d (want 1 to 10)", int(interval))
	}
	switch {
	case from.IsZero():
		return rangeSpec{}, invalidArg("range start (from) is the zero time")
	case to.IsZero():
		return rangeSpec{}, invalidArg("range end (to) is the zero time")
	case !from.Before(to):
		return rangeSpec{}, invalidArg("range start %s is not before its end %s",
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
	}
	var o klineOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.endSet {
		return rangeSpec{}, invalidArg("WithEnd does not apply to a range call: its end is to")
	}
	page := DefaultPageSize
	if o.pageSizeSet {
		if o.pageSize < 1 || o.pageSize > MaxKlineLimit {
			return rangeSpec{}, invalidArg("WithPageSize(%d) is outside 1 to %d", o.pageSize, MaxKlineLimit)
		}
		page = o.pageSize
	}
	if now := time.Now(); to.After(now) {
		to = now
	}
	return rangeSpec{region: region, interval: interval, from: from, to: to, page: page,
		exchange: o.exchange, progress: o.progress}, nil
}

// pageOptions are the options of the request for the page that ends just
// before end. Asking for the millisecond before it gets the same page
// whether the service treats et as inclusive or exclusive, since candles
// start on whole seconds.
func (s rangeSpec) pageOptions(end time.Time) []KlineOption {
	opts := []KlineOption{WithEnd(end.Add(-time.Millisecond))}
	if s.exchange != "" {
		opts = append(opts, WithExchange(s.exchange))
	}
	return opts
}

// codeRange collects one code's candles, page by page, newest page first.
type codeRange struct {
	pages  [][]Kline
	oldest time.Time // of the candles kept; zero before the first
	n      int
	done   bool
	failed bool // done because a request for it failed
}

// next is the end of the next page to ask for.
func (r *codeRange) next(to time.Time) time.Time {
	if r.oldest.IsZero() {
		return to
	}
	return r.oldest
}

// add keeps the candles of page (sorted, oldest first) that are in the
// range and older than any kept so far, and reports how many. A page that
// brings nothing older, or reaches back to from, ends the code's range:
// the former is history that ran out (or a service that ignores et), and
// must end the loop rather than repeat it.
func (r *codeRange) add(page []Kline, from, to time.Time) int {
	limit := r.next(to)
	hi, _ := slices.BinarySearchFunc(page, limit, func(k Kline, t time.Time) int { return k.Time.Compare(t) })
	lo, _ := slices.BinarySearchFunc(page[:hi], from, func(k Kline, t time.Time) int { return k.Time.Compare(t) })
	if hi == 0 || lo > 0 || (lo < hi && page[lo].Time.Equal(from)) {
		r.done = true
	}
	if lo == hi {
		return 0
	}
	kept := make([]Kline, 0, hi-lo)
	for _, k := range page[lo:hi] {
		if n := len(kept); n > 0 && kept[n-1].Time.Equal(k.Time) {
			continue // a service may repeat a candle within a page
		}
		kept = append(kept, k)
	}
	r.pages = append(r.pages, kept)
	r.oldest = kept[0].Time
	r.n += len(kept)
	return len(kept)
}

// candles returns every candle kept, oldest first.
func (r *codeRange) candles() []Kline {
	out := make([]Kline, 0, r.n)
	for i := len(r.pages) - 1; i >= 0; i-- {
		out = append(out, r.pages[i]...)
	}
	return out
}

// rangeRun is the shared state of one range call: what arrived, and the
// progress it reports.
type rangeRun struct {
	spec   rangeSpec
	path   string
	logger *slog.Logger

	mu       sync.Mutex
	codes    []string
	state    map[string]*codeRange
	requests int
	candles  int
}

func newRangeRun(m market, spec rangeSpec, path string, codes []string) *rangeRun {
	run := &rangeRun{spec: spec, path: path, logger: m.c.attempt.Logger, codes: codes,
		state: make(map[string]*codeRange, len(codes))}
	for _, c := range codes {
		run.state[c] = &codeRange{}
	}
	return run
}

// page records one answered request: candles per code, for the codes in
// want. It logs the page and reports progress.
func (run *rangeRun) page(ctx context.Context, got map[string][]Kline, want map[string]bool) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.requests++
	added := 0
	for code, ks := range got {
		st := run.state[code]
		if st == nil || !want[code] || st.done {
			continue
		}
		sortKlines(ks)
		added += st.add(ks, run.spec.from, run.spec.to)
	}
	run.candles += added
	p := run.progressLocked()
	if run.logger != nil && run.logger.Enabled(ctx, slog.LevelDebug) {
		run.logger.LogAttrs(ctx, slog.LevelDebug, "itick kline range page",
			slog.String("path", run.path), slog.Int("codes", len(got)), slog.Int("candles", added),
			slog.Int("requests", p.Requests), slog.Int("done", p.Done), slog.Int("of", p.Codes),
			slog.Time("reached", p.Reached))
	}
	if run.spec.progress != nil {
		run.spec.progress(p)
	}
}

func (run *rangeRun) progressLocked() RangeProgress {
	p := RangeProgress{Requests: run.requests, Candles: run.candles, Codes: len(run.codes),
		From: run.spec.from, To: run.spec.to, Reached: run.spec.from}
	span := run.spec.to.Sub(run.spec.from).Seconds()
	var sum float64
	for _, code := range run.codes {
		st := run.state[code]
		if st.done {
			p.Done++
			sum++
			continue
		}
		end := st.next(run.spec.to)
		if p.Reached.Before(end) {
			p.Reached = end
		}
		sum += run.spec.to.Sub(end).Seconds() / span
	}
	p.fraction = sum / float64(max(len(run.codes), 1))
	return p
}

// klineRange pages one code's candles back from to with the single-code
// endpoint.
func (m market) klineRange(ctx context.Context, region Region, code string, interval Interval,
	from, to time.Time, opts []KlineOption) ([]Kline, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	spec, err := newRangeSpec(region, interval, from, to, opts)
	if err != nil {
		return nil, err
	}
	if code, err = batch.Code(code); err != nil {
		return nil, invalidArg("%v", err)
	}
	run := newRangeRun(m, spec, m.path("kline"), []string{code})
	st := run.state[code]
	want := map[string]bool{code: true}
	for !st.done && spec.from.Before(spec.to) {
		ks, err := m.kline(ctx, region, code, interval, spec.page, spec.pageOptions(st.next(spec.to)))
		if err != nil {
			return st.candles(), err
		}
		run.page(ctx, map[string][]Kline{code: ks}, want)
	}
	return st.candles(), nil
}

// klinesRange pages many codes' candles back from to with the batch
// endpoint. Each round asks, for every code not yet done, for the page
// ending at that code's oldest candle; codes that share that end share
// requests, in chunks of the batch size sent as any batch call sends them.
func (m market) klinesRange(ctx context.Context, region Region, codes []string, interval Interval,
	from, to time.Time, opts []KlineOption) (map[string][]Kline, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	spec, err := newRangeSpec(region, interval, from, to, opts)
	if err != nil {
		return nil, err
	}
	norm, err := batch.Normalize(codes)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	path := m.path("klines")
	run := newRangeRun(m, spec, path, norm)
	var failed []ChunkError
	for spec.from.Before(spec.to) {
		groups := run.groups()
		if len(groups) == 0 {
			break
		}
		var stop error
		for _, g := range groups {
			if stop != nil {
				failed = append(failed, run.fail(g.codes, stop))
				continue
			}
			extra, err := klineQuery(interval, spec.page, spec.pageOptions(g.end))
			if err != nil {
				return nil, err
			}
			want := make(map[string]bool, len(g.codes))
			for _, c := range g.codes {
				want[c] = true
			}
			before := run.counts(g.codes)
			_, err = fetchBatch(ctx, m.c, path, region, g.codes, extra, seriesReader.Read, func(got map[string][]Kline) {
				run.page(ctx, got, want)
			})
			var now []ChunkError
			var be *BatchError
			switch {
			case err == nil:
			case errors.As(err, &be):
				for _, ce := range be.Chunks {
					now = append(now, run.fail(ce.Codes, ce.Err))
				}
			default:
				now = append(now, run.fail(g.codes, err))
			}
			for _, ce := range now {
				switch {
				case errors.Is(ce.Err, ErrUnauthorized), errors.Is(ce.Err, ErrPlanLimit):
					// Every later request would fail the same way, and
					// a batch call gives this error back as it is.
					return nil, ce.Err
				case stop == nil && errors.Is(ce.Err, ErrRateLimited):
					stop = ce.Err
				}
			}
			if stop == nil && ctx.Err() != nil {
				stop = ctx.Err()
			}
			failed = append(failed, now...)
			// A code answered with nothing older is at the start of its
			// history, or the service ignores et: either way, done.
			run.finishStalled(g.codes, before)
		}
		if stop != nil {
			if rest := run.unfinished(); len(rest) > 0 {
				failed = append(failed, run.fail(rest, stop))
			}
			break
		}
	}
	out := run.result()
	if len(failed) == 0 {
		return out, nil
	}
	if len(norm) <= m.c.batchSize {
		return out, failed[0].Err
	}
	return out, &BatchError{Chunks: failed}
}

// fail ends the range of codes, incomplete, and returns their ChunkError.
func (run *rangeRun) fail(codes []string, err error) ChunkError {
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, c := range codes {
		st := run.state[c]
		st.done, st.failed = true, true
	}
	return ChunkError{Codes: codes, Err: err}
}

// finishStalled ends the range of each of codes that got no candle since
// before was counted and did not fail.
func (run *rangeRun) finishStalled(codes []string, before []int) {
	run.mu.Lock()
	defer run.mu.Unlock()
	for i, c := range codes {
		if st := run.state[c]; !st.failed && st.n == before[i] {
			st.done = true
		}
	}
}

// result returns the candles of every code that has any, oldest first.
func (run *rangeRun) result() map[string][]Kline {
	run.mu.Lock()
	defer run.mu.Unlock()
	out := make(map[string][]Kline, len(run.codes))
	for _, c := range run.codes {
		if st := run.state[c]; st.n > 0 {
			out[c] = st.candles()
		}
	}
	return out
}

// rangeGroup is the codes whose next page ends at the same time.
type rangeGroup struct {
	end   time.Time
	codes []string
}

// groups returns the codes not yet done, grouped by the end of their next
// page, the latest end first and codes in the caller's order.
func (run *rangeRun) groups() []rangeGroup {
	run.mu.Lock()
	defer run.mu.Unlock()
	var gs []rangeGroup
	for _, c := range run.codes {
		st := run.state[c]
		if st.done {
			continue
		}
		end := st.next(run.spec.to)
		i := slices.IndexFunc(gs, func(g rangeGroup) bool { return g.end.Equal(end) })
		if i < 0 {
			gs = append(gs, rangeGroup{end: end})
			i = len(gs) - 1
		}
		gs[i].codes = append(gs[i].codes, c)
	}
	slices.SortStableFunc(gs, func(a, b rangeGroup) int { return b.end.Compare(a.end) })
	return gs
}

// counts returns how many candles each of codes has so far.
func (run *rangeRun) counts(codes []string) []int {
	run.mu.Lock()
	defer run.mu.Unlock()
	n := make([]int, len(codes))
	for i, c := range codes {
		n[i] = run.state[c].n
	}
	return n
}

// unfinished returns the codes not yet done, in the caller's order.
func (run *rangeRun) unfinished() []string {
	run.mu.Lock()
	defer run.mu.Unlock()
	var out []string
	for _, c := range run.codes {
		if !run.state[c].done {
			out = append(out, c)
		}
	}
	return out
}
