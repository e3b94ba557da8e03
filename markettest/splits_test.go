package markettest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// ratioOf reads a split's "a:b" as a/b, the factor its shares grow by.
func ratioOf(t *testing.T, r itick.SplitRecord) float64 {
	t.Helper()
	var a, b int
	if _, err := fmt.Sscanf(r.Ratio, "%d:%d", &a, &b); err != nil || a < 1 || b < 1 {
		t.Fatalf("%s %s: ratio %q", r.Region, r.Code, r.Ratio)
	}
	return float64(a) / float64(b)
}

// TestSplitsShowInCandles: the raw candles of every listed split's code
// jump at its ex-date by its ratio, as a real service's do: the close
// before it over the open on it is the ratio, give or take a night's move.
// The ex-date's own candle trades at the new shares.
func TestSplitsShowInCandles(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(1)
	for _, region := range []itick.Region{itick.RegionUS, itick.RegionHK, itick.RegionGB} {
		records := g.Splits(region, fixedNow)
		if len(records) < 20 {
			t.Fatalf("%s: %d split records in the last year, want a list as long as the service's", region, len(records))
		}
		for _, r := range records[:15] {
			ks := g.Series(markettest.Stock, region, r.Code, itick.OneDay, r.ExDate.AddDate(0, 0, -10), r.ExDate.AddDate(0, 0, 10), fixedNow)
			var before, on *itick.Kline
			for i := range ks {
				switch {
				case ks[i].Time.Before(r.ExDate):
					before = &ks[i]
				case on == nil:
					on = &ks[i]
				}
			}
			if before == nil || on == nil || !on.Time.Equal(r.ExDate) {
				t.Fatalf("%s %s: no candle before and on the ex-date %s in %v", region, r.Code, r.ExDate, ks)
			}
			ratio := ratioOf(t, r)
			if jump := math.Log(before.Close / on.Open); math.Abs(jump-math.Log(ratio)) > 0.08 {
				t.Errorf("%s %s %s on %s: close %v before, open %v on the ex-date: a jump of %.3f, want the ratio's %.3f",
					region, r.Code, r.Ratio, r.ExDate.Format(time.DateOnly), before.Close, on.Open, math.Exp(jump), ratio)
			}
		}
	}
}

// TestSplitKeepsQuotesWhole: on an ex-date the quote's previous close is
// at the new shares, so its change is the day's, not the split's; and the
// quote still agrees with the latest candle.
func TestSplitKeepsQuotesWhole(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(1)
	for _, r := range g.Splits(itick.RegionUS, fixedNow)[:10] {
		at := r.ExDate.Add(17 * time.Hour) // 13:00 in New York, the market open
		q := g.Quote(markettest.Stock, itick.RegionUS, r.Code, at)
		if math.Abs(q.ChangePercent) > 15 {
			t.Errorf("%s %s on its ex-date: change %v%% from previous close %v to %v; want the day's move, not the split's",
				r.Code, r.Ratio, q.ChangePercent, q.PrevClose, q.Last)
		}
		days := g.Klines(markettest.Stock, itick.RegionUS, r.Code, itick.OneDay, 1, at, at)
		if len(days) != 1 || q.Last != days[0].Close || q.Open != days[0].Open {
			t.Errorf("%s on its ex-date: quote last %v open %v, latest candle %+v", r.Code, q.Last, q.Open, days)
		}
	}
}

// TestSplitWeekNests: a week whose days straddle a split opens at its
// first day's open and closes at its last day's close, its range holding
// theirs, as a service building weeks from raw days shows it.
func TestSplitWeekNests(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(1)
	week := itick.OneWeek.Duration()
	checked := 0
	for _, r := range g.Splits(itick.RegionUS, fixedNow) {
		ms := week.Milliseconds()
		start := time.UnixMilli(r.ExDate.UnixMilli() / ms * ms).UTC() // candles align to the Unix epoch
		if start.Equal(r.ExDate) {
			continue // the week starts with the split: nothing straddles it
		}
		weeks := g.Series(markettest.Stock, itick.RegionUS, r.Code, itick.OneWeek, start, start.Add(week), fixedNow)
		days := g.Series(markettest.Stock, itick.RegionUS, r.Code, itick.OneDay, start, start.Add(week), fixedNow)
		if len(weeks) != 1 || len(days) < 2 {
			t.Fatalf("%s: week of %s: %d weeks, %d days", r.Code, start, len(weeks), len(days))
		}
		w := weeks[0]
		hi, lo := math.Inf(-1), math.Inf(1)
		for _, d := range days {
			hi, lo = max(hi, d.High), min(lo, d.Low)
		}
		if w.Open != days[0].Open || w.Close != days[len(days)-1].Close || w.High != hi || w.Low != lo {
			t.Errorf("%s %s: the week of %s is %+v; its days open %v, close %v, range %v to %v",
				r.Code, r.Ratio, start.Format(time.DateOnly), w, days[0].Open, days[len(days)-1].Close, lo, hi)
		}
		if checked++; checked == 5 {
			break
		}
	}
	if checked == 0 {
		t.Fatal("no split inside a week to check")
	}
}

// TestFamiliarCodesNeverSplit: the codes of the documentation's examples
// keep their price levels, since none of them ever splits.
func TestFamiliarCodesNeverSplit(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(1)
	familiar := map[string]bool{"700": true, "9988": true, "5": true, "1810": true, "AAPL": true, "MSFT": true,
		"TSLA": true, "NVDA": true, "AMZN": true, "GOOGL": true, "META": true}
	for year := 2001; year <= 2059; year++ {
		now := time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC)
		for _, region := range []itick.Region{itick.RegionUS, itick.RegionHK} {
			for _, r := range g.Splits(region, now) {
				if familiar[r.Code] {
					t.Errorf("%s %s splits on %s", region, r.Code, r.ExDate.Format(time.DateOnly))
				}
			}
		}
	}
}
