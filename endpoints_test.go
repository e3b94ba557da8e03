package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Every endpoint the SDK calls, in one table: the method, the request it
// sends, the fixture it reads and the value it returns. The models' wire
// form and round trips of the fixtures' data are in models_test.go.
//
// A new endpoint enters through four places: its model file (the struct
// with its itick tags, codec.Describe, and the methods that call it, on
// each service that serves it, as stock_info.go holds Stock.Info), a row
// of endpoints below, its fixture in testdata, and its route in
// markettest/routes.go. The decoder, MarshalJSON, the encoding/json oracle
// of the equivalence tests and fuzz targets, the stream's pushes and the
// simulator's answers all follow from the tags.

// endpoint is one method of the SDK against its endpoint's fixture: the
// request it must send and the value it must decode.
type endpoint struct {
	name      string
	path      string
	fixture   string
	call      func(ctx context.Context, c *itick.Client) (any, error)
	wantQuery url.Values
	want      any
}

// endpoints are every endpoint the SDK calls, through every method that
// calls it, each with a fixture in testdata.
func endpoints() []endpoint {
	end := time.Date(2025, 12, 12, 8, 0, 0, 0, time.UTC)
	endMs := "1765526400000"
	return []endpoint{
		// Batch depths, quotes and candles; a split page and a news page.
		{
			name: "Stock.Depth", path: "/stock/depth", fixture: "stock_depth.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Depth(ctx, itick.RegionHK, " 700 ")
			},
			wantQuery: query("region", "HK", "code", "700"),
			want:      &stockDepth700,
		},
		{
			name: "Stock.Depths", path: "/stock/depths", fixture: "stock_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Depths(ctx, itick.RegionHK, []string{"700", "9988"})
			},
			wantQuery: query("region", "HK", "codes", "700,9988"),
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
			wantQuery: query("region", "HK", "codes", "700,9988"),
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
			wantQuery: query("region", "HK", "codes", "700,9988", "kType", "8", "limit", "3", "exchange", "HKEX", "et", "1765526400000"),
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
			wantQuery: query("region", "US", "page", "0"),
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
			wantQuery: query("region", "BA", "code", "BTCUSDT"),
			want:      &cryptoDepthBTC,
		},
		{
			name: "Crypto.Depths", path: "/crypto/depths", fixture: "crypto_depths.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Depths(ctx, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"})
			},
			wantQuery: query("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
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
			wantQuery: query("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
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
			wantQuery: query("region", "BA", "codes", "BTCUSDT", "kType", "1", "limit", "2"),
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
			wantQuery: query("region", "GB", "codes", "EURUSD"),
			want: map[string]itick.DepthBook{"EURUSD": {Symbol: "EURUSD",
				Asks: []itick.DepthLevel{lv(1, 1.1623899999999999, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 1.16235, 0, 0)}}},
		},
		{
			name: "Forex.Quotes", path: "/forex/quotes", fixture: "forex_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quotes(ctx, itick.RegionGB, []string{"GBPUSD", "EURUSD"})
			},
			wantQuery: query("region", "GB", "codes", "GBPUSD,EURUSD"),
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
			wantQuery: query("region", "GB", "codes", "GBPUSD", "kType", "2", "limit", "2"),
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
			wantQuery: query("region", "US", "codes", "NQ"),
			want: map[string]itick.DepthBook{"NQ": {Symbol: "NQ",
				Asks: []itick.DepthLevel{lv(1, 25612.25, 3, 2)}, Bids: []itick.DepthLevel{lv(1, 0, 0, 0)}}},
		},
		{
			name: "Future.Quotes", path: "/future/quotes", fixture: "future_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Quotes(ctx, itick.RegionUS, []string{"NQ", "CL"})
			},
			wantQuery: query("region", "US", "codes", "NQ,CL"),
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
			wantQuery: query("region", "US", "codes", "NQ", "kType", "5", "limit", "2"),
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
			wantQuery: query("region", "US", "codes", "QQQ,SPY"),
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
			wantQuery: query("region", "GB", "codes", "DJI"),
			want:      map[string]itick.DepthBook{"DJI": {Symbol: "DJI", Asks: placeholderLevels, Bids: placeholderLevels}},
		},
		{
			name: "Indices.Quotes", path: "/indices/quotes", fixture: "indices_quotes.json",
			call: func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quotes(ctx, itick.RegionGB, []string{"SPX", "DJI"})
			},
			wantQuery: query("region", "GB", "codes", "SPX,DJI"),
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
			wantQuery: query("region", "GB", "codes", "SPX", "kType", "8", "limit", "3", "et", "1765526400000"),
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
			wantQuery: query("market", "stock", "lang", "hk", "limit", "2"),
			want:      &itick.NewsPage{Items: newsPage1Items, NextCursor: "2025-12-12T07:00:00.123456789Z", HasMore: true, Count: 2},
		},

		// Singular quotes.
		{"Stock.Quote", "/stock/quote", "stock_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Quote(ctx, itick.RegionHK, " 700 ")
			},
			query("region", "HK", "code", "700"),
			&itick.Quote{Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: ms(1765526889000),
				Volume: 17825495, Turnover: 10871536434.36, Change: 8, ChangePercent: 1.32}},
		{"Stock.Quote exchange", "/stock/quote", "stock_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Quote(ctx, itick.RegionHK, "700", itick.WithQuoteExchange("HKEX"))
			},
			query("region", "HK", "code", "700", "exchange", "HKEX"),
			&itick.Quote{Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: ms(1765526889000),
				Volume: 17825495, Turnover: 10871536434.36, Change: 8, ChangePercent: 1.32}},
		{"Crypto.Quote", "/crypto/quote", "crypto_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Quote(ctx, itick.RegionBA, "BTCUSDT")
			},
			query("region", "BA", "code", "BTCUSDT"),
			&itick.Quote{Symbol: "BTCUSDT", Last: 92311.5, Open: 90120, High: 92800, Low: 89955.1, Time: ms(1765526889123),
				Volume: 18233.50412, Turnover: 1668341277.8}},
		{"Forex.Quote", "/forex/quote", "forex_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quote(ctx, itick.RegionGB, "EURUSD")
			},
			query("region", "GB", "code", "EURUSD"),
			&itick.Quote{Symbol: "EURUSD", Last: 1.1641899999999999, Open: 1.16285, High: 1.16531, Low: 1.16102, Time: ms(1765526880000)}},
		{"Indices.Quote", "/indices/quote", "indices_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quote(ctx, itick.RegionGB, "SPX")
			},
			query("region", "GB", "code", "SPX"),
			&itick.Quote{Symbol: "SPX", Last: 6812.63, Open: 6790.12, High: 6830, Low: 6781.4, Time: ms(1765526880000),
				Volume: 2455617028, Turnover: 2.1e13}},
		{"Indices.Quote with change", "/indices/quote", "indices_quote_change.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quote(ctx, itick.RegionGB, "SPX")
			},
			query("region", "GB", "code", "SPX"),
			&itick.Quote{Symbol: "SPX", Last: 6812.63, Open: 6790.12, PrevClose: 6795.5, High: 6830, Low: 6781.4,
				Time: ms(1765526880000), Volume: 2455617028, Turnover: 2.1e13, Change: 17.13, ChangePercent: 0.25}},
		{"Forex.Quotes with change", "/forex/quotes", "forex_quotes_change.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
			},
			query("region", "GB", "codes", "EURUSD"),
			map[string]itick.Quote{"EURUSD": {Symbol: "EURUSD", Last: 1.1641899999999999, Open: 1.16285, PrevClose: 1.16203,
				High: 1.16531, Low: 1.16102, Time: ms(1765526880000), Change: 0.00216, ChangePercent: 0.19}}},
		{"Stock.QuotesWith exchange", "/stock/quotes", "stock_quotes.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				m, err := c.Stock.QuotesWith(ctx, itick.RegionHK, []string{"700", "9988"}, itick.WithQuoteExchange("HKEX"))
				return len(m), err
			},
			query("region", "HK", "codes", "700,9988", "exchange", "HKEX"),
			2},
		{"Stock.DepthsWith exchange", "/stock/depths", "stock_depths.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				m, err := c.Stock.DepthsWith(ctx, itick.RegionHK, []string{"700", "9988"}, itick.WithQuoteExchange("HKEX"))
				return len(m), err
			},
			query("region", "HK", "codes", "700,9988", "exchange", "HKEX"),
			2},
		{"Stock.DepthWith exchange", "/stock/depth", "stock_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				b, err := c.Stock.DepthWith(ctx, itick.RegionHK, "700", itick.WithQuoteExchange("HKEX"))
				if err != nil {
					return nil, err
				}
				return b.Symbol, nil
			},
			query("region", "HK", "code", "700", "exchange", "HKEX"),
			"700"},
		{"Future.Quote", "/future/quote", "future_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Quote(ctx, itick.RegionUS, "NQ")
			},
			query("region", "US", "code", "NQ"),
			&itick.Quote{Symbol: "NQ", Last: 25612.25, Open: 25480, PrevClose: 25471.5, High: 25655.75, Low: 25430.25,
				Time: ms(1765526887500), Volume: 412233, Change: 140.75, ChangePercent: 0.55}},
		{"Fund.Quote", "/fund/quote", "fund_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Quote(ctx, itick.RegionUS, "QQQ")
			},
			query("region", "US", "code", "QQQ"),
			&itick.Quote{Symbol: "QQQ", Last: 613.42, Open: 610.05, PrevClose: 609.88, High: 614.3, Low: 608.91,
				Time: ms(1765526889000), Volume: 41255310, Turnover: 25285109823.5, Change: 3.54, ChangePercent: 0.58}},
		{"Fund.Quotes", "/fund/quotes", "fund_quotes.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Quotes(ctx, itick.RegionUS, []string{"QQQ", "SPY", "QQQ"})
			},
			query("region", "US", "codes", "QQQ,SPY"),
			map[string]itick.Quote{
				"QQQ": {Symbol: "QQQ", Last: 613.42, Open: 610.05, PrevClose: 609.88, High: 614.3, Low: 608.91,
					Time: ms(1765526889000), Volume: 41255310, Turnover: 25285109823.5, Change: 3.54, ChangePercent: 0.58},
				"SPY": {Symbol: "SPY", Last: 681.2, Open: 679, PrevClose: 678.45, High: 682.07, Low: 677.9,
					Time: ms(1765526889000), Volume: 60112345, Turnover: 40937420011, Status: 1, Change: 2.75, ChangePercent: 0.41},
			}},

		// Singular klines, sorted oldest first.
		{"Stock.Kline", "/stock/kline", "stock_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Kline(ctx, itick.RegionHK, "700", itick.FiveMinutes, 3, itick.WithExchange("HKEX"), itick.WithEnd(end))
			},
			query("region", "HK", "code", "700", "kType", "2", "limit", "3", "exchange", "HKEX", "et", endMs),
			[]itick.Kline{
				{Time: ms(1765525800000), Open: 608, High: 611, Low: 607.5, Close: 610.5, Volume: 1402200, Turnover: 855341018.25},
				{Time: ms(1765526100000), Open: 610.5, High: 612.5, Low: 610, Close: 612, Volume: 988400, Turnover: 604220130},
				{Time: ms(1765526400000), Open: 612, High: 616, Low: 611.5, Close: 616, Volume: 1211300, Turnover: 741826990.5},
			}},
		{"Crypto.Kline", "/crypto/kline", "crypto_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneMinute, 2)
			},
			query("region", "BA", "code", "BTCUSDT", "kType", "1", "limit", "2"),
			[]itick.Kline{
				{Time: ms(1765526400000), Open: 92200.1, High: 92350, Low: 92188, Close: 92311.5, Volume: 12.50413, Turnover: 1154021.33},
				{Time: ms(1765526460000), Open: 92311.5, High: 92320, Low: 92290.2, Close: 92301, Volume: 3.0027, Turnover: 277158.9},
			}},
		{"Forex.Kline", "/forex/kline", "forex_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Kline(ctx, itick.RegionGB, "EURUSD", itick.OneDay, 1)
			},
			query("region", "GB", "code", "EURUSD", "kType", "8", "limit", "1"),
			[]itick.Kline{{Time: ms(1765497600000), Open: 1.16285, High: 1.16531, Low: 1.16102, Close: 1.1641899999999999}}},
		{"Indices.Kline", "/indices/kline", "indices_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Kline(ctx, itick.RegionGB, "SPX", itick.OneDay, 2, itick.WithEnd(end))
			},
			query("region", "GB", "code", "SPX", "kType", "8", "limit", "2", "et", endMs),
			[]itick.Kline{
				{Time: ms(1765411200000), Open: 6770.5, High: 6801, Low: 6760.25, Close: 6790.12, Volume: 2501123000, Turnover: 2.05e13},
				{Time: ms(1765497600000), Open: 6790.12, High: 6830, Low: 6781.4, Close: 6812.63, Volume: 2455617028, Turnover: 2.1e13},
			}},
		{"Future.Kline", "/future/kline", "future_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Kline(ctx, itick.RegionUS, "NQ", itick.OneMinute, 2)
			},
			query("region", "US", "code", "NQ", "kType", "1", "limit", "2"),
			[]itick.Kline{
				{Time: ms(1765526340000), Open: 25590.75, High: 25601, Low: 25588, Close: 25600, Volume: 1022},
				{Time: ms(1765526400000), Open: 25600, High: 25612.25, Low: 25598.5, Close: 25612.25, Volume: 845},
			}},
		{"Fund.Kline", "/fund/kline", "fund_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Kline(ctx, itick.RegionUS, "QQQ", itick.OneDay, 2)
			},
			query("region", "US", "code", "QQQ", "kType", "8", "limit", "2"),
			[]itick.Kline{
				{Time: ms(1765411200000), Open: 607.2, High: 610.5, Low: 606.1, Close: 609.88, Volume: 38877100, Turnover: 23688152001.2},
				{Time: ms(1765497600000), Open: 610.05, High: 614.3, Low: 608.91, Close: 613.42, Volume: 41255310, Turnover: 25285109823.5},
			}},
		{"Fund.Klines", "/fund/klines", "fund_klines.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Klines(ctx, itick.RegionUS, []string{"QQQ", "SPY"}, itick.OneDay, 2, itick.WithEnd(end))
			},
			query("region", "US", "codes", "QQQ,SPY", "kType", "8", "limit", "2", "et", endMs),
			map[string][]itick.Kline{
				"QQQ": {
					{Time: ms(1765411200000), Open: 607.2, High: 610.5, Low: 606.1, Close: 609.88, Volume: 38877100, Turnover: 23688152001.2},
					{Time: ms(1765497600000), Open: 610.05, High: 614.3, Low: 608.91, Close: 613.42, Volume: 41255310, Turnover: 25285109823.5},
				},
				"SPY": {{Time: ms(1765497600000), Open: 679, High: 682.07, Low: 677.9, Close: 681.2, Volume: 60112345, Turnover: 40937420011}},
			}},

		// Depth where it was missing.
		{"Forex.Depth", "/forex/depth", "forex_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Depth(ctx, itick.RegionGB, "EURUSD")
			},
			query("region", "GB", "code", "EURUSD"),
			&itick.DepthBook{Symbol: "EURUSD", Asks: []itick.DepthLevel{lv(1, 1.16425, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 1.16413, 0, 0)}}},
		{"Future.Depth", "/future/depth", "future_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Depth(ctx, itick.RegionUS, "NQ")
			},
			query("region", "US", "code", "NQ"),
			&itick.DepthBook{Symbol: "NQ", Asks: []itick.DepthLevel{lv(1, 25612.5, 4, 2)}, Bids: []itick.DepthLevel{lv(1, 0, 0, 0)}}},
		{"Fund.Depth", "/fund/depth", "fund_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Depth(ctx, itick.RegionUS, "QQQ")
			},
			query("region", "US", "code", "QQQ"),
			&itick.DepthBook{Symbol: "QQQ", Asks: []itick.DepthLevel{lv(1, 0, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 0, 0, 0)}}},
		{"Indices.Depth", "/indices/depth", "indices_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Depth(ctx, itick.RegionGB, "SPX")
			},
			query("region", "GB", "code", "SPX"),
			&itick.DepthBook{Symbol: "SPX", Asks: []itick.DepthLevel{lv(1, 6812.9, 0, 0)}, Bids: []itick.DepthLevel{lv(1, 6812.3, 0, 0)}}},

		// Ticks.
		{"Stock.Tick", "/stock/tick", "stock_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Tick(ctx, itick.RegionHK, "700", itick.WithQuoteExchange(" HKEX "))
			},
			query("region", "HK", "code", "700", "exchange", "HKEX"),
			&itick.Tick{Symbol: "700", Last: 567, Time: ms(1754554087000), Volume: 1134500, Session: itick.SessionRegular}},
		{"Stock.Ticks", "/stock/ticks", "stock_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Ticks(ctx, itick.RegionUS, []string{"AAPL", " TSLA"})
			},
			query("region", "US", "codes", "AAPL,TSLA"),
			map[string]itick.Tick{
				"AAPL": {Symbol: "AAPL", Last: 278.12, Time: ms(1765526889412), Volume: 100, Session: itick.SessionPreMarket},
				"TSLA": {Symbol: "TSLA", Last: 446.9, Time: ms(1765526889730), Volume: 25, Session: itick.SessionAfterHours},
			}},
		{"Stock.Tick direction", "/stock/tick", "stock_tick_direction.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Tick(ctx, itick.RegionHK, "700")
			},
			query("region", "HK", "code", "700"),
			&itick.Tick{Symbol: "700", Last: 567, Time: ms(1754554087000), Volume: 1134500, Session: itick.SessionRegular,
				Direction: itick.DirectionBuy}},
		{"Stock.TicksWith direction and exchange", "/stock/ticks", "stock_ticks_direction.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.TicksWith(ctx, itick.RegionUS, []string{"AAPL", " TSLA"}, itick.WithQuoteExchange("NASDAQ"))
			},
			query("region", "US", "codes", "AAPL,TSLA", "exchange", "NASDAQ"),
			map[string]itick.Tick{
				"AAPL": {Symbol: "AAPL", Last: 278.12, Time: ms(1765526889412), Volume: 100, Session: itick.SessionPreMarket,
					Direction: itick.DirectionSell},
				"TSLA": {Symbol: "TSLA", Last: 446.9, Time: ms(1765526889730), Volume: 25, Session: itick.SessionAfterHours,
					Direction: itick.DirectionNeutral},
			}},
		{"Crypto.Tick", "/crypto/tick", "crypto_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Tick(ctx, itick.RegionBA, "BTCUSDT")
			},
			query("region", "BA", "code", "BTCUSDT"),
			&itick.Tick{Symbol: "BTCUSDT", Last: 92311.5, Time: ms(1765526889123), Volume: 0.00542, Turnover: 500.328}},
		{"Crypto.Ticks", "/crypto/ticks", "crypto_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Ticks(ctx, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"})
			},
			query("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
			map[string]itick.Tick{
				"BTCUSDT": {Symbol: "BTCUSDT", Last: 92311.5, Time: ms(1765526889123), Volume: 0.00542, Turnover: 500.328},
				"ETHUSDT": {Symbol: "ETHUSDT", Last: 3120.55, Time: ms(1765526888950), Volume: 1.2, Turnover: 3744.66, Status: itick.StatusHalted},
			}},
		{"Forex.Tick", "/forex/tick", "forex_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Tick(ctx, itick.RegionGB, "EURUSD")
			},
			query("region", "GB", "code", "EURUSD"),
			&itick.Tick{Symbol: "EURUSD", Last: 1.1641899999999999, Time: ms(1765526880000)}},
		{"Forex.Ticks", "/forex/ticks", "forex_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Ticks(ctx, itick.RegionGB, []string{"EURUSD", "GBPUSD"})
			},
			query("region", "GB", "codes", "EURUSD,GBPUSD"),
			map[string]itick.Tick{
				"EURUSD": {Symbol: "EURUSD", Last: 1.1641899999999999, Time: ms(1765526880000)},
				"GBPUSD": {Symbol: "GBPUSD", Last: 1.3431899999999999, Time: ms(1765526880250)},
			}},
		{"Indices.Tick", "/indices/tick", "indices_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Tick(ctx, itick.RegionGB, "SPX")
			},
			query("region", "GB", "code", "SPX"),
			&itick.Tick{Symbol: "SPX", Last: 6812.63, Time: ms(1765526880000)}},
		{"Indices.Ticks", "/indices/ticks", "indices_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Ticks(ctx, itick.RegionGB, []string{"SPX", "DJI"})
			},
			query("region", "GB", "codes", "SPX,DJI"),
			map[string]itick.Tick{
				"SPX": {Symbol: "SPX", Last: 6812.63, Time: ms(1765526880000)},
				"DJI": {Symbol: "DJI", Last: 48210.4, Time: ms(1765526880000)},
			}},
		{"Future.Tick", "/future/tick", "future_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Tick(ctx, itick.RegionUS, "NQ")
			},
			query("region", "US", "code", "NQ"),
			&itick.Tick{Symbol: "NQ", Last: 25612.25, Time: ms(1765526887500), Volume: 3}},
		{"Future.Ticks", "/future/ticks", "future_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Ticks(ctx, itick.RegionUS, []string{"NQ", "ES"})
			},
			query("region", "US", "codes", "NQ,ES"),
			map[string]itick.Tick{
				"NQ": {Symbol: "NQ", Last: 25612.25, Time: ms(1765526887500), Volume: 3},
				"ES": {Symbol: "ES", Last: 6830.5, Time: ms(1765526887820), Volume: 12},
			}},
		{"Fund.Tick", "/fund/tick", "fund_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Tick(ctx, itick.RegionUS, "QQQ")
			},
			query("region", "US", "code", "QQQ"),
			&itick.Tick{Symbol: "QQQ", Last: 613.42, Time: ms(1765526889000), Volume: 200}},
		{"Fund.Ticks", "/fund/ticks", "fund_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Ticks(ctx, itick.RegionUS, []string{"QQQ", "SPY"})
			},
			query("region", "US", "codes", "QQQ,SPY"),
			map[string]itick.Tick{
				"QQQ": {Symbol: "QQQ", Last: 613.42, Time: ms(1765526889000), Volume: 200},
				"SPY": {Symbol: "SPY", Last: 681.2, Time: ms(1765526889100), Volume: 1500},
			}},

		// Stock information and IPOs.
		{"Stock.Info", "/stock/info", "stock_info.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Info(ctx, itick.RegionUS, " AAPL")
			},
			query("type", "stock", "region", "US", "code", "AAPL"),
			&itick.StockInfo{Code: "AAPL", Name: "Apple Inc.", Type: "stock", Exchange: "NASDAQ", Sector: "Technology",
				Industry: "Consumer Electronics", Logo: "https://static.itick.org/logo/AAPL.png", Region: itick.RegionUS,
				Description: "Apple Inc. designs, manufactures and markets smartphones, personal computers, tablets, wearables and accessories worldwide.",
				Website:     "https://www.apple.com", MarketCap: 4127000000000, Shares: 14776353000, PE: 37.21, Currency: "USD"}},
		{"Stock.IPOPage", "/stock/ipo", "stock_ipo_page0.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.IPOPage(ctx, itick.IPOUpcoming, itick.RegionUS, 0)
			},
			query("type", "upcoming", "region", "US", "page", "0"),
			&itick.IPOPage{Records: []itick.IPO{ipoNWBT, ipoHLAC}, Page: 0, Size: 2, TotalPages: 2, TotalElements: 3}},
		{"Stock.IPOPage recent", "/stock/ipo", "stock_ipo_page1.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.IPOPage(ctx, itick.IPORecent, itick.RegionHK, 1)
			},
			query("type", "recent", "region", "HK", "page", "1"),
			&itick.IPOPage{Records: []itick.IPO{ipoQPM}, Page: 1, Size: 2, TotalPages: 2, TotalElements: 3, Last: true}},

		// Reference data.
		{"Market.Symbols", "/symbol/list", "symbol_list.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "")
			},
			query("type", "stock", "region", "US"),
			[]itick.Symbol{
				{Code: "AAPL", Name: "Apple Inc.", Type: itick.AssetStock, Exchange: "NASDAQ", ShortName: "Apple"},
				{Code: "BRK.B", Name: "Berkshire Hathaway Inc. Class B", Type: itick.AssetStock, Exchange: "NYSE", ShortName: "Berkshire B"},
				{Code: "SPY", Name: "SPDR S&P 500 ETF Trust", Type: itick.AssetStock, Exchange: "NYSE ARCA"},
			}},
		{"Market.Symbols code", "/symbol/list", "symbol_list.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				s, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, " AAPL ")
				return len(s), err
			},
			query("type", "stock", "region", "US", "code", "AAPL"),
			3},
		{"Market.Holidays", "/symbol/v2/holidays", "symbol_holidays.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Holidays(ctx) },
			query(),
			[]itick.Holiday{
				{Market: "US", Country: "United States", UTCOffset: -5, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{date(2025, 1, 1), date(2025, 1, 20), date(2025, 7, 4), date(2025, 12, 25)}},
				{Market: "HK", Country: "Hong Kong", UTCOffset: 8, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{date(2025, 1, 1), date(2025, 1, 29), date(2025, 1, 30)}},
				{Market: "IN", Country: "India", UTCOffset: 5.5, TradingHours: "09:15 - 15:30", Year: 2025},
			}},
		{"Market.HolidaysOf", "/symbol/v2/holidays", "symbol_holidays_us.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Market.HolidaysOf(ctx, itick.RegionUS)
			},
			query("code", "US"),
			[]itick.Holiday{
				{Market: "US", Country: "United States", UTCOffset: -5, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{date(2025, 1, 1), date(2025, 1, 20), date(2025, 7, 4), date(2025, 12, 25)}},
			}},
		{"Market.Status object", "/market/status", "market_status.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Status(ctx, itick.RegionHK) },
			query("code", "HK"),
			[]itick.MarketStatus{statusHK}},
		{"Market.Status array", "/market/status", "market_status_array.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Status(ctx, itick.RegionUS) },
			query("code", "US"),
			[]itick.MarketStatus{statusUS}},

		// News articles.
		{"News.Get", "/news/8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "news_detail.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.News.Get(ctx, " 8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42 ", "en")
			},
			query("lang", "en"), &newsArticle},
		{"News.Get no lang", "/news/8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "news_detail.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.News.Get(ctx, "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "")
			},
			query(), &newsArticle},
	}
}

// TestEndpoints calls every method of every service against its
// endpoint's fixture: each sends one request, with the documented path
// and query, and decodes the fixture to the value it holds.
func TestEndpoints(t *testing.T) {
	t.Parallel()
	for _, tc := range endpoints() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			var rec recorder
			mt.RegisterResponder(http.MethodGet, mockBase+tc.path, record(&rec, body(http.StatusOK, string(fixture(t, tc.fixture)))))
			got, err := tc.call(t.Context(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded value (-want +got):\n%s", diff)
			}
			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("sent %d requests to %s, want 1 (total %d)", len(reqs), tc.path, mt.GetTotalCallCount())
			}
			if got := reqs[0].EscapedPath; got != tc.path {
				t.Errorf("path = %q, want %q", got, tc.path)
			}
			if diff := cmp.Diff(tc.wantQuery, reqs[0].Query); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}

func klineCall(svc func(c *itick.Client) func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error),
	region itick.Region, codes []string, iv itick.Interval, limit int, opts ...itick.KlineOption) func(context.Context, *itick.Client) (any, error) {
	return func(ctx context.Context, c *itick.Client) (any, error) {
		return svc(c)(ctx, region, codes, iv, limit, opts...)
	}
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

var (
	ipoNWBT = itick.IPO{ListingDate: ms(1766016000000), Company: "Northwind Biotech Holdings", Code: "NWBT", Exchange: "NASDAQ",
		Country: "US", MarketCap: "19.1M", Price: "3.50-4.50",
		SubscriptionStart: sec(1765497600), SubscriptionEnd: sec(1765843200), ResultDate: sec(1765929600)}
	ipoHLAC = itick.IPO{ListingDate: ms(1766102400000), Company: "Harbor Lane Acquisition Corp", Code: "HLAC", Exchange: "NYSE",
		Country: "US", MarketCap: "200M", Price: "10.00", SubscriptionStart: sec(1765584000), SubscriptionEnd: sec(1765929600)}
	ipoQPM = itick.IPO{ListingDate: ms(1766361600000), Company: "Quarry Point Minerals", Code: "QPM", Exchange: "NYSE American",
		Country: "US", MarketCap: "48.6M", Price: "5.00-6.00",
		SubscriptionStart: sec(1765843200), SubscriptionEnd: sec(1766188800), ResultDate: sec(1766275200)}
)

var (
	statusHK = itick.MarketStatus{Code: "HK", Region: "Hong Kong", Open: true, State: itick.MarketLunchBreak,
		Sessions: []string{"09:00-09:30", "09:30-12:00", "13:00-16:00", "16:00-16:10"},
		Zone:     "Asia/Hong_Kong", LocalTime: "2025-12-12 12:31:05"}
	statusUS = itick.MarketStatus{Code: "US", Region: "United States", Open: false, State: itick.MarketClosedHoliday,
		Holiday: "Christmas Day", Sessions: []string{"04:00-09:30", "09:30-16:00", "16:00-20:00"},
		Zone: "America/New_York", LocalTime: "2025-12-25 10:02:44"}
)

var newsArticle = itick.NewsArticle{ID: "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42",
	Title: "Tencent shares rise as gaming revenue beats estimates", Published: sec(1765526400), Lang: "en",
	Link:    "https://example.com/markets/tencent-gaming-revenue",
	Summary: "Tencent reported quarterly gaming revenue above analyst expectations.",
	Body:    "Tencent Holdings said on Wednesday that revenue from its domestic games grew 15% from a year earlier...",
	Tags:    []string{"Tencent", "gaming", "700"}, Markets: []string{"HK", "US"}, Market: "stock"}

// TestClientDecodesThroughDecodeResponse checks the services' results
// against the reference decode of the same bodies, end to end.
func TestClientDecodesThroughDecodeResponse(t *testing.T) {
	t.Parallel()
	bodies := map[string][]byte{
		"/stock/quotes":  fixture(t, "bench/quotes_50.json"),
		"/stock/depths":  fixture(t, "bench/depths_50.json"),
		"/stock/klines":  fixture(t, "bench/klines_10x500.json"),
		"/stock/depth":   []byte(`{"code":0,"msg":null,"data":{"s":"700","a":[{"po":1,"p":616,"v":100,"o":3}],"b":[]}}`),
		"/crypto/quotes": []byte(`{"code":0,"msg":null,"data":[]}`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bodies[r.URL.Path])
	}))
	c := newServerClient(t, srv, "test-token", itick.WithBatchSize(50))
	// A safety net only: under -race on a loaded machine the decodes of these
	// large bodies alone have taken over 10 s.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	codesOf := func(body []byte) []string {
		var env struct{ Data map[string]json.RawMessage }
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		var codes []string
		for k := range env.Data {
			codes = append(codes, k)
		}
		return codes
	}

	var wantQuotes map[string]itick.Quote
	if err := itick.RefDecodeResponse(200, bodies["/stock/quotes"], &wantQuotes); err != nil {
		t.Fatal(err)
	}
	gotQuotes, err := c.Stock.Quotes(ctx, itick.RegionHK, codesOf(bodies["/stock/quotes"]))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantQuotes, gotQuotes, itick.BitsEqual); diff != "" {
		t.Errorf("quotes (-reference +client):\n%s", diff)
	}

	var wantBooks map[string]itick.DepthBook
	if err := itick.RefDecodeResponse(200, bodies["/stock/depths"], &wantBooks); err != nil {
		t.Fatal(err)
	}
	gotBooks, err := c.Stock.Depths(ctx, itick.RegionHK, codesOf(bodies["/stock/depths"]))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantBooks, gotBooks, itick.BitsEqual); diff != "" {
		t.Errorf("depths (-reference +client):\n%s", diff)
	}

	var wantKlines map[string][]itick.Kline
	if err := itick.RefDecodeResponse(200, bodies["/stock/klines"], &wantKlines); err != nil {
		t.Fatal(err)
	}
	gotKlines, err := c.Stock.Klines(ctx, itick.RegionHK, codesOf(bodies["/stock/klines"]), itick.OneMinute, 500)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantKlines, gotKlines, itick.BitsEqual); diff != "" {
		t.Errorf("klines (-reference +client):\n%s", diff)
	}

	gotBook, err := c.Stock.Depth(ctx, itick.RegionHK, "700")
	if err != nil {
		t.Fatal(err)
	}
	wantBook := &itick.DepthBook{Symbol: "700", Asks: []itick.DepthLevel{{Level: 1, Price: 616, Volume: 100, Orders: 3}}, Bids: []itick.DepthLevel{}}
	if diff := cmp.Diff(wantBook, gotBook); diff != "" {
		t.Errorf("depth (-want +got):\n%s", diff)
	}

	_, err = c.Crypto.Quotes(ctx, itick.RegionBA, []string{"BTCUSDT"})
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "cannot decode data") || apiErr.Path != "/crypto/quotes" {
		t.Errorf("array data for quotes: got %v, want an *APIError about the data", err)
	}
}
