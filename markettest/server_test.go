package markettest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// fixedNow is the clock of tests that need reproducible data.
var fixedNow = time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// newServer starts a server on fixedNow's clock unless opts set another,
// closed with the test.
func newServer(t *testing.T, opts ...markettest.Option) *markettest.Server {
	t.Helper()
	srv := markettest.NewServer(append([]markettest.Option{markettest.WithFixedClock(fixedNow)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// get sends one GET with token (none when empty) and reads the whole reply.
func get(t *testing.T, srv *markettest.Server, pathAndQuery, token string) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+pathAndQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", pathAndQuery, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", pathAndQuery, err)
	}
	return reply{resp.StatusCode, resp.Header, body}
}

type envelope struct {
	Code int             `json:"code"`
	Msg  *string         `json:"msg"`
	Data json.RawMessage `json:"data"`
}

func decodeEnvelope(t *testing.T, r reply) envelope {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, body %s", r.status, r.body)
	}
	var env envelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("body is not an envelope: %v: %s", err, r.body)
	}
	return env
}

// queries is a request for every route the server has: validQueries's,
// or one made from the route's required parameters and its class's
// sample products.
func queries(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, path := range markettest.Paths() {
		if q, ok := validQueries[path]; ok {
			out[path] = q
			continue
		}
		required, class, _ := markettest.RouteRequired(path)
		sample, ok := classSamples[class]
		if !ok {
			t.Fatalf("no test query for %s", path)
		}
		v := url.Values{}
		for _, name := range strings.Split(required, ",") {
			val, ok := map[string]string{"region": sample.region, "code": sample.codes[0],
				"codes": strings.Join(sample.codes, ","), "kType": "8", "limit": "3"}[name]
			if !ok {
				t.Fatalf("no test value of %s for %s", name, path)
			}
			v.Set(name, val)
		}
		out[path] = v.Encode()
	}
	for path := range validQueries {
		if _, ok := out[path]; !ok {
			t.Errorf("the test asks %s, which the server does not serve", path)
		}
	}
	return out
}

// classSamples are products each class's routes are asked about when
// validQueries names no request of their own.
var classSamples = map[markettest.Class]struct {
	region string
	codes  []string
}{
	markettest.Stock: {"US", []string{"AAPL", "MSFT"}}, markettest.Crypto: {"BA", []string{"BTCUSDT", "ETHUSDT"}},
	markettest.Forex: {"GB", []string{"EURUSD", "GBPUSD"}}, markettest.Future: {"US", []string{"GC", "CL"}},
	markettest.Fund: {"US", []string{"QQQ", "SPY"}}, markettest.Indices: {"GB", []string{"HSI", "SPX"}},
}

// validQueries are requests of the routes, each chosen for its route.
var validQueries = map[string]string{
	"/stock/depth":        "region=HK&code=700",
	"/stock/depths":       "region=HK&codes=700,5",
	"/stock/quotes":       "region=US&codes=AAPL,MSFT",
	"/stock/klines":       "region=US&codes=AAPL&kType=8&limit=5&exchange=NASDAQ",
	"/stock/split":        "region=US&page=0",
	"/crypto/depth":       "region=BA&code=BTCUSDT",
	"/crypto/depths":      "region=BA&codes=BTCUSDT,ETHUSDT",
	"/crypto/quotes":      "region=BA&codes=BTCUSDT",
	"/crypto/klines":      "region=BA&codes=BTCUSDT&kType=1&limit=3",
	"/forex/depths":       "region=GB&codes=EURUSD",
	"/forex/quotes":       "region=GB&codes=EURUSD,GBPUSD",
	"/forex/klines":       "region=GB&codes=EURUSD&kType=5&limit=3",
	"/future/depths":      "region=US&codes=GC",
	"/future/quotes":      "region=US&codes=GC",
	"/future/klines":      "region=US&codes=GC&kType=2&limit=3",
	"/fund/depths":        "region=US&codes=QQQ",
	"/indices/depths":     "region=GB&codes=HSI",
	"/indices/quotes":     "region=GB&codes=HSI",
	"/indices/klines":     "region=GB&codes=HSI&kType=9&limit=3&et=1700000000000",
	"/news":               "market=stock&lang=en&limit=5",
	"/stock/quote":        "region=US&code=AAPL&exchange=NASDAQ",
	"/stock/kline":        "region=HK&code=700&kType=8&limit=5",
	"/stock/tick":         "region=HK&code=700",
	"/stock/ticks":        "region=US&codes=AAPL,TSLA",
	"/stock/info":         "type=stock&region=US&code=AAPL",
	"/stock/ipo":          "type=upcoming&region=US&page=0",
	"/crypto/quote":       "region=BA&code=BTCUSDT",
	"/crypto/kline":       "region=BA&code=ETHUSDT&kType=1&limit=3",
	"/crypto/tick":        "region=BA&code=BTCUSDT",
	"/crypto/ticks":       "region=BA&codes=BTCUSDT,ETHUSDT",
	"/forex/quote":        "region=GB&code=EURUSD",
	"/forex/kline":        "region=GB&code=EURUSD&kType=5&limit=3",
	"/forex/depth":        "region=GB&code=EURUSD",
	"/forex/tick":         "region=GB&code=EURUSD",
	"/forex/ticks":        "region=GB&codes=EURUSD,GBPUSD",
	"/future/quote":       "region=US&code=GC",
	"/future/kline":       "region=US&code=CL&kType=3&limit=3",
	"/future/depth":       "region=US&code=GC",
	"/future/tick":        "region=US&code=GC",
	"/future/ticks":       "region=US&codes=GC,CL",
	"/fund/quote":         "region=US&code=QQQ",
	"/fund/quotes":        "region=US&codes=QQQ,SPY",
	"/fund/kline":         "region=US&code=QQQ&kType=8&limit=3",
	"/fund/klines":        "region=US&codes=QQQ,SPY&kType=8&limit=3&et=1700000000000",
	"/fund/depth":         "region=US&code=QQQ",
	"/fund/tick":          "region=US&code=QQQ",
	"/fund/ticks":         "region=US&codes=QQQ,SPY",
	"/indices/quote":      "region=GB&code=HSI",
	"/indices/kline":      "region=GB&code=SPX&kType=9&limit=3",
	"/indices/depth":      "region=GB&code=HSI",
	"/indices/tick":       "region=GB&code=HSI",
	"/indices/ticks":      "region=GB&codes=HSI,SPX",
	"/symbol/list":        "type=stock&region=SG",
	"/symbol/info":        "type=stock&region=HK&code=700",
	"/symbol/v2/holidays": "",
	"/symbol/holidays":    "",
	"/market/status":      "code=HK",
	"/news/{id}":          "lang=en",
}

// seedFree are the routes whose answer does not depend on the seed.
var seedFree = map[string]bool{
	"/fund/depths": true, "/indices/depths": true, "/fund/depth": true, "/indices/depth": true,
	"/market/status": true, "/symbol/v2/holidays": true, "/symbol/holidays": true,
	"/symbol/info": true, // a curated listing
}

// msgOK are the routes whose envelope msg is "ok".
var msgOK = map[string]bool{
	"/stock/split": true, "/news": true, "/stock/ipo": true, "/symbol/v2/holidays": true, "/symbol/holidays": true,
	"/news/{id}": true,
}

// target is the path and query that asks path with q: a {id} segment
// becomes the id of the newest article of the server's stock news feed.
func target(srv *markettest.Server, path, q string) string {
	if strings.Contains(path, "{id}") {
		items, _ := srv.Generator().News("stock", "en", time.Time{}, 1, srv.Now())
		if len(items) > 0 {
			path = strings.Replace(path, "{id}", items[0].ID, 1)
		}
	}
	return path + "?" + q
}

func TestEveryRouteAnswersWithTheEnvelope(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	queries := queries(t)
	if got, want := len(markettest.Paths()), len(queries); got != want {
		t.Fatalf("the server has %d routes, the test knows %d", got, want)
	}
	for _, path := range markettest.Paths() {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			q, ok := queries[path]
			if !ok {
				t.Fatalf("no test query for %s", path)
			}
			env := decodeEnvelope(t, get(t, srv, target(srv, path, q), srv.Token))
			if env.Code != 0 {
				t.Fatalf("code %d, msg %v", env.Code, env.Msg)
			}
			wantOK := msgOK[path]
			switch {
			case wantOK && (env.Msg == nil || *env.Msg != "ok"):
				t.Errorf("msg = %v, want \"ok\"", env.Msg)
			case !wantOK && env.Msg != nil:
				t.Errorf("msg = %q, want null", *env.Msg)
			}
			if len(env.Data) == 0 || string(env.Data) == "null" {
				t.Fatalf("no data")
			}
			// Batch endpoints answer one entry per requested code.
			if codes := url.Values(mustParseQuery(t, q)).Get("codes"); codes != "" {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(env.Data, &m); err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, c := range strings.Split(codes, ",") {
					if _, ok := m[c]; ok {
						keys = append(keys, c)
					}
				}
				if diff := cmp.Diff(strings.Split(codes, ","), keys); diff != "" {
					t.Errorf("keys of data (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func mustParseQuery(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTokenIsEnforced(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithToken("secret-1"))
	tests := []struct {
		name, token string
		want        int
	}{
		{"missing", "", http.StatusUnauthorized},
		{"wrong", "secret-2", http.StatusUnauthorized},
		{"right", "secret-1", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, srv, "/stock/quotes?region=HK&codes=700", tt.token)
			if r.status != tt.want {
				t.Fatalf("status %d, want %d", r.status, tt.want)
			}
			if tt.want == http.StatusUnauthorized {
				if diff := cmp.Diff(`{"message":"Invalid API key in request"}`, string(r.body)); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
		})
	}
	if got := srv.Stats().Unauthorized; got != 2 {
		t.Errorf("Stats().Unauthorized = %d, want 2", got)
	}
}

func codesOf(n int) string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = "C" + strconv.Itoa(i)
	}
	return strings.Join(codes, ",")
}

func TestBatchSizeIsEnforced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []markettest.Option
		limit int
	}{
		{"default plan is Base", nil, 10},
		{"Professional", []markettest.Option{markettest.WithPlan(itick.PlanProfessional)}, 20},
		{"Premium", []markettest.Option{markettest.WithPlan(itick.PlanPremium)}, 50},
		{"explicit size", []markettest.Option{markettest.WithPlan(itick.PlanEnterprise), markettest.WithBatchSize(3)}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, tt.opts...)
			if srv.BatchSize() != tt.limit {
				t.Errorf("BatchSize() = %d, want %d", srv.BatchSize(), tt.limit)
			}
			for _, path := range []string{"/stock/quotes?region=US", "/crypto/depths?region=BA", "/forex/klines?region=GB&kType=1&limit=1"} {
				ok := decodeEnvelope(t, get(t, srv, path+"&codes="+codesOf(tt.limit), srv.Token))
				if ok.Code != 0 {
					t.Errorf("%s with %d codes: code %d", path, tt.limit, ok.Code)
				}
				over := decodeEnvelope(t, get(t, srv, path+"&codes="+codesOf(tt.limit+1), srv.Token))
				if over.Code == 0 || over.Msg == nil || !strings.Contains(*over.Msg, "exceeding the maximum subscription limit") {
					t.Errorf("%s with %d codes: code %d msg %v, want the E003 refusal", path, tt.limit+1, over.Code, over.Msg)
				}
				if string(over.Data) != "null" {
					t.Errorf("refusal data = %s, want null", over.Data)
				}
			}
		})
	}
}

func TestRequiredParameters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for path, q := range queries(t) {
		for name := range mustParseQuery(t, q) {
			if name == "exchange" || name == "et" || name == "page" || name == "lang" && path == "/news/{id}" {
				continue // optional
			}
			t.Run(path+" without "+name, func(t *testing.T) {
				t.Parallel()
				v := mustParseQuery(t, q)
				v.Del(name)
				env := decodeEnvelope(t, get(t, srv, path+"?"+v.Encode(), srv.Token))
				if env.Code != markettest.CodeBadRequest {
					t.Errorf("code %d, want %d", env.Code, markettest.CodeBadRequest)
				}
				if env.Msg == nil || !strings.Contains(*env.Msg, name) {
					t.Errorf("msg %v does not name %q", env.Msg, name)
				}
			})
		}
	}
}

func TestMalformedParameters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct{ name, pathAndQuery, mention string }{
		{"kType 0", "/stock/klines?region=US&codes=AAPL&kType=0&limit=1", "kType"},
		{"kType 11", "/stock/klines?region=US&codes=AAPL&kType=11&limit=1", "kType"},
		{"kType text", "/stock/klines?region=US&codes=AAPL&kType=day&limit=1", "kType"},
		{"limit 0", "/crypto/klines?region=BA&codes=BTCUSDT&kType=1&limit=0", "limit"},
		{"limit negative", "/crypto/klines?region=BA&codes=BTCUSDT&kType=1&limit=-3", "limit"},
		{"limit over 500", "/crypto/klines?region=BA&codes=BTCUSDT&kType=1&limit=501", "500"},
		{"single limit over 500", "/stock/kline?region=US&code=AAPL&kType=8&limit=1000", "500"},
		{"et text", "/indices/klines?region=GB&codes=HSI&kType=1&limit=1&et=yesterday", "et"},
		{"page negative", "/stock/split?region=US&page=-1", "page"},
		{"cursor text", "/news?market=stock&lang=en&limit=5&cursor=later", "cursor"},
		{"codes only commas", "/stock/quotes?region=US&codes=,,", "codes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := decodeEnvelope(t, get(t, srv, tt.pathAndQuery, srv.Token))
			if env.Code != markettest.CodeBadRequest || env.Msg == nil || !strings.Contains(*env.Msg, tt.mention) {
				t.Errorf("code %d msg %v, want %d naming %q", env.Code, env.Msg, markettest.CodeBadRequest, tt.mention)
			}
		})
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	if r := get(t, srv, "/stock/nothing?region=US", srv.Token); r.status != http.StatusNotFound {
		t.Errorf("unknown path: status %d, want 404", r.status)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/stock/quotes?region=US&codes=AAPL", nil)
	req.Header.Set("token", srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", resp.StatusCode)
	}
}

func TestQuotaIsASlidingMinute(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow)
	srv := newServer(t, markettest.WithQuota(3), markettest.WithClock(clock.Now))
	const path = "/stock/quotes?region=US&codes=AAPL"
	status := func() (int, string) {
		r := get(t, srv, path, srv.Token)
		return r.status, r.header.Get("Retry-After")
	}
	// A refused token does not count against the quota.
	if r := get(t, srv, path, "wrong"); r.status != http.StatusUnauthorized {
		t.Fatalf("wrong token: status %d", r.status)
	}
	steps := []struct {
		advance    time.Duration
		wantStatus int
		wantRetry  string
	}{
		{0, 200, ""},
		{20 * time.Second, 200, ""},
		{20 * time.Second, 200, ""},
		{0, 429, "20"},               // the first request leaves the window at +60s
		{19 * time.Second, 429, "1"}, // 1s to go
		{time.Second, 200, ""},       // the first has left: room for one
		{0, 429, "20"},               // the second leaves at +80s
		{20 * time.Second, 200, ""},  // it did
		{2 * time.Minute, 200, ""},   // everything left the window
		{0, 200, ""},                 // two in the window
		{0, 200, ""},                 // three
		{0, 429, "60"},               // full for a whole minute
		{59 * time.Second, 429, "1"}, // still full
		{time.Second + 1, 200, ""},   // all three left together
	}
	for i, st := range steps {
		clock.Advance(st.advance)
		gotStatus, gotRetry := status()
		if gotStatus != st.wantStatus || gotRetry != st.wantRetry {
			t.Fatalf("step %d: status %d Retry-After %q, want %d %q", i, gotStatus, gotRetry, st.wantStatus, st.wantRetry)
		}
	}
	if got := srv.Stats().RateLimited; got != 5 {
		t.Errorf("Stats().RateLimited = %d, want 5", got)
	}
	srv.SetQuota(0)
	if s, _ := status(); s != 200 {
		t.Errorf("after SetQuota(0): status %d", s)
	}
}

func TestQuotaWindowSetsTheSpan(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow)
	srv := newServer(t, markettest.WithQuota(2), markettest.WithQuotaWindow(2*time.Second), markettest.WithClock(clock.Now))
	const path = "/stock/quotes?region=US&codes=AAPL"
	steps := []struct {
		advance    time.Duration
		wantStatus int
		wantRetry  string
	}{
		{0, 200, ""},
		{500 * time.Millisecond, 200, ""},
		{0, 429, "2"},                       // the first leaves at +2s: 1.5s, rounded up
		{1499 * time.Millisecond, 429, "1"}, // 1ms to go
		{time.Millisecond, 200, ""},         // a minute's window would still be full
		{0, 429, "1"},                       // the second leaves at +2.5s
		{500 * time.Millisecond, 200, ""},
	}
	check := func(phase string) {
		t.Helper()
		for i, st := range steps {
			clock.Advance(st.advance)
			r := get(t, srv, path, srv.Token)
			if r.status != st.wantStatus || r.header.Get("Retry-After") != st.wantRetry {
				t.Fatalf("%s step %d: status %d Retry-After %q, want %d %q", phase, i, r.status, r.header.Get("Retry-After"), st.wantStatus, st.wantRetry)
			}
		}
	}
	check("WithQuota")
	// SetQuota keeps the span; the window starts empty.
	clock.Advance(time.Hour)
	srv.SetQuota(2)
	check("SetQuota")
}

func TestQuotaWindowIgnoresNonPositiveSpans(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow)
	srv := newServer(t, markettest.WithQuota(1), markettest.WithQuotaWindow(-time.Second), markettest.WithQuotaWindow(0), markettest.WithClock(clock.Now))
	const path = "/stock/quotes?region=US&codes=AAPL"
	if r := get(t, srv, path, srv.Token); r.status != 200 {
		t.Fatalf("first request: status %d", r.status)
	}
	clock.Advance(59 * time.Second)
	if r := get(t, srv, path, srv.Token); r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("at +59s: status %d Retry-After %q, want the default minute's 429 with 1", r.status, r.header.Get("Retry-After"))
	}
}

func TestRequestsAreRecordedWithoutTheToken(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithToken("tok-123"), markettest.WithClock(func() time.Time { return fixedNow }))
	get(t, srv, "/stock/quotes?region=HK&codes=700,5", "tok-123")
	get(t, srv, "/crypto/depth?region=BA&code=BTCUSDT", "nope")
	got := srv.Requests()
	if len(got) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(got))
	}
	type rec struct {
		Method, Path, Token string
		Codes               []string
		Valid               bool
		Status              int
		Time                time.Time
	}
	var recs []rec
	for _, r := range got {
		recs = append(recs, rec{r.Method, r.Path, r.Header.Get("token"), r.Codes(), r.TokenValid, r.Status, r.Time})
	}
	want := []rec{
		{"GET", "/stock/quotes", "[redacted]", []string{"700", "5"}, true, 200, fixedNow},
		{"GET", "/crypto/depth", "[redacted]", []string{"BTCUSDT"}, false, 401, fixedNow},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for _, r := range got {
		for k, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, "tok-123") {
					t.Errorf("header %s carries the token", k)
				}
			}
		}
	}
	wantStats := markettest.Stats{Requests: 2, Succeeded: 1, Unauthorized: 1}
	if diff := cmp.Diff(wantStats, srv.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	srv.Reset()
	if n := len(srv.Requests()); n != 0 || srv.Stats() != (markettest.Stats{}) {
		t.Errorf("after Reset: %d records, stats %+v", n, srv.Stats())
	}
}

func TestRecordLimitKeepsTheNewest(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithRecordLimit(3))
	for i := range 5 {
		get(t, srv, "/stock/quotes?region=US&codes=C"+strconv.Itoa(i), srv.Token)
	}
	var codes []string
	for _, r := range srv.Requests() {
		codes = append(codes, r.Codes()...)
	}
	if diff := cmp.Diff([]string{"C2", "C3", "C4"}, codes); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if got := srv.Stats().Requests; got != 5 {
		t.Errorf("Stats().Requests = %d, want 5", got)
	}
}

// TestRecordsAreSafeToReadConcurrently is meant for -race: clients and
// readers of the records run at once.
func TestRecordsAreSafeToReadConcurrently(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var wg sync.WaitGroup
	const callers, calls = 4, 10
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if _, err := client.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			for _, r := range srv.Requests() {
				_ = r.Header.Get("token")
			}
			_ = srv.Stats()
		}
	}()
	wg.Wait()
	if got := srv.Stats().Succeeded; got != callers*calls {
		t.Errorf("Stats().Succeeded = %d, want %d", got, callers*calls)
	}
}

func TestClientHelperUsesTheServersSettings(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithPlan(itick.PlanProfessional), markettest.WithToken("abc"))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	if client.BaseURL() != srv.URL || client.BatchSize() != 20 {
		t.Errorf("client %v, want base URL %s and batch size 20", client, srv.URL)
	}
	if _, err := client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; !r.TokenValid {
		t.Errorf("the client did not send the server's token")
	}
}

// TestClientHelperOptionsWin checks that options given to Server.Client
// apply after the server's: a WithPlan there sets the client's batch size,
// unless the server was given its own batch size.
func TestClientHelperOptionsWin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		server []markettest.Option
		client []itick.Option
		want   int
	}{
		{"server plan", []markettest.Option{markettest.WithPlan(itick.PlanPremium)}, nil, 50},
		{"client plan over the default", nil, []itick.Option{itick.WithPlan(itick.PlanPremium)}, 50},
		{"client plan over the server's", []markettest.Option{markettest.WithPlan(itick.PlanPremium)},
			[]itick.Option{itick.WithPlan(itick.PlanProfessional)}, 20},
		{"client batch size", []markettest.Option{markettest.WithPlan(itick.PlanPremium)},
			[]itick.Option{itick.WithBatchSize(3)}, 3},
		{"server batch size", []markettest.Option{markettest.WithBatchSize(100)}, nil, 100},
		// As with itick.NewClient, a batch size outranks any plan's.
		{"server batch size over client plan", []markettest.Option{markettest.WithBatchSize(100)},
			[]itick.Option{itick.WithPlan(itick.PlanProfessional)}, 100},
		{"client batch size over the server's", []markettest.Option{markettest.WithBatchSize(100)},
			[]itick.Option{itick.WithBatchSize(7)}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, tt.server...)
			client, err := srv.Client(tt.client...)
			if err != nil {
				t.Fatal(err)
			}
			if got := client.BatchSize(); got != tt.want {
				t.Errorf("BatchSize() = %d, want %d", got, tt.want)
			}
		})
	}
}
