package itick_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick"
)

// Fake K-line services with a fixed history per code, for the range tests.

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
