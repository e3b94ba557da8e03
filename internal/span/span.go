// Package span keeps the books of a candle range call: which candles of
// each code have arrived, which page each code needs next, which codes can
// share a request, and whether a page can be true. It knows candles only
// by their start times, so the SDK's model stays in the root package, and
// it sends nothing: the caller asks for the pages Plan returns and hands
// each answer to Page.
package span

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Unit is how candles of an interval are bounded.
type Unit int

const (
	// Hourly candles (an hour or less) are at least their interval apart.
	Hourly Unit = iota
	// Daily candles (more than an hour, up to a day) may be an hour
	// closer: a change of daylight saving time shortens a candle aligned
	// to a market's clock.
	Daily
	// Weekly and Monthly candles may be labelled by their first trading
	// day, which puts two of them a few days apart, so only their number
	// is bounded: one per calendar week (month) the range touches.
	Weekly
	Monthly
)

// Spec is a range: [From, To) of candles of one interval, asked for Page
// at a time.
type Spec[K any] struct {
	From, To time.Time
	Page     int
	Name     string            // the interval, for messages
	Time     func(K) time.Time // a candle's start

	gap      time.Duration // the least time between two candles; 0: not checked
	capacity int           // the most candles [From, To) can hold
	reach    time.Duration // how far before From a candle still shows a page reached it
}

// NewSpec returns the Spec of [from, to) for candles of duration d and
// unit u.
func NewSpec[K any](from, to time.Time, page int, d time.Duration, u Unit, name string,
	at func(K) time.Time) Spec[K] {
	s := Spec[K]{From: from, To: to, Page: page, Name: name, Time: at}
	switch u {
	case Hourly:
		s.gap = d
	case Daily:
		s.gap = d - time.Hour
	}
	switch u {
	case Weekly:
		s.capacity = spans(from, to, 7*24*time.Hour) + 1
	case Monthly:
		s.capacity = spans(from, to, 28*24*time.Hour) + 1
	default:
		s.capacity = spans(from, to, s.gap)
	}
	// A candle before from within reach is the one just before the range,
	// as an honest page shows it; one further back is taken for a stray,
	// which must not end the range. The longest closure between two
	// candles a market calendar has is well under a month.
	s.reach = max(31*24*time.Hour, 3*d)
	return s
}

// spans is how many steps of d (whole seconds, at least one) [from, to)
// touches: the span divided by d, rounded up. It counts in seconds, so
// that a span of centuries, longer than a time.Duration holds, neither
// saturates nor overflows; times must be within a few hundred million
// years of each other (FitsUnixMilli).
func spans(from, to time.Time, d time.Duration) int {
	secs := to.Unix() - from.Unix()
	if to.Nanosecond() > from.Nanosecond() {
		secs++ // a part of a second counts as one: no step fits in it
	}
	step := int64(d / time.Second)
	if secs <= 0 || step <= 0 {
		return 0
	}
	n := secs / step
	if secs%step != 0 {
		n++
	}
	return int(min(n, 1<<30)) // far beyond any count of candles, and an int everywhere
}

// FitsUnixMilli reports whether t is within the times the service's Unix
// milliseconds can express, about 292 million years either side of 1970.
func FitsUnixMilli(t time.Time) bool {
	return !t.Before(time.UnixMilli(math.MinInt64)) && !t.After(time.UnixMilli(math.MaxInt64))
}

// seconds is b - a in seconds, without a time.Duration's bound.
func seconds(a, b time.Time) float64 {
	return float64(b.Unix()-a.Unix()) + float64(b.Nanosecond()-a.Nanosecond())/1e9
}

// complete reports whether a code whose oldest candle starts at oldest
// has every candle of the range: none can start between From and it.
func (s *Spec[K]) complete(oldest time.Time) bool {
	d := oldest.Sub(s.From)
	return d <= 0 || d < s.gap
}

// spacing checks candles (sorted, no two at one time) against the least
// time between two candles, newer being the start of the next candle
// after them (zero: none). It returns what is wrong, or "".
func (s *Spec[K]) spacing(ks []K, newer time.Time) string {
	if s.gap <= 0 {
		return ""
	}
	for i := 1; i <= len(ks); i++ {
		a, b := s.Time(ks[i-1]), newer
		if i < len(ks) {
			b = s.Time(ks[i])
		} else if newer.IsZero() {
			break
		}
		if d := b.Sub(a); d < s.gap {
			return fmt.Sprintf("at %s and %s are %s apart, closer than %s candles can be",
				a.UTC().Format(time.RFC3339Nano), b.UTC().Format(time.RFC3339Nano), d, s.Name)
		}
	}
	return ""
}

// overflow says why n candles are more than the range can hold, or "".
func (s *Spec[K]) overflow(n int) string {
	if n <= s.capacity {
		return ""
	}
	return fmt.Sprintf("number over %d, the most %s candles from %s to %s can be", s.capacity, s.Name,
		s.From.UTC().Format(time.RFC3339Nano), s.To.UTC().Format(time.RFC3339Nano))
}

func (s *Spec[K]) cmp(k K, t time.Time) int { return s.Time(k).Compare(t) }

// Chunk is one request of a round: its codes, and the end of the page it
// asks for (the page's candles start before End).
type Chunk struct {
	End   time.Time
	Codes []string
}

// Refusal is a code whose page could not be true, and why.
type Refusal struct {
	Code, Why string
}

// Run is the state of one range call over codes. Its methods are safe for
// concurrent use.
type Run[K any] struct {
	spec Spec[K]

	mu       sync.Mutex
	codes    []string
	state    map[string]*code[K]
	requests int
	candles  int
	longest  int // the longest page any code got; 0 before the first
	refused  []Refusal
}

// NewRun starts the run of codes (distinct), seeding each from have[code],
// candles a caller already holds: those in the range are kept, sorted, each
// time once. Candles in have that the range cannot hold are an error
// naming the code. The run takes have's slices as its own.
func NewRun[K any](spec Spec[K], codes []string, have map[string][]K) (*Run[K], error) {
	run := &Run[K]{spec: spec, codes: codes, state: make(map[string]*code[K], len(codes))}
	for _, c := range codes {
		st := &code[K]{done: !spec.From.Before(spec.To)}
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

// Next is the end of the next page code needs, and whether it needs one.
func (run *Run[K]) Next(c string) (time.Time, bool) {
	run.mu.Lock()
	defer run.mu.Unlock()
	st := run.state[c]
	return st.next(run.spec.To), !st.done
}

// Plan returns the next round's requests, none when every code is done.
// Codes not yet done are taken latest end first (the caller's order among
// equal ends), and each request takes up to size codes. A code joins a
// request that ends later than its own end when that costs it at most a
// tenth of the page: the candles it already holds between the two ends,
// which come again and are dropped. So codes whose newest candles differ
// (illiquid or halted products) still share requests, and a request never
// wastes most of a code's page.
func (run *Run[K]) Plan(size int) []Chunk {
	run.mu.Lock()
	defer run.mu.Unlock()
	type item struct {
		code string
		end  time.Time
		st   *code[K]
	}
	var items []item
	for _, c := range run.codes {
		if st := run.state[c]; !st.done {
			items = append(items, item{c, st.next(run.spec.To), st})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return b.end.Compare(a.end) })
	page := run.spec.Page
	if run.longest > 0 {
		page = min(page, run.longest) // a service that caps its pages
	}
	most := page / 10
	var out []Chunk
	for _, it := range items {
		if n := len(out); n > 0 && len(out[n-1].Codes) < size {
			ch := &out[n-1]
			if it.end.Equal(ch.End) || !it.st.solo && it.st.countBefore(ch.End, most, &run.spec) <= most {
				ch.Codes = append(ch.Codes, it.code)
				continue
			}
		}
		out = append(out, Chunk{End: it.end, Codes: []string{it.code}})
	}
	return out
}

// Page records one answered request, the candles of each code of ch
// (sorted, oldest first), and returns the candles it added. A code whose
// candles cannot be true is done, and TakeRefused returns it.
func (run *Run[K]) Page(got map[string][]K, ch Chunk) int {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.requests++
	// A page is full when it holds as many candles as asked, or as the
	// longest page before it when the service gives fewer than asked.
	most := run.spec.Page
	if run.longest > 0 {
		most = min(most, run.longest)
	}
	added := 0
	for _, c := range ch.Codes {
		st := run.state[c]
		if st == nil || st.done {
			continue
		}
		ks := got[c]
		run.longest = max(run.longest, len(ks))
		n := st.n
		if why := st.add(ks, ch.End, len(ks) >= most, &run.spec); why != "" {
			run.refused = append(run.refused, Refusal{Code: c, Why: why})
		}
		added += st.n - n
	}
	run.candles += added
	return added
}

// TakeRefused returns the codes refused since the last call.
func (run *Run[K]) TakeRefused() []Refusal {
	run.mu.Lock()
	defer run.mu.Unlock()
	r := run.refused
	run.refused = nil
	return r
}

// Fail ends the range of codes, incomplete.
func (run *Run[K]) Fail(codes []string) {
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, c := range codes {
		st := run.state[c]
		n := st.n
		st.fail()
		run.candles += st.n - n
	}
}

// Progress is how far a run has come.
type Progress struct {
	Requests, Candles, Codes, Done int
	Reached                        time.Time // every code not yet done is complete from here to To
	Fraction                       float64   // of the range, over every code
}

// Progress returns how far the run has come.
func (run *Run[K]) Progress() Progress {
	run.mu.Lock()
	defer run.mu.Unlock()
	p := Progress{Requests: run.requests, Candles: run.candles, Codes: len(run.codes), Reached: run.spec.From}
	span := seconds(run.spec.From, run.spec.To)
	var sum float64
	for _, c := range run.codes {
		st := run.state[c]
		if st.done {
			p.Done++
			sum++
			continue
		}
		end := st.next(run.spec.To)
		if p.Reached.Before(end) {
			p.Reached = end
		}
		sum += seconds(end, run.spec.To) / span
	}
	p.Fraction = sum / float64(max(len(run.codes), 1))
	return p
}

// Candles returns code's candles, oldest first.
func (run *Run[K]) Candles(c string) []K {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.state[c].candles()
}

// Result returns the candles of every code that has any, oldest first.
func (run *Run[K]) Result() map[string][]K {
	run.mu.Lock()
	defer run.mu.Unlock()
	out := make(map[string][]K, len(run.codes))
	for _, c := range run.codes {
		if ks := run.state[c].candles(); len(ks) > 0 {
			out[c] = ks
		}
	}
	return out
}

// Unfinished returns the codes not yet done, in the caller's order.
func (run *Run[K]) Unfinished() []string {
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
