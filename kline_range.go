package itick

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/span"
	"github.com/d19c4e34/itick/internal/wait"
)

// rangeSpec is a checked range request.
type rangeSpec struct {
	span.Spec[Kline]
	region   Region
	interval Interval
	exchange string
	progress func(RangeProgress)
	resume   map[string][]Kline // WithResume's; nil without it
}

// newRangeSpec checks the arguments every range call shares. A to after
// now, the client's clock, means now; with WithClosedOnly, the range ends
// after the newest candle closed by now. That may leave nothing: from >= to is then no
// error, and no request is sent.
func newRangeSpec(now time.Time, region Region, interval Interval, from, to time.Time, opts []KlineOption) (rangeSpec, error) {
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
	case !span.FitsUnixMilli(from):
		return rangeSpec{}, invalidArg("range start (from) %s is outside the times the service's Unix milliseconds can express", from.UTC().Format(time.RFC3339Nano))
	case !span.FitsUnixMilli(to) && !to.After(now): // a later one means now
		return rangeSpec{}, invalidArg("range end (to) %s is outside the times the service's Unix milliseconds can express", to.UTC().Format(time.RFC3339Nano))
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
	if to.After(now) {
		to = now
	}
	if o.closedOnly {
		// Candles have whole-millisecond times: one starting at or before
		// closedBy is in the range exactly when it starts before cut.
		if cut := closedBy(interval, now).Truncate(time.Millisecond).Add(time.Millisecond); to.After(cut) {
			to = cut
		}
	}
	unit := span.Monthly
	switch {
	case interval <= OneHour:
		unit = span.Hourly
	case interval <= OneDay:
		unit = span.Daily
	case interval == OneWeek:
		unit = span.Weekly
	}
	return rangeSpec{
		Spec:   span.NewSpec(from, to, page, interval.Duration(), unit, interval.String(), klineTime),
		region: region, interval: interval, exchange: o.exchange, progress: o.progress, resume: o.resume,
	}, nil
}

func klineTime(k Kline) time.Time { return k.Time }

// pageOptions are the options of the request for the page that ends just
// before end. Asking for the millisecond before it gets the same page
// whether the service treats et as inclusive or exclusive, since candles
// start on whole seconds.
func (s *rangeSpec) pageOptions(end time.Time) []KlineOption {
	opts := []KlineOption{WithEnd(end.Add(-time.Millisecond))}
	if s.exchange != "" {
		opts = append(opts, WithExchange(s.exchange))
	}
	return opts
}

// resumeOf returns WithResume's candles of each of codes, keyed as the
// codes are (trimmed), in new slices.
func (s *rangeSpec) resumeOf(codes []string) map[string][]Kline {
	if len(s.resume) == 0 {
		return nil
	}
	asked := make(map[string]bool, len(codes))
	for _, c := range codes {
		asked[c] = true
	}
	out := make(map[string][]Kline)
	for k, ks := range s.resume {
		if c, err := batch.Code(k); err == nil && asked[c] {
			out[c] = append(slices.Clip(out[c]), ks...)
		}
	}
	return out
}

// rangeRun is one range call: its books, and where it logs and reports
// progress.
type rangeRun struct {
	*span.Run[Kline]
	spec   *rangeSpec
	path   string
	twins  map[string]bool // codes of the call asked in another case too (caseTwins)
	logger *slog.Logger
	mu     sync.Mutex // one page at a time, so progress is never reported concurrently

	splits regionSplits // WithSplitAdjusted's; nil without it
}

// newRangeRun starts the run of codes, with what WithResume gave of each.
func newRangeRun(m market, spec *rangeSpec, path string, codes []string) (*rangeRun, error) {
	books, err := span.NewRun(spec.Spec, codes, spec.resumeOf(codes))
	if err != nil {
		return nil, invalidArg("WithResume: %v", err)
	}
	return &rangeRun{Run: books, spec: spec, path: path, twins: caseTwins(codes), logger: m.c.attempt.Logger}, nil
}

// page records one answered request, candles per code for the codes of
// ch, logs it and reports progress.
func (run *rangeRun) page(ctx context.Context, got map[string][]Kline, ch span.Chunk) {
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, ks := range got {
		sortKlines(ks)
	}
	run.splits.adjustAll(got) // never fails: codes with unreadable splits are not asked for
	added := run.Page(got, ch)
	p := run.Progress()
	if run.logger != nil && run.logger.Enabled(ctx, slog.LevelDebug) {
		run.logger.LogAttrs(ctx, slog.LevelDebug, "itick kline range page",
			slog.String("path", run.path), slog.Int("codes", len(got)), slog.Int("candles", added),
			slog.Int("requests", p.Requests), slog.Int("done", p.Done), slog.Int("of", p.Codes),
			slog.Time("reached", p.Reached))
	}
	if run.spec.progress != nil {
		run.spec.progress(RangeProgress{Requests: p.Requests, Candles: p.Candles, Codes: p.Codes, Done: p.Done,
			From: run.spec.From, To: run.spec.To, Reached: p.Reached, fraction: p.Fraction})
	}
}

// refused returns the codes whose pages could not be true since the last
// call, each with the error of its response: it decoded, but what it
// says of the code cannot be true, as one that does not parse would be.
func (run *rangeRun) refused() []ChunkError {
	var out []ChunkError
	for _, r := range run.TakeRefused() {
		out = append(out, ChunkError{Codes: []string{r.Code}, Err: &APIError{
			StatusCode: http.StatusOK, Path: run.path, Message: fmt.Sprintf("candles of %s %s", r.Code, r.Why)}})
	}
	return out
}

// fail ends the range of codes, incomplete, and returns their ChunkError.
func (run *rangeRun) fail(codes []string, err error) ChunkError {
	run.Fail(codes)
	return ChunkError{Codes: codes, Err: err}
}

// klineRange pages one code's candles back from to with the single-code
// endpoint.
func (m market) klineRange(ctx context.Context, region Region, code string, interval Interval,
	from, to time.Time, opts []KlineOption) ([]Kline, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	spec, err := newRangeSpec(m.c.Now(), region, interval, from, to, opts)
	if err != nil {
		return nil, err
	}
	if code, err = batch.Code(code); err != nil {
		return nil, invalidArg("%v", err)
	}
	run, err := newRangeRun(m, &spec, m.path("kline"), []string{code})
	if err != nil {
		return nil, err
	}
	bad, err := m.adjustRange(ctx, run, region, []string{code}, opts)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, bad[0].Err
	}
	for end, more := run.Next(code); more; end, more = run.Next(code) {
		ks, err := m.kline(ctx, region, code, interval, spec.Page, spec.pageOptions(end))
		if err != nil {
			return run.Candles(code), err
		}
		run.page(ctx, map[string][]Kline{code: ks}, span.Chunk{End: end, Codes: []string{code}})
		if refused := run.refused(); len(refused) > 0 {
			return run.Candles(code), refused[0].Err
		}
	}
	return run.Candles(code), nil
}

// klinesRange pages many codes' candles back from to with the batch
// endpoint. Each round asks, for every code not yet done, for a page
// ending at or a little after that code's oldest candle, codes with
// nearby ends sharing a request (see plan); the round's requests go out as
// a batch call's chunks do.
func (m market) klinesRange(ctx context.Context, region Region, codes []string, interval Interval,
	from, to time.Time, opts []KlineOption) (map[string][]Kline, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	spec, err := newRangeSpec(m.c.Now(), region, interval, from, to, opts)
	if err != nil {
		return nil, err
	}
	norm, err := batch.Normalize(codes)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	path := m.path("klines")
	run, err := newRangeRun(m, &spec, path, norm)
	if err != nil {
		return nil, err
	}
	failed, err := m.adjustRange(ctx, run, region, norm, opts)
	if err != nil {
		return nil, err
	}
	refused := len(failed) > 0
	for {
		chunks := run.Plan(m.c.batchSize)
		if len(chunks) == 0 {
			break
		}
		var stop error
		for i, err := range m.sendRound(ctx, run, path, chunks) {
			switch {
			case err == nil:
				continue
			case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrPlanLimit):
				// Every later request would fail the same way, and a
				// batch call gives this error back as it is.
				return nil, err
			case stop == nil && errors.Is(err, ErrRateLimited):
				stop = err
			}
			failed = append(failed, run.fail(chunks[i].Codes, err))
		}
		if r := run.refused(); len(r) > 0 {
			failed, refused = append(failed, r...), true
		}
		if stop == nil && ctx.Err() != nil {
			stop = wait.Err(ctx)
		}
		if stop != nil {
			if rest := run.Unfinished(); len(rest) > 0 {
				failed = append(failed, run.fail(rest, stop))
			}
			break
		}
	}
	out := run.Result()
	switch {
	case len(failed) == 0:
		return out, nil
	case len(norm) <= m.c.batchSize && !refused:
		return out, failed[0].Err
	}
	return out, &BatchError{Chunks: failed}
}

// sendRound sends one request per chunk, each on the client's limiter, up
// to WithConcurrency at a time, and returns each one's error. Until the
// client has had a success, they go one at a time, as a batch call's
// chunks do: the first tells whether the token and the plan are good.
func (m market) sendRound(ctx context.Context, run *rangeRun, path string, chunks []span.Chunk) []error {
	spec := run.spec
	fetch := func(ctx context.Context, i int) error {
		ch := chunks[i]
		req, err := klineQuery(m.c.Now, spec.interval, spec.Page, spec.pageOptions(ch.End))
		if err != nil {
			return err
		}
		_, err = fetchChunks(ctx, m.c, path, spec.region, ch.Codes, run.twins, req.query, seriesReader.Read,
			func(got map[string][]Kline) { run.page(ctx, got, ch) })
		return err
	}
	errs := make([]error, 0, len(chunks))
	first := 0
	for ; first < len(chunks)-1 && !m.c.confirmed.Load(); first++ {
		err := batch.RunUntil(ctx, 1, 1, func(ctx context.Context, _ int) error { return fetch(ctx, first) }, batchStop)[0]
		errs = append(errs, err)
		if err != nil && batchStop(err) != batch.Continue {
			for range chunks[first+1:] {
				errs = append(errs, err) // not sent: they would meet the same
			}
			return errs
		}
	}
	return append(errs, batch.RunUntil(ctx, len(chunks)-first, m.c.concurrency, func(ctx context.Context, i int) error {
		return fetch(ctx, first+i)
	}, batchStop)...)
}
