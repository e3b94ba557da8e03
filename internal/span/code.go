package span

import (
	"fmt"
	"slices"
	"time"
)

// code collects one code's candles, page by page, newest page first. Its
// pages always hold every candle of the range from oldest to the range's
// end. Candles a caller already held wait in held until the pages reach
// the newest of them (the top-up), and then join the pages.
type code[K any] struct {
	pages  [][]K
	oldest time.Time // of the candles in pages; zero before the first
	n      int       // candles held, in pages and in held
	done   bool
	// solo is set when a page asked to end after the code's own end
	// brought nothing older: the next one must end at its own.
	solo bool
	// held are the caller's candles (sorted) while the top-up is under
	// way, nil before and after; its newest is fetched again.
	held []K
}

// next is the end of the next page to ask for.
func (r *code[K]) next(to time.Time) time.Time {
	if r.oldest.IsZero() {
		return to
	}
	return r.oldest
}

// seed starts the code's range from candles the caller holds: those in the
// range, sorted, each time once. They are held while pages from the
// range's end reach the newest of them, which may have been still forming
// when it was stored; then the pages go on from the oldest. None leaves
// the range to be fetched whole.
func (r *code[K]) seed(c string, ks []K, s *Spec[K]) error {
	ks = slices.DeleteFunc(ks, func(k K) bool { t := s.Time(k); return t.Before(s.From) || !t.Before(s.To) })
	if len(ks) == 0 {
		return nil
	}
	slices.SortStableFunc(ks, func(a, b K) int { return s.Time(a).Compare(s.Time(b)) })
	ks = slices.CompactFunc(ks, func(a, b K) bool { return s.Time(a).Equal(s.Time(b)) })
	why := s.spacing(ks, time.Time{})
	if why == "" {
		why = s.overflow(len(ks))
	}
	if why != "" {
		return fmt.Errorf("candles of %s %s", c, why)
	}
	r.held, r.n = ks, len(ks)
	return nil
}

// add keeps the candles of page (sorted, oldest first) that are in the
// range and older than any kept so far; asked is the end the page was
// asked for, and full says the page holds as many candles as the service
// gives a page. A page that brings nothing older ends the code's range
// (its history ran out), and so does one that reaches back past From. A
// full page that brings nothing older, only candles at or after the end
// asked for, says there are more than it gives: the service ignored et,
// or repeated a page. It, and a page that would break what the range can
// hold, is refused: the code's range ends, and add says why.
func (r *code[K]) add(page []K, asked time.Time, full bool, s *Spec[K]) string {
	end := r.next(s.To)
	own := !asked.After(end)
	r.solo = false
	hi, _ := slices.BinarySearchFunc(page, end, s.cmp)
	lo, _ := slices.BinarySearchFunc(page[:hi], s.From, s.cmp)
	reached := lo > 0 && !s.Time(page[lo-1]).Before(s.From.Add(-s.reach))
	kept := make([]K, 0, hi-lo)
	for _, k := range page[lo:hi] {
		if n := len(kept); n > 0 && s.Time(kept[n-1]).Equal(s.Time(k)) {
			continue // a service may repeat a candle within a page
		}
		kept = append(kept, k)
	}
	if len(kept) == 0 {
		if own && hi == 0 && full {
			r.fail()
			return fmt.Sprintf("stop short: a page of %d asked to end before %s holds none before it (%s to %s), so the service ignored et or repeated a page, and [%s, %s) holds more",
				len(page), stamp(end), stamp(s.Time(page[0])), stamp(s.Time(page[len(page)-1])), stamp(s.From), stamp(s.To))
		}
		// A page asked to end later than the code's own end may stop
		// short of it; only one asked for the code's own end, or one
		// that reaches below it, says there is nothing older.
		r.solo = !own && !reached && hi < len(page)
		if r.solo {
			return ""
		}
		r.done = true
		return r.join(s)
	}
	var newer time.Time
	if len(r.pages) > 0 {
		newer = r.oldest
	}
	joins := r.held != nil && !s.Time(kept[0]).After(s.Time(r.held[len(r.held)-1]))
	why := s.spacing(kept, newer)
	if why == "" && !joins {
		why = s.overflow(r.n + len(kept))
	}
	if why != "" {
		r.fail()
		return why
	}
	r.pages = append(r.pages, kept)
	r.oldest = s.Time(kept[0])
	r.n += len(kept)
	r.done = reached || s.complete(r.oldest)
	if joins || r.done {
		return r.join(s)
	}
	return ""
}

// join ends the top-up once the pages reach the newest held candle, or
// the range is done: the pages' candles replace held ones from the newest
// held on, and join the older held ones, so that the pages again hold
// every candle from the oldest to the range's end. A page older than the
// held candles keeps its older part. Candles that cannot all be true
// together are refused.
func (r *code[K]) join(s *Spec[K]) string {
	if r.held == nil {
		return ""
	}
	held, newest := r.held, s.Time(r.held[len(r.held)-1])
	fetched := r.fetched()
	merged := make([]K, 0, len(held)+len(fetched))
	i, j := 0, 0
	for i < len(held) || j < len(fetched) {
		switch {
		case j == len(fetched) || i < len(held) && s.Time(held[i]).Before(s.Time(fetched[j])):
			merged = append(merged, held[i])
			i++
		case i == len(held) || s.Time(fetched[j]).Before(s.Time(held[i])):
			merged = append(merged, fetched[j])
			j++
		default: // one time in both: the page's from the newest held on
			if s.Time(held[i]).Before(newest) {
				merged = append(merged, held[i])
			} else {
				merged = append(merged, fetched[j])
			}
			i, j = i+1, j+1
		}
	}
	why := s.spacing(merged, time.Time{})
	if why == "" {
		why = s.overflow(len(merged))
	}
	if why != "" {
		r.fail()
		return why
	}
	r.held, r.pages, r.n = nil, [][]K{merged}, len(merged)
	r.oldest = s.Time(merged[0])
	r.done = r.done || s.complete(r.oldest)
	return ""
}

// fail ends the code's range, incomplete. Pages of a top-up that did not
// reach the held candles are dropped, as they are not next to them: the
// code keeps what it held, which a later call can top up again.
func (r *code[K]) fail() {
	r.done = true
	if r.held != nil {
		r.pages, r.oldest, r.n = nil, time.Time{}, len(r.held)
	}
}

// countBefore counts the candles kept that start before t, up to just
// over most: what a page ending at t brings again.
func (r *code[K]) countBefore(t time.Time, most int, s *Spec[K]) int {
	n := 0
	for i := len(r.pages) - 1; i >= 0 && n <= most; i-- {
		p := r.pages[i]
		k, _ := slices.BinarySearchFunc(p, t, s.cmp)
		n += k
		if k < len(p) {
			break
		}
	}
	return n
}

// candles returns every candle kept, oldest first: those of the pages,
// or, while a top-up has not reached the held candles, those alone (see
// fail).
func (r *code[K]) candles() []K {
	if r.held != nil {
		return slices.Clone(r.held)
	}
	return r.fetched()
}

// fetched returns the candles of the pages, oldest first.
func (r *code[K]) fetched() []K {
	out := make([]K, 0, r.n)
	for i := len(r.pages) - 1; i >= 0; i-- {
		out = append(out, r.pages[i]...)
	}
	return out
}

// stamp formats t for a message.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
