package itick_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Range calls that cannot go on: arguments that make no sense, a chunk
// that fails, a 429 not waited out, a refused token, a cancelled context.

// TestKlineRangeValidation checks every argument that makes no sense:
// ErrInvalidArgument naming it, and nothing sent.
func TestKlineRangeValidation(t *testing.T) {
	t.Parallel()
	var zero time.Time
	tests := []struct {
		name     string
		interval itick.Interval
		from, to time.Time
		opts     []itick.KlineOption
		want     string
	}{
		{"from after to", itick.OneDay, rangeTo, rangeFrom, nil, "not before"},
		{"from equals to", itick.OneDay, rangeTo, rangeTo, nil, "not before"},
		{"zero from", itick.OneDay, zero, rangeTo, nil, "from"},
		{"zero to", itick.OneDay, rangeFrom, zero, nil, "to"},
		{"unknown interval", 11, rangeFrom, rangeTo, nil, "interval"},
		{"interval 0", 0, rangeFrom, rangeTo, nil, "interval"},
		{"WithEnd", itick.OneDay, rangeFrom, rangeTo, []itick.KlineOption{itick.WithEnd(rangeTo)}, "WithEnd"},
		{"WithEnd zero", itick.OneDay, rangeFrom, rangeTo, []itick.KlineOption{itick.WithEnd(zero)}, "WithEnd"},
		{"page size 0", itick.OneDay, rangeFrom, rangeTo, []itick.KlineOption{itick.WithPageSize(0)}, "WithPageSize(0)"},
		{"page size 501", itick.OneDay, rangeFrom, rangeTo, []itick.KlineOption{itick.WithPageSize(501)}, "500"},
		{"page size -1", itick.OneDay, rangeFrom, rangeTo, []itick.KlineOption{itick.WithPageSize(-1)}, "-1"},
		{"from before Unix milliseconds", itick.OneDay, time.Date(-300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), rangeTo, nil,
			"range start (from) -300000000-01-01T00:00:00Z is outside the times the service's Unix milliseconds can express"},
		{"to before Unix milliseconds", itick.OneDay, rangeFrom, time.Date(-300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), nil,
			"range end (to)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithLimiter(&countingLimiter{}),
				itick.WithRetries(0))
			mt.RegisterNoResponder(body(http.StatusOK, `{"code":0,"msg":"ok","data":{}}`))
			calls := map[string]func() error{
				"KlineRange": func() error {
					_, err := c.Fund.KlineRange(t.Context(), itick.RegionUS, "QQQ", tt.interval, tt.from, tt.to, tt.opts...)
					return err
				},
				"KlinesRange": func() error {
					_, err := c.Future.KlinesRange(t.Context(), itick.RegionUS, []string{"CL", "GC"}, tt.interval, tt.from, tt.to, tt.opts...)
					return err
				},
			}
			for name, call := range calls {
				err := call()
				if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: error %v, want ErrInvalidArgument naming %q", name, err, tt.want)
				}
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
	c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithLimiter(&countingLimiter{}),
		itick.WithRetries(0))
	mt.RegisterNoResponder(body(http.StatusOK, `{"code":0,"msg":"ok","data":{}}`))
	for _, opt := range []itick.KlineOption{itick.WithPageSize(100), itick.WithProgress(func(itick.RangeProgress) {})} {
		_, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"A"}, itick.OneDay, 10, opt)
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Klines with a range option: error %v, want ErrInvalidArgument", err)
		}
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestKlinesRangeFailureKeepsWhatArrived fails one chunk's second page:
// the other chunks' ranges complete, the failed codes keep their newest
// page, and the *BatchError names exactly them.
func TestKlinesRangeFailureKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	history := weekdays(rangeFrom.AddDate(-1, 0, 0), rangeTo)
	s := &rangeService{series: map[string][]int64{}}
	codes := []string{"A", "B", "C", "D", "E"}
	for _, c := range codes {
		s.series[c] = history
	}
	var pages sync.Map // chunk's first code -> requests seen
	s.fail = func(n int, codes []string) (int, string, string) {
		v, _ := pages.LoadOrStore(codes[0], new(atomic.Int32))
		if v.(*atomic.Int32).Add(1) >= 2 && codes[0] == "C" {
			return http.StatusBadRequest, `{"code":400,"msg":"bad day","data":null}`, ""
		}
		return 0, "", ""
	}
	c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, codes, itick.OneDay, rangeFrom, rangeTo, itick.WithPageSize(100))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("error %v, want a *BatchError", err)
	}
	if diff := cmp.Diff([]string{"C", "D"}, be.FailedCodes()); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 {
		t.Errorf("error %v does not carry the chunk's *APIError", err)
	}
	for _, code := range []string{"A", "B", "E"} {
		if diff := cmp.Diff(s.want(code, rangeFrom, rangeTo), got[code]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", code, diff)
		}
	}
	for _, code := range []string{"C", "D"} {
		all := s.want(code, rangeFrom, rangeTo)
		if diff := cmp.Diff(all[len(all)-100:], got[code]); diff != "" {
			t.Errorf("%s keeps its newest page (-want +got):\n%s", code, diff)
		}
	}
}

// TestKlinesRangeStopsOnALong429 answers the last chunk of the second
// round with a 429 whose Retry-After is not waited out: no further request
// is sent, and every unfinished code is named with that 429. (Whether a
// batch call sends its other chunks after such a 429 is the batch
// plumbing's rule; the 429 comes last here so the test is about the range.)
func TestKlinesRangeStopsOnALong429(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{}}
	codes := []string{"A", "B", "C", "D"}
	for _, c := range codes {
		s.series[c] = weekdays(rangeFrom.AddDate(-1, 0, 0), rangeTo)
	}
	s.fail = func(n int, codes []string) (int, string, string) {
		if n == 4 {
			return http.StatusTooManyRequests, `{"message":"API rate limit exceeded"}`, "3600"
		}
		return 0, "", ""
	}
	c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(2), itick.WithConcurrency(1))
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, codes, itick.OneDay, rangeFrom, rangeTo, itick.WithPageSize(100))
	if !errors.Is(err, itick.ErrRateLimited) {
		t.Fatalf("error %v, want ErrRateLimited", err)
	}
	var be *itick.BatchError
	if !errors.As(err, &be) || len(be.FailedCodes()) != 4 {
		t.Fatalf("error %v, want a *BatchError naming all four codes", err)
	}
	for _, ce := range be.Chunks {
		if !errors.Is(ce.Err, itick.ErrRateLimited) {
			t.Errorf("chunk %v: %v, want the 429", ce.Codes, ce.Err)
		}
	}
	if n := s.count(); n != 4 {
		t.Errorf("%d requests, want 4: none after the 429", n)
	}
	if len(got["A"]) != 200 || len(got["C"]) != 100 {
		t.Errorf("kept %d and %d candles, want the two pages and the one page that arrived", len(got["A"]), len(got["C"]))
	}
}

// TestKlinesRangeUnauthorized gives ErrUnauthorized back as it is, with
// no results, as a batch call does.
func TestKlinesRangeUnauthorized(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{"A": weekdays(rangeFrom, rangeTo), "B": weekdays(rangeFrom, rangeTo)}}
	s.fail = func(n int, codes []string) (int, string, string) {
		if n >= 2 {
			return http.StatusUnauthorized, `{"message":"Invalid API key in request"}`, ""
		}
		return 0, "", ""
	}
	c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithBatchSize(1), itick.WithConcurrency(1))
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, []string{"A", "B"}, itick.OneDay, rangeFrom, rangeTo, itick.WithPageSize(100))
	var be *itick.BatchError
	if !errors.Is(err, itick.ErrUnauthorized) || errors.As(err, &be) || got != nil {
		t.Fatalf("got %d codes, error %v; want none and ErrUnauthorized as it is", len(got), err)
	}
}

// TestKlineRangeCancelReturnsAtOnce cancels a range call while it waits
// on the limiter.
func TestKlineRangeCancelReturnsAtOnce(t *testing.T) {
	t.Parallel()
	s := &rangeService{series: map[string][]int64{"A": weekdays(rangeFrom, rangeTo), "B": weekdays(rangeFrom, rangeTo)}}
	for _, multi := range []bool{false, true} {
		lim := &blockingLimiter{entered: make(chan struct{}, 1)}
		c := newServerClient(t, httptest.NewServer(s), testToken, itick.WithLimiter(lim))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			var err error
			if multi {
				_, err = c.Stock.KlinesRange(ctx, itick.RegionUS, []string{"A", "B"}, itick.OneDay, rangeFrom, rangeTo)
			} else {
				_, err = c.Stock.KlineRange(ctx, itick.RegionUS, "A", itick.OneDay, rangeFrom, rangeTo)
			}
			done <- err
		}()
		waitOrFail(t, lim.entered, "the limiter wait")
		cancel()
		if err := waitOrFail(t, done, "the cancelled call"); !errors.Is(err, context.Canceled) {
			t.Errorf("multi %v: error %v, want context.Canceled", multi, err)
		}
	}
	if n := s.count(); n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
}

// TestResumeAndClosedOnlyValidation: WithResume outside a range call, and
// a have that cannot be a range's candles, are ErrInvalidArgument naming
// what is wrong, and nothing is sent.
func TestResumeAndClosedOnlyValidation(t *testing.T) {
	t.Parallel()
	s := &histService{series: minuteHistory([]string{"A"})}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	ctx := t.Context()
	have := map[string][]itick.Kline{"A": nil}
	dense := map[string][]itick.Kline{"A": {histCandle("A", histTo.Add(-2*time.Hour).UnixMilli()),
		histCandle("A", histTo.Add(-2*time.Hour).UnixMilli()+30000)}}
	weeks := map[string][]itick.Kline{"A": {}}
	for i := range 6 { // more than the 5 weeks that 4 weeks can touch
		weeks["A"] = append(weeks["A"], histCandle("A", histFrom.Add(time.Duration(i)*time.Hour).UnixMilli()))
	}
	calls := []struct {
		name string
		call func() error
		want string
	}{
		{"Kline with WithResume", func() error {
			_, err := c.Crypto.Kline(ctx, itick.RegionBA, "A", itick.OneMinute, 10, itick.WithResume(have))
			return err
		}, "WithResume"},
		{"Klines with WithResume", func() error {
			_, err := c.Stock.Klines(ctx, itick.RegionUS, []string{"A"}, itick.OneMinute, 10, itick.WithResume(nil))
			return err
		}, "WithResume"},
		{"candles 30 s apart in have", func() error {
			_, err := c.Crypto.KlinesRange(ctx, itick.RegionBA, []string{"A"}, itick.OneMinute, histFrom, histTo, itick.WithResume(dense))
			return err
		}, "candles of A at 2025-03-10T10:00:00Z and 2025-03-10T10:00:30Z are 30s apart"},
		{"more week candles than the range can hold", func() error {
			_, err := c.Crypto.KlineRange(ctx, itick.RegionBA, "A", itick.OneWeek, histFrom, histFrom.AddDate(0, 0, 28), itick.WithResume(weeks))
			return err
		}, "candles of A number over 5"},
	}
	for _, tt := range calls {
		if err := tt.call(); !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want ErrInvalidArgument naming %q", tt.name, err, tt.want)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
