package markettest_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// holidaysOf asks the server (its clock in year) for a market's holidays.
func holidaysOf(t *testing.T, year int, market string) map[string]bool {
	t.Helper()
	srv := newServer(t, markettest.WithClock(func() time.Time { return time.Date(year, 7, 1, 12, 0, 0, 0, time.UTC) }))
	env := decodeEnvelope(t, get(t, srv, "/symbol/v2/holidays", srv.Token))
	var cals []struct {
		C string `json:"c"`
		V string `json:"v"`
	}
	if err := json.Unmarshal(env.Data, &cals); err != nil {
		t.Fatal(err)
	}
	for _, c := range cals {
		if c.C == market {
			var days []string
			if err := json.Unmarshal([]byte(c.V), &days); err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, d := range days {
				out[d] = true
			}
			return out
		}
	}
	t.Fatalf("no calendar for %s", market)
	return nil
}

// TestDailyCandlesFollowTheCalendar checks which days have a daily candle:
// a stock's, fund's and index's market's trading days (no weekend, no day
// its holiday list names), forex's weekdays, crypto's every day.
func TestDailyCandlesFollowTheCalendar(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(4)
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	usHolidays, hkHolidays := holidaysOf(t, 2024, "US"), holidaysOf(t, 2024, "HK")
	if !usHolidays["2024-07-04"] || !usHolidays["2024-12-25"] || !hkHolidays["2024-02-12"] {
		t.Fatalf("holiday lists look wrong: US %v HK %v", usHolidays, hkHolidays)
	}
	weekday := func(d time.Time) bool { return d.Weekday() != time.Saturday && d.Weekday() != time.Sunday }
	tests := []struct {
		class  markettest.Class
		region itick.Region
		code   string
		trades func(d time.Time) bool
	}{
		{markettest.Stock, itick.RegionUS, "AAPL", func(d time.Time) bool { return weekday(d) && !usHolidays[d.Format(time.DateOnly)] }},
		{markettest.Fund, itick.RegionUS, "QQQ", func(d time.Time) bool { return weekday(d) && !usHolidays[d.Format(time.DateOnly)] }},
		{markettest.Indices, itick.RegionGB, "SPX", func(d time.Time) bool { return weekday(d) && !usHolidays[d.Format(time.DateOnly)] }},
		{markettest.Stock, itick.RegionHK, "700", func(d time.Time) bool { return weekday(d) && !hkHolidays[d.Format(time.DateOnly)] }},
		{markettest.Indices, itick.RegionGB, "HSI", func(d time.Time) bool { return weekday(d) && !hkHolidays[d.Format(time.DateOnly)] }},
		{markettest.Forex, itick.RegionGB, "EURUSD", weekday},
		{markettest.Future, itick.RegionUS, "GC", weekday},
		{markettest.Crypto, itick.RegionBA, "BTCUSDT", func(time.Time) bool { return true }},
	}
	for _, tt := range tests {
		var want []time.Time
		for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
			if tt.trades(d) {
				want = append(want, d)
			}
		}
		var got []time.Time
		for _, k := range g.Series(tt.class, tt.region, tt.code, itick.OneDay, from, to, now) {
			got = append(got, k.Time)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %s: daily candles of 2024 (-want +got):\n%s", tt.class, tt.code, diff)
		}
	}
}

// TestDailyCandlesHoldTheirHours checks that a daily candle opens with its
// first hourly candle, closes with its last and spans exactly their ranges:
// each hour lies within the day, and some hour reaches its high and its
// low, on finished days and on the day still trading.
func TestDailyCandlesHoldTheirHours(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(6)
	for _, now := range []time.Time{
		time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC), // US and GB trading, HK closed
		time.Date(2025, 3, 14, 2, 9, 26, 0, time.UTC),  // HK trading, US and GB closed
	} {
		dailyCandlesHoldTheirHours(t, g, now)
	}
}

func dailyCandlesHoldTheirHours(t *testing.T, g *markettest.Generator, now time.Time) {
	t.Helper()
	for _, c := range classes {
		for _, code := range c.codes[:2] {
			days := g.Klines(c.class, c.region, code, itick.OneDay, 10, time.Time{}, now)
			for _, d := range days {
				hours := g.Series(c.class, c.region, code, itick.OneHour, d.Time, d.Time.Add(24*time.Hour), now)
				if len(hours) == 0 {
					t.Fatalf("%s %s: no hourly candle on %v", c.class, code, d.Time)
				}
				first, last := hours[0], hours[len(hours)-1]
				if d.Open != first.Open || d.Close != last.Close {
					t.Errorf("%s %s %v: day opens %v closes %v; its hours open %v close %v",
						c.class, code, d.Time, d.Open, d.Close, first.Open, last.Close)
				}
				hi, lo := math.Inf(-1), math.Inf(1)
				for _, h := range hours {
					if h.High > d.High || h.Low < d.Low {
						t.Errorf("%s %s %v: hour %v (h %v l %v) outside the day's range (h %v l %v)",
							c.class, code, d.Time, h.Time, h.High, h.Low, d.High, d.Low)
					}
					hi, lo = max(hi, h.High), min(lo, h.Low)
				}
				if hi != d.High || lo != d.Low {
					t.Errorf("%s %s %v at %v: the day's range (h %v l %v) is not its hours' (h %v l %v)",
						c.class, code, d.Time, now, d.High, d.Low, hi, lo)
				}
			}
		}
	}
}

// TestLongCandlesHoldTheirDays checks that a weekly or monthly candle
// opens with its first daily candle, closes with its last and spans all
// of their ranges, the one still open at now included.
func TestLongCandlesHoldTheirDays(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(6)
	now := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC) // US and GB trading, HK closed
	for _, c := range classes {
		code := c.codes[0]
		for _, iv := range []itick.Interval{itick.OneWeek, itick.OneMonth} {
			for _, k := range g.Klines(c.class, c.region, code, iv, 3, time.Time{}, now) {
				days := g.Series(c.class, c.region, code, itick.OneDay, k.Time, k.Time.Add(iv.Duration()), now)
				if len(days) == 0 {
					t.Fatalf("%s %s %v %v: no daily candle", c.class, code, iv, k.Time)
				}
				first, last := days[0], days[len(days)-1]
				if k.Open != first.Open || k.Close != last.Close {
					t.Errorf("%s %s %v %v: opens %v closes %v; its days open %v close %v",
						c.class, code, iv, k.Time, k.Open, k.Close, first.Open, last.Close)
				}
				for _, d := range days {
					if d.High > k.High || d.Low < k.Low {
						t.Errorf("%s %s %v %v: day %v (h %v l %v) outside the range (h %v l %v)",
							c.class, code, iv, k.Time, d.Time, d.High, d.Low, k.High, k.Low)
					}
				}
			}
		}
	}
}

// TestClosedMarketsStandStill checks that quotes and ticks do not move
// while Market.Status says a market is closed, and do while it is open.
func TestClosedMarketsStandStill(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(time.Date(2025, 7, 4, 15, 0, 0, 0, time.UTC)) // Independence Day
	srv := newServer(t, markettest.WithClock(clock.Now))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	g := srv.Generator()
	tests := []struct {
		at   time.Time
		open bool
	}{
		{time.Date(2025, 7, 4, 15, 0, 0, 0, time.UTC), false},  // holiday
		{time.Date(2025, 7, 5, 15, 0, 0, 0, time.UTC), false},  // Saturday
		{time.Date(2025, 7, 7, 12, 0, 0, 0, time.UTC), false},  // Monday, 08:00 in New York
		{time.Date(2025, 7, 7, 15, 0, 0, 0, time.UTC), true},   // 11:00
		{time.Date(2025, 7, 7, 20, 30, 0, 0, time.UTC), false}, // 16:30
	}
	for _, tt := range tests {
		clock.Set(tt.at)
		st, err := client.Market.Status(t.Context(), itick.RegionUS)
		if err != nil || len(st) != 1 {
			t.Fatalf("status %+v, error %v", st, err)
		}
		if st[0].Open != tt.open {
			t.Fatalf("%v: status open %v, want %v", tt.at, st[0].Open, tt.open)
		}
		later := tt.at.Add(7 * time.Minute)
		q1, q2 := g.Quote(markettest.Stock, itick.RegionUS, "AAPL", tt.at), g.Quote(markettest.Stock, itick.RegionUS, "AAPL", later)
		k1, k2 := g.Tick(markettest.Stock, itick.RegionUS, "AAPL", tt.at), g.Tick(markettest.Stock, itick.RegionUS, "AAPL", later)
		k1.Session, k2.Session = 0, 0 // the session names the time of day, not the trade
		if still := q1 == q2 && k1 == k2; still == tt.open {
			t.Errorf("%v (open %v): quote %+v then %+v, tick %+v then %+v", tt.at, tt.open, q1, q2, k1, k2)
		}
	}
}

// TestKlinesServeEtLimitCapAndFirstDate checks the K-line endpoints
// against the generator's series: et picks the last candle, limit the
// count, WithKlineCap shortens pages and WithFirstDate ends history.
func TestKlinesServeEtLimitCapAndFirstDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC)
	first := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)
	srv := newServer(t, markettest.WithClock(func() time.Time { return now }), markettest.WithKlineCap(30), markettest.WithFirstDate(first))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	series := srv.Series(markettest.Stock, itick.RegionUS, "MSFT", itick.OneDay, time.Unix(0, 0), now)
	if !series[0].Time.Equal(first) {
		t.Fatalf("history starts %v, want %v", series[0].Time, first)
	}
	et := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) // a Saturday: the page ends on Friday
	got, err := client.Stock.Kline(t.Context(), itick.RegionUS, "MSFT", itick.OneDay, 100, itick.WithEnd(et))
	if err != nil {
		t.Fatal(err)
	}
	var want []itick.Kline
	for _, k := range series {
		if !k.Time.After(et) {
			want = append(want, k)
		}
	}
	want = want[len(want)-30:]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a capped page (-want +got):\n%s", diff)
	}
	old, err := client.Stock.Kline(t.Context(), itick.RegionUS, "MSFT", itick.OneDay, 10, itick.WithEnd(first.Add(-time.Millisecond)))
	if err != nil || len(old) != 0 {
		t.Errorf("before the first date: %d candles, error %v; want none", len(old), err)
	}
}
