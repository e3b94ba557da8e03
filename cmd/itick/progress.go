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
// quota. A nil *rangeBar draws nothing, so output to a file stays clean.
type rangeBar struct {
	bar    *progressbar.ProgressBar
	client *itick.Client
	guess  int // requests left before the first page says more

	mu   sync.Mutex
	last itick.RangeProgress

	stop chan struct{}
	done chan struct{}
}

// barSteps is the bar's resolution: the fraction of the range in 1/1000.
const barSteps = 1000

// refreshEvery redraws the bar between pages, so the quota wait and the
// elapsed time move while a request waits.
const refreshEvery = 250 * time.Millisecond

func (a *app) newRangeBar(c *itick.Client, codes int, interval itick.Interval, from, to time.Time) *rangeBar {
	if !a.errTTY {
		return nil
	}
	b := &rangeBar{
		client: c,
		guess:  requestGuess(codes, c.BatchSize(), interval, from, to),
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

// update takes a page's progress; itick.WithProgress calls it.
func (b *rangeBar) update(p itick.RangeProgress) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.last = p
	b.mu.Unlock()
	b.redraw()
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
	p := b.last
	b.mu.Unlock()
	steps, desc := progressView(p, b.guess, b.client.Stats().LimiterWait)
	b.bar.Describe(desc)
	b.bar.Set(steps) //nolint:errcheck // a bar that cannot draw is no failure
}

// progressView is what the bar shows for p: how far along it is, in
// barSteps, and the line beside it. guess stands for the requests left
// until the first page arrives; wait is the time spent waiting on the
// quota so far.
func progressView(p itick.RangeProgress, guess int, wait time.Duration) (int, string) {
	if p.Codes == 0 { // no page yet: RangeProgress's zero value reads as done
		return 0, progressLine(0, guess, 0, wait)
	}
	f := p.Fraction()
	left := guess
	switch {
	case p.Done >= p.Codes:
		left = 0
	case p.Requests > 0 && f > 0:
		left = max(int(math.Ceil(float64(p.Requests)/f))-p.Requests, 1)
	}
	return int(math.Round(f * barSteps)), progressLine(p.Requests, left, p.Candles, wait)
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
