package itick

import (
	"fmt"
	"slices"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
)

// limits works out what the range's candles can be. Two candles of an
// interval up to an hour are at least the interval apart. Those of two
// hours, four hours and a day may be an hour closer: a candle aligned to
// a market's clock is shortened by a change of daylight saving time. Week
// and month candles may be labelled by their first trading day, which puts
// two of them a few days apart, so only their number is bounded: one per
// calendar week (month) that [from, to) touches.
func (s *rangeSpec) limits() {
	d := s.interval.Duration()
	span := s.to.Sub(s.from)
	switch {
	case s.interval <= OneHour:
		s.gap = d
	case s.interval <= OneDay:
		s.gap = d - time.Hour
	}
	switch s.interval {
	case OneWeek:
		s.capacity = ceilDiv(span, 7*24*time.Hour) + 1
	case OneMonth:
		s.capacity = ceilDiv(span, 28*24*time.Hour) + 1
	default:
		s.capacity = ceilDiv(span, s.gap)
	}
	// A candle before from within reach is the one just before the range,
	// as an honest page shows it; one further back is taken for a stray,
	// which must not end the range. The longest closure between two
	// candles a market calendar has is well under a month.
	s.reach = max(31*24*time.Hour, 3*d)
}

func ceilDiv(a, b time.Duration) int {
	if a <= 0 {
		return 0
	}
	return int((a + b - 1) / b)
}

// complete reports whether a code whose oldest candle starts at oldest
// has every candle of the range: none can start between from and it.
func (s *rangeSpec) complete(oldest time.Time) bool {
	d := oldest.Sub(s.from)
	return d <= 0 || d < s.gap
}

// spacing checks candles (sorted, no two at one time) against the least
// time between two candles, newer being the next candle after them (zero:
// none). It returns what is wrong, or "".
func (s *rangeSpec) spacing(ks []Kline, newer time.Time) string {
	if s.gap <= 0 {
		return ""
	}
	if !newer.IsZero() {
		ks = append(ks[:len(ks):len(ks)], Kline{Time: newer})
	}
	for i := 1; i < len(ks); i++ {
		if d := ks[i].Time.Sub(ks[i-1].Time); d < s.gap {
			return fmt.Sprintf("at %s and %s are %s apart, closer than %s candles can be",
				ks[i-1].Time.UTC().Format(time.RFC3339Nano), ks[i].Time.UTC().Format(time.RFC3339Nano), d, s.interval)
		}
	}
	return ""
}

// overflow says why n candles are more than the range can hold, or "".
func (s *rangeSpec) overflow(n int) string {
	if n <= s.capacity {
		return ""
	}
	return fmt.Sprintf("number over %d, the most %s candles from %s to %s can be", s.capacity, s.interval,
		s.from.UTC().Format(time.RFC3339Nano), s.to.UTC().Format(time.RFC3339Nano))
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

// rangeChunk is one request of a round: its codes, and the end of the page
// it asks for.
type rangeChunk struct {
	end   time.Time
	codes []string
}

// plan returns the next round's requests. Codes not yet done are taken
// latest end first (the caller's order among equal ends), and each request
// takes up to size codes. A code joins a request that ends later than its
// own end when that costs it at most a tenth of the page: the candles it
// already holds between the two ends, which come again and are dropped.
// So codes whose newest candles differ (illiquid or halted products) still
// share requests, and a request never wastes most of a code's page.
func (run *rangeRun) plan(size int) []rangeChunk {
	run.mu.Lock()
	defer run.mu.Unlock()
	type item struct {
		code string
		end  time.Time
		st   *codeRange
	}
	var items []item
	for _, c := range run.codes {
		if st := run.state[c]; !st.done {
			items = append(items, item{c, st.next(run.spec.to), st})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return b.end.Compare(a.end) })
	page := run.spec.page
	if run.longest > 0 {
		page = min(page, run.longest) // a service that caps its pages
	}
	most := page / 10
	var out []rangeChunk
	for _, it := range items {
		if n := len(out); n > 0 && len(out[n-1].codes) < size {
			ch := &out[n-1]
			if it.end.Equal(ch.end) || !it.st.solo && it.st.countBefore(ch.end, most) <= most {
				ch.codes = append(ch.codes, it.code)
				continue
			}
		}
		out = append(out, rangeChunk{end: it.end, codes: []string{it.code}})
	}
	return out
}

// codeRange collects one code's candles, page by page, newest page first.
// It always holds every candle of the range from oldest to the range's
// end.
type codeRange struct {
	pages  [][]Kline
	oldest time.Time // of the candles kept; zero before the first
	n      int
	done   bool
	failed bool // done because a request for it failed or its page was refused
	// solo is set when a page asked to end after the code's own end
	// brought nothing older: the next one must end at its own.
	solo bool
}

// next is the end of the next page to ask for.
func (r *codeRange) next(to time.Time) time.Time {
	if r.oldest.IsZero() {
		return to
	}
	return r.oldest
}

// seed starts the code's range from WithResume's candles of it: those in
// the range, sorted, each time once. None leaves it to be fetched whole.
func (r *codeRange) seed(code string, have []Kline, s *rangeSpec) error {
	ks := slices.DeleteFunc(have, func(k Kline) bool { return k.Time.Before(s.from) || !k.Time.Before(s.to) })
	if len(ks) == 0 {
		return nil
	}
	slices.SortStableFunc(ks, cmpKline)
	ks = slices.CompactFunc(ks, func(a, b Kline) bool { return a.Time.Equal(b.Time) })
	why := s.spacing(ks, time.Time{})
	if why == "" {
		why = s.overflow(len(ks))
	}
	if why != "" {
		return invalidArg("WithResume: candles of %s %s", code, why)
	}
	r.pages, r.oldest, r.n = [][]Kline{ks}, ks[0].Time, len(ks)
	r.done = s.complete(r.oldest)
	return nil
}

// add keeps the candles of page (sorted, oldest first) that are in the
// range and older than any kept so far, and reports how many; asked is
// the end the page was asked for. A page that brings nothing older ends
// the code's range (its history ran out, or the service ignores et), and
// so does one that reaches back past from. A page that would break what
// the range can hold is refused: the code's range ends, and add says why.
func (r *codeRange) add(page []Kline, asked time.Time, s *rangeSpec) (int, string) {
	end := r.next(s.to)
	own := !asked.After(end)
	r.solo = false
	hi, _ := slices.BinarySearchFunc(page, end, cmpKlineTime)
	lo, _ := slices.BinarySearchFunc(page[:hi], s.from, cmpKlineTime)
	reached := lo > 0 && !page[lo-1].Time.Before(s.from.Add(-s.reach))
	kept := make([]Kline, 0, hi-lo)
	for _, k := range page[lo:hi] {
		if n := len(kept); n > 0 && kept[n-1].Time.Equal(k.Time) {
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
		r.done, r.failed = true, true
		return 0, why
	}
	r.pages = append(r.pages, kept)
	r.oldest = kept[0].Time
	r.n += len(kept)
	r.done = reached || s.complete(r.oldest)
	return len(kept), ""
}

func cmpKlineTime(k Kline, t time.Time) int { return k.Time.Compare(t) }

// countBefore counts the candles kept that start before t, up to just
// over most: what a page ending at t brings again.
func (r *codeRange) countBefore(t time.Time, most int) int {
	n := 0
	for i := len(r.pages) - 1; i >= 0 && n <= most; i-- {
		p := r.pages[i]
		k, _ := slices.BinarySearchFunc(p, t, cmpKlineTime)
		n += k
		if k < len(p) {
			break
		}
	}
	return n
}

// candles returns every candle kept, oldest first.
func (r *codeRange) candles() []Kline {
	out := make([]Kline, 0, r.n)
	for i := len(r.pages) - 1; i >= 0; i-- {
		out = append(out, r.pages[i]...)
	}
	return out
}
