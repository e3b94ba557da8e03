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
	have := map[string][]time.Time{
		"NEAR": minutesBefore(to, 5),  // 5 candles held: its end is 5 minutes before to
		"FAR":  minutesBefore(to, 20), // 20 held: a page ending at to would bring them again
	}
	run, err := NewRun(spec, []string{"LIVE", "NEAR", "FAR"}, have)
	if err != nil {
		t.Fatal(err)
	}
	got := run.Plan(3)
	if len(got) != 2 || !slices.Equal(got[0].Codes, []string{"LIVE", "NEAR"}) || !got[0].End.Equal(to) ||
		!slices.Equal(got[1].Codes, []string{"FAR"}) || !got[1].End.Equal(to.Add(-20*time.Minute)) {
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
