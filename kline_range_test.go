package itick_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of KlineRange and KlinesRange, which page through the history
// between two times.

// TestKlineRangeToleratesTheService runs both range calls against services
// that read et either way, overlap pages, cap limit, repeat candles or send
// them newest first: the result is always every candle in the range, once,
// oldest first.
func TestKlineRangeToleratesTheService(t *testing.T) {
	t.Parallel()
	history := weekdays(time.Date(2022, 1, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC))
	late := weekdays(time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC))
	kinds := []struct {
		name string
		make func() *rangeService
	}{
		{"inclusive et", func() *rangeService { return &rangeService{} }},
		{"exclusive et", func() *rangeService { return &rangeService{exclusive: true} }},
		{"overlapping pages", func() *rangeService { return &rangeService{overlap: 3} }},
		{"overlapping exclusive", func() *rangeService { return &rangeService{overlap: 5, exclusive: true} }},
		{"limit capped at 7", func() *rangeService { return &rangeService{maxLimit: 7} }},
		{"newest first", func() *rangeService { return &rangeService{newest: true} }},
		{"every candle twice", func() *rangeService { return &rangeService{repeat: true} }},
	}
	codes := []string{"A", "BB", "CCC", "LATE", "D", "E", "F"}
	for _, k := range kinds {
		for _, page := range []int{1, 25, 500} {
			t.Run(fmt.Sprintf("%s/page %d", k.name, page), func(t *testing.T) {
				t.Parallel()
				s := k.make()
				s.series = map[string][]int64{}
				for _, c := range codes {
					s.series[c] = history
				}
				s.series["LATE"] = late
				c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(3))
				ctx := t.Context()
				from := rangeFrom
				if page == 1 {
					from = rangeTo.AddDate(0, -1, 0) // a page a candle: keep it short
				}

				one, err := c.Stock.KlineRange(ctx, itick.RegionUS, "A", itick.OneDay, from, rangeTo, itick.WithPageSize(page))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(s.want("A", from, rangeTo), one); diff != "" {
					t.Fatalf("KlineRange (-want +got):\n%s", diff)
				}
				n := s.count()
				all, err := c.Stock.KlinesRange(ctx, itick.RegionUS, codes, itick.OneDay, from, rangeTo, itick.WithPageSize(page))
				if err != nil {
					t.Fatal(err)
				}
				for _, code := range codes {
					if diff := cmp.Diff(s.want(code, from, rangeTo), all[code]); diff != "" {
						t.Fatalf("KlinesRange %s (-want +got):\n%s", code, diff)
					}
				}
				if len(all) != len(codes) {
					t.Errorf("KlinesRange returned %d codes, want %d", len(all), len(codes))
				}
				// Every request brings something new or ends a range: at
				// most one request per page of candles plus one per chunk.
				perPage := page
				if s.maxLimit > 0 {
					perPage = min(page, s.maxLimit)
				}
				pages := (len(s.want("A", from, rangeTo)) + perPage - 1) / perPage
				if got, most := s.count()-n, 3*(pages+1); got > most {
					t.Errorf("KlinesRange sent %d requests, want at most %d", got, most)
				}
			})
		}
	}
}

// TestKlineRangeEndsWhenHistoryRunsOut asks for a range that starts before
// the first candle: the call returns the whole history and stops after
// the page that brings nothing older.
func TestKlineRangeEndsWhenHistoryRunsOut(t *testing.T) {
	t.Parallel()
	first := time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)
	s := &rangeService{series: map[string][]int64{"NEW": weekdays(first, rangeTo.AddDate(0, 1, 0))}}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	got, err := c.Stock.KlineRange(t.Context(), itick.RegionUS, "NEW", itick.OneDay, rangeFrom, rangeTo, itick.WithPageSize(20))
	if err != nil {
		t.Fatal(err)
	}
	want := s.want("NEW", rangeFrom, rangeTo)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// 63 candles: four pages of 20 (the last one short), then one that
	// brings nothing.
	if n, pages := s.count(), (len(want)+19)/20+1; n != pages {
		t.Errorf("%d requests, want %d", n, pages)
	}
}

// TestKlineRangeAsksWithEtAndLimit checks the requests themselves: the
// first page ends just before to, each next one just before the oldest
// candle so far, with the page size as limit and the exchange passed on.
func TestKlineRangeAsksWithEtAndLimit(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{"A": weekdays(rangeFrom.AddDate(0, -1, 0), rangeTo)}}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	got, err := c.Stock.KlineRange(t.Context(), itick.RegionUS, "A", itick.OneDay, rangeFrom, rangeTo,
		itick.WithPageSize(200), itick.WithExchange("NYSE"))
	if err != nil {
		t.Fatal(err)
	}
	qs := s.queries()
	if len(qs) != 2 {
		t.Fatalf("%d requests, want 2: %q", len(qs), qs)
	}
	for i, wantEt := range []int64{rangeTo.UnixMilli() - 1, got[len(got)-200].Time.UnixMilli() - 1} {
		q, _ := url.ParseQuery(qs[i])
		if q.Get("et") != strconv.FormatInt(wantEt, 10) || q.Get("limit") != "200" || q.Get("kType") != "8" ||
			q.Get("exchange") != "NYSE" || q.Get("code") != "A" {
			t.Errorf("request %d: %s, want et=%d limit=200 kType=8 exchange=NYSE code=A", i, qs[i], wantEt)
		}
	}
}

// TestKlineRangeFutureEndMeansNow checks that a to in the future asks for
// the page ending now, not later.
func TestKlineRangeFutureEndMeansNow(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{"A": weekdays(time.Now().AddDate(0, 0, -20).Truncate(24*time.Hour), time.Now())}}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	before := time.Now()
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, []string{"A"}, itick.OneDay, before.AddDate(0, 0, -10), before.AddDate(1, 0, 0))
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(s.queries()[0])
	et, _ := strconv.ParseInt(q.Get("et"), 10, 64)
	if et < before.UnixMilli()-1 || et > after.UnixMilli() {
		t.Errorf("first et %d, want now (%d..%d)", et, before.UnixMilli(), after.UnixMilli())
	}
	if diff := cmp.Diff(s.want("A", before.AddDate(0, 0, -10), after), got["A"]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

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
