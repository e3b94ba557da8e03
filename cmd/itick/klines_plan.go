package main

import (
	"fmt"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The plan of a range fetch, for --dry-run: how many requests it sends at
// most and how long the plan's quota makes them take, worked out by the
// rules KlinesRange pages by (docs/backfill.md), without sending any.
//
// A range call asks for each chunk of up to the plan's batch size of codes
// pages of itick.DefaultPageSize candles back from its end, until a page
// reaches its start: a chunk's requests are its pages, as codes of one
// market share their candles' times. How many candles a product has in a
// range depends on its market's hours and holidays, which come from the
// bundled simulator's calendars: the markets' real ones, as far as it
// knows them. A product listed after the range's start runs out of history
// early and costs fewer pages.

var planColumns = cols("class", "region", "products", "chunks", "candles", "requests")

// klinesDryRun prints, per class and region, the products, chunks, the
// candles a product holds at most, and the requests; then, on stderr, the
// whole and the time the quota takes for it.
func (a *app) klinesDryRun(req klinesRequest, file *klineFile) error {
	plan, err := a.planInForce()
	if err != nil {
		return err
	}
	now, err := a.dryRunNow()
	if err != nil {
		return err
	}
	to := req.to
	if to.IsZero() || to.After(now) {
		to = now
	}
	if !req.from.Before(to) {
		return invalidf("--from %s is not before --to %s", text(req.from), text(to))
	}
	batch := plan.BatchSize()
	gen := markettest.NewGenerator(1)
	f := a.outFormat(formatCSV)
	if f == formatParquet {
		f = formatCSV
	}
	w := newRowWriter(a.writer(), f, planColumns)
	total := 0
	for _, g := range req.groups {
		chunks, most, requests := 0, 0, 0
		for start := 0; start < len(g.codes); start += batch {
			chunks++
			worst := 0 // the chunk's pages: its costliest product's
			for _, code := range g.codes[start:min(start+batch, len(g.codes))] {
				p := itick.Product{Class: g.class, Region: g.region, Code: code}
				var have []itick.Kline
				if file != nil {
					have = file.candles[p]
				}
				n, pages := productPages(gen, p, req.interval, req.from, to, now, have)
				most, worst = max(most, n), max(worst, pages)
			}
			requests += worst
		}
		total += requests
		if err := w.Write(row{string(g.class), string(g.region), len(g.codes), chunks, most, requests}); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	note := ""
	if req.adjust {
		note = ", and the split list of each region (a request per 20 splits), once a day"
	}
	fmt.Fprintf(a.stderr, "itick: at most %s%s: %s on the %s plan's quota of %d a minute, besides the time they take; "+
		"nothing was sent\n", plural(total, "request"), note, quotaTime(total, plan.CallsPerMinute()), plan, plan.CallsPerMinute())
	return nil
}

// productPages is what product p costs a range call: the candles it has
// to fetch at most, and the pages that takes. With candles of p in have
// (--resume), only what they lack at both ends: before the oldest, and
// from the newest (fetched again) on.
func productPages(gen *markettest.Generator, p itick.Product, interval itick.Interval, from, to, now time.Time,
	have []itick.Kline) (int, int) {
	count := func(from, to time.Time) (int, bool) {
		if !from.Before(to) {
			return 0, true
		}
		ks := gen.Series(markettest.Class(p.Class), p.Region, p.Code, interval, from, to, now)
		return len(ks), len(ks) > 0 && reaches(interval, ks[0].Time.Sub(from))
	}
	var inRange []itick.Kline
	for _, k := range have {
		if !k.Time.Before(from) && k.Time.Before(to) {
			inRange = append(inRange, k)
		}
	}
	if len(inRange) == 0 {
		n, complete := count(from, to)
		return n, pages(n, complete)
	}
	oldest, newest := inRange[0].Time, inRange[len(inRange)-1].Time
	for _, k := range inRange {
		oldest, newest = minTime(oldest, k.Time), maxTime(newest, k.Time)
	}
	older, olderPages := 0, 0
	if !reaches(interval, oldest.Sub(from)) {
		n, complete := count(from, oldest)
		older, olderPages = n, pages(n, complete)
	}
	newer, _ := count(newest, to)
	return older + newer, olderPages + pages(newer, true)
}

// reaches reports whether a code whose oldest candle is d after a range's
// start has every candle of it: no candle of interval fits in d, by the
// least time KlinesRange holds between two (an hour less from 2h to 1d,
// since summer time shortens a day; none for weeks and months, whose
// candles may start on any day).
func reaches(interval itick.Interval, d time.Duration) bool {
	gap := interval.Duration()
	switch {
	case interval >= itick.OneWeek:
		gap = 0
	case interval > itick.OneHour:
		gap -= time.Hour
	}
	return d <= 0 || d < gap
}

// pages is how many pages fetch n candles back from a range's end: whole
// pages, and one more that reaches before the start unless the last whole
// one ends at it (complete).
func pages(n int, complete bool) int {
	size := itick.DefaultPageSize
	if complete && n > 0 {
		return (n + size - 1) / size
	}
	return n/size + 1
}

// quotaTime is how long requests take on a quota of perMinute: as many as
// it allows go at once, and each next as many a window later, as the SDK's
// limiter lets them (a minute and a second).
func quotaTime(requests, perMinute int) time.Duration {
	if requests <= 0 || perMinute <= 0 {
		return 0
	}
	return time.Duration((requests-1)/perMinute) * (time.Minute + time.Second)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
