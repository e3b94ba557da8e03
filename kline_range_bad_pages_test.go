package itick_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Range calls against a service whose pages lie: a repeated page, stray
// candles, candles closer together than their interval.

// TestKlineRangeRefusesARepeatedPage is a service that ignores et: the
// second page repeats the first, so the range is short of what its pages
// say there is. It is an error for that code, keeping the newest page,
// and the call stops instead of looping.
func TestKlineRangeRefusesARepeatedPage(t *testing.T) {
	t.Parallel()
	to := time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	s := &rangeService{ignoreEt: true, series: map[string][]int64{"A": weekdays(rangeFrom, to), "B": weekdays(rangeFrom, to)}}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const says = "ignored et or repeated a page"
	got, err := c.Crypto.KlineRange(ctx, itick.RegionBA, "A", itick.OneDay, rangeFrom, rangeTo.AddDate(1, 0, 0), itick.WithPageSize(50))
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "candles of A") || !strings.Contains(err.Error(), says) {
		t.Fatalf("KlineRange: error %v, want an *APIError naming A and saying %q", err, says)
	}
	if n := s.count(); n != 2 {
		t.Errorf("KlineRange sent %d requests, want 2", n)
	}
	all := s.want("A", rangeFrom, to.AddDate(0, 0, 1))
	if diff := cmp.Diff(all[len(all)-50:], got); diff != "" {
		t.Errorf("KlineRange (-want the newest page +got):\n%s", diff)
	}
	m, err := c.Crypto.KlinesRange(ctx, itick.RegionBA, []string{"A", "B"}, itick.OneDay, rangeFrom, rangeTo.AddDate(1, 0, 0), itick.WithPageSize(50))
	var be *itick.BatchError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), says) {
		t.Fatalf("KlinesRange: error %v, want a *BatchError saying %q", err, says)
	}
	if diff := cmp.Diff([]string{"A", "B"}, be.FailedCodes()); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if n := s.count(); n != 4 {
		t.Errorf("KlinesRange sent %d requests, want 2", n-2)
	}
	if len(m["A"]) != 50 || len(m["B"]) != 50 {
		t.Errorf("KlinesRange gave %d and %d candles, want the newest page of 50 each", len(m["A"]), len(m["B"]))
	}
}

// TestKlineRangeIgnoresStrayCandles adds to the first page a candle far
// outside the range: it is dropped, and the range is complete.
func TestKlineRangeIgnoresStrayCandles(t *testing.T) {
	t.Parallel()
	for _, stray := range []struct {
		name string
		t    int64
	}{
		{"t 0", 0},
		{"a year before from", histFrom.AddDate(-1, 0, 0).UnixMilli()},
		{"32 days before from", histFrom.AddDate(0, 0, -32).UnixMilli()},
		{"in 2100", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()},
		{"at to", histTo.UnixMilli()},
	} {
		t.Run(stray.name, func(t *testing.T) {
			t.Parallel()
			codes := []string{"A", "B"}
			s := &histService{series: minuteHistory(codes), lie: func(n int, code string, page []int64) []int64 {
				if n == 1 && code == "A" {
					return append([]int64{stray.t}, page...)
				}
				return page
			}}
			c := newServerClient(t, httptest.NewServer(s), testToken)
			one, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "A", itick.OneMinute, histFrom, histTo)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.want("A", histFrom, histTo), one); diff != "" {
				t.Fatalf("KlineRange (-want +got):\n%s", diff)
			}
			all, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo)
			if err != nil {
				t.Fatal(err)
			}
			for _, code := range codes {
				if diff := cmp.Diff(s.want(code, histFrom, histTo), all[code]); diff != "" {
					t.Fatalf("KlinesRange %s (-want +got):\n%s", code, diff)
				}
			}
		})
	}
}

// TestKlineRangeRefusesCandlesTooClose is a service that sends candles
// closer together than their interval, or more of them than the range can
// hold: the code's range ends with an *APIError naming it, keeping the
// pages before, and the other codes are not affected.
func TestKlineRangeRefusesCandlesTooClose(t *testing.T) {
	t.Parallel()
	ms := func(n int, code string, page []int64) []int64 { // every page: 500 candles 1 ms apart
		if code != "LIAR" || len(page) == 0 {
			return page
		}
		for i := range page {
			page[i] = page[len(page)-1] - int64(len(page)-1-i)
		}
		return page
	}
	tests := []struct {
		name     string
		interval itick.Interval
		from     time.Time
		lie      func(n int, code string, page []int64) []int64
		kept     int    // candles of LIAR kept
		says     string // in the error
	}{
		{"1 ms apart from the first page", itick.OneMinute, histTo.Add(-time.Hour), ms, 0, "are 1ms apart, closer than 1m candles can be"},
		{"1 ms apart from the second page", itick.OneMinute, histFrom, func(n int, code string, page []int64) []int64 {
			if n == 1 {
				return page
			}
			return ms(n, code, page)
		}, 500, "1ms apart"},
		{"the second page's newest 1 ms before the first's oldest", itick.OneMinute, histFrom, func(n int, code string, page []int64) []int64 {
			if n == 2 && code == "LIAR" {
				page[len(page)-1] = histTo.Add(-500*time.Minute).UnixMilli() - 1
			}
			return page
		}, 500, "1ms apart"},
		{"week candles an hour apart", itick.OneWeek, histTo.AddDate(0, 0, -70), func(n int, code string, page []int64) []int64 {
			if code != "LIAR" {
				return page
			}
			return histTimes(histTo.Add(-time.Duration(n)*500*time.Hour), 500, time.Hour)
		}, 0, "number over 11, the most 1w candles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			service := func() *histService {
				s := &histService{series: minuteHistory([]string{"LIAR", "A"}), lie: tt.lie}
				if tt.interval == itick.OneWeek {
					weeks := histTimes(histTo.AddDate(0, 0, -7), 30, 7*24*time.Hour)
					s.series = map[string][]int64{"LIAR": weeks, "A": weeks}
				}
				return s
			}
			s := service()
			c := newServerClient(t, httptest.NewServer(s), testToken)
			one, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "LIAR", tt.interval, tt.from, histTo)
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "candles of LIAR") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("KlineRange: error %v, want an *APIError saying %q", err, tt.says)
			}
			if want := s.want("LIAR", tt.from, histTo); tt.kept > 0 {
				if diff := cmp.Diff(want[len(want)-tt.kept:], one); diff != "" {
					t.Errorf("KlineRange kept (-want +got):\n%s", diff)
				}
			}
			if len(one) != tt.kept {
				t.Errorf("KlineRange kept %d candles, want %d", len(one), tt.kept)
			}
			if want, sent := min(tt.kept, 1)+1, len(s.requests()); sent != want {
				t.Errorf("KlineRange sent %d requests, want %d", sent, want)
			}
			s = service()
			c = newServerClient(t, httptest.NewServer(s), testToken)
			all, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, []string{"A", "LIAR"}, tt.interval, tt.from, histTo)
			var be *itick.BatchError
			if !errors.As(err, &be) || !errors.As(err, &apiErr) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("KlinesRange: error %v, want a *BatchError with the *APIError", err)
			}
			if diff := cmp.Diff([]string{"LIAR"}, be.FailedCodes()); diff != "" {
				t.Errorf("FailedCodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(s.want("A", tt.from, histTo), all["A"]); diff != "" {
				t.Errorf("KlinesRange A (-want +got):\n%s", diff)
			}
			if len(all["LIAR"]) != tt.kept {
				t.Errorf("KlinesRange kept %d candles of LIAR, want %d", len(all["LIAR"]), tt.kept)
			}
		})
	}
}
