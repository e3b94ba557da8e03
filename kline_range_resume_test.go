package itick_test

import (
	"errors"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// WithResume: a backfill broken part-way and resumed with its partial
// result costs only what is missing.

// missingRequests is what completing got costs on a minute history from
// histFrom: per group of codes with the same oldest candle, one request
// per chunk per page of what they lack before it.
func missingRequests(got map[string][]itick.Kline, codes []string, batch, page int) int {
	lack := map[int][]string{} // candles missing -> codes
	for _, c := range codes {
		n := 3000
		if ks := got[c]; len(ks) > 0 {
			n = int(ks[0].Time.Sub(histFrom) / time.Minute)
		}
		if n > 0 {
			lack[n] = append(lack[n], c)
		}
	}
	total := 0
	for n, cs := range lack {
		total += (len(cs) + batch - 1) / batch * ((n + page - 1) / page)
	}
	return total
}

// TestKlinesRangeResumeCostsOnlyWhatIsMissing breaks a 40-code backfill
// part-way in three ways, then resumes it with the partial result: the
// resumed call sends exactly the requests the missing parts need, with
// the same codes or with FailedCodes only, and the result is the whole
// range. Where no answered page was refused, the two calls together send
// what one uninterrupted call does and one top-up request per chunk.
func TestKlinesRangeResumeCostsOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	codes := histCodes(40)
	tests := []struct {
		name  string
		spoil func(s *histService)
		// failed are the codes the first call names; nil: any.
		failed []string
		// refused: the first call has an answered page refused.
		refused bool
	}{
		{"a chunk fails on its third page", func(s *histService) {
			s.fail = func(n int, codes []string) (int, string) {
				if codes[0] == "C20" && len(codes) == 20 && n >= 5 {
					return http.StatusBadGateway, ""
				}
				return 0, ""
			}
		}, codes[20:], false},
		{"a 429 not waited out", func(s *histService) {
			s.fail = func(n int, codes []string) (int, string) {
				if n == 5 {
					return http.StatusTooManyRequests, "3600"
				}
				return 0, ""
			}
		}, nil, false},
		{"one code's third page is refused", func(s *histService) {
			s.lie = func(n int, code string, page []int64) []int64 {
				if code == "C07" && n >= 5 && n <= 6 {
					page[len(page)-1] = page[len(page)-2] + 1 // 1 ms after the one before
				}
				return page
			}
		}, []string{"C07"}, true},
	}
	whole := &histService{series: minuteHistory(codes)}
	c := newServerClient(t, httptest.NewServer(whole), testToken, itick.WithBatchSize(20))
	if _, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo); err != nil {
		t.Fatal(err)
	}
	uninterrupted := whole.answered()
	wants := map[string][]itick.Kline{}
	for _, code := range codes {
		wants[code] = whole.want(code, histFrom, histTo)
	}
	if uninterrupted != 12 {
		t.Fatalf("an uninterrupted call sent %d requests, want 2 chunks x 6 pages", uninterrupted)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first := &histService{series: minuteHistory(codes)}
			tt.spoil(first)
			c := newServerClient(t, httptest.NewServer(first), testToken, itick.WithBatchSize(20), itick.WithRetries(0), itick.WithConcurrency(1))
			got, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo)
			var be *itick.BatchError
			if !errors.As(err, &be) {
				t.Fatalf("first call: error %v, want a *BatchError", err)
			}
			if tt.failed != nil {
				if diff := cmp.Diff(tt.failed, be.FailedCodes()); diff != "" {
					t.Errorf("FailedCodes (-want +got):\n%s", diff)
				}
			}
			for _, only := range []bool{false, true} {
				again := &histService{series: minuteHistory(codes)}
				c := newServerClient(t, httptest.NewServer(again), testToken, itick.WithBatchSize(20))
				ask := codes
				if only {
					ask = be.FailedCodes()
				}
				// Every code asked has candles: a request per chunk tops up
				// their newest candle, then each pages on from its oldest.
				topUps := (len(ask) + 19) / 20
				for _, code := range ask {
					if len(got[code]) == 0 {
						t.Fatalf("%s has no candles: the top-up count does not hold", code)
					}
				}
				need := missingRequests(got, codes, 20, 500) + topUps
				more, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, ask, itick.OneMinute, histFrom, histTo,
					itick.WithResume(got))
				if err != nil {
					t.Fatalf("resumed (FailedCodes only: %v): %v", only, err)
				}
				if len(more) != len(ask) {
					t.Errorf("resumed (FailedCodes only: %v): %d codes, want %d", only, len(more), len(ask))
				}
				all := maps.Clone(got)
				maps.Copy(all, more)
				for _, code := range codes {
					if want := wants[code]; !sameKlines(want, all[code]) {
						t.Fatalf("%s after resuming (FailedCodes only: %v) (-want +got):\n%s", code, only, cmp.Diff(want, all[code]))
					}
				}
				if n := again.answered(); n != need {
					t.Errorf("resumed (FailedCodes only: %v): %d requests, want %d for what was missing", only, n, need)
				}
				if n := first.answered() + again.answered(); !tt.refused && n != uninterrupted+topUps {
					t.Errorf("%d requests in all, want %d as uninterrupted and %d to top up", n, uninterrupted, topUps)
				}
			}
		})
	}
}

// TestKlineRangeResumeOneCode resumes the single-code call: only the
// newest candle it was given, and the pages before the oldest, are asked
// for.
func TestKlineRangeResumeOneCode(t *testing.T) {
	t.Parallel()
	s := &histService{series: minuteHistory([]string{"BTCUSDT"})}
	all := s.want("BTCUSDT", histFrom, histTo)
	c := newServerClient(t, httptest.NewServer(s), testToken)
	for _, tt := range []struct {
		name     string
		have     []itick.Kline
		requests int
	}{
		// One request tops up the newest candle, then pages go on from
		// the oldest.
		{"the newest 1000 candles", all[2000:], 1 + 4},
		{"the newest 999 candles", all[2001:], 1 + 5},
		{"all of them", all, 1},
		{"none", nil, 6},
	} {
		before := s.answered()
		got, err := c.Crypto.KlineRange(t.Context(), itick.RegionBA, "BTCUSDT", itick.OneMinute, histFrom, histTo,
			itick.WithResume(map[string][]itick.Kline{"BTCUSDT": tt.have}))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(all, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if n := s.answered() - before; n != tt.requests {
			t.Errorf("%s: %d requests, want %d", tt.name, n, tt.requests)
		}
	}
}

// TestKlinesRangeResumeTakesHaveAsItComes gives WithResume what a careless
// caller might: codes with no candles, candles outside the range, out of
// order or twice, keys with spaces, codes not asked for. Each is read as
// the Backfilling section says, and have is left as it was.
func TestKlinesRangeResumeTakesHaveAsItComes(t *testing.T) {
	t.Parallel()
	codes := []string{"A", "B"}
	full := (&histService{series: minuteHistory(codes)}).want("A", histFrom, histTo)
	fullB := (&histService{series: minuteHistory(codes)}).want("B", histFrom, histTo)
	outside := []itick.Kline{histCandle("A", histFrom.Add(-time.Hour).UnixMilli()), histCandle("A", histTo.UnixMilli()),
		histCandle("A", histTo.Add(time.Hour).UnixMilli())}
	shuffled := slices.Clone(full[2500:])
	shuffled = append(shuffled, full[2700:2800]...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	tests := []struct {
		name     string
		have     map[string][]itick.Kline
		requests int // A and B share the chunk when they lack the same
	}{
		{"no have", nil, 6},
		{"an empty map", map[string][]itick.Kline{}, 6},
		{"A with an empty slice is fetched whole", map[string][]itick.Kline{"A": {}, "B": fullB}, 6},
		{"A with nil is fetched whole", map[string][]itick.Kline{"A": nil}, 6},
		{"only candles outside the range: fetched whole", map[string][]itick.Kline{"A": outside, "B": fullB}, 6},
		// A code held tops up its newest candle in the first request, which
		// A and B share, then pages on from its oldest.
		{"candles outside the range are dropped", map[string][]itick.Kline{"A": append(slices.Clone(full[1000:]), outside...), "B": fullB}, 1 + 2},
		{"out of order and twice", map[string][]itick.Kline{"A": shuffled, "B": fullB}, 1 + 5},
		{"a key with spaces", map[string][]itick.Kline{" A ": full[1000:], "B": fullB}, 1 + 2},
		{"two keys of one code", map[string][]itick.Kline{" A": full[1000:2000], "A": full[2000:], "B": fullB}, 1 + 2},
		{"codes not asked for", map[string][]itick.Kline{"Z": full, "A,B": full, "": full}, 6},
		{"everything already there", map[string][]itick.Kline{"A": full, "B": fullB}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &histService{series: minuteHistory(codes)}
			c := newServerClient(t, httptest.NewServer(s), testToken)
			before := cloneHave(tt.have)
			got, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo,
				itick.WithResume(tt.have))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]itick.Kline{"A": full, "B": fullB}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if n := s.answered(); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if diff := cmp.Diff(before, tt.have); diff != "" {
				t.Errorf("have was changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestKlinesRangeResumeAgainstTheSimulator spends the simulator's quota
// part-way through two years of daily candles of 50 US stocks, then
// resumes the failed codes each time the quota window has passed: the
// result is the simulator's series, and the calls' answered requests are
// the ideal ones of one call, 5 chunks x 2 pages, and one per chunk of
// each resumed call to top up the newest candle held.
func TestKlinesRangeResumeAgainstTheSimulator(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(time.Date(2025, 6, 2, 21, 0, 0, 0, time.UTC)) // a Monday, after the close
	c, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(itick.PlanBase), markettest.WithClock(clock.Now), markettest.WithQuota(6)},
		itick.WithRetries(0))
	codes := histCodes(50)
	from, to := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, codes, itick.OneDay, from, to)
	var be *itick.BatchError
	if !errors.As(err, &be) || !errors.Is(err, itick.ErrRateLimited) || len(be.FailedCodes()) != 40 {
		t.Fatalf("first call: error %v, want a *BatchError of 40 codes for the spent quota", err)
	}
	topUps := 0
	for resumed := 0; err != nil; resumed++ {
		if !errors.As(err, &be) || !errors.Is(err, itick.ErrRateLimited) || resumed == 3 {
			t.Fatalf("after %d resumed calls: %v, want a spent quota and fewer calls", resumed, err)
		}
		clock.Advance(61 * time.Second)
		failed := be.FailedCodes()
		topUps += (len(failed) + 9) / 10
		var more map[string][]itick.Kline
		more, err = c.Stock.KlinesRange(t.Context(), itick.RegionUS, failed, itick.OneDay, from, to, itick.WithResume(got))
		maps.Copy(got, more)
	}
	for _, code := range codes {
		if diff := cmp.Diff(srv.Series(markettest.Stock, itick.RegionUS, code, itick.OneDay, from, to), got[code]); diff != "" {
			t.Fatalf("%s (-simulator +got):\n%s", code, diff)
		}
	}
	answered := 0
	for _, r := range srv.Requests() {
		if r.Status == http.StatusOK {
			answered++
		}
	}
	if want := 10 + topUps; answered != want {
		t.Errorf("%d requests answered over every call, want %d: 10 and %d top-ups", answered, want, topUps)
	}
}
