package itick_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// WithProgress and the range's debug log: one report and one line a page.

// countHandler counts the log records with a given message.
type countHandler struct {
	n   *atomic.Int32
	msg string
}

func (h countHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h countHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg && r.Level == slog.LevelDebug {
		h.n.Add(1)
	}
	return nil
}

func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h countHandler) WithGroup(string) slog.Handler { return h }

// TestKlinesRangeProgressAndLog checks that every page waits on the
// limiter, is one debug line, and is one progress report, the last of
// which accounts for every request and candle.
func TestKlinesRangeProgressAndLog(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{}}
	codes := []string{"A", "B", "C", "D", "E"}
	for _, c := range codes {
		s.series[c] = weekdays(rangeFrom.AddDate(-1, 0, 0), rangeTo)
	}
	var logged atomic.Int32
	logger := slog.New(countHandler{&logged, "itick kline range page"})
	lim := &countingLimiter{}
	c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(2), itick.WithLimiter(lim), itick.WithLogger(logger))
	var reports []itick.RangeProgress
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, codes, itick.OneDay, rangeFrom, rangeTo,
		itick.WithPageSize(50), itick.WithProgress(func(p itick.RangeProgress) { reports = append(reports, p) }))
	if err != nil {
		t.Fatal(err)
	}
	n := s.count()
	if len(reports) != n || int(logged.Load()) != n || int(lim.n.Load()) != n {
		t.Fatalf("%d requests, %d reports, %d log lines, %d limiter waits; want all equal", n, len(reports), logged.Load(), lim.n.Load())
	}
	total := 0
	for _, ks := range got {
		total += len(ks)
	}
	last := reports[len(reports)-1]
	if last.Requests != n || last.Candles != total || last.Done != 5 || last.Codes != 5 || last.Fraction() != 1 ||
		!last.Reached.Equal(rangeFrom) || !last.From.Equal(rangeFrom) || !last.To.Equal(rangeTo) {
		t.Errorf("last report %+v, want %d requests, %d candles, 5 of 5 done", last, n, total)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Fraction() < reports[i-1].Fraction() || reports[i].Reached.After(reports[i-1].Reached) {
			t.Errorf("report %d went backwards: %+v after %+v", i, reports[i], reports[i-1])
		}
	}
}

// Progress is reported one page at a time, in order, though a round's
// requests are in flight at once.
func TestKlinesRangeProgressIsNeverConcurrent(t *testing.T) {
	t.Parallel()
	codes := histCodes(40)
	s := &histService{series: minuteHistory(codes)}
	c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(2), itick.WithConcurrency(8))
	var inside, overlaps atomic.Int32
	var reports []itick.RangeProgress
	_, err := c.Crypto.KlinesRange(t.Context(), itick.RegionBA, codes, itick.OneMinute, histFrom, histTo,
		itick.WithProgress(func(p itick.RangeProgress) {
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(100 * time.Microsecond) // widen the window another call would overlap
			reports = append(reports, p)
			inside.Add(-1)
		}))
	if err != nil {
		t.Fatal(err)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d progress calls overlapped another", n)
	}
	if len(reports) != s.answered() {
		t.Fatalf("%d reports for %d requests", len(reports), s.answered())
	}
	for i, p := range reports {
		if p.Requests != i+1 || i > 0 && (p.Done < reports[i-1].Done || p.Candles < reports[i-1].Candles) {
			t.Errorf("report %d: %+v after %+v, want one more request and nothing less", i, p, reports[max(i-1, 0)])
		}
	}
}
