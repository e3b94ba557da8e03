package markettest_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

var classes = []struct {
	class  markettest.Class
	region itick.Region
	codes  []string
}{
	{markettest.Stock, itick.RegionHK, []string{"700", "5", "9988"}},
	{markettest.Stock, itick.RegionUS, []string{"AAPL", "TSLA", "ZZZZ"}},
	{markettest.Crypto, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT", "NEWCOINUSDT"}},
	{markettest.Forex, itick.RegionGB, []string{"EURUSD", "GBPUSD", "USDJPY"}},
	{markettest.Future, itick.RegionUS, []string{"GC", "CL", "XX1"}},
	{markettest.Fund, itick.RegionUS, []string{"QQQ", "SPY"}},
	{markettest.Indices, itick.RegionGB, []string{"HSI", "SPX", "FOO"}},
}

func TestSameSeedSameData(t *testing.T) {
	t.Parallel()
	clock := func() time.Time { return fixedNow }
	a := newServer(t, markettest.WithSeed(7), markettest.WithClock(clock))
	b := newServer(t, markettest.WithSeed(7), markettest.WithClock(clock))
	c := newServer(t, markettest.WithSeed(8), markettest.WithClock(clock))
	for path, q := range queries(t) {
		pq := target(a, path, q)
		ra, rb, rc := get(t, a, pq, a.Token), get(t, b, pq, b.Token), get(t, c, pq, c.Token)
		if diff := cmp.Diff(string(ra.body), string(rb.body)); diff != "" {
			t.Errorf("%s: seed 7 twice differs (-a +b):\n%s", pq, diff)
		}
		if !seedFree[path] && string(ra.body) == string(rc.body) {
			t.Errorf("%s: seeds 7 and 8 gave the same body", pq)
		}
	}
}

func TestKlinesAreConsistentAndAligned(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(3)
	for _, c := range classes {
		for iv := itick.OneMinute; iv <= itick.OneMonth; iv++ {
			for _, code := range c.codes {
				span := iv.Duration()
				ks := g.Klines(c.class, c.region, code, iv, 50, time.Time{}, fixedNow)
				if len(ks) != 50 {
					t.Fatalf("%s %s %v: %d candles, want 50", c.class, code, iv, len(ks))
				}
				for i, k := range ks {
					where := func() string { return string(c.class) + " " + code + " " + iv.String() + " #" + strconv.Itoa(i) }
					if k.Time.UnixMilli()%span.Milliseconds() != 0 {
						t.Errorf("%s: t %d is not a multiple of %v", where(), k.Time.UnixMilli(), span)
					}
					// Only crypto trades without a break; other candles
					// skip the hours and days their market is closed.
					if i > 0 {
						gap := k.Time.Sub(ks[i-1].Time)
						if gap < span || c.class == markettest.Crypto && gap != span {
							t.Errorf("%s: %v after the previous candle, want %v", where(), gap, span)
						}
					}
					if !(k.Low <= min(k.Open, k.Close) && max(k.Open, k.Close) <= k.High && k.Low > 0) {
						t.Errorf("%s: o %v h %v l %v c %v are not consistent", where(), k.Open, k.High, k.Low, k.Close)
					}
					if k.Volume < 0 || k.Turnover < 0 {
						t.Errorf("%s: volume %v turnover %v", where(), k.Volume, k.Turnover)
					}
				}
				// The last candle holds the last trade: now's, when the
				// market trades now.
				last, trade := ks[len(ks)-1].Time, lastTrade(c.class, c.region, code)
				if trade.Before(last) || !trade.Before(last.Add(span)) {
					t.Errorf("%s %s %v: last candle at %v does not hold the last trade %v", c.class, code, iv, last, trade)
				}
			}
		}
	}
}

func TestKlinesEndAt(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		end  time.Time
		want time.Time // the last candle's start
	}{
		{"past", time.Date(2025, 1, 2, 10, 17, 0, 0, time.UTC), time.Date(2025, 1, 2, 10, 0, 0, 0, time.UTC)},
		{"future is capped at now", fixedNow.Add(48 * time.Hour), fixedNow.Truncate(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The FTSE trades in London from 08:00 to 16:30 UTC in winter.
			got, err := client.Indices.Klines(t.Context(), itick.RegionGB, []string{"UKX"}, itick.OneHour, 3, itick.WithEnd(tt.end))
			if err != nil {
				t.Fatal(err)
			}
			ks := got["UKX"]
			if len(ks) != 3 || !ks[2].Time.Equal(tt.want) {
				t.Fatalf("last candle of %d at %v, want %v", len(ks), ks[len(ks)-1].Time, tt.want)
			}
		})
	}
}

func TestQuoteAgreesWithLatestKline(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(11)
	for _, c := range classes {
		for _, code := range c.codes {
			q := g.Quote(c.class, c.region, code, fixedNow)
			for _, iv := range []itick.Interval{itick.OneMinute, itick.OneHour, itick.OneDay} {
				ks := g.Klines(c.class, c.region, code, iv, 2, time.Time{}, fixedNow)
				if last := ks[len(ks)-1]; last.Close != q.Last {
					t.Errorf("%s %s: quote last %v, latest %v candle closes at %v", c.class, code, iv, q.Last, last.Close)
				}
			}
			day := g.Klines(c.class, c.region, code, itick.OneDay, 2, time.Time{}, fixedNow)
			want := itick.Quote{Symbol: code, Last: day[1].Close, Open: day[1].Open, PrevClose: day[0].Close,
				High: day[1].High, Low: day[1].Low, Time: lastTrade(c.class, c.region, code),
				Volume: day[1].Volume, Turnover: day[1].Turnover}
			got := q
			got.Change, got.ChangePercent = 0, 0
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s: quote against the daily candles (-want +got):\n%s", c.class, code, diff)
			}
			if math.Abs(q.Change-(q.Last-q.PrevClose)) > 1e-6 {
				t.Errorf("%s %s: change %v, last %v, prev close %v", c.class, code, q.Change, q.Last, q.PrevClose)
			}
		}
	}
}

func decimals(x float64) int {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func TestPriceScalesByClass(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(5)
	tests := []struct {
		class    markettest.Class
		region   itick.Region
		code     string
		lo, hi   float64
		maxDecim int
	}{
		{markettest.Forex, itick.RegionGB, "EURUSD", 0.7, 1.6, 5},
		{markettest.Forex, itick.RegionGB, "GBPUSD", 0.8, 1.9, 5},
		{markettest.Forex, itick.RegionGB, "AUDNZD", 0.7, 2.5, 5},
		{markettest.Crypto, itick.RegionBA, "BTCUSDT", 10000, 300000, 2},
		{markettest.Crypto, itick.RegionBA, "ETHUSDT", 500, 20000, 3},
		{markettest.Stock, itick.RegionHK, "700", 100, 1500, 1},
		{markettest.Stock, itick.RegionUS, "AAPL", 50, 700, 2},
		{markettest.Stock, itick.RegionUS, "QWERTY", 2, 2000, 2},
	}
	for _, tt := range tests {
		for d := range 30 {
			at := fixedNow.AddDate(0, 0, -17*d)
			p := g.Price(tt.class, tt.region, tt.code, at)
			if p < tt.lo || p > tt.hi || decimals(p) > tt.maxDecim {
				t.Errorf("%s %s at %v: price %v, want within [%v, %v] with at most %d decimals",
					tt.class, tt.code, at, p, tt.lo, tt.hi, tt.maxDecim)
			}
		}
	}
}

func TestDepthIsOrdered(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(9)
	for _, c := range classes {
		if c.class == markettest.Fund || c.class == markettest.Indices {
			continue
		}
		for _, code := range c.codes {
			for s := range 20 {
				at := fixedNow.Add(time.Duration(s) * 37 * time.Second)
				b := g.Depth(c.class, c.region, code, at)
				n := markettest.Levels(c.class)
				if len(b.Asks) != n || len(b.Bids) != n || b.Symbol != code {
					t.Fatalf("%s %s: %d asks %d bids symbol %q, want %d a side", c.class, code, len(b.Asks), len(b.Bids), b.Symbol, n)
				}
				for i := range n {
					if b.Asks[i].Level != i+1 || b.Bids[i].Level != i+1 {
						t.Errorf("%s %s: level %d has po %d/%d", c.class, code, i, b.Asks[i].Level, b.Bids[i].Level)
					}
					if i > 0 && (b.Asks[i].Price <= b.Asks[i-1].Price || b.Bids[i].Price >= b.Bids[i-1].Price) {
						t.Errorf("%s %s: level %d out of order: %+v", c.class, code, i+1, b)
					}
				}
				if bid := b.Bids[0]; bid.Price != 0 && b.Asks[0].Price <= bid.Price {
					t.Errorf("%s %s: best ask %v not above best bid %v", c.class, code, b.Asks[0].Price, bid.Price)
				}
				if mid := g.Price(c.class, c.region, code, at); mid < b.Bids[n-1].Price && b.Bids[n-1].Price != 0 || mid > b.Asks[n-1].Price {
					t.Errorf("%s %s: price %v outside the book", c.class, code, mid)
				}
			}
		}
	}
}

// rawData fetches one endpoint and returns its data as generic JSON.
func rawData(t *testing.T, srv *markettest.Server, pathAndQuery string) map[string]any {
	t.Helper()
	env := decodeEnvelope(t, get(t, srv, pathAndQuery, srv.Token))
	var m map[string]any
	if err := json.Unmarshal(env.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWireQuirks(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }), markettest.WithBatchSize(50))

	t.Run("quote fields by class", func(t *testing.T) {
		for _, tt := range []struct {
			pathAndQuery string
			withPrev     bool
		}{
			{"/stock/quotes?region=HK&codes=700", true},
			{"/future/quotes?region=US&codes=GC", true},
			{"/crypto/quotes?region=BA&codes=BTCUSDT", false},
			{"/forex/quotes?region=GB&codes=EURUSD", true},
			{"/indices/quotes?region=GB&codes=HSI", true},
			{"/fund/quotes?region=US&codes=QQQ", true},
		} {
			for code, v := range rawData(t, srv, tt.pathAndQuery) {
				q := v.(map[string]any)
				for _, k := range []string{"s", "ld", "o", "h", "l", "t", "v", "tu", "ts"} {
					if _, ok := q[k]; !ok {
						t.Errorf("%s %s: no %s", tt.pathAndQuery, code, k)
					}
				}
				for _, k := range []string{"p", "ch", "chp"} {
					if _, ok := q[k]; ok != tt.withPrev {
						t.Errorf("%s %s: has %s = %v, want %v", tt.pathAndQuery, code, k, ok, tt.withPrev)
					}
				}
			}
		}
	})

	t.Run("whole prices are integers", func(t *testing.T) {
		// HK prices above 200 move in steps of 0.2: some codes land on whole numbers.
		body := string(get(t, srv, "/stock/quotes?region=HK&codes="+codesOf(10), srv.Token).body)
		if !regexp.MustCompile(`"(ld|o|h|l|p)":\d+,`).MatchString(body) {
			t.Errorf("no whole price sent as an integer in %s", body)
		}
	})

	t.Run("placeholder levels", func(t *testing.T) {
		for _, pq := range []string{"/fund/depths?region=US&codes=QQQ", "/indices/depths?region=GB&codes=HSI"} {
			body := string(get(t, srv, pq, srv.Token).body)
			if !strings.Contains(body, `"a":[{"po":1,"p":0,"v":0,"o":0}]`) || !strings.Contains(body, `"b":[{"po":1,"p":0,"v":0,"o":0}]`) {
				t.Errorf("%s: no placeholder levels in %s", pq, body)
			}
		}
	})

	t.Run("a futures level with no price", func(t *testing.T) {
		found := false
		for _, v := range rawData(t, srv, "/future/depths?region=US&codes="+codesOf(50)) {
			for _, side := range []string{"a", "b"} {
				for _, l := range v.(map[string]any)[side].([]any) {
					if _, ok := l.(map[string]any)["p"]; !ok {
						found = true
					}
				}
			}
		}
		if !found {
			t.Error("no futures level without p among ten codes")
		}
	})

	t.Run("crypto sizes are fractional", func(t *testing.T) {
		book := rawData(t, srv, "/crypto/depth?region=BA&code=ETHUSDT")
		l := book["a"].([]any)[0].(map[string]any)
		v, o := l["v"].(float64), l["o"].(float64)
		if v == math.Trunc(v) || o != v {
			t.Errorf("level %v: want a fractional volume and an equal order count", l)
		}
	})
}

func TestSplitPages(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	type page struct {
		Content       []json.RawMessage `json:"content"`
		Page          int               `json:"page"`
		Size          int               `json:"size"`
		TotalPages    int               `json:"totalPages"`
		TotalElements int               `json:"totalElements"`
		Last          bool              `json:"last"`
	}
	seen := 0
	var first page
	for n := 0; ; n++ {
		env := decodeEnvelope(t, get(t, srv, "/stock/split?region=US&page="+strconv.Itoa(n), srv.Token))
		var p page
		if err := json.Unmarshal(env.Data, &p); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			first = p
		}
		if p.Page != n || p.Size != markettest.SplitPageSize || p.TotalPages != first.TotalPages {
			t.Fatalf("page %d: %+v", n, p)
		}
		seen += len(p.Content)
		if p.Last {
			if n != p.TotalPages-1 {
				t.Errorf("last on page %d of %d", n, p.TotalPages)
			}
			break
		}
		if len(p.Content) != markettest.SplitPageSize || n > 10 {
			t.Fatalf("page %d holds %d records and is not last", n, len(p.Content))
		}
	}
	if seen != first.TotalElements || seen == 0 {
		t.Errorf("saw %d records, totalElements %d", seen, first.TotalElements)
	}
	var beyond page
	env := decodeEnvelope(t, get(t, srv, "/stock/split?region=US&page=99", srv.Token))
	if err := json.Unmarshal(env.Data, &beyond); err != nil || len(beyond.Content) != 0 || !beyond.Last {
		t.Errorf("beyond the last page: %+v, %v", beyond, err)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	var records []itick.SplitRecord
	for r, err := range client.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if diff := cmp.Diff(srv.Generator().Splits(itick.RegionUS, fixedNow), records); diff != "" {
		t.Errorf("records through the SDK (-generator +client):\n%s", diff)
	}
}

func TestNewsCursor(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	nanoCursor := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`)
	type item struct {
		ID string          `json:"id"`
		Pt json.RawMessage `json:"pt"`
	}
	type newsPage struct {
		Data       []item `json:"data"`
		Pagination struct {
			NextCursor string `json:"nextCursor"`
			HasMore    bool   `json:"hasMore"`
			Count      int    `json:"count"`
		} `json:"pagination"`
	}
	ids := map[string]bool{}
	cursor := ""
	lastPt := int64(math.MaxInt64)
	pages := 0
	for {
		pq := "/news?market=stock&lang=en&limit=40"
		if cursor != "" {
			pq += "&cursor=" + cursor
		}
		env := decodeEnvelope(t, get(t, srv, pq, srv.Token))
		var p newsPage
		if err := json.Unmarshal(env.Data, &p); err != nil {
			t.Fatal(err)
		}
		pages++
		if p.Pagination.Count != len(p.Data) {
			t.Errorf("count %d, %d items", p.Pagination.Count, len(p.Data))
		}
		for _, it := range p.Data {
			pt, err := strconv.ParseInt(string(it.Pt), 10, 64)
			if err != nil {
				t.Fatalf("pt %s is not a JSON integer", it.Pt)
			}
			if ids[it.ID] || pt > lastPt {
				t.Fatalf("item %s (pt %d) repeats or is newer than the one before (%d)", it.ID, pt, lastPt)
			}
			ids[it.ID], lastPt = true, pt
		}
		if !p.Pagination.HasMore {
			break
		}
		if !nanoCursor.MatchString(p.Pagination.NextCursor) || p.Pagination.NextCursor == cursor || pages > 20 {
			t.Fatalf("page %d: next cursor %q after %q", pages, p.Pagination.NextCursor, cursor)
		}
		cursor = p.Pagination.NextCursor
	}
	if pages < 3 || len(ids) < 100 {
		t.Errorf("%d pages, %d items: want a feed deep enough to page through", pages, len(ids))
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range client.News.All(t.Context(), itick.NewsQuery{Market: "stock", Lang: "en", Limit: 25}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(ids) {
		t.Errorf("News.All gave %d items, raw paging %d", n, len(ids))
	}
}

func TestTickFollowsThePrice(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(2)
	for _, c := range classes {
		for _, code := range c.codes {
			tk := g.Tick(c.class, c.region, code, fixedNow)
			if tk.Symbol != code || tk.Last != g.Price(c.class, c.region, code, fixedNow) || tk.Volume <= 0 ||
				!tk.Time.Equal(lastTrade(c.class, c.region, code)) {
				t.Errorf("%s %s: tick %+v", c.class, code, tk)
			}
			if (c.class == markettest.Crypto) != (tk.Turnover > 0) {
				t.Errorf("%s %s: turnover %v (crypto only)", c.class, code, tk.Turnover)
			}
		}
	}
}

// hkClose is the end of Hong Kong's trading on fixedNow's day (16:00 HKT).
var hkClose = time.Date(2025, 3, 14, 8, 0, 0, 0, time.UTC).Add(-time.Millisecond)

// lastTrade is the last trading instant at fixedNow (Friday 15:09 UTC) of
// a product of classes: now for every market trading then, Hong Kong's
// close for Hong Kong's stocks and index.
func lastTrade(class markettest.Class, region itick.Region, code string) time.Time {
	if region == itick.RegionHK || class == markettest.Indices && code == "HSI" {
		return hkClose
	}
	return fixedNow.Truncate(time.Millisecond)
}

// TestSplitsFallOnTradingDays checks every split record's ex-date against
// the market's weekends and the holidays the server lists, and its ratio:
// two different whole numbers in lowest terms.
func TestSplitsFallOnTradingDays(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	srv := newServer(t, markettest.WithClock(func() time.Time { return now }))
	// The holiday list covers the year of the server's clock: ask a
	// server a year back too.
	before := newServer(t, markettest.WithClock(func() time.Time { return now.AddDate(-1, 0, 0) }))
	for _, region := range []itick.Region{itick.RegionUS, itick.RegionHK, itick.RegionJP, itick.RegionGB, "ZZ"} {
		closed := map[time.Time]bool{}
		for _, s := range []*markettest.Server{srv, before} {
			client, err := s.Client()
			if err != nil {
				t.Fatal(err)
			}
			hs, err := client.Market.HolidaysOf(t.Context(), region)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				for _, d := range h.Dates {
					closed[d] = true
				}
			}
		}
		if region != "ZZ" && len(closed) < 10 {
			t.Fatalf("%s: only %d holidays listed", region, len(closed))
		}
		records := srv.Generator().Splits(region, now)
		for i, r := range records {
			if wd := r.ExDate.Weekday(); wd == time.Saturday || wd == time.Sunday || closed[r.ExDate] {
				t.Errorf("%s %s: ex-date %s, a day the market is closed", region, r.Code, r.ExDate.Format("Mon 2006-01-02"))
			}
			if !r.ExDate.Before(now) || r.ExDate.Before(now.AddDate(-2, 0, 0)) {
				t.Errorf("%s %s: ex-date %s, not in the two years before now", region, r.Code, r.ExDate)
			}
			if i > 0 && r.ExDate.After(records[i-1].ExDate) {
				t.Errorf("%s: record %d on %s is newer than the one before it", region, i, r.ExDate)
			}
			var a, b int
			if _, err := fmt.Sscanf(r.Ratio, "%d:%d", &a, &b); err != nil || a < 1 || b < 1 || a == b ||
				gcd(a, b) != 1 || r.Ratio != strconv.Itoa(a)+":"+strconv.Itoa(b) {
				t.Errorf("%s %s: ratio %q, want two different whole numbers in lowest terms", region, r.Code, r.Ratio)
			}
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
