package itick_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// WithClosedOnly, on every kline call: no candle still forming.

// TestWithClosedOnly runs every kline call against a service whose newest
// candle is the one in progress, and one that ignores et: with
// WithClosedOnly no candle whose interval had not ended is returned, and
// every one that had is; without it, the forming candle is there.
func TestWithClosedOnly(t *testing.T) {
	t.Parallel()
	type call func(c *itick.Client, opts ...itick.KlineOption) ([]itick.Kline, error)
	calls := map[string]call{
		"Kline": func(c *itick.Client, opts ...itick.KlineOption) ([]itick.Kline, error) {
			return c.Crypto.Kline(t.Context(), itick.RegionBA, "A", itick.OneHour, 48, opts...)
		},
		"Klines": func(c *itick.Client, opts ...itick.KlineOption) ([]itick.Kline, error) {
			m, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"A", "B"}, itick.OneHour, 48, opts...)
			return m["A"], err
		},
		"KlineRange": func(c *itick.Client, opts ...itick.KlineOption) ([]itick.Kline, error) {
			return c.Forex.KlineRange(t.Context(), itick.RegionGB, "A", itick.OneHour, time.Now().Add(-48*time.Hour), time.Now().Add(time.Hour), opts...)
		},
		"KlinesRange": func(c *itick.Client, opts ...itick.KlineOption) ([]itick.Kline, error) {
			m, err := c.Future.KlinesRange(t.Context(), itick.RegionUS, []string{"A", "B"}, itick.OneHour,
				time.Now().Add(-48*time.Hour), time.Now().Add(time.Hour), append(opts, itick.WithPageSize(20))...)
			return m["A"], err
		},
	}
	for name, call := range calls {
		for _, ignoreEt := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignoring et %v", name, ignoreEt), func(t *testing.T) {
				t.Parallel()
				s := &histService{live: time.Hour, liveFrom: time.Now().Truncate(time.Hour).Add(-100 * time.Hour), ignoreEt: ignoreEt}
				c := newServerClient(t, httptest.NewServer(s), testToken)
				before := time.Now()
				got, err := call(c, itick.WithClosedOnly())
				after := time.Now()
				switch {
				case ignoreEt && name == "KlinesRange":
					// 48 hours in pages of 20: the second page repeats the
					// first, so the range stops short, keeping the first.
					if !strings.Contains(fmt.Sprint(err), "ignored et or repeated a page") {
						t.Fatalf("error %v, want the range refused for a repeated page", err)
					}
				case err != nil:
					t.Fatal(err)
				}
				if len(got) == 0 {
					t.Fatal("no candles")
				}
				for _, k := range got {
					if k.Time.Add(time.Hour).After(after) {
						t.Errorf("candle of %s returned: its hour had not ended at %s", k.Time, after)
					}
				}
				// The newest candle that had closed when the call began.
				if closed := before.Add(-time.Hour).Truncate(time.Hour); !got[len(got)-1].Time.After(closed.Add(-time.Millisecond)) {
					t.Errorf("newest candle %s, want the one of %s", got[len(got)-1].Time, closed)
				}
				if !ignoreEt {
					for _, r := range s.requests() {
						if r.et == 0 || r.et > after.Add(-time.Hour).UnixMilli() {
							t.Errorf("request asked for candles up to %d, want at most an hour before now", r.et)
						}
					}
				}
				got, _ = call(c)
				if len(got) == 0 || !got[len(got)-1].Time.Add(time.Hour).After(before) {
					t.Errorf("without WithClosedOnly, the newest candle is not the forming one")
				}
			})
		}
	}
}

// TestWithClosedOnlyMonths checks month candles, whose length the SDK
// takes as 31 days: a candle is left out until 31 days have passed since
// its start, and kept after.
func TestWithClosedOnlyMonths(t *testing.T) {
	t.Parallel()
	now := time.Now()
	series := []int64{now.AddDate(0, 0, -95).UnixMilli(), now.AddDate(0, 0, -64).UnixMilli(),
		now.Add(-31*24*time.Hour - time.Minute).UnixMilli(), now.Add(-31*24*time.Hour + time.Minute).UnixMilli(),
		now.AddDate(0, 0, -2).UnixMilli()}
	s := &histService{series: map[string][]int64{"A": series}, ignoreEt: true}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	want := s.want("A", now.AddDate(-1, 0, 0), now.Add(-31*24*time.Hour))
	got, err := c.Indices.Kline(t.Context(), itick.RegionGB, "A", itick.OneMonth, 10, itick.WithClosedOnly())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kline (-want +got):\n%s", diff)
	}
	s.ignoreEt = false
	got, err = c.Indices.KlineRange(t.Context(), itick.RegionGB, "A", itick.OneMonth, now.AddDate(-1, 0, 0), now, itick.WithClosedOnly())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("KlineRange (-want +got):\n%s", diff)
	}
}

// TestWithClosedOnlyEmptyRange asks for a range shorter than its interval
// ending now: nothing has closed, so nothing is sent and nothing comes
// back, without an error.
func TestWithClosedOnlyEmptyRange(t *testing.T) {
	t.Parallel()
	s := &histService{live: time.Hour, liveFrom: time.Now().Add(-10 * time.Hour).Truncate(time.Hour)}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	from := time.Now().Add(-30 * time.Minute)
	one, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "A", itick.OneHour, from, time.Now().Add(time.Hour), itick.WithClosedOnly())
	if err != nil || len(one) != 0 {
		t.Errorf("KlineRange: %d candles, error %v; want none and no error", len(one), err)
	}
	all, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, []string{"A", "B"}, itick.OneHour, from, time.Now(), itick.WithClosedOnly())
	if err != nil || len(all) != 0 {
		t.Errorf("KlinesRange: %d codes, error %v; want none and no error", len(all), err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
