package main

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/d19c4e34/itick"
)

// rangeBar draws a range fetch's progress on stderr when stderr is a
// terminal: how much of the range has arrived, the requests made and an
// estimate of those left, the candles, and the time spent waiting for the
// quota. A fetch of several classes or regions is one range call each, a
// part of the bar. A nil *rangeBar draws nothing, so output to a file
// stays clean.
type rangeBar struct {
	bar    *progressbar.ProgressBar
	client *itick.Client
	guess  int   // requests left before the first page says more
	codes  []int // each part's codes

	mu    sync.Mutex
	parts []itick.RangeProgress

	stop chan struct{}
	done chan struct{}
}

// barSteps is the bar's resolution: the fraction of the range in 1/1000.
const barSteps = 1000

// refreshEvery redraws the bar between pages, so the quota wait and the
// elapsed time move while a request waits.
const refreshEvery = 250 * time.Millisecond

func (a *app) newRangeBar(c *itick.Client, req klinesRequest) *rangeBar {
	if !a.errTTY {
		return nil
	}
	b := &rangeBar{
		client: c,
		parts:  make([]itick.RangeProgress, len(req.groups)),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		bar: progressbar.NewOptions(barSteps,
			progressbar.OptionSetWriter(a.errFile),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionClearOnFinish(),
		),
	}
	for _, g := range req.groups {
		b.codes = append(b.codes, len(g.codes))
		b.guess += requestGuess(len(g.codes), c.BatchSize(), req.interval, req.from, req.to)
	}
	b.redraw()
	go b.refresh()
	return b
}

// requestGuess is the most requests a range can take: every code's chunk
// paging through a market that never closes.
func requestGuess(codes, batch int, interval itick.Interval, from, to time.Time) int {
	candles := float64(to.Sub(from)) / float64(interval.Duration())
	pages := int(math.Ceil(candles / itick.DefaultPageSize))
	chunks := (codes + max(batch, 1) - 1) / max(batch, 1)
	return max(pages, 1) * chunks
}

// part is the progress callback of part i, for itick.WithProgress.
func (b *rangeBar) part(i int) func(itick.RangeProgress) {
	return func(p itick.RangeProgress) {
		if b == nil {
			return
		}
		b.mu.Lock()
		b.parts[i] = p
		b.mu.Unlock()
		b.redraw()
	}
}

func (b *rangeBar) refresh() {
	defer close(b.done)
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.redraw()
		}
	}
}

func (b *rangeBar) redraw() {
	b.mu.Lock()
	s := sumOf(b.parts, b.codes)
	b.mu.Unlock()
	steps, desc := progressView(s, b.guess, b.client.Stats().LimiterWait)
	b.bar.Describe(desc)
	b.bar.Set(steps) //nolint:errcheck // a bar that cannot draw is no failure
}

// progressSum is the progress of every part of a fetch together.
type progressSum struct {
	requests, candles int
	started           bool    // a page of some part has arrived
	done              bool    // every part is done
	fraction          float64 // of the whole fetch's codes, 0 to 1
}

// sumOf adds up the parts' progress, each part weighing as its codes do; a
// part with no page yet counts as nothing done.
func sumOf(parts []itick.RangeProgress, codes []int) progressSum {
	var s progressSum
	total, done := 0, 0
	for i, p := range parts {
		total += codes[i]
		if p.Codes == 0 { // no page yet: RangeProgress's zero value reads as done
			continue
		}
		s.started = true
		s.requests += p.Requests
		s.candles += p.Candles
		s.fraction += p.Fraction() * float64(codes[i])
		if p.Done >= p.Codes {
			done++
		}
	}
	if total > 0 {
		s.fraction /= float64(total)
	}
	s.done = len(parts) > 0 && done == len(parts)
	return s
}

// progressView is what the bar shows for s: how far along it is, in
// barSteps, and the line beside it. guess stands for the requests left
// until the first page arrives; wait is the time spent waiting on the
// quota so far.
func progressView(s progressSum, guess int, wait time.Duration) (int, string) {
	if !s.started {
		return 0, progressLine(0, guess, 0, wait)
	}
	left := guess
	switch {
	case s.done:
		left = 0
	case s.requests > 0 && s.fraction > 0:
		left = max(int(math.Ceil(float64(s.requests)/s.fraction))-s.requests, 1)
	}
	return int(math.Round(s.fraction * barSteps)), progressLine(s.requests, left, s.candles, wait)
}

func progressLine(requests, left, candles int, wait time.Duration) string {
	s := fmt.Sprintf("%d requests, ~%d left, %d candles", requests, left, candles)
	if w := wait.Round(time.Second); w > 0 {
		s += fmt.Sprintf(", quota wait %s", w)
	}
	return s
}

// finish stops redrawing and erases the bar, before anything else is
// written to stderr.
func (b *rangeBar) finish() {
	if b == nil {
		return
	}
	close(b.stop)
	<-b.done
	b.bar.Clear() //nolint:errcheck // as in redraw
}
