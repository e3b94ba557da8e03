package itick_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/d19c4e34/itick"
)

// The models' wire forms: what they decode from, tolerate and refuse, and
// what they marshal back to.

// TestModels_MarshalWireForm: json.Marshal of every model gives the
// service's own wire form: short keys, Unix ms (or seconds for news).
func TestModels_MarshalWireForm(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"Quote", itick.Quote{Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: ms(1765526889000),
			Volume: 17825495, Turnover: 10871536434.36, Status: 0, Change: 8, ChangePercent: 1.32},
			`{"s":"700","ld":616,"o":608,"p":608,"h":616,"l":601.5,"t":1765526889000,"v":17825495,"tu":10871536434.36,"ts":0,"ch":8,"chp":1.32}`},
		{"DepthLevel", lv(1, 92311.5, 0.01234, 0.01234), `{"po":1,"p":92311.5,"v":0.01234,"o":0.01234}`},
		{"DepthBook", itick.DepthBook{Symbol: "EURUSD", Asks: []itick.DepthLevel{lv(1, 1.1623899999999999, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 1.16235, 0, 0)}},
			`{"s":"EURUSD","a":[{"po":1,"p":` + strconv.FormatFloat(1.1623899999999999, 'f', -1, 64) + `,"v":0,"o":0}],"b":[{"po":1,"p":1.16235,"v":0,"o":0}]}`},
		{"Kline", itick.Kline{Time: ms(1765497600000), Open: 6851.2, High: 6861.23, Low: 6800.05, Close: 6827.41, Volume: 2588791221, Turnover: 2.1e13},
			`{"t":1765497600000,"o":6851.2,"h":6861.23,"l":6800.05,"c":6827.41,"v":2588791221,"tu":21000000000000}`},
		{"SplitRecord", splitRecords[0], `{"d":1765152000000,"r":"US","n":"Nvidia Corp","c":"NVDA","v":"10:1"}`},
		{"SplitPage", itick.SplitPage{Records: splitRecords[2:], Page: 1, Size: 2, TotalPages: 2, TotalElements: 3, Last: true},
			`{"content":[{"d":1764633600000,"r":"US","n":"Chipotle Mexican Grill","c":"CMG","v":"50:1"}],"page":1,"size":2,"totalPages":2,"totalElements":3,"last":true}`},
		{"NewsItem", newsPage2Items[0],
			`{"id":"c47e9b10-55d3-4e8e-b0f1-2a6d8c9e3f77","te":"港股通南向資金淨流入","pt":1765519200,"mt":"stock","lg":"hk","lk":"https://news.example.com/a/c47e9b10","pv":"HKET"}`},
		{"NewsPage", itick.NewsPage{Items: newsPage2Items, NextCursor: "2025-12-12T05:59:59.000000001Z", HasMore: false, Count: 1},
			`{"data":[{"id":"c47e9b10-55d3-4e8e-b0f1-2a6d8c9e3f77","te":"港股通南向資金淨流入","pt":1765519200,"mt":"stock","lg":"hk","lk":"https://news.example.com/a/c47e9b10","pv":"HKET"}],` +
				`"pagination":{"nextCursor":"2025-12-12T05:59:59.000000001Z","hasMore":false,"count":1}}`},
		{"pointer to Quote", &itick.Quote{Symbol: "BTCUSDT", Last: 92311.5, Time: ms(1765526889123)},
			`{"s":"BTCUSDT","ld":92311.5,"o":0,"p":0,"h":0,"l":0,"t":1765526889123,"v":0,"tu":0,"ts":0,"ch":0,"chp":0}`},
		{"zero time", itick.Kline{}, `{"t":0,"o":0,"h":0,"l":0,"c":0,"v":0,"tu":0}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModels_TolerantDecoding: numbers as JSON strings, pt as a number or
// a string, a level without p, fractional orders, unknown fields and nulls
// all decode.
func TestModels_TolerantDecoding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		newV func() any
		want any
	}{
		{"quote numbers as strings", `{"s":"700","ld":"616.5","o":"608","h":"617","l":"601","t":"1765526889000","v":"17825495","tu":"1.08e10","ts":"0","ch":"8.5","chp":"1.4"}`,
			func() any { return new(itick.Quote) },
			&itick.Quote{Symbol: "700", Last: 616.5, Open: 608, High: 617, Low: 601, Time: ms(1765526889000), Volume: 17825495, Turnover: 1.08e10, Change: 8.5, ChangePercent: 1.4}},
		{"quote symbol as a number", `{"s":700,"ld":616}`, func() any { return new(itick.Quote) }, &itick.Quote{Symbol: "700", Last: 616}},
		{"quote without p ch chp, with unknown fields", `{"s":"BTCUSDT","ld":92311.5,"t":1765526889123,"r":"BA","extra":{"x":[1,2]}}`,
			func() any { return new(itick.Quote) }, &itick.Quote{Symbol: "BTCUSDT", Last: 92311.5, Time: ms(1765526889123)}},
		{"quote nulls", `{"s":null,"ld":null,"t":null,"ts":null}`, func() any { return new(itick.Quote) }, &itick.Quote{}},
		{"quote halted", `{"s":"700","ts":1}`, func() any { return new(itick.Quote) }, &itick.Quote{Symbol: "700", Status: 1}},
		{"level without p", `{"po":1,"v":0,"o":0}`, func() any { return new(itick.DepthLevel) }, &itick.DepthLevel{Level: 1}},
		{"fractional orders", `{"po":2,"p":"3120.5","v":4.2031,"o":4.2031}`, func() any { return new(itick.DepthLevel) },
			&itick.DepthLevel{Level: 2, Price: 3120.5, Volume: 4.2031, Orders: 4.2031}},
		{"level as string", `{"po":"3","p":1,"v":2,"o":3}`, func() any { return new(itick.DepthLevel) },
			&itick.DepthLevel{Level: 3, Price: 1, Volume: 2, Orders: 3}},
		{"book with null sides", `{"s":"DJI","a":null,"b":[]}`, func() any { return new(itick.DepthBook) }, &itick.DepthBook{Symbol: "DJI", Bids: []itick.DepthLevel{}}},
		{"kline exponent turnover", `{"t":1765497600000,"o":1,"h":2,"l":0.5,"c":1.5,"v":"10","tu":2.1e13,"vw":1.2}`,
			func() any { return new(itick.Kline) },
			&itick.Kline{Time: ms(1765497600000), Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 10, Turnover: 2.1e13}},
		{"news pt as number", `{"id":"n1","te":"t","pt":1765526400}`, func() any { return new(itick.NewsItem) },
			&itick.NewsItem{ID: "n1", Title: "t", Published: time.Unix(1765526400, 0).UTC()}},
		{"news pt as string", `{"id":"n1","te":"t","pt":"1765526400","img":"x"}`, func() any { return new(itick.NewsItem) },
			&itick.NewsItem{ID: "n1", Title: "t", Published: time.Unix(1765526400, 0).UTC()}},
		{"split record date as string", `{"d":"1765152000000","r":"US","n":"Nvidia Corp","c":"NVDA","v":"10:1"}`,
			func() any { return new(itick.SplitRecord) }, &splitRecords[0]},
		{"split page numbers as strings", `{"content":[],"page":"1","size":"20","totalPages":"3","totalElements":"41","last":"false"}`,
			func() any { return new(itick.SplitPage) }, &itick.SplitPage{Records: []itick.SplitRecord{}, Page: 1, Size: 20, TotalPages: 3, TotalElements: 41}},
		{"news page count as string", `{"data":[],"pagination":{"nextCursor":"2025-12-12T07:00:00.123456789Z","hasMore":"true","count":"0"}}`,
			func() any { return new(itick.NewsPage) }, &itick.NewsPage{Items: []itick.NewsItem{}, NextCursor: "2025-12-12T07:00:00.123456789Z", HasMore: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.newV()
			if err := json.Unmarshal([]byte(tc.in), got); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModels_RejectsGarbage: values no service sends are decode errors,
// not silent zeros.
func TestModels_RejectsGarbage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		v    any
	}{
		{"price as word", `{"ld":"abc"}`, new(itick.Quote)},
		{"NaN", `{"ld":"NaN"}`, new(itick.Quote)},
		{"Inf", `{"ld":"Inf"}`, new(itick.Quote)},
		{"time as object", `{"t":{}}`, new(itick.Kline)},
		{"level fractional", `{"po":1.5}`, new(itick.DepthLevel)},
		{"last as word", `{"last":"maybe"}`, new(itick.SplitPage)},
		{"not an object", `[1,2]`, new(itick.Quote)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := json.Unmarshal([]byte(tc.in), tc.v); err == nil {
				t.Errorf("decoded %s without error: %+v", tc.in, tc.v)
			}
		})
	}
}

// TestModels_TimesAreUTC: decoded times are in UTC.
func TestModels_TimesAreUTC(t *testing.T) {
	t.Parallel()
	var q itick.Quote
	if err := json.Unmarshal([]byte(`{"t":1765526889000}`), &q); err != nil {
		t.Fatal(err)
	}
	if q.Time.Location() != time.UTC {
		t.Errorf("Time location = %v, want UTC", q.Time.Location())
	}
}

// TestModels_NumbersAsEncodingJSON: model numbers are written exactly as
// encoding/json writes a float64, so whole numbers stay integers.
func TestModels_NumbersAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, 616, -1.3, 17825495, 2.1e13, 1e20, 1e21, 2.5e-7, 1e-6, 0.00011, 1.3431899999999999, -4.2e-9} {
		got, err := json.Marshal(lv(0, f, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := json.Marshal(f)
		want := `{"po":0,"p":` + string(plain) + `,"v":0,"o":0}`
		if string(got) != want {
			t.Errorf("Marshal price %v = %s, want %s", f, got, want)
		}
	}
}

// TestTick_WireForm: a tick decodes from the documented example and
// marshals back to the wire form.
func TestTick_WireForm(t *testing.T) {
	t.Parallel()
	var tk itick.Tick
	if err := json.Unmarshal([]byte(`{"s":"700","ld":567,"t":1754554087000,"v":"1134500","te":0,"extra":1}`), &tk); err != nil {
		t.Fatal(err)
	}
	want := itick.Tick{Symbol: "700", Last: 567, Time: ms(1754554087000), Volume: 1134500, Session: itick.SessionRegular}
	if diff := cmp.Diff(want, tk); diff != "" {
		t.Errorf("Tick (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(tk)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"s":"700","ld":567,"t":1754554087000,"v":1134500,"te":0,"tu":0,"ts":0,"d":0}`, string(b)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
}

// TestModels_RoundTripFixtures: decoding each fixture's data, marshalling
// it and decoding that again gives equal values.
func TestModels_RoundTripFixtures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fixture string
		newV    func() any
	}{
		{"stock_depth.json", func() any { return new(itick.DepthBook) }},
		{"crypto_depth.json", func() any { return new(itick.DepthBook) }},
		{"stock_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"crypto_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"forex_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"future_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"fund_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"indices_depths.json", func() any { return new(map[string]itick.DepthBook) }},
		{"stock_quotes.json", func() any { return new(map[string]itick.Quote) }},
		{"crypto_quotes.json", func() any { return new(map[string]itick.Quote) }},
		{"forex_quotes.json", func() any { return new(map[string]itick.Quote) }},
		{"future_quotes.json", func() any { return new(map[string]itick.Quote) }},
		{"indices_quotes.json", func() any { return new(map[string]itick.Quote) }},
		{"stock_klines.json", func() any { return new(map[string][]itick.Kline) }},
		{"crypto_klines.json", func() any { return new(map[string][]itick.Kline) }},
		{"forex_klines.json", func() any { return new(map[string][]itick.Kline) }},
		{"future_klines.json", func() any { return new(map[string][]itick.Kline) }},
		{"indices_klines.json", func() any { return new(map[string][]itick.Kline) }},
		{"stock_split_page0.json", func() any { return new(itick.SplitPage) }},
		{"stock_split_page1.json", func() any { return new(itick.SplitPage) }},
		{"news_page1.json", func() any { return new(itick.NewsPage) }},
		{"news_page2.json", func() any { return new(itick.NewsPage) }},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			first := tc.newV()
			if err := json.Unmarshal(fixtureData(t, tc.fixture), first); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if reflect.ValueOf(first).Elem().IsZero() {
				t.Fatal("decoded nothing")
			}
			wire, err := json.Marshal(first)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			second := tc.newV()
			if err := json.Unmarshal(wire, second); err != nil {
				t.Fatalf("decode again: %v\n%s", err, wire)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("round trip (-first +second):\n%s", diff)
			}
		})
	}
}

// TestPriceDataRoundTrip: every singular quote, kline, depth and tick
// endpoint's data survives a trip to the wire form and back.
func TestPriceDataRoundTrip(t *testing.T) {
	t.Parallel()
	classes := []string{"stock", "crypto", "forex", "indices", "future", "fund"}
	for _, class := range classes {
		t.Run(class, func(t *testing.T) {
			t.Parallel()
			roundTrip[itick.Quote](t, fixtureData(t, class+"_quote.json"))
			roundTrip[[]itick.Kline](t, fixtureData(t, class+"_kline.json"))
			roundTrip[itick.Tick](t, fixtureData(t, class+"_tick.json"))
			roundTrip[map[string]itick.Tick](t, fixtureData(t, class+"_ticks.json"))
		})
	}
	for _, name := range []string{"forex_depth.json", "future_depth.json", "fund_depth.json", "indices_depth.json"} {
		roundTrip[itick.DepthBook](t, fixtureData(t, name))
	}
	roundTrip[map[string]itick.Quote](t, fixtureData(t, "fund_quotes.json"))
	roundTrip[map[string][]itick.Kline](t, fixtureData(t, "fund_klines.json"))

	// The wire form keeps the short keys, Unix ms and plain numbers.
	q, wire := roundTrip[itick.Quote](t, fixtureData(t, "stock_quote.json"))
	if q.ChangePercent != 1.32 {
		t.Errorf("chp sent as a string decoded to %v", q.ChangePercent)
	}
	const wantWire = `{"s":"700","ld":616,"o":608,"p":608,"h":616,"l":601.5,"t":1765526889000,"v":17825495,"tu":10871536434.36,"ts":0,"ch":8,"chp":1.32}`
	if string(wire) != wantWire {
		t.Errorf("wire form\n got %s\nwant %s", wire, wantWire)
	}
}

func TestStockInfo_RoundTrip(t *testing.T) {
	t.Parallel()
	roundTrip[itick.StockInfo](t, fixtureData(t, "stock_info.json"))
	roundTrip[itick.IPOPage](t, fixtureData(t, "stock_ipo_page1.json"))
	p, _ := roundTrip[itick.IPOPage](t, fixtureData(t, "stock_ipo_page0.json"))

	// dt goes out in milliseconds, bs, es and ro in seconds.
	_, wire := roundTrip[itick.IPO](t, []byte(`{"dt":1766016000000,"cn":"Northwind Biotech Holdings","sc":"NWBT","ex":"NASDAQ","ct":"US","mc":"19.1M","pr":"3.50-4.50","bs":1765497600,"es":1765843200,"ro":1765929600}`))
	const want = `{"dt":1766016000000,"cn":"Northwind Biotech Holdings","sc":"NWBT","ex":"NASDAQ","ct":"US","mc":"19.1M","pr":"3.50-4.50","bs":1765497600,"es":1765843200,"ro":1765929600}`
	if string(wire) != want {
		t.Errorf("IPO wire form\n got %s\nwant %s", wire, want)
	}
	if got := p.Records[0].SubscriptionEnd; !got.Equal(time.Date(2025, 12, 16, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("es decoded to %v, want 2025-12-16 (seconds, not ms)", got)
	}
}

func TestReferenceDataRoundTrip(t *testing.T) {
	t.Parallel()
	roundTrip[[]itick.Symbol](t, fixtureData(t, "symbol_list.json"))
	hs, wire := roundTrip[[]itick.Holiday](t, fixtureData(t, "symbol_holidays.json"))
	if len(hs) != 3 {
		t.Fatalf("got %d holidays", len(hs))
	}
	var back []map[string]any
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	// v goes back out as a JSON-encoded list inside a string, ey as text.
	if diff := cmp.Diff(map[string]any{"c": "US", "r": "United States", "tz": -5.0, "et": "09:30 - 16:00",
		"v": `["2025-01-01","2025-01-20","2025-07-04","2025-12-25"]`, "ey": "2025"}, back[0]); diff != "" {
		t.Errorf("holiday wire form (-want +got):\n%s", diff)
	}

	_, wire = roundTrip[itick.MarketStatus](t, fixtureData(t, "market_status.json"))
	const wantStatus = `{"c":"HK","r":"Hong Kong","o":true,"s":"LUNCH_BREAK","h":"","t":"09:00-09:30,09:30-12:00,13:00-16:00,16:00-16:10","z":"Asia/Hong_Kong","l":"2025-12-12 12:31:05"}`
	if string(wire) != wantStatus {
		t.Errorf("status wire form\n got %s\nwant %s", wire, wantStatus)
	}
	roundTrip[[]itick.MarketStatus](t, fixtureData(t, "market_status_array.json"))
}

func TestNewsArticleRoundTrip(t *testing.T) {
	t.Parallel()
	_, wire := roundTrip[itick.NewsArticle](t, fixtureData(t, "news_detail.json"))
	const want = `{"id":"8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42","te":"Tencent shares rise as gaming revenue beats estimates","pt":1765526400,"lg":"en","lk":"https://example.com/markets/tencent-gaming-revenue","sd":"Tencent reported quarterly gaming revenue above analyst expectations.","cd":"Tencent Holdings said on Wednesday that revenue from its domestic games grew 15% from a year earlier...","tg":["Tencent","gaming","700"],"mts":["HK","US"],"mt":"stock"}`
	if string(wire) != want {
		t.Errorf("wire form\n got %s\nwant %s", wire, want)
	}
	// pt as a string and null lists decode too.
	roundTrip[itick.NewsArticle](t, []byte(`{"id":"x","pt":"1765526400","tg":null,"mts":[]}`))
}

// roundTrip decodes data into a T, encodes it, decodes that again and
// checks the two values are equal.
func roundTrip[T any](t *testing.T, data []byte) (T, []byte) {
	t.Helper()
	var first T
	if err := json.Unmarshal(data, &first); err != nil {
		t.Fatalf("decode: %v", err)
	}
	wire, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var second T
	if err := json.Unmarshal(wire, &second); err != nil {
		t.Fatalf("decode of %s: %v", wire, err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("round trip changed the value (-first +second):\n%s\nwire: %s", diff, wire)
	}
	return first, wire
}
