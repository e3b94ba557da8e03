package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of KlineRange and KlinesRange, which page through the history
// between two times.

// rangeService is a K-line service with a fixed history per code that can
// misbehave in the ways a range call must tolerate.
type rangeService struct {
	series map[string][]int64 // candle times per code, oldest first, Unix ms

	exclusive bool // et excludes a candle at et; otherwise includes it
	overlap   int  // candles newer than et added to each page
	maxLimit  int  // the most candles a page holds; 0: as asked
	ignoreEt  bool // every page is the newest one
	newest    bool // candles newest first
	repeat    bool // every candle twice

	// fail, when set, may answer a request instead: it gets the request's
	// number (from 1) and its codes.
	fail func(n int, codes []string) (status int, body string, retryAfter string)

	mu       sync.Mutex
	requests []string // raw queries, in arrival order
}

// want returns code's candles with from <= Time < to.
func (s *rangeService) want(code string, from, to time.Time) []itick.Kline {
	var out []itick.Kline
	for _, t := range s.series[code] {
		if t >= from.UnixMilli() && t < to.UnixMilli() {
			out = append(out, candleAt(code, t))
		}
	}
	return out
}

func (s *rangeService) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *rangeService) queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *rangeService) page(code string, et int64, hasEt bool, limit int) []map[string]any {
	times := s.series[code]
	end := len(times)
	if hasEt && !s.ignoreEt {
		end = sort.Search(len(times), func(i int) bool {
			if s.exclusive {
				return times[i] >= et
			}
			return times[i] > et
		})
	}
	if s.maxLimit > 0 {
		limit = min(limit, s.maxLimit)
	}
	lo, hi := max(0, end-limit), min(len(times), end+s.overlap)
	var out []map[string]any
	for _, t := range times[lo:hi] {
		k := candleAt(code, t)
		m := map[string]any{"t": t, "o": k.Open, "h": k.High, "l": k.Low, "c": k.Close, "v": k.Volume, "tu": k.Turnover}
		out = append(out, m)
		if s.repeat {
			out = append(out, m)
		}
	}
	if s.newest {
		slices.Reverse(out)
	}
	return out
}

func (s *rangeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RawQuery)
	n := len(s.requests)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	codes := strings.Split(q.Get("codes"), ",")
	if q.Has("code") {
		codes = []string{q.Get("code")}
	}
	if s.fail != nil {
		if status, body, ra := s.fail(n, codes); status != 0 {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(status)
			fmt.Fprint(w, body)
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	et, err := strconv.ParseInt(q.Get("et"), 10, 64)
	hasEt := err == nil
	var data any
	if strings.HasSuffix(r.URL.Path, "/klines") {
		m := map[string]any{}
		for _, c := range codes {
			if _, ok := s.series[c]; ok {
				m[c] = s.page(c, et, hasEt, limit)
			}
		}
		data = m
	} else {
		data = s.page(codes[0], et, hasEt, limit)
	}
	json.NewEncoder(w).Encode(map[string]any{"code": 0, "msg": "ok", "data": data})
}

// weekdays returns 00:00 UTC of every weekday from first to last.
func weekdays(first, last time.Time) []int64 {
	var out []int64
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		if d.Weekday() != time.Saturday && d.Weekday() != time.Sunday {
			out = append(out, d.UnixMilli())
		}
	}
	return out
}

// candleAt is the candle the service sends for code at t, so a test can
// say what it expects.
func candleAt(code string, t int64) itick.Kline {
	x := float64(t/86400000%1000) + float64(len(code))
	return itick.Kline{Time: ms(t), Open: x, High: x + 2, Low: x - 1, Close: x + 1, Volume: 100, Turnover: 100 * x}
}

var (
	rangeFrom = time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)
	rangeTo   = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
)

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

// Resuming, bad data, staggered ends and WithClosedOnly, against a
// service over a fixed minute history.

// histService is a K-line service over a fixed history per code that can
// lie, fail part-way and shorten its pages. et is inclusive.
type histService struct {
	series map[string][]int64 // candle times per code, oldest first, Unix ms

	// live, when set, replaces series: every code has a candle at each
	// multiple of live from liveFrom up to the one in progress when the
	// request arrives.
	live     time.Duration
	liveFrom time.Time

	ignoreEt bool // every page is the newest one
	// shortAfter, when set, caps every page after the first request at
	// that many candles.
	shortAfter int
	// lie may change the candle times sent for code in request n (from 1).
	lie func(n int, code string, page []int64) []int64
	// fail may answer request n with status (and Retry-After) instead.
	fail func(n int, codes []string) (status int, retryAfter string)

	mu   sync.Mutex
	reqs []histRequest
}

// histRequest is what the service saw of one request.
type histRequest struct {
	codes []string
	et    int64 // 0: none
	ok    bool  // answered with data
}

// histCandle is the candle the service sends for code at t.
func histCandle(code string, t int64) itick.Kline {
	x := float64(t/60000%977) + float64(len(code))
	return itick.Kline{Time: time.UnixMilli(t).UTC(), Open: x, High: x + 2, Low: x - 1, Close: x + 1, Volume: 10, Turnover: 10 * x}
}

// histTimes returns n times step apart, the last at last.
func histTimes(last time.Time, n int, step time.Duration) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = last.Add(-time.Duration(n-1-i) * step).UnixMilli()
	}
	return out
}

// want returns code's candles with from <= Time < to.
func (s *histService) want(code string, from, to time.Time) []itick.Kline {
	var out []itick.Kline
	for _, t := range s.series[code] {
		if t >= from.UnixMilli() && t < to.UnixMilli() {
			out = append(out, histCandle(code, t))
		}
	}
	return out
}

// requests returns what the service saw, in arrival order.
func (s *histService) requests() []histRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// answered counts the requests answered with data.
func (s *histService) answered() int {
	n := 0
	for _, r := range s.requests() {
		if r.ok {
			n++
		}
	}
	return n
}

func (s *histService) times(code string, now time.Time) []int64 {
	if s.live == 0 {
		return s.series[code]
	}
	var out []int64
	for t := s.liveFrom; !t.After(now); t = t.Add(s.live) {
		out = append(out, t.UnixMilli())
	}
	return out
}

func (s *histService) page(n int, code string, et int64, limit int, now time.Time) []int64 {
	times := s.times(code, now)
	end := len(times)
	if et != 0 && !s.ignoreEt {
		end, _ = slices.BinarySearch(times, et+1)
	}
	if s.shortAfter > 0 && n > 1 {
		limit = min(limit, s.shortAfter)
	}
	page := times[max(0, end-limit):end]
	if s.lie != nil {
		page = s.lie(n, code, slices.Clone(page))
	}
	return page
}

func (s *histService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	q := r.URL.Query()
	codes := strings.Split(q.Get("codes"), ",")
	single := q.Has("code")
	if single {
		codes = []string{q.Get("code")}
	}
	et, _ := strconv.ParseInt(q.Get("et"), 10, 64)
	s.mu.Lock()
	s.reqs = append(s.reqs, histRequest{codes: codes, et: et})
	n := len(s.reqs)
	s.mu.Unlock()
	if s.fail != nil {
		if status, ra := s.fail(n, codes); status != 0 {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"code":%d,"msg":"refused","data":null}`, status)
			return
		}
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	b := []byte(`{"code":0,"msg":null,"data":`)
	if !single {
		b = append(b, '{')
	}
	for i, code := range codes {
		if !single {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, code)
			b = append(b, ':')
		}
		b = append(b, '[')
		for j, t := range s.page(n, code, et, limit, now) {
			if j > 0 {
				b = append(b, ',')
			}
			k := histCandle(code, t)
			b = strconv.AppendInt(append(b, `{"t":`...), t, 10)
			for i, x := range [...]float64{k.Open, k.High, k.Low, k.Close, k.Volume, k.Turnover} {
				b = strconv.AppendFloat(append(b, histFields[i]...), x, 'g', -1, 64)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if !single {
		b = append(b, '}')
	}
	b = append(b, '}')
	s.mu.Lock()
	s.reqs[n-1].ok = true
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

var histFields = [...]string{`,"o":`, `,"h":`, `,"l":`, `,"c":`, `,"v":`, `,"tu":`}

// newHistClient starts s and returns a client for it with no pacing and
// short backoffs; opts come last.
func newHistClient(t testing.TB, s *histService, opts ...itick.Option) *itick.Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	all := []itick.Option{itick.WithBaseURL(srv.URL), itick.WithRateLimit(rate.Inf, 0),
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond)}
	c, err := itick.NewClient("hist-token-0c9d1e", append(all, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameKlines is a quick cmp.Diff(a, b) == "" for long series.
func sameKlines(a, b []itick.Kline) bool {
	return slices.EqualFunc(a, b, func(x, y itick.Kline) bool {
		return x.Time.Equal(y.Time) && x.Open == y.Open && x.High == y.High && x.Low == y.Low &&
			x.Close == y.Close && x.Volume == y.Volume && x.Turnover == y.Turnover
	})
}

// histCodes returns n codes C00, C01, ...
func histCodes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%02d", i)
	}
	return out
}

// histFrom and histTo bound 3000 minutes of candles: six pages of 500.
var (
	histTo   = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	histFrom = histTo.Add(-3000 * time.Minute)
)

// minuteHistory gives each code a candle every minute for 4000 minutes
// before histTo: the range and a thousand before it.
func minuteHistory(codes []string) map[string][]int64 {
	times := histTimes(histTo.Add(-time.Minute), 4000, time.Minute)
	m := make(map[string][]int64, len(codes))
	for _, c := range codes {
		m[c] = times
	}
	return m
}

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
	c := newHistClient(t, whole, itick.WithBatchSize(20))
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
			c := newHistClient(t, first, itick.WithBatchSize(20), itick.WithRetries(0), itick.WithConcurrency(1))
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
				c := newHistClient(t, again, itick.WithBatchSize(20))
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
	c := newHistClient(t, s)
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
			c := newHistClient(t, s)
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

func cloneHave(m map[string][]itick.Kline) map[string][]itick.Kline {
	if m == nil {
		return nil
	}
	out := make(map[string][]itick.Kline, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// TestResumeAndClosedOnlyValidation: WithResume outside a range call, and
// a have that cannot be a range's candles, are ErrInvalidArgument naming
// what is wrong, and nothing is sent.
func TestResumeAndClosedOnlyValidation(t *testing.T) {
	t.Parallel()
	s := &histService{series: minuteHistory([]string{"A"})}
	c := newHistClient(t, s)
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
			c := newHistClient(t, s, itick.WithBatchSize(tt.batch))
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
			c := newHistClient(t, s)
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
			c := newHistClient(t, s)
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
			c = newHistClient(t, s)
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
				c := newHistClient(t, s)
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
	c := newHistClient(t, s)
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
	c := newHistClient(t, s)
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

// TestKlinesRangeResumeAgainstTheSimulator spends the simulator's quota
// part-way through two years of daily candles of 50 US stocks, then
// resumes the failed codes each time the quota window has passed: the
// result is the simulator's series, and the calls' answered requests are
// the ideal ones of one call, 5 chunks x 2 pages, and one per chunk of
// each resumed call to top up the newest candle held.
func TestKlinesRangeResumeAgainstTheSimulator(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(time.Date(2025, 6, 2, 21, 0, 0, 0, time.UTC)) // a Monday, after the close
	srv := markettest.NewServer(markettest.WithPlan(itick.PlanBase), markettest.WithClock(clock.Now), markettest.WithQuota(6))
	t.Cleanup(srv.Close)
	c, err := srv.Client(itick.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
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
				c := newHistClient(b, s, itick.WithBatchSize(20))
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

// Progress is reported one page at a time, in order, though a round's
// requests are in flight at once.
func TestKlinesRangeProgressIsNeverConcurrent(t *testing.T) {
	t.Parallel()
	codes := histCodes(40)
	s := &histService{series: minuteHistory(codes)}
	c := newHistClient(t, s, itick.WithBatchSize(2), itick.WithConcurrency(8))
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
