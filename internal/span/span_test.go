package span

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func at(t time.Time) time.Time { return t }

var day0 = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC) // a Monday

// The limits of each unit: the least gap between two candles, and the
// most candles a range can hold.
func TestNewSpecLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		d        time.Duration
		u        Unit
		span     time.Duration
		gap      time.Duration
		capacity int
	}{
		{"minutes", time.Minute, Hourly, 90 * time.Minute, time.Minute, 90},
		{"hours", time.Hour, Hourly, 5*time.Hour + time.Minute, time.Hour, 6},
		{"days: an hour closer for daylight saving", 24 * time.Hour, Daily, 10 * 24 * time.Hour, 23 * time.Hour, 11},
		{"weeks: one per week touched", 7 * 24 * time.Hour, Weekly, 14 * 24 * time.Hour, 0, 3},
		{"months: one per month touched", 30 * 24 * time.Hour, Monthly, 56 * 24 * time.Hour, 0, 3},
	} {
		s := NewSpec(day0, day0.Add(tc.span), 500, tc.d, tc.u, tc.name, at)
		if s.gap != tc.gap || s.capacity != tc.capacity {
			t.Errorf("%s: gap %s, capacity %d; want %s, %d", tc.name, s.gap, s.capacity, tc.gap, tc.capacity)
		}
	}
}

// A page whose candles are closer than their interval, or more than the
// range can hold, is refused and ends the code's range; an honest one is
// kept, newest page first, and the code is done once it reaches from.
func TestPageRefusesWhatCannotBeTrue(t *testing.T) {
	t.Parallel()
	to := day0.Add(10 * time.Minute)
	spec := NewSpec(day0, to, 5, time.Minute, Hourly, "1m", at)
	minutes := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, day0.Add(time.Duration(m)*time.Minute))
		}
		return out
	}

	run, err := NewRun(spec, []string{"A", "B"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := run.Plan(2)
	if len(chunks) != 1 || !chunks[0].End.Equal(to) || !slices.Equal(chunks[0].Codes, []string{"A", "B"}) {
		t.Fatalf("first round %+v, want one request for both ending at to", chunks)
	}
	tooClose := append(minutes(5, 6, 7, 8), day0.Add(8*time.Minute+time.Second))
	if n := run.Page(map[string][]time.Time{"A": minutes(5, 6, 7, 8, 9), "B": tooClose}, chunks[0]); n != 5 {
		t.Errorf("added %d candles, want A's 5", n)
	}
	refused := run.TakeRefused()
	if len(refused) != 1 || refused[0].Code != "B" || !strings.Contains(refused[0].Why, "closer than 1m candles can be") {
		t.Errorf("refused %+v, want B for candles a second apart", refused)
	}
	if end, more := run.Next("A"); !more || !end.Equal(day0.Add(5*time.Minute)) {
		t.Errorf("A's next page ends at %s (%v), want its oldest candle", end, more)
	}
	if _, more := run.Next("B"); more {
		t.Error("B still wants a page after its page was refused")
	}
	run.Page(map[string][]time.Time{"A": minutes(0, 1, 2, 3, 4)}, Chunk{End: day0.Add(5 * time.Minute), Codes: []string{"A"}})
	if got := run.Candles("A"); !slices.Equal(got, minutes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) {
		t.Errorf("A's candles %v, want ten minutes in order", got)
	}
	if p := run.Progress(); p.Done != 2 || p.Requests != 2 || p.Candles != 10 || p.Fraction != 1 {
		t.Errorf("progress %+v, want both done after 2 requests and 10 candles", p)
	}

	if _, err := NewRun(spec, []string{"A"}, map[string][]time.Time{"A": minutes(1, 1, 2, 3)}); err != nil {
		t.Errorf("a repeated candle in have: %v, want it kept once", err)
	}
	if _, err := NewRun(spec, []string{"A"}, map[string][]time.Time{"A": {day0, day0.Add(time.Second)}}); err == nil ||
		!strings.Contains(err.Error(), "candles of A") {
		t.Errorf("have with candles a second apart: %v, want an error naming A", err)
	}
}

// Codes whose ends differ share a request when the candles they would get
// again are at most a tenth of a page; otherwise each asks for its own.
func TestPlanSharesRequestsAcrossNearbyEnds(t *testing.T) {
	t.Parallel()
	to := day0.Add(time.Hour)
	spec := NewSpec(day0, to, 50, time.Minute, Hourly, "1m", at)
	minutesBefore := func(end time.Time, n int) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = end.Add(-time.Duration(n-i) * time.Minute)
		}
		return out
	}
	run, err := NewRun(spec, []string{"LIVE", "NEAR", "FAR"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// NEAR holds its 5 newest candles, so its end is 5 minutes before to;
	// FAR holds a page of 50, which a page ending at to would bring again.
	run.Page(map[string][]time.Time{"NEAR": minutesBefore(to, 5), "FAR": minutesBefore(to, 50)},
		Chunk{End: to, Codes: []string{"NEAR", "FAR"}})
	got := run.Plan(3)
	if len(got) != 2 || !slices.Equal(got[0].Codes, []string{"LIVE", "NEAR"}) || !got[0].End.Equal(to) ||
		!slices.Equal(got[1].Codes, []string{"FAR"}) || !got[1].End.Equal(to.Add(-50*time.Minute)) {
		t.Errorf("plan %+v, want LIVE and NEAR at to, FAR at its own end", got)
	}
}

// Spans longer than a time.Duration holds (292 years) count their steps
// in seconds: no saturation, no overflow, a part of a step counting whole.
func TestSpansOfCenturies(t *testing.T) {
	t.Parallel()
	y1700 := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)
	y2025 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	secs := y2025.Unix() - y1700.Unix()
	for _, tc := range []struct {
		name     string
		from, to time.Time
		d        time.Duration
		u        Unit
		want     int
	}{
		{"minutes", y1700, y2025, time.Minute, Hourly, int(secs / 60)},
		{"minutes and a nanosecond", y1700, y2025.Add(time.Nanosecond), time.Minute, Hourly, int(secs/60) + 1},
		{"a nanosecond less", y1700.Add(time.Nanosecond), y2025, time.Minute, Hourly, int(secs / 60)},
		{"days, an hour closer", y1700, y2025, 24 * time.Hour, Daily, int((secs + 23*3600 - 1) / (23 * 3600))},
		{"weeks", y1700, y2025, 7 * 24 * time.Hour, Weekly, int((secs+7*86400-1)/(7*86400)) + 1},
		{"before 1970", time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1960, 1, 2, 0, 0, 0, 0, time.UTC), time.Hour, Hourly, 24},
		{"a hundred million years", time.Date(-100_000_000, 1, 1, 0, 0, 0, 0, time.UTC), y2025, time.Minute, Hourly, 1 << 30},
	} {
		s := NewSpec(tc.from, tc.to, 500, tc.d, tc.u, tc.name, at)
		if s.capacity != tc.want {
			t.Errorf("%s: capacity %d, want %d", tc.name, s.capacity, tc.want)
		}
	}
}

// candle is a candle with where it came from, to tell a held one from a
// fetched one at the same time.
type candle struct {
	t   time.Time
	src string
}

func candleTime(c candle) time.Time { return c.t }

func candlesAt(src string, minutes ...int) []candle {
	out := make([]candle, len(minutes))
	for i, m := range minutes {
		out[i] = candle{day0.Add(time.Duration(m) * time.Minute), src}
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for m := from; m < to; m++ {
		out = append(out, m)
	}
	return out
}

// A code held from minute 10 to 20 of [0, 30) is topped up from 30 back to
// 20, the newest held candle replaced by the fetched one and the older
// fetched ones dropped for the held, then paged on from 10; a failure
// before the pages reach 20 leaves it as held.
func TestTopUpJoinsHeldCandles(t *testing.T) {
	t.Parallel()
	spec := NewSpec(day0, day0.Add(30*time.Minute), 5, time.Minute, Hourly, "1m", candleTime)
	held := candlesAt("held", span(10, 21)...)
	run, err := NewRun(spec, []string{"A", "B"}, map[string][]candle{"A": held, "B": held})
	if err != nil {
		t.Fatal(err)
	}
	ends := []int{30, 25, 10, 5} // the pages A asks for: the second reaches minute 20
	for i, end := range ends {
		chunks := run.Plan(2)
		if len(chunks) == 0 || !chunks[0].End.Equal(day0.Add(time.Duration(end)*time.Minute)) {
			t.Fatalf("page %d: plan %+v, want A's page ending at minute %d", i, chunks, end)
		}
		if i == 1 {
			run.Fail([]string{"B"}) // B's top-up fails before it reaches its held candles
		}
		got := map[string][]candle{}
		for _, c := range chunks[0].Codes {
			got[c] = candlesAt("fetched", span(end-5, end)...)
		}
		run.Page(got, Chunk{End: chunks[0].End, Codes: chunks[0].Codes})
	}
	if _, more := run.Next("A"); more {
		t.Error("A wants more pages after reaching from")
	}
	want := slices.Concat(candlesAt("fetched", span(0, 10)...), candlesAt("held", span(10, 20)...), candlesAt("fetched", span(20, 30)...))
	if got := run.Candles("A"); !slices.Equal(got, want) {
		t.Errorf("A's candles\n%v\nwant\n%v", got, want)
	}
	if got := run.Candles("B"); !slices.Equal(got, held) {
		t.Errorf("B's candles %v, want those held", got)
	}
	if r := run.TakeRefused(); len(r) != 0 {
		t.Errorf("refused %+v", r)
	}
}

// A full page that brings nothing older than the end asked for says the
// range holds more than the service gave: it is refused. A short one says
// the history ran out.
func TestAFullPageOfNothingOlderIsRefused(t *testing.T) {
	t.Parallel()
	spec := NewSpec(day0, day0.Add(30*time.Minute), 5, time.Minute, Hourly, "1m", candleTime)
	for _, tc := range []struct {
		name    string
		second  []int // minutes of the second page
		refused bool
	}{
		{"the first page again", span(25, 30), true},
		{"newer candles only", span(26, 31), true},
		{"nothing", nil, false},
		{"a few at the end asked, overlapping", span(25, 27), false},
	} {
		run, err := NewRun(spec, []string{"A"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		end := day0.Add(30 * time.Minute)
		run.Page(map[string][]candle{"A": candlesAt("fetched", span(25, 30)...)}, Chunk{End: end, Codes: []string{"A"}})
		end, _ = run.Next("A")
		run.Page(map[string][]candle{"A": candlesAt("fetched", tc.second...)}, Chunk{End: end, Codes: []string{"A"}})
		r := run.TakeRefused()
		if got := len(r) == 1 && strings.Contains(r[0].Why, "ignored et or repeated a page"); got != tc.refused {
			t.Errorf("%s: refused %+v, want refused: %v", tc.name, r, tc.refused)
		}
		if _, more := run.Next("A"); more {
			t.Errorf("%s: A wants more pages", tc.name)
		}
		if got := run.Candles("A"); !slices.Equal(got, candlesAt("fetched", span(25, 30)...)) {
			t.Errorf("%s: A's candles %v, want the first page's", tc.name, got)
		}
	}
}
