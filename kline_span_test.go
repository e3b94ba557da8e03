package itick_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// Ranges of any length: before 1970, centuries long, or beyond what the
// service's Unix milliseconds can express.

// spanNow is the clock of the clients these tests make.
var spanNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// honestSeries is a K-line service, in process, over n candles a step
// apart, half a step off its boundaries (so none is at Unix time 0, which
// the SDK reads as no time), the newest just before end: it answers each
// page with the limit candles up to et, inclusive.
type honestSeries struct {
	times    []int64 // Unix ms, oldest first
	requests atomic.Int32
}

func newHonestSeries(end time.Time, step time.Duration, n int) *honestSeries {
	stepMs, half := step.Milliseconds(), step.Milliseconds()/2
	anchor := end.UnixMilli() - half // floored: a time's nanoseconds are never negative
	anchor -= ((anchor%stepMs)+stepMs)%stepMs - half
	if !time.UnixMilli(anchor).Before(end) {
		anchor -= stepMs
	}
	s := &honestSeries{times: make([]int64, n)}
	for i := range s.times {
		s.times[i] = anchor - int64(n-1-i)*stepMs
	}
	return s
}

func (s *honestSeries) RoundTrip(r *http.Request) (*http.Response, error) {
	s.requests.Add(1)
	q := r.URL.Query()
	et, err := strconv.ParseInt(q.Get("et"), 10, 64)
	limit, lerr := strconv.Atoi(q.Get("limit"))
	if err != nil || lerr != nil {
		return nil, fmt.Errorf("et %q, limit %q", q.Get("et"), q.Get("limit"))
	}
	end, _ := slices.BinarySearch(s.times, et+1)
	var page []map[string]any
	for _, t := range s.times[max(0, end-limit):end] {
		page = append(page, map[string]any{"t": t, "o": 1, "h": 2, "l": 0.5, "c": 1.5, "v": 10, "tu": 15})
	}
	b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": page})
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(b))), Request: r}, nil
}

// checkSpan asks for [from, to) of interval in pages of page from a
// service of n candles before to (or the clock's now): a range whose times
// the service's Unix milliseconds can express is served, whole, for a
// request per page and one more; any other is ErrInvalidArgument naming
// the time, with nothing sent.
func checkSpan(t *testing.T, from, to time.Time, interval itick.Interval, page, n int) {
	t.Helper()
	lo, hi := time.UnixMilli(math.MinInt64), time.UnixMilli(math.MaxInt64)
	end := to
	if end.After(spanNow) {
		end = spanNow
	}
	// The service's candles are from year 1 on, which the SDK decodes.
	if history := time.Duration(n+1) * interval.Duration(); end.Before(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(history)) {
		n = 0
	}
	s := newHonestSeries(end, interval.Duration(), n)
	c, mt := newMockClient(t, testToken, itick.WithBaseURL("http://itick.invalid"), itick.WithRetries(0),
		itick.WithClock(func() time.Time { return spanNow }))
	mt.RegisterNoResponder(s.RoundTrip)
	got, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "BTCUSDT", interval, from, to, itick.WithPageSize(page))
	what := fmt.Sprintf("[%s, %s) of %s in pages of %d", from.Format(time.RFC3339), to.Format(time.RFC3339), interval, page)
	switch {
	case from.Before(lo) || from.After(hi):
		if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), "range start (from)") {
			t.Fatalf("%s: error %v, want ErrInvalidArgument naming from", what, err)
		}
		return
	case to.Before(lo):
		if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), "range end (to)") {
			t.Fatalf("%s: error %v, want ErrInvalidArgument naming to", what, err)
		}
		return
	case !from.Before(to):
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Fatalf("%s: error %v, want ErrInvalidArgument", what, err)
		}
		return
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	}
	var want []int64
	for _, ms := range s.times {
		if !time.UnixMilli(ms).Before(from) {
			want = append(want, ms)
		}
	}
	var times []int64
	for _, k := range got {
		times = append(times, k.Time.UnixMilli())
	}
	if !slices.Equal(want, times) {
		for i := range want {
			if i >= len(times) || times[i] != want[i] {
				t.Fatalf("%s: %d candles, want %d; the first that differs, %d, is %s, want %s", what, len(times), len(want), i,
					time.UnixMilli(times[min(i, len(times)-1)]).UTC(), time.UnixMilli(want[i]).UTC())
			}
		}
		t.Fatalf("%s: %d candles, want %d", what, len(times), len(want))
	}
	if sent, most := int(s.requests.Load()), (len(want)+page-1)/page+2; sent > most {
		t.Errorf("%s: %d requests for %d candles, want at most %d", what, sent, len(want), most)
	}
}

// A range before 1970 or centuries long is served, whole; one beyond the
// service's Unix milliseconds is ErrInvalidArgument naming the time.
func TestRangeOfAnyLength(t *testing.T) {
	t.Parallel()
	date := func(y int) time.Time { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		name     string
		from, to time.Time
		interval itick.Interval
		page, n  int
	}{
		{"three centuries of days", date(1700), date(2025), itick.OneDay, 500, 40},
		{"three centuries of minutes", date(1700), date(2025), itick.OneMinute, 100, 250},
		{"three centuries of months", date(1700), spanNow, itick.OneMonth, 50, 120},
		{"a thousand years of weeks, all of them", date(1000), date(2024), itick.OneWeek, 500, 1200},
		{"before 1970", date(1965), date(1970).AddDate(0, 1, 0), itick.OneDay, 100, 300},
		{"from year 1 and a nanosecond", time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), date(2025), itick.OneHour, 500, 30},
		{"a million years", date(-1_000_000), date(2025), itick.OneDay, 500, 10},
		{"from before Unix milliseconds", date(-300_000_000), date(2025), itick.OneDay, 500, 10},
		{"to after Unix milliseconds: now", date(2020), date(300_000_000), itick.OneHour, 500, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkSpan(t, tt.from, tt.to, tt.interval, tt.page, tt.n)
		})
	}
}

// FuzzRangeSpan asks for ranges of any from, length, interval and page
// size from an honest service: each is served whole, or is
// ErrInvalidArgument when a time is beyond Unix milliseconds or from is
// not before to; never an overflow.
func FuzzRangeSpan(f *testing.F) {
	for _, seed := range []struct {
		from, span int64
		iv         uint8
		page, n    uint16
	}{
		{time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 325 * 366 * 86400, 7, 499, 40},
		{-86400 * 365 * 5, 86400 * 400, 0, 99, 700},
		{0, 1, 9, 0, 0},
		{math.MinInt64 / 2, math.MaxInt64, 4, 10, 5},
		{spanNow.Unix() - 3600, 7200, 0, 1, 3},
	} {
		f.Add(seed.from, seed.span, seed.iv, seed.page, seed.n)
	}
	f.Fuzz(func(t *testing.T, fromSec, spanSec int64, iv uint8, page, n uint16) {
		toSec := fromSec + spanSec
		if (spanSec > 0) != (toSec > fromSec) {
			toSec = math.MaxInt64 // saturate
			if spanSec < 0 {
				toSec = math.MinInt64
			}
		}
		interval := itick.Interval(1 + int(iv)%10)
		size := 1 + int(page)%500
		checkSpan(t, time.Unix(fromSec, 0).UTC(), time.Unix(toSec, 0).UTC(), interval, size, int(n)%(3*size+1))
	})
}
