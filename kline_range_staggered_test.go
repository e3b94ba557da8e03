package itick_test

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Codes whose newest candles differ, as illiquid and halted products' do,
// share their range requests.

// staggered gives each code a candle a minute (every other minute for a
// share of them, when sparse) for 4000 minutes before its own newest
// candle, which is lag(i) before histTo.
func staggered(codes []string, lag func(i int) time.Duration, sparse func(i int) bool) map[string][]int64 {
	m := make(map[string][]int64, len(codes))
	for i, c := range codes {
		times := histTimes(histTo.Add(-time.Minute-lag(i)), 4000, time.Minute)
		if sparse != nil && sparse(i) {
			times = slices.DeleteFunc(times, func(t int64) bool { return t/60000%3 == 1 })
		}
		m[c] = times
	}
	return m
}

// idealRequests is one request per page per chunk: for each chunk of
// codes, in order, the pages its longest range needs.
func idealRequests(s *histService, codes []string, from time.Time, batch, page int) int {
	total := 0
	for i := 0; i < len(codes); i += batch {
		most := 0
		for _, c := range codes[i:min(i+batch, len(codes))] {
			most = max(most, len(s.want(c, from, histTo)))
		}
		total += (most + page - 1) / page
	}
	return total
}

// TestKlinesRangeSharesRequestsAcrossStaggeredEnds runs codes whose newest
// candles differ, as illiquid and halted products' do: the result is
// exact, and the requests stay close to one per page per chunk.
func TestKlinesRangeSharesRequestsAcrossStaggeredEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		codes  int
		batch  int
		page   int
		span   time.Duration // of the range, ending at histTo
		lag    func(i int) time.Duration
		sparse func(i int) bool
		short  int     // shortAfter
		most   float64 // requests allowed per ideal one
	}{
		{"ten codes a minute apart", 10, 20, 500, 3000 * time.Minute,
			func(i int) time.Duration { return time.Duration(i) * time.Minute }, nil, 0, 1},
		{"500 codes up to an hour apart", 500, 20, 50, 300 * time.Minute,
			func(i int) time.Duration { return time.Duration(i*37%60) * time.Minute }, nil, 0, 1.1},
		{"halted for a day and minutes", 30, 10, 500, 3000 * time.Minute, func(i int) time.Duration {
			return time.Duration(i%3)*24*time.Hour + time.Duration(i%7)*time.Minute
		}, nil, 0, 1},
		{"every third code sparse", 60, 20, 500, 3000 * time.Minute, func(i int) time.Duration { return time.Duration(i%5) * time.Minute },
			func(i int) bool { return i%3 == 0 }, 0, 1},
		{"later pages cut to 30 candles", 20, 10, 500, 3000 * time.Minute,
			func(i int) time.Duration { return time.Duration(i) * 3 * time.Minute }, nil, 30, 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			codes := histCodes(tt.codes)
			s := &histService{series: staggered(codes, tt.lag, tt.sparse), shortAfter: tt.short}
			c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(tt.batch))
			from := histTo.Add(-tt.span)
			got, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, from, histTo,
				itick.WithPageSize(tt.page))
			if err != nil {
				t.Fatal(err)
			}
			for _, code := range codes {
				if want := s.want(code, from, histTo); !sameKlines(want, got[code]) {
					t.Fatalf("%s (-want +got):\n%s", code, cmp.Diff(want, got[code]))
				}
			}
			perPage := tt.page
			if tt.short > 0 {
				perPage = tt.short // what the service sends, after the first page
			}
			n, ideal := s.answered(), idealRequests(s, codes, from, tt.batch, perPage)
			t.Logf("%d requests, ideal %d", n, ideal)
			if float64(n) > tt.most*float64(ideal) {
				t.Errorf("%d requests, want at most %.2f x the ideal %d", n, tt.most, ideal)
			}
		})
	}
}

// BenchmarkKlinesRangeStaggered backfills 3000 minutes of 500 codes whose
// newest candles differ by up to an hour (halted), and the same with every
// third code trading every other two minutes of three (sparse), in chunks
// of 20. It reports the requests sent per ideal request, one per page per
// chunk; the goal is at most 1.1.
func BenchmarkKlinesRangeStaggered(b *testing.B) {
	codes := histCodes(500)
	lag := func(i int) time.Duration { return time.Duration(i*37%60) * time.Minute }
	for _, bb := range []struct {
		name   string
		sparse func(i int) bool
	}{
		{"halted", nil},
		{"sparse", func(i int) bool { return i%3 == 0 }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			series := staggered(codes, lag, bb.sparse)
			var requests, ideal int
			for b.Loop() {
				s := &histService{series: series}
				c := newServerClient(b, httptest.NewServer(s), testToken, itick.WithBatchSize(20))
				if _, err := c.Crypto.KlinesRange(b.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo); err != nil {
					b.Fatal(err)
				}
				requests, ideal = s.answered(), idealRequests(s, codes, histFrom, 20, 500)
			}
			b.ReportMetric(float64(requests)/float64(ideal), "requests/ideal")
			b.ReportMetric(float64(requests), "requests")
		})
	}
}
