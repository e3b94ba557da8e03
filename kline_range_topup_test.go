package itick_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Tests of WithResume's top-up: a partial result is completed at both
// ends, its newest candle fetched again, for the cost of what it lacks.

// stale is a held candle as it was while still forming: the service now
// has it closed, with other prices and more volume.
func stale(k itick.Kline) itick.Kline {
	k.Close, k.High, k.Volume = k.Open, k.Open, k.Volume/2
	return k
}

// heldFrom is what a file holds of code: the service's candles of
// [from, to), the newest as it was while forming.
func heldFrom(s *histService, code string, from, to time.Time) []itick.Kline {
	ks := s.want(code, from, to)
	ks[len(ks)-1] = stale(ks[len(ks)-1])
	return ks
}

// TestResumeTopsUpBothEnds resumes ranges from files that stop short of to
// (a file from last week) and of from: the result is the service's whole
// range, the newest held candle replaced by the service's, and the
// requests are what the missing candles cost, one page of them at a time
// from each end.
func TestResumeTopsUpBothEnds(t *testing.T) {
	t.Parallel()
	codes := histCodes(25)
	tests := []struct {
		name     string
		from, to time.Time // of what is held
		// requests per chunk: pages from to down to the newest held
		// candle, then from the oldest held down to histFrom.
		requests int
	}{
		{"weeks before to, after from", histFrom.Add(1000 * time.Minute), histTo.Add(-700 * time.Minute), 2 + 2},
		{"weeks before to, from from", histFrom, histTo.Add(-700 * time.Minute), 2},
		{"up to to", histFrom.Add(1000 * time.Minute), histTo, 1 + 2},
		{"the whole range", histFrom, histTo, 1},
		// The top-up's first page reaches below the held candles: what
		// it brings from there on is kept, not asked for again.
		{"a few candles inside", histTo.Add(-400 * time.Minute), histTo.Add(-300 * time.Minute), 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &histService{series: minuteHistory(codes)}
			have := map[string][]itick.Kline{}
			for _, code := range codes {
				have[code] = heldFrom(s, code, tt.from, tt.to)
			}
			before := cloneHave(have)
			c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(10))
			got, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo,
				itick.WithResume(have))
			if err != nil {
				t.Fatal(err)
			}
			for _, code := range codes {
				if want := s.want(code, histFrom, histTo); !sameKlines(want, got[code]) {
					t.Fatalf("%s (-want +got):\n%s", code, cmp.Diff(want, got[code]))
				}
			}
			if n, want := s.answered(), 3*tt.requests; n != want {
				t.Errorf("KlinesRange: %d requests, want %d: 3 chunks x %d", n, want, tt.requests)
			}
			if diff := cmp.Diff(before, have); diff != "" {
				t.Errorf("have was changed (-before +after):\n%s", diff)
			}

			one := &histService{series: minuteHistory(codes)}
			c = newServerClient(t, httptest.NewServer(one), testToken)
			ks, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "C07", itick.OneMinute, histFrom, histTo,
				itick.WithResume(have))
			if err != nil {
				t.Fatal(err)
			}
			if want := one.want("C07", histFrom, histTo); !sameKlines(want, ks) {
				t.Fatalf("KlineRange (-want +got):\n%s", cmp.Diff(want, ks))
			}
			if n := one.answered(); n != tt.requests {
				t.Errorf("KlineRange: %d requests, want %d", n, tt.requests)
			}
		})
	}
}

// A top-up that fails, or that the service answers with a repeated page
// or candles that cannot sit beside the held ones, ends the code with an
// error and leaves it as it was held: the pages it got are not next to
// the held candles, and a later call tops it up again. The other codes
// are not affected.
func TestResumeTopUpThatFailsKeepsWhatWasHeld(t *testing.T) {
	t.Parallel()
	codes := []string{"A", "BAD"}
	heldTo := histTo.Add(-1200 * time.Minute) // three pages short of to
	tests := []struct {
		name  string
		spoil func(s *histService)
		says  string
	}{
		{"a failed request", func(s *histService) {
			s.fail = func(n int, codes []string) (int, string) {
				if n == 2 && slices.Contains(codes, "BAD") {
					return http.StatusBadGateway, ""
				}
				return 0, ""
			}
		}, "502"},
		{"a repeated page", func(s *histService) {
			var mu sync.Mutex
			var first []int64
			s.lie = func(n int, code string, page []int64) []int64 {
				if code != "BAD" {
					return page
				}
				mu.Lock()
				defer mu.Unlock()
				if first == nil {
					first = page
				}
				return slices.Clone(first)
			}
		}, "ignored et or repeated a page"},
		{"candles 30 s off the held ones", func(s *histService) {
			s.lie = func(n int, code string, page []int64) []int64 {
				if code == "BAD" {
					for i := range page {
						page[i] -= 30000
					}
				}
				return page
			}
		}, "closer than 1m candles can be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &histService{series: minuteHistory(codes)}
			tt.spoil(s)
			have := map[string][]itick.Kline{"A": heldFrom(s, "A", histFrom, heldTo), "BAD": heldFrom(s, "BAD", histFrom, heldTo)}
			c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(1), itick.WithRetries(0), itick.WithConcurrency(1))
			got, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo,
				itick.WithResume(have))
			var be *itick.BatchError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v, want a *BatchError saying %q", err, tt.says)
			}
			if diff := cmp.Diff([]string{"BAD"}, be.FailedCodes()); diff != "" {
				t.Errorf("FailedCodes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(have["BAD"], got["BAD"]); diff != "" {
				t.Errorf("BAD (-as held +got):\n%s", diff)
			}
			if want := s.want("A", histFrom, histTo); !sameKlines(want, got["A"]) {
				t.Errorf("A (-want +got):\n%s", cmp.Diff(want, got["A"]))
			}
		})
	}
}

// A service that ignores et answers every page with its newest candles:
// a range of 1,000 candles in pages of 100 gets the first 100 and then the
// same page again. That is an error for the code, which keeps the 100.
func TestRangeShortOfItsPagesIsAnError(t *testing.T) {
	t.Parallel()
	from := histTo.Add(-1000 * time.Minute)
	s := &histService{series: minuteHistory([]string{"A"}), ignoreEt: true}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	got, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "A", itick.OneMinute, from, histTo, itick.WithPageSize(100))
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "candles of A") || !strings.Contains(err.Error(), "ignored et") {
		t.Fatalf("error %v, want an *APIError naming A and the ignored et", err)
	}
	if want := s.want("A", histTo.Add(-100*time.Minute), histTo); !sameKlines(want, got) {
		t.Errorf("kept (-want the newest page +got):\n%s", cmp.Diff(want, got))
	}
	if n := len(s.requests()); n != 2 {
		t.Errorf("%d requests, want 2: the page, and the one that repeats it", n)
	}
}
