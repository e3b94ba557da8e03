package itick_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/d19c4e34/itick"
)

// serviceCase is one method of one service decoding its endpoint's fixture.
type serviceCase struct {
	name      string
	path      string
	fixture   string
	call      func(ctx context.Context, c *itick.Client) (any, error)
	wantQuery url.Values
	want      any
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

var (
	stockDepth700 = itick.DepthBook{Symbol: "700",
		Asks: []itick.DepthLevel{lv(1, 616, 12300, 7), lv(2, 616.5, 40800, 19), lv(3, 617, 25100, 12)},
		Bids: []itick.DepthLevel{lv(1, 615.5, 9100, 5), lv(2, 615, 31200, 22), lv(3, 614.5, 18700, 9)}}
	cryptoDepthBTC = itick.DepthBook{Symbol: "BTCUSDT",
		Asks: []itick.DepthLevel{lv(1, 92311.5, 0.01234, 0.01234), lv(2, 92312, 0.5, 0.5), lv(3, 92313.1, 1.08201, 1.08201),
			lv(4, 92315, 0.003, 0.003), lv(5, 92320.25, 2.75, 2.75)},
		Bids: []itick.DepthLevel{lv(1, 92311.4, 0.84521, 0.84521), lv(2, 92310, 0.00011, 0.00011), lv(3, 92308.7, 3, 3),
			lv(4, 92305, 0.1, 0.1), lv(5, 92300, 12.5, 12.5)}}
	placeholderLevels = []itick.DepthLevel{lv(1, 0, 0, 0)}
)

func klineCall(svc func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error),
	region itick.Region, codes []string, iv itick.Interval, limit int, opts ...itick.KlineOption) func(context.Context, *itick.Client) (any, error) {
	return func(ctx context.Context, c *itick.Client) (any, error) {
		return svc(c)(ctx, region, codes, iv, limit, opts...)
	}
}

func serviceCases() []serviceCase {
	end := time.Date(2025, 12, 12, 8, 0, 0, 0, time.UTC)
	return []serviceCase{
		{
			name: "Stock.Depth", path: "/stock/depth", fixture: "stock_depth.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Depth(ctx, itick.RegionHK, " 700 ")
			},
			wantQuery: q("region", "HK", "code", "700"),
			want:      &stockDepth700,
		},
		{
			name: "Stock.Depths", path: "/stock/depths", fixture: "stock_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Depths(ctx, itick.RegionHK, []string{"700", "9988"})
			},
			wantQuery: q("region", "HK", "codes", "700,9988"),
			want: map[string]itick.DepthBook{
				"700": {Symbol: "700", Asks: []itick.DepthLevel{lv(1, 616, 12300, 7), lv(2, 616.5, 40800, 19)},
					Bids: []itick.DepthLevel{lv(1, 615.5, 9100, 5), lv(2, 615, 31200, 22)}},
				"9988": {Symbol: "9988", Asks: []itick.DepthLevel{lv(1, 82.35, 56000, 31)}, Bids: []itick.DepthLevel{lv(1, 82.3, 70500, 44)}},
			},
		},
		{
			name: "Stock.Quotes", path: "/stock/quotes", fixture: "stock_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "9988"})
			},
			wantQuery: q("region", "HK", "codes", "700,9988"),
			want: map[string]itick.Quote{
				"700": {Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: ms(1765526889000),
					Volume: 17825495, Turnover: 10871536434.36, Status: 0, Change: 8, ChangePercent: 1.32},
				"9988": {Symbol: "9988", Last: 82.35, Open: 83.1, PrevClose: 83.65, High: 83.4, Low: 81.9, Time: ms(1765526889000),
					Volume: 52114301, Turnover: 4297521288.5, Change: -1.3, ChangePercent: -1.55},
			},
		},
		{
			name: "Stock.Klines", path: "/stock/klines", fixture: "stock_klines.json",
			call: klineCall(func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error) {
				return c.Stock.Klines
			}, itick.RegionHK, []string{"700", "9988"}, itick.OneDay, 3, itick.WithExchange("HKEX"), itick.WithEnd(end)),
			wantQuery: q("region", "HK", "codes", "700,9988", "kType", "8", "limit", "3", "exchange", "HKEX", "et", "1765526400000"),
			want: map[string][]itick.Kline{
				"700": {
					{Time: ms(1765267200000), Open: 598, High: 603, Low: 592.5, Close: 601, Volume: 14820300, Turnover: 8867331200},
					{Time: ms(1765353600000), Open: 601, High: 606, Low: 597, Close: 604, Volume: 13337800, Turnover: 8033901440.25},
					{Time: ms(1765440000000), Open: 604, High: 610.5, Low: 600, Close: 608, Volume: 15211000, Turnover: 9231550000.5},
				},
				"9988": {
					{Time: ms(1765267200000), Open: 84.1, High: 84.9, Low: 83.2, Close: 83.5, Volume: 61001200, Turnover: 5116201030},
					{Time: ms(1765353600000), Open: 83.5, High: 84, Low: 82.9, Close: 83.65, Volume: 48800150, Turnover: 4069932512.5},
				},
			},
		},
		{
			name: "Stock.SplitPage", path: "/stock/split", fixture: "stock_split_page0.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.SplitPage(ctx, itick.RegionUS, 0)
			},
			wantQuery: q("region", "US", "page", "0"),
			want: &itick.SplitPage{
				Records: []itick.SplitRecord{
					{ExDate: ms(1765152000000), Region: itick.RegionUS, Name: "Nvidia Corp", Code: "NVDA", Ratio: "10:1"},
					{ExDate: ms(1764892800000), Region: itick.RegionUS, Name: "Walgreens Boots Alliance", Code: "WBA", Ratio: "1:20"},
				},
				Page: 0, Size: 2, TotalPages: 2, TotalElements: 3, Last: false,
			},
		},
		{
			name: "Crypto.Depth", path: "/crypto/depth", fixture: "crypto_depth.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT")
			},
			wantQuery: q("region", "BA", "code", "BTCUSDT"),
			want:      &cryptoDepthBTC,
		},
		{
			name: "Crypto.Depths", path: "/crypto/depths", fixture: "crypto_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Depths(ctx, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"})
			},
			wantQuery: q("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
			want: map[string]itick.DepthBook{
				"BTCUSDT": {Symbol: "BTCUSDT", Asks: []itick.DepthLevel{lv(1, 92311.5, 0.01234, 0.01234)}, Bids: []itick.DepthLevel{lv(1, 92311.4, 0.84521, 0.84521)}},
				"ETHUSDT": {Symbol: "ETHUSDT", Asks: []itick.DepthLevel{lv(1, 3120.55, 4.2031, 4.2031)}, Bids: []itick.DepthLevel{lv(1, 3120.5, 17, 17)}},
			},
		},
		{
			name: "Crypto.Quotes", path: "/crypto/quotes", fixture: "crypto_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Quotes(ctx, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"})
			},
			wantQuery: q("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
			want: map[string]itick.Quote{
				"BTCUSDT": {Symbol: "BTCUSDT", Last: 92311.5, Open: 90120, High: 92800, Low: 89955.1, Time: ms(1765526889123),
					Volume: 18233.50412, Turnover: 1668341277.8},
				"ETHUSDT": {Symbol: "ETHUSDT", Last: 3120.55, Open: 3050, High: 3155.2, Low: 3032.75, Time: ms(1765526888950),
					Volume: 402211.0375, Turnover: 1245001288.12},
			},
		},
		{
			name: "Crypto.Klines", path: "/crypto/klines", fixture: "crypto_klines.json",
			call: klineCall(func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error) {
				return c.Crypto.Klines
			}, itick.RegionBA, []string{"BTCUSDT"}, itick.OneMinute, 2),
			wantQuery: q("region", "BA", "codes", "BTCUSDT", "kType", "1", "limit", "2"),
			want: map[string][]itick.Kline{"BTCUSDT": {
				{Time: ms(1765526700000), Open: 92250, High: 92330, Low: 92210.5, Close: 92311.5, Volume: 12.40811, Turnover: 1145102883.1},
				{Time: ms(1765526760000), Open: 92311.5, High: 92350, Low: 92290, Close: 92300, Volume: 8.00052, Turnover: 738508991.05},
			}},
		},
		{
			name: "Forex.Depths", path: "/forex/depths", fixture: "forex_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Depths(ctx, itick.RegionGB, []string{"EURUSD"})
			},
			wantQuery: q("region", "GB", "codes", "EURUSD"),
			want: map[string]itick.DepthBook{"EURUSD": {Symbol: "EURUSD",
				Asks: []itick.DepthLevel{lv(1, 1.1623899999999999, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 1.16235, 0, 0)}}},
		},
		{
			name: "Forex.Quotes", path: "/forex/quotes", fixture: "forex_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quotes(ctx, itick.RegionGB, []string{"GBPUSD", "EURUSD"})
			},
			wantQuery: q("region", "GB", "codes", "GBPUSD,EURUSD"),
			want: map[string]itick.Quote{
				"GBPUSD": {Symbol: "GBPUSD", Last: 1.3431899999999999, Open: 1.33912, High: 1.34502, Low: 1.33801, Time: ms(1765526889000)},
				"EURUSD": {Symbol: "EURUSD", Last: 1.16238, Open: 1.1609, High: 1.16411, Low: 1.16002, Time: ms(1765526889000)},
			},
		},
		{
			name: "Forex.Klines", path: "/forex/klines", fixture: "forex_klines.json",
			call: klineCall(func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error) {
				return c.Forex.Klines
			}, itick.RegionGB, []string{"GBPUSD"}, itick.FiveMinutes, 2),
			wantQuery: q("region", "GB", "codes", "GBPUSD", "kType", "2", "limit", "2"),
			want: map[string][]itick.Kline{"GBPUSD": {
				{Time: ms(1765526100000), Open: 1.34155, High: 1.3424, Low: 1.34101, Close: 1.34211},
				{Time: ms(1765526400000), Open: 1.34211, High: 1.3431899999999999, Low: 1.3419, Close: 1.34301},
			}},
		},
		{
			name: "Future.Depths", path: "/future/depths", fixture: "future_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Depths(ctx, itick.RegionUS, []string{"NQ"})
			},
			wantQuery: q("region", "US", "codes", "NQ"),
			want: map[string]itick.DepthBook{"NQ": {Symbol: "NQ",
				Asks: []itick.DepthLevel{lv(1, 25612.25, 3, 2)}, Bids: []itick.DepthLevel{lv(1, 0, 0, 0)}}},
		},
		{
			name: "Future.Quotes", path: "/future/quotes", fixture: "future_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Quotes(ctx, itick.RegionUS, []string{"NQ", "CL"})
			},
			wantQuery: q("region", "US", "codes", "NQ,CL"),
			want: map[string]itick.Quote{
				"NQ": {Symbol: "NQ", Last: 25612.25, Open: 25500, PrevClose: 25480.5, High: 25650, Low: 25466.75, Time: ms(1765526889000),
					Volume: 402113, Turnover: 10289912200.5, Change: 131.75, ChangePercent: 0.52},
				"CL": {Symbol: "CL", Last: 58.12, Open: 58.4, PrevClose: 58.5, High: 58.77, Low: 57.9, Time: ms(1765526889000),
					Volume: 211870, Turnover: 12312000, Change: -0.38, ChangePercent: -0.65},
			},
		},
		{
			name: "Future.Klines", path: "/future/klines", fixture: "future_klines.json",
			call: klineCall(func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error) {
				return c.Future.Klines
			}, itick.RegionUS, []string{"NQ"}, itick.OneHour, 2),
			wantQuery: q("region", "US", "codes", "NQ", "kType", "5", "limit", "2"),
			want: map[string][]itick.Kline{"NQ": {
				{Time: ms(1765522800000), Open: 25570, High: 25630.5, Low: 25555, Close: 25600, Volume: 40211, Turnover: 1029544120},
				{Time: ms(1765526400000), Open: 25600, High: 25650, Low: 25590.25, Close: 25612.25, Volume: 31877, Turnover: 816420077.5},
			}},
		},
		{
			name: "Fund.Depths", path: "/fund/depths", fixture: "fund_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Depths(ctx, itick.RegionUS, []string{"QQQ", "SPY"})
			},
			wantQuery: q("region", "US", "codes", "QQQ,SPY"),
			want: map[string]itick.DepthBook{
				"QQQ": {Symbol: "QQQ", Asks: placeholderLevels, Bids: placeholderLevels},
				"SPY": {Symbol: "SPY", Asks: []itick.DepthLevel{lv(1, 681.4, 300, 3)}, Bids: []itick.DepthLevel{lv(1, 681.38, 500, 4)}},
			},
		},
		{
			name: "Indices.Depths", path: "/indices/depths", fixture: "indices_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Depths(ctx, itick.RegionGB, []string{"DJI"})
			},
			wantQuery: q("region", "GB", "codes", "DJI"),
			want:      map[string]itick.DepthBook{"DJI": {Symbol: "DJI", Asks: placeholderLevels, Bids: placeholderLevels}},
		},
		{
			name: "Indices.Quotes", path: "/indices/quotes", fixture: "indices_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quotes(ctx, itick.RegionGB, []string{"SPX", "DJI"})
			},
			wantQuery: q("region", "GB", "codes", "SPX,DJI"),
			want: map[string]itick.Quote{
				"SPX": {Symbol: "SPX", Last: 6827.41, Open: 6851.2, High: 6861.23, Low: 6800.05, Time: ms(1765526889000), Volume: 2588791221, Turnover: 2.1e13},
				"DJI": {Symbol: "DJI", Last: 48458, Open: 48600.5, High: 48701.9, Low: 48310.4, Time: ms(1765526889000), Volume: 441020100, Turnover: 3.24e12},
			},
		},
		{
			name: "Indices.Klines", path: "/indices/klines", fixture: "indices_klines.json",
			call: klineCall(func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error) {
				return c.Indices.Klines
			}, itick.RegionGB, []string{"SPX"}, itick.OneDay, 3, itick.WithEnd(end)),
			wantQuery: q("region", "GB", "codes", "SPX", "kType", "8", "limit", "3", "et", "1765526400000"),
			want: map[string][]itick.Kline{"SPX": {
				{Time: ms(1765324800000), Open: 6840.1, High: 6870, Low: 6822.5, Close: 6840.51, Volume: 2401102330, Turnover: 1.98e13},
				{Time: ms(1765411200000), Open: 6840.51, High: 6899.3, Low: 6831.02, Close: 6851.2, Volume: 2710553120, Turnover: 2.25e13},
				{Time: ms(1765497600000), Open: 6851.2, High: 6861.23, Low: 6800.05, Close: 6827.41, Volume: 2588791221, Turnover: 2.1e13},
			}},
		},
		{
			name: "News.List", path: "/news", fixture: "news_page1.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "hk", Limit: 2})
			},
			wantQuery: q("market", "stock", "lang", "hk", "limit", "2"),
			want:      &itick.NewsPage{Items: newsPage1Items, NextCursor: "2025-12-12T07:00:00.123456789Z", HasMore: true, Count: 2},
		},
	}
}

var (
	newsPage1Items = []itick.NewsItem{
		{ID: "8f1c7a52-3e0b-4c55-9a2e-51d0c3f6b7a1", Title: "騰訊控股第三季度收入增長15%", Published: time.Unix(1765526400, 0).UTC(),
			Market: "stock", Lang: "hk", Link: "https://news.example.com/a/8f1c7a52", Provider: "Reuters"},
		{ID: "0d2b44e9-7c61-4f0a-8e3b-9b7f12aa04c5", Title: "恒生指數午後回升", Published: time.Unix(1765522800, 0).UTC(),
			Market: "stock", Lang: "hk", Link: "https://news.example.com/a/0d2b44e9", Provider: "AASTOCKS"},
	}
	newsPage2Items = []itick.NewsItem{
		{ID: "c47e9b10-55d3-4e8e-b0f1-2a6d8c9e3f77", Title: "港股通南向資金淨流入", Published: time.Unix(1765519200, 0).UTC(),
			Market: "stock", Lang: "hk", Link: "https://news.example.com/a/c47e9b10", Provider: "HKET"},
	}
	splitRecords = []itick.SplitRecord{
		{ExDate: ms(1765152000000), Region: itick.RegionUS, Name: "Nvidia Corp", Code: "NVDA", Ratio: "10:1"},
		{ExDate: ms(1764892800000), Region: itick.RegionUS, Name: "Walgreens Boots Alliance", Code: "WBA", Ratio: "1:20"},
		{ExDate: ms(1764633600000), Region: itick.RegionUS, Name: "Chipotle Mexican Grill", Code: "CMG", Ratio: "50:1"},
	}
)

// TestServices_DecodeFixtures calls every method of every service against
// its endpoint's fixture and compares the decoded values and the query sent.
func TestServices_DecodeFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range serviceCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t)
			var rec recorder
			mt.RegisterResponder("GET", mockBase+tc.path, record(&rec, body(200, string(fixture(t, tc.fixture)))))
			got, err := tc.call(t.Context(), c)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s decoded (-want +got):\n%s", tc.name, diff)
			}
			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("%s sent %d requests, want 1", tc.name, len(reqs))
			}
			if reqs[0].Path != tc.path {
				t.Errorf("path = %q, want %q", reqs[0].Path, tc.path)
			}
			if diff := cmp.Diff(tc.wantQuery, reqs[0].Query); diff != "" {
				t.Errorf("%s query (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// TestServices_SplitsAllPages reads every split record across both fixture pages.
func TestServices_SplitsAllPages(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	mt.RegisterResponderWithQuery("GET", mockBase+"/stock/split", "region=US&page=0", body(200, string(fixture(t, "stock_split_page0.json"))))
	mt.RegisterResponderWithQuery("GET", mockBase+"/stock/split", "region=US&page=1", body(200, string(fixture(t, "stock_split_page1.json"))))
	var got []itick.SplitRecord
	for r, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(splitRecords, got); diff != "" {
		t.Errorf("Splits (-want +got):\n%s", diff)
	}
}

// TestServices_NewsAllPages reads every item across both news fixture pages.
func TestServices_NewsAllPages(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	mt.RegisterResponderWithQuery("GET", mockBase+"/news", "market=stock&lang=hk&limit=20", body(200, string(fixture(t, "news_page1.json"))))
	mt.RegisterResponderWithQuery("GET", mockBase+"/news", "market=stock&lang=hk&limit=20&cursor=2025-12-12T07:00:00.123456789Z",
		body(200, string(fixture(t, "news_page2.json"))))
	var got []itick.NewsItem
	for it, err := range c.News.All(t.Context(), itick.NewsQuery{Market: "stock", Lang: "hk"}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	want := append(append([]itick.NewsItem(nil), newsPage1Items...), newsPage2Items...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("News.All (-want +got):\n%s", diff)
	}
}

// TestServices_DepthEmptyDataIsNotFound: a single depth whose data is null
// is ErrNotFound, not a nil book with a nil error.
func TestServices_DepthEmptyDataIsNotFound(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t)
	mt.RegisterResponder("GET", mockBase+"/stock/depth", body(200, `{"code":0,"msg":null,"data":null}`))
	book, err := c.Stock.Depth(t.Context(), itick.RegionHK, "700")
	if book != nil || !errors.Is(err, itick.ErrNotFound) {
		t.Fatalf("Depth = %v, %v; want nil and ErrNotFound", book, err)
	}
}
