package itick

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	resume   map[string][]Kline // WithResume's; nil without it

	gap      time.Duration // the least time between two candles; 0: not checked
	capacity int           // the most candles [from, to) can hold
	reach    time.Duration // how far before from a candle still shows a page reached from
}

// newRangeSpec checks the arguments every range call shares. A to in the
// future means now; with WithClosedOnly, the range ends after the newest
// candle that has closed. That may leave nothing: from >= to is then no
// error, and no request is sent.
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
	now := time.Now()
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
	s := rangeSpec{region: region, interval: interval, from: from, to: to, page: page,
		exchange: o.exchange, progress: o.progress, resume: o.resume}
	s.limits()
	return s, nil
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
	longest  int          // the longest page any code got; 0 before the first
	refused  []ChunkError // codes whose pages were refused, not yet collected
}

// newRangeRun starts the run of codes, with what WithResume gave of each.
func newRangeRun(m market, spec rangeSpec, path string, codes []string) (*rangeRun, error) {
	run := &rangeRun{spec: spec, path: path, logger: m.c.attempt.Logger, codes: codes,
		state: make(map[string]*codeRange, len(codes))}
	have := spec.resumeOf(codes)
	for _, c := range codes {
		st := &codeRange{done: !spec.from.Before(spec.to)}
		if !st.done {
			if err := st.seed(c, have[c], &run.spec); err != nil {
				return nil, err
			}
		}
		run.state[c] = st
		run.candles += st.n
	}
	return run, nil
}

// page records one answered request: candles per code, for the codes of
// ch. It logs the page and reports progress.
func (run *rangeRun) page(ctx context.Context, got map[string][]Kline, ch rangeChunk) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.requests++
	added := 0
	for _, code := range ch.codes {
		st := run.state[code]
		if st == nil || st.done {
			continue
		}
		ks := got[code]
		sortKlines(ks)
		run.longest = max(run.longest, len(ks))
		n, refused := st.add(ks, ch.end, &run.spec)
		if refused != "" {
			// The response decoded, but what it says of this code cannot
			// be true: an error of the response, as one that does not
			// parse would be.
			run.refused = append(run.refused, ChunkError{Codes: []string{code}, Err: &APIError{
				StatusCode: http.StatusOK, Path: run.path, Message: fmt.Sprintf("candles of %s %s", code, refused)}})
		}
		added += n
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
	run, err := newRangeRun(m, spec, m.path("kline"), []string{code})
	if err != nil {
		return nil, err
	}
	st := run.state[code]
	for !st.done {
		end := st.next(spec.to)
		ks, err := m.kline(ctx, region, code, interval, spec.page, spec.pageOptions(end))
		if err != nil {
			return st.candles(), err
		}
		run.page(ctx, map[string][]Kline{code: ks}, rangeChunk{end: end, codes: []string{code}})
		if refused := run.takeRefused(); len(refused) > 0 {
			return st.candles(), refused[0].Err
		}
	}
	return st.candles(), nil
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
	spec, err := newRangeSpec(region, interval, from, to, opts)
	if err != nil {
		return nil, err
	}
	norm, err := batch.Normalize(codes)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	path := m.path("klines")
	run, err := newRangeRun(m, spec, path, norm)
	if err != nil {
		return nil, err
	}
	var failed []ChunkError
	refused := false
	for {
		chunks := run.plan(m.c.batchSize)
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
			failed = append(failed, run.fail(chunks[i].codes, err))
		}
		if r := run.takeRefused(); len(r) > 0 {
			failed, refused = append(failed, r...), true
		}
		if stop == nil && ctx.Err() != nil {
			stop = ctx.Err()
		}
		if stop != nil {
			if rest := run.unfinished(); len(rest) > 0 {
				failed = append(failed, run.fail(rest, stop))
			}
			break
		}
	}
	out := run.result()
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
func (m market) sendRound(ctx context.Context, run *rangeRun, path string, chunks []rangeChunk) []error {
	spec := &run.spec
	fetch := func(ctx context.Context, i int) error {
		ch := chunks[i]
		req, err := klineQuery(spec.interval, spec.page, spec.pageOptions(ch.end))
		if err != nil {
			return err
		}
		_, err = fetchBatch(ctx, m.c, path, spec.region, ch.codes, req.query, seriesReader.Read,
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

// takeRefused returns the codes refused since the last call.
func (run *rangeRun) takeRefused() []ChunkError {
	run.mu.Lock()
	defer run.mu.Unlock()
	r := run.refused
	run.refused = nil
	return r
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
