package itick_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// TestKlinesRangeIdealRequests backfills two years of daily candles of 50
// US stocks on Base against the simulator: the result is the simulator's
// series exactly, in the fewest requests the batch size and the page
// bound allow (chunks x pages).
func TestKlinesRangeIdealRequests(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 2, 21, 0, 0, 0, time.UTC) // a Monday, after the close
	c, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(itick.PlanBase), markettest.WithClock(func() time.Time { return now })})
	codes := make([]string, 50)
	for i := range codes {
		codes[i] = fmt.Sprintf("S%02d", i)
	}
	// from is a trading day, so the page that holds it is the last one.
	from, to := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, codes, itick.OneDay, from, to)
	if err != nil {
		t.Fatal(err)
	}
	candles := 0
	for _, code := range codes {
		want := srv.Series(markettest.Stock, itick.RegionUS, code, itick.OneDay, from, to)
		if diff := cmp.Diff(want, got[code]); diff != "" {
			t.Fatalf("%s (-simulator +got):\n%s", code, diff)
		}
		candles = len(want)
	}
	chunks := (len(codes) + itick.PlanBase.BatchSize() - 1) / itick.PlanBase.BatchSize()
	pages := (candles + itick.DefaultPageSize - 1) / itick.DefaultPageSize
	// The pages asked for must be exactly the ideal ones. A loaded machine
	// can delay requests enough that the quota answers one with 429 or an
	// attempt times out; the retry asks for the same page again, which is
	// the retry policy at work, not a page too many.
	asked := map[string]bool{}
	for _, r := range srv.Requests() {
		asked[r.Query.Encode()] = true
		if r.Status != http.StatusOK {
			t.Logf("retried: HTTP %d for %s", r.Status, r.Query.Encode())
		}
	}
	if n := len(asked); n != chunks*pages {
		t.Errorf("%d distinct requests for %d codes x %d candles, want %d chunks x %d pages = %d",
			n, len(codes), candles, chunks, pages, chunks*pages)
	}
	if candles < 480 || candles > 520 {
		t.Errorf("%d trading days in two years", candles)
	}
}

// TestKlineRangeAgainstTheSimulator pages hourly candles of a Hong Kong
// stock through a simulator that caps pages at 37 candles and whose
// history starts inside the range, for both range calls.
func TestKlineRangeAgainstTheSimulator(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC)
	first := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return now }), markettest.WithKlineCap(37),
		markettest.WithFirstDate(first)})
	from, to := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC), now.Add(time.Hour)
	want := srv.Series(markettest.Stock, itick.RegionHK, "700", itick.OneHour, from, now)
	if len(want) < 100 || !want[0].Time.After(first.Add(-time.Hour)) {
		t.Fatalf("series of %d candles from %v", len(want), want[0].Time)
	}
	one, err := c.Stock.KlineRange(t.Context(), itick.RegionHK, "700", itick.OneHour, from, to, itick.WithPageSize(100))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, one); diff != "" {
		t.Fatalf("KlineRange (-simulator +got):\n%s", diff)
	}
	many, err := c.Stock.KlinesRange(t.Context(), itick.RegionHK, []string{"700", "5"}, itick.OneHour, from, to, itick.WithPageSize(100))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, many["700"]); diff != "" {
		t.Fatalf("KlinesRange (-simulator +got):\n%s", diff)
	}
}
