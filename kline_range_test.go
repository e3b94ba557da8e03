package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// TestKlineRangeStopsOnARepeatedPage is a service that ignores et: the
// second page brings nothing older and ends the call instead of looping.
func TestKlineRangeStopsOnARepeatedPage(t *testing.T) {
	t.Parallel()
	to := time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	s := &rangeService{ignoreEt: true, series: map[string][]int64{"A": weekdays(rangeFrom, to), "B": weekdays(rangeFrom, to)}}
	c := newServerClient(t, httptest.NewServer(s), testToken)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	got, err := c.Crypto.KlineRange(ctx, itick.RegionBA, "A", itick.OneDay, rangeFrom, rangeTo.AddDate(1, 0, 0), itick.WithPageSize(50))
	if err != nil {
		t.Fatal(err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("KlineRange sent %d requests, want 2", n)
	}
	all := s.want("A", rangeFrom, to.AddDate(0, 0, 1))
	if diff := cmp.Diff(all[len(all)-50:], got); diff != "" {
		t.Errorf("KlineRange (-want the newest page +got):\n%s", diff)
	}
	m, err := c.Crypto.KlinesRange(ctx, itick.RegionBA, []string{"A", "B"}, itick.OneDay, rangeFrom, rangeTo.AddDate(1, 0, 0), itick.WithPageSize(50))
	if err != nil {
		t.Fatal(err)
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
