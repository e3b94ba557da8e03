package span

import (
	"fmt"
	"slices"
	"time"
)

// code collects one code's candles, page by page, newest page first. It
// always holds every candle of the range from oldest to the range's end.
type code[K any] struct {
	pages  [][]K
	oldest time.Time // of the candles kept; zero before the first
	n      int
	done   bool
	// solo is set when a page asked to end after the code's own end
	// brought nothing older: the next one must end at its own.
	solo bool
}

// next is the end of the next page to ask for.
func (r *code[K]) next(to time.Time) time.Time {
	if r.oldest.IsZero() {
		return to
	}
	return r.oldest
}

// seed starts the code's range from candles the caller holds: those in the range, sorted, each time once. None leaves it
// to be fetched whole.
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
	r.pages, r.oldest, r.n = [][]K{ks}, s.Time(ks[0]), len(ks)
	r.done = s.complete(r.oldest)
	return nil
}

// add keeps the candles of page (sorted, oldest first) that are in the
// range and older than any kept so far, and reports how many; asked is
// the end the page was asked for. A page that brings nothing older ends
// the code's range (its history ran out, or the service ignores et), and
// so does one that reaches back past From. A page that would break what
// the range can hold is refused: the code's range ends, and add says why.
func (r *code[K]) add(page []K, asked time.Time, s *Spec[K]) (int, string) {
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
		// A page asked to end later than the code's own end may stop
		// short of it; only one asked for the code's own end, or one
		// that reaches below it, says there is nothing older.
		r.solo = !own && !reached && hi < len(page)
		r.done = !r.solo
		return 0, ""
	}
	var newer time.Time
	if r.n > 0 {
		newer = r.oldest
	}
	why := s.spacing(kept, newer)
	if why == "" {
		why = s.overflow(r.n + len(kept))
	}
	if why != "" {
		r.done = true
		return 0, why
	}
	r.pages = append(r.pages, kept)
	r.oldest = s.Time(kept[0])
	r.n += len(kept)
	r.done = reached || s.complete(r.oldest)
	return len(kept), ""
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

// candles returns every candle kept, oldest first.
func (r *code[K]) candles() []K {
	out := make([]K, 0, r.n)
	for i := len(r.pages) - 1; i >= 0; i-- {
		out = append(out, r.pages[i]...)
	}
	return out
}
