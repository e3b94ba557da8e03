package markettest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWindowMemoHoldsTheCalendar checks the memo of a market's windows
// against the windows worked out afresh, for days that share a memo
// entry asked about in turn, a half day and a holiday among them.
func TestWindowMemoHoldsTheCalendar(t *testing.T) {
	t.Parallel()
	// Markets of their own, so the memo starts empty.
	fresh := func(code string) *exchangeMarket {
		o := findMarket(code)
		return &exchangeMarket{code: o.code, name: o.name, zone: o.zone, tz: o.tz, sessions: o.sessions,
			halfDay: o.halfDay, holidays: o.holidays}
	}
	m, hk := fresh("US"), fresh("HK")
	days := []time.Time{
		time.Date(2025, 11, 28, 0, 0, 0, 0, time.UTC), // a US half day
		time.Date(2025, 7, 4, 0, 0, 0, 0, time.UTC),   // a US holiday
		time.Date(2025, 7, 5, 0, 0, 0, 0, time.UTC),   // a Saturday
		time.Date(2025, 3, 14, 0, 0, 0, 0, time.UTC),  // a Friday, two sessions in Hong Kong
	}
	for pass := range 3 {
		for _, d := range days {
			for _, shift := range []int{0, windowMemoDays, -windowMemoDays} {
				day := d.AddDate(0, 0, shift)
				for _, mk := range []*exchangeMarket{m, hk} {
					want := mk.tradingWindows(day)
					got := mk.appendTradingWindows(nil, day.UnixMilli())
					if diff := cmp.Diff(want, got, cmp.AllowUnexported(tradingSpan{})); diff != "" {
						t.Fatalf("pass %d, %s on %s (-afresh +memo):\n%s", pass, mk.code, day.Format(time.DateOnly), diff)
					}
				}
			}
		}
	}
	if got := len(hk.appendTradingWindows(nil, days[3].UnixMilli())); got != 2 {
		t.Errorf("Hong Kong trades in %d sessions on a Friday, want 2", got)
	}
	if got := m.appendTradingWindows(nil, days[0].UnixMilli()); len(got) != 1 || got[0].to-got[0].from != int64(3*time.Hour+30*time.Minute)/1e6 {
		t.Errorf("US half day: %v, want one session of 3.5 hours", got)
	}
}
