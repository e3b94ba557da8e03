package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// xBase is where the extra endpoints' tests send requests.
const xBase = "https://api.test.example"

// xClient returns a client whose requests go to a fresh mock transport.
func xClient(t testing.TB, opts ...itick.Option) (*itick.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := []itick.Option{
		itick.WithHTTPClient(&http.Client{Transport: mt}),
		itick.WithBaseURL(xBase),
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond),
		itick.WithRateLimit(rate.Inf, 0),
	}
	c, err := itick.NewClient("tok-extra-1f2e3d", append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// xFixture returns testdata/name as a string.
func xFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return string(b)
}

// xData returns the data member of a fixture's envelope.
func xData(t testing.TB, name string) json.RawMessage {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(xFixture(t, name)), &env); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return env.Data
}

// xRequests records what a responder was asked.
type xRequests struct {
	mu   sync.Mutex
	urls []*url.URL
}

func (r *xRequests) add(u *url.URL) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cp := *u
	r.urls = append(r.urls, &cp)
}

func (r *xRequests) all() []*url.URL {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.urls)
}

// xServe answers GET path with body and records each request.
func xServe(mt *httpmock.MockTransport, path, body string) *xRequests {
	rec := &xRequests{}
	mt.RegisterResponder(http.MethodGet, xBase+path, func(req *http.Request) (*http.Response, error) {
		rec.add(req.URL)
		return httpmock.NewStringResponse(http.StatusOK, body), nil
	})
	return rec
}

func xq(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func xms(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
func xsec(s int64) time.Time { return time.Unix(s, 0).UTC() }

func xlv(level int, price, volume, orders float64) itick.DepthLevel {
	return itick.DepthLevel{Level: level, Price: price, Volume: volume, Orders: orders}
}

// xCase is one new method decoding its endpoint's fixture.
type xCase struct {
	name      string
	path      string
	fixture   string
	call      func(ctx context.Context, c *itick.Client) (any, error)
	wantQuery url.Values
	want      any
}

func marketCases() []xCase {
	end := time.Date(2025, 12, 12, 8, 0, 0, 0, time.UTC)
	endMs := "1765526400000"
	return []xCase{
		// Singular quotes.
		{"Stock.Quote", "/stock/quote", "stock_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Quote(ctx, itick.RegionHK, " 700 ")
			},
			xq("region", "HK", "code", "700"),
			&itick.Quote{Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: xms(1765526889000),
				Volume: 17825495, Turnover: 10871536434.36, Change: 8, ChangePercent: 1.32}},
		{"Stock.Quote exchange", "/stock/quote", "stock_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Quote(ctx, itick.RegionHK, "700", itick.WithQuoteExchange("HKEX"))
			},
			xq("region", "HK", "code", "700", "exchange", "HKEX"),
			&itick.Quote{Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5, Time: xms(1765526889000),
				Volume: 17825495, Turnover: 10871536434.36, Change: 8, ChangePercent: 1.32}},
		{"Crypto.Quote", "/crypto/quote", "crypto_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Quote(ctx, itick.RegionBA, "BTCUSDT")
			},
			xq("region", "BA", "code", "BTCUSDT"),
			&itick.Quote{Symbol: "BTCUSDT", Last: 92311.5, Open: 90120, High: 92800, Low: 89955.1, Time: xms(1765526889123),
				Volume: 18233.50412, Turnover: 1668341277.8}},
		{"Forex.Quote", "/forex/quote", "forex_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quote(ctx, itick.RegionGB, "EURUSD")
			},
			xq("region", "GB", "code", "EURUSD"),
			&itick.Quote{Symbol: "EURUSD", Last: 1.1641899999999999, Open: 1.16285, High: 1.16531, Low: 1.16102, Time: xms(1765526880000)}},
		{"Indices.Quote", "/indices/quote", "indices_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quote(ctx, itick.RegionGB, "SPX")
			},
			xq("region", "GB", "code", "SPX"),
			&itick.Quote{Symbol: "SPX", Last: 6812.63, Open: 6790.12, High: 6830, Low: 6781.4, Time: xms(1765526880000),
				Volume: 2455617028, Turnover: 2.1e13}},
		{"Indices.Quote with change", "/indices/quote", "indices_quote_change.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Quote(ctx, itick.RegionGB, "SPX")
			},
			xq("region", "GB", "code", "SPX"),
			&itick.Quote{Symbol: "SPX", Last: 6812.63, Open: 6790.12, PrevClose: 6795.5, High: 6830, Low: 6781.4,
				Time: xms(1765526880000), Volume: 2455617028, Turnover: 2.1e13, Change: 17.13, ChangePercent: 0.25}},
		{"Forex.Quotes with change", "/forex/quotes", "forex_quotes_change.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD"})
			},
			xq("region", "GB", "codes", "EURUSD"),
			map[string]itick.Quote{"EURUSD": {Symbol: "EURUSD", Last: 1.1641899999999999, Open: 1.16285, PrevClose: 1.16203,
				High: 1.16531, Low: 1.16102, Time: xms(1765526880000), Change: 0.00216, ChangePercent: 0.19}}},
		{"Stock.QuotesWith exchange", "/stock/quotes", "stock_quotes.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				m, err := c.Stock.QuotesWith(ctx, itick.RegionHK, []string{"700", "9988"}, itick.WithQuoteExchange("HKEX"))
				return len(m), err
			},
			xq("region", "HK", "codes", "700,9988", "exchange", "HKEX"),
			2},
		{"Stock.DepthsWith exchange", "/stock/depths", "stock_depths.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				m, err := c.Stock.DepthsWith(ctx, itick.RegionHK, []string{"700", "9988"}, itick.WithQuoteExchange("HKEX"))
				return len(m), err
			},
			xq("region", "HK", "codes", "700,9988", "exchange", "HKEX"),
			2},
		{"Stock.DepthWith exchange", "/stock/depth", "stock_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				b, err := c.Stock.DepthWith(ctx, itick.RegionHK, "700", itick.WithQuoteExchange("HKEX"))
				if err != nil {
					return nil, err
				}
				return b.Symbol, nil
			},
			xq("region", "HK", "code", "700", "exchange", "HKEX"),
			"700"},
		{"Future.Quote", "/future/quote", "future_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Quote(ctx, itick.RegionUS, "NQ")
			},
			xq("region", "US", "code", "NQ"),
			&itick.Quote{Symbol: "NQ", Last: 25612.25, Open: 25480, PrevClose: 25471.5, High: 25655.75, Low: 25430.25,
				Time: xms(1765526887500), Volume: 412233, Change: 140.75, ChangePercent: 0.55}},
		{"Fund.Quote", "/fund/quote", "fund_quote.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Quote(ctx, itick.RegionUS, "QQQ")
			},
			xq("region", "US", "code", "QQQ"),
			&itick.Quote{Symbol: "QQQ", Last: 613.42, Open: 610.05, PrevClose: 609.88, High: 614.3, Low: 608.91,
				Time: xms(1765526889000), Volume: 41255310, Turnover: 25285109823.5, Change: 3.54, ChangePercent: 0.58}},
		{"Fund.Quotes", "/fund/quotes", "fund_quotes.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Quotes(ctx, itick.RegionUS, []string{"QQQ", "SPY", "QQQ"})
			},
			xq("region", "US", "codes", "QQQ,SPY"),
			map[string]itick.Quote{
				"QQQ": {Symbol: "QQQ", Last: 613.42, Open: 610.05, PrevClose: 609.88, High: 614.3, Low: 608.91,
					Time: xms(1765526889000), Volume: 41255310, Turnover: 25285109823.5, Change: 3.54, ChangePercent: 0.58},
				"SPY": {Symbol: "SPY", Last: 681.2, Open: 679, PrevClose: 678.45, High: 682.07, Low: 677.9,
					Time: xms(1765526889000), Volume: 60112345, Turnover: 40937420011, Status: 1, Change: 2.75, ChangePercent: 0.41},
			}},

		// Singular klines, sorted oldest first.
		{"Stock.Kline", "/stock/kline", "stock_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Kline(ctx, itick.RegionHK, "700", itick.FiveMinutes, 3, itick.WithExchange("HKEX"), itick.WithEnd(end))
			},
			xq("region", "HK", "code", "700", "kType", "2", "limit", "3", "exchange", "HKEX", "et", endMs),
			[]itick.Kline{
				{Time: xms(1765525800000), Open: 608, High: 611, Low: 607.5, Close: 610.5, Volume: 1402200, Turnover: 855341018.25},
				{Time: xms(1765526100000), Open: 610.5, High: 612.5, Low: 610, Close: 612, Volume: 988400, Turnover: 604220130},
				{Time: xms(1765526400000), Open: 612, High: 616, Low: 611.5, Close: 616, Volume: 1211300, Turnover: 741826990.5},
			}},
		{"Crypto.Kline", "/crypto/kline", "crypto_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneMinute, 2)
			},
			xq("region", "BA", "code", "BTCUSDT", "kType", "1", "limit", "2"),
			[]itick.Kline{
				{Time: xms(1765526400000), Open: 92200.1, High: 92350, Low: 92188, Close: 92311.5, Volume: 12.50413, Turnover: 1154021.33},
				{Time: xms(1765526460000), Open: 92311.5, High: 92320, Low: 92290.2, Close: 92301, Volume: 3.0027, Turnover: 277158.9},
			}},
		{"Forex.Kline", "/forex/kline", "forex_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Kline(ctx, itick.RegionGB, "EURUSD", itick.OneDay, 1)
			},
			xq("region", "GB", "code", "EURUSD", "kType", "8", "limit", "1"),
			[]itick.Kline{{Time: xms(1765497600000), Open: 1.16285, High: 1.16531, Low: 1.16102, Close: 1.1641899999999999}}},
		{"Indices.Kline", "/indices/kline", "indices_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Kline(ctx, itick.RegionGB, "SPX", itick.OneDay, 2, itick.WithEnd(end))
			},
			xq("region", "GB", "code", "SPX", "kType", "8", "limit", "2", "et", endMs),
			[]itick.Kline{
				{Time: xms(1765411200000), Open: 6770.5, High: 6801, Low: 6760.25, Close: 6790.12, Volume: 2501123000, Turnover: 2.05e13},
				{Time: xms(1765497600000), Open: 6790.12, High: 6830, Low: 6781.4, Close: 6812.63, Volume: 2455617028, Turnover: 2.1e13},
			}},
		{"Future.Kline", "/future/kline", "future_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Kline(ctx, itick.RegionUS, "NQ", itick.OneMinute, 2)
			},
			xq("region", "US", "code", "NQ", "kType", "1", "limit", "2"),
			[]itick.Kline{
				{Time: xms(1765526340000), Open: 25590.75, High: 25601, Low: 25588, Close: 25600, Volume: 1022},
				{Time: xms(1765526400000), Open: 25600, High: 25612.25, Low: 25598.5, Close: 25612.25, Volume: 845},
			}},
		{"Fund.Kline", "/fund/kline", "fund_kline.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Kline(ctx, itick.RegionUS, "QQQ", itick.OneDay, 2)
			},
			xq("region", "US", "code", "QQQ", "kType", "8", "limit", "2"),
			[]itick.Kline{
				{Time: xms(1765411200000), Open: 607.2, High: 610.5, Low: 606.1, Close: 609.88, Volume: 38877100, Turnover: 23688152001.2},
				{Time: xms(1765497600000), Open: 610.05, High: 614.3, Low: 608.91, Close: 613.42, Volume: 41255310, Turnover: 25285109823.5},
			}},
		{"Fund.Klines", "/fund/klines", "fund_klines.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Klines(ctx, itick.RegionUS, []string{"QQQ", "SPY"}, itick.OneDay, 2, itick.WithEnd(end))
			},
			xq("region", "US", "codes", "QQQ,SPY", "kType", "8", "limit", "2", "et", endMs),
			map[string][]itick.Kline{
				"QQQ": {
					{Time: xms(1765411200000), Open: 607.2, High: 610.5, Low: 606.1, Close: 609.88, Volume: 38877100, Turnover: 23688152001.2},
					{Time: xms(1765497600000), Open: 610.05, High: 614.3, Low: 608.91, Close: 613.42, Volume: 41255310, Turnover: 25285109823.5},
				},
				"SPY": {{Time: xms(1765497600000), Open: 679, High: 682.07, Low: 677.9, Close: 681.2, Volume: 60112345, Turnover: 40937420011}},
			}},

		// Depth where it was missing.
		{"Forex.Depth", "/forex/depth", "forex_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Depth(ctx, itick.RegionGB, "EURUSD")
			},
			xq("region", "GB", "code", "EURUSD"),
			&itick.DepthBook{Symbol: "EURUSD", Asks: []itick.DepthLevel{xlv(1, 1.16425, 0, 0)}, Bids: []itick.DepthLevel{xlv(1, 1.16413, 0, 0)}}},
		{"Future.Depth", "/future/depth", "future_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Depth(ctx, itick.RegionUS, "NQ")
			},
			xq("region", "US", "code", "NQ"),
			&itick.DepthBook{Symbol: "NQ", Asks: []itick.DepthLevel{xlv(1, 25612.5, 4, 2)}, Bids: []itick.DepthLevel{xlv(1, 0, 0, 0)}}},
		{"Fund.Depth", "/fund/depth", "fund_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Depth(ctx, itick.RegionUS, "QQQ")
			},
			xq("region", "US", "code", "QQQ"),
			&itick.DepthBook{Symbol: "QQQ", Asks: []itick.DepthLevel{xlv(1, 0, 0, 0)}, Bids: []itick.DepthLevel{xlv(1, 0, 0, 0)}}},
		{"Indices.Depth", "/indices/depth", "indices_depth.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Depth(ctx, itick.RegionGB, "SPX")
			},
			xq("region", "GB", "code", "SPX"),
			&itick.DepthBook{Symbol: "SPX", Asks: []itick.DepthLevel{xlv(1, 6812.9, 0, 0)}, Bids: []itick.DepthLevel{xlv(1, 6812.3, 0, 0)}}},

		// Ticks.
		{"Stock.Tick", "/stock/tick", "stock_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Tick(ctx, itick.RegionHK, "700", itick.WithQuoteExchange(" HKEX "))
			},
			xq("region", "HK", "code", "700", "exchange", "HKEX"),
			&itick.Tick{Symbol: "700", Last: 567, Time: xms(1754554087000), Volume: 1134500, Session: itick.SessionRegular}},
		{"Stock.Ticks", "/stock/ticks", "stock_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Ticks(ctx, itick.RegionUS, []string{"AAPL", " TSLA"})
			},
			xq("region", "US", "codes", "AAPL,TSLA"),
			map[string]itick.Tick{
				"AAPL": {Symbol: "AAPL", Last: 278.12, Time: xms(1765526889412), Volume: 100, Session: itick.SessionPreMarket},
				"TSLA": {Symbol: "TSLA", Last: 446.9, Time: xms(1765526889730), Volume: 25, Session: itick.SessionAfterHours},
			}},
		{"Stock.Tick direction", "/stock/tick", "stock_tick_direction.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.Tick(ctx, itick.RegionHK, "700")
			},
			xq("region", "HK", "code", "700"),
			&itick.Tick{Symbol: "700", Last: 567, Time: xms(1754554087000), Volume: 1134500, Session: itick.SessionRegular,
				Direction: itick.DirectionBuy}},
		{"Stock.TicksWith direction and exchange", "/stock/ticks", "stock_ticks_direction.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Stock.TicksWith(ctx, itick.RegionUS, []string{"AAPL", " TSLA"}, itick.WithQuoteExchange("NASDAQ"))
			},
			xq("region", "US", "codes", "AAPL,TSLA", "exchange", "NASDAQ"),
			map[string]itick.Tick{
				"AAPL": {Symbol: "AAPL", Last: 278.12, Time: xms(1765526889412), Volume: 100, Session: itick.SessionPreMarket,
					Direction: itick.DirectionSell},
				"TSLA": {Symbol: "TSLA", Last: 446.9, Time: xms(1765526889730), Volume: 25, Session: itick.SessionAfterHours,
					Direction: itick.DirectionNeutral},
			}},
		{"Crypto.Tick", "/crypto/tick", "crypto_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Tick(ctx, itick.RegionBA, "BTCUSDT")
			},
			xq("region", "BA", "code", "BTCUSDT"),
			&itick.Tick{Symbol: "BTCUSDT", Last: 92311.5, Time: xms(1765526889123), Volume: 0.00542, Turnover: 500.328}},
		{"Crypto.Ticks", "/crypto/ticks", "crypto_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Crypto.Ticks(ctx, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"})
			},
			xq("region", "BA", "codes", "BTCUSDT,ETHUSDT"),
			map[string]itick.Tick{
				"BTCUSDT": {Symbol: "BTCUSDT", Last: 92311.5, Time: xms(1765526889123), Volume: 0.00542, Turnover: 500.328},
				"ETHUSDT": {Symbol: "ETHUSDT", Last: 3120.55, Time: xms(1765526888950), Volume: 1.2, Turnover: 3744.66, Status: itick.StatusHalted},
			}},
		{"Forex.Tick", "/forex/tick", "forex_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Tick(ctx, itick.RegionGB, "EURUSD")
			},
			xq("region", "GB", "code", "EURUSD"),
			&itick.Tick{Symbol: "EURUSD", Last: 1.1641899999999999, Time: xms(1765526880000)}},
		{"Forex.Ticks", "/forex/ticks", "forex_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Forex.Ticks(ctx, itick.RegionGB, []string{"EURUSD", "GBPUSD"})
			},
			xq("region", "GB", "codes", "EURUSD,GBPUSD"),
			map[string]itick.Tick{
				"EURUSD": {Symbol: "EURUSD", Last: 1.1641899999999999, Time: xms(1765526880000)},
				"GBPUSD": {Symbol: "GBPUSD", Last: 1.3431899999999999, Time: xms(1765526880250)},
			}},
		{"Indices.Tick", "/indices/tick", "indices_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Tick(ctx, itick.RegionGB, "SPX")
			},
			xq("region", "GB", "code", "SPX"),
			&itick.Tick{Symbol: "SPX", Last: 6812.63, Time: xms(1765526880000)}},
		{"Indices.Ticks", "/indices/ticks", "indices_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Indices.Ticks(ctx, itick.RegionGB, []string{"SPX", "DJI"})
			},
			xq("region", "GB", "codes", "SPX,DJI"),
			map[string]itick.Tick{
				"SPX": {Symbol: "SPX", Last: 6812.63, Time: xms(1765526880000)},
				"DJI": {Symbol: "DJI", Last: 48210.4, Time: xms(1765526880000)},
			}},
		{"Future.Tick", "/future/tick", "future_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Tick(ctx, itick.RegionUS, "NQ")
			},
			xq("region", "US", "code", "NQ"),
			&itick.Tick{Symbol: "NQ", Last: 25612.25, Time: xms(1765526887500), Volume: 3}},
		{"Future.Ticks", "/future/ticks", "future_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Future.Ticks(ctx, itick.RegionUS, []string{"NQ", "ES"})
			},
			xq("region", "US", "codes", "NQ,ES"),
			map[string]itick.Tick{
				"NQ": {Symbol: "NQ", Last: 25612.25, Time: xms(1765526887500), Volume: 3},
				"ES": {Symbol: "ES", Last: 6830.5, Time: xms(1765526887820), Volume: 12},
			}},
		{"Fund.Tick", "/fund/tick", "fund_tick.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Tick(ctx, itick.RegionUS, "QQQ")
			},
			xq("region", "US", "code", "QQQ"),
			&itick.Tick{Symbol: "QQQ", Last: 613.42, Time: xms(1765526889000), Volume: 200}},
		{"Fund.Ticks", "/fund/ticks", "fund_ticks.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Fund.Ticks(ctx, itick.RegionUS, []string{"QQQ", "SPY"})
			},
			xq("region", "US", "codes", "QQQ,SPY"),
			map[string]itick.Tick{
				"QQQ": {Symbol: "QQQ", Last: 613.42, Time: xms(1765526889000), Volume: 200},
				"SPY": {Symbol: "SPY", Last: 681.2, Time: xms(1765526889100), Volume: 1500},
			}},
	}
}

// runCases checks that each case sends one request with the right path and
// query and decodes its fixture to want.
func runCases(t *testing.T, cases []xCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := xClient(t)
			rec := xServe(mt, tc.path, xFixture(t, tc.fixture))
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
			if got := reqs[0].EscapedPath(); got != tc.path {
				t.Errorf("path = %q, want %q", got, tc.path)
			}
			if diff := cmp.Diff(tc.wantQuery, reqs[0].Query()); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtra_MarketMethodsDecodeFixtures(t *testing.T) {
	t.Parallel()
	runCases(t, marketCases())
}

// TestExtra_SingularNoDataIsNotFound: a quote, tick or depth answer with
// null data is ErrNotFound, never a nil value with a nil error.
func TestExtra_SingularNoDataIsNotFound(t *testing.T) {
	t.Parallel()
	calls := map[string]func(ctx context.Context, c *itick.Client) (any, error){
		"/forex/quote": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Forex.Quote(ctx, itick.RegionGB, "XXXYYY")
		},
		"/stock/tick": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Tick(ctx, itick.RegionUS, "NOPE")
		},
		"/fund/depth": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Fund.Depth(ctx, itick.RegionUS, "NOPE")
		},
	}
	for path, call := range calls {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			c, mt := xClient(t)
			xServe(mt, path, `{"code":0,"msg":null,"data":null}`)
			got, err := call(t.Context(), c)
			if !errors.Is(err, itick.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path", err)
			}
			if v := reflect.ValueOf(got); !v.IsNil() {
				t.Errorf("got a value %v with the error", got)
			}
		})
	}
}

// TestExtra_KlineNoData: a product without candles is an empty result.
func TestExtra_KlineNoData(t *testing.T) {
	t.Parallel()
	c, mt := xClient(t)
	xServe(mt, "/crypto/kline", `{"code":0,"msg":null,"data":null}`)
	ks, err := c.Crypto.Kline(t.Context(), itick.RegionBA, "NEWUSDT", itick.OneDay, 5)
	if err != nil || len(ks) != 0 {
		t.Fatalf("Kline = %v, %v; want no candles and no error", ks, err)
	}
}

// TestExtra_ServiceErrorPassesThrough: the success rule applies to the new
// endpoints as to the old.
func TestExtra_ServiceErrorPassesThrough(t *testing.T) {
	t.Parallel()
	c, mt := xClient(t)
	xServe(mt, "/stock/quote", `{"code":0,"msg":"E001 not found this produce","data":null}`)
	_, err := c.Stock.Quote(t.Context(), itick.RegionUS, "ZZZZ")
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, itick.ErrNotFound) || apiErr.Path != "/stock/quote" {
		t.Fatalf("err = %#v, want an *APIError for /stock/quote matching ErrNotFound", err)
	}
}

// TestExtra_TicksChunked: Ticks splits its codes like every batch call and
// reports a failed chunk's codes.
func TestExtra_TicksChunked(t *testing.T) {
	t.Parallel()
	c, mt := xClient(t, itick.WithBatchSize(2), itick.WithRetries(0))
	var mu sync.Mutex
	var chunks [][]string
	mt.RegisterResponder(http.MethodGet, xBase+"/crypto/ticks", func(req *http.Request) (*http.Response, error) {
		codes := strings.Split(req.URL.Query().Get("codes"), ",")
		mu.Lock()
		chunks = append(chunks, codes)
		mu.Unlock()
		if slices.Contains(codes, "BAD") {
			return httpmock.NewStringResponse(http.StatusBadRequest, `{"code":400,"msg":"bad request","data":null}`), nil
		}
		data := map[string]any{}
		for i, code := range codes {
			data[code] = map[string]any{"s": code, "ld": i + 1, "t": 1765526889000, "v": 0.5}
		}
		b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
		return httpmock.NewBytesResponse(http.StatusOK, b), nil
	})

	got, err := c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "C", "A", "D", "E"})
	if err != nil {
		t.Fatalf("Ticks: %v", err)
	}
	if len(chunks) != 3 {
		t.Fatalf("sent %d chunks, want 3: %v", len(chunks), chunks)
	}
	var sent []string
	for _, ch := range chunks {
		if len(ch) > 2 {
			t.Errorf("chunk %v has more than 2 codes", ch)
		}
		sent = append(sent, ch...)
	}
	slices.Sort(sent)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	keys := make([]string, 0, len(got))
	for k, v := range got {
		if v.Symbol != k {
			t.Errorf("got[%q].Symbol = %q", k, v.Symbol)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, keys); diff != "" {
		t.Errorf("merged keys (-want +got):\n%s", diff)
	}

	got, err = c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "BAD", "C"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"BAD", "C"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if _, ok := got["A"]; !ok || len(got) != 2 {
		t.Errorf("partial results = %v, want A and B", got)
	}
}

// xBadCall is one call with an invalid argument.
type xBadCall struct {
	name string
	bad  string // the value the error must name
	call func(ctx context.Context, c *itick.Client) error
}

func errOnly[T any](_ T, err error) error { return err }

func marketBadCalls() []xBadCall {
	ok := []string{"A"}
	return []xBadCall{
		{"Stock.Quote empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Quote(ctx, "", "700"))
		}},
		{"Stock.Quote bad region", "H K", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Quote(ctx, "H K", "700"))
		}},
		{"Crypto.Quote empty code", `" "`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Quote(ctx, itick.RegionBA, " "))
		}},
		{"Forex.Quote comma", "EURUSD,GBPUSD", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Quote(ctx, itick.RegionGB, "EURUSD,GBPUSD"))
		}},
		{"Indices.Quote control", `"SP\x01X"`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Quote(ctx, itick.RegionGB, "SP\x01X"))
		}},
		{"Future.Quote bad region", "U/S", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Quote(ctx, "U/S", "NQ"))
		}},
		{"Fund.Quote empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quote(ctx, itick.RegionUS, ""))
		}},
		{"Fund.Quotes empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quotes(ctx, itick.RegionUS, nil))
		}},
		{"Fund.Quotes comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quotes(ctx, itick.RegionUS, []string{"QQQ", "A,B"}))
		}},
		{"Stock.Kline interval", "11", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Kline(ctx, itick.RegionHK, "700", itick.Interval(11), 10))
		}},
		{"Crypto.Kline limit", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneDay, 0))
		}},
		{"Forex.Kline empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Kline(ctx, itick.RegionGB, "", itick.OneDay, 1))
		}},
		{"Indices.Kline region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Kline(ctx, "", "SPX", itick.OneDay, 1))
		}},
		{"Future.Kline limit", "-3", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Kline(ctx, itick.RegionUS, "NQ", itick.OneDay, -3))
		}},
		{"Fund.Kline interval", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Kline(ctx, itick.RegionUS, "QQQ", 0, 1))
		}},
		{"Fund.Klines limit", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Klines(ctx, itick.RegionUS, ok, itick.OneDay, 0))
		}},
		{"Fund.Klines empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Klines(ctx, itick.RegionUS, []string{"QQQ", ""}, itick.OneDay, 1))
		}},
		{"Forex.Depth empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Depth(ctx, itick.RegionGB, ""))
		}},
		{"Future.Depth region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Depth(ctx, "", "NQ"))
		}},
		{"Fund.Depth comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Depth(ctx, itick.RegionUS, "A,B"))
		}},
		{"Indices.Depth bad region", "G?B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Depth(ctx, "G?B", "SPX"))
		}},
		{"Stock.Tick empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Tick(ctx, itick.RegionHK, "", itick.WithQuoteExchange("HKEX")))
		}},
		{"Crypto.Tick region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Tick(ctx, "", "BTCUSDT"))
		}},
		{"Forex.Tick comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Tick(ctx, itick.RegionGB, "A,B"))
		}},
		{"Indices.Tick empty", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Tick(ctx, itick.RegionGB, ""))
		}},
		{"Future.Tick region", "U S", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Tick(ctx, "U S", "NQ"))
		}},
		{"Fund.Tick empty", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Tick(ctx, itick.RegionUS, ""))
		}},
		{"Stock.Ticks empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Ticks(ctx, itick.RegionUS, []string{}))
		}},
		{"Crypto.Ticks comma", "X,Y", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Ticks(ctx, itick.RegionBA, []string{"X,Y"}))
		}},
		{"Forex.Ticks region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Ticks(ctx, "", ok))
		}},
		{"Indices.Ticks empty code", "codes[1]", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Ticks(ctx, itick.RegionGB, []string{"SPX", "  "}))
		}},
		{"Future.Ticks empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Ticks(ctx, itick.RegionUS, nil))
		}},
		{"Fund.Ticks region", "F!", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Ticks(ctx, "F!", ok))
		}},
	}
}

// runBadCalls checks that each call fails with ErrInvalidArgument naming the
// bad value and sends nothing.
func runBadCalls(t *testing.T, cases []xBadCall) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := xClient(t)
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
			err := tc.call(t.Context(), c)
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("error %q does not name %q", err, tc.bad)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("sent %d requests, want 0", n)
			}
		})
	}
}

func TestExtra_MarketMethodsValidate(t *testing.T) {
	t.Parallel()
	runBadCalls(t, marketBadCalls())
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

// TestExtra_MarketRoundTrip: every new endpoint's data survives a trip to
// the wire form and back.
func TestExtra_MarketRoundTrip(t *testing.T) {
	t.Parallel()
	classes := []string{"stock", "crypto", "forex", "indices", "future", "fund"}
	for _, class := range classes {
		t.Run(class, func(t *testing.T) {
			t.Parallel()
			roundTrip[itick.Quote](t, xData(t, class+"_quote.json"))
			roundTrip[[]itick.Kline](t, xData(t, class+"_kline.json"))
			roundTrip[itick.Tick](t, xData(t, class+"_tick.json"))
			roundTrip[map[string]itick.Tick](t, xData(t, class+"_ticks.json"))
		})
	}
	for _, name := range []string{"forex_depth.json", "future_depth.json", "fund_depth.json", "indices_depth.json"} {
		roundTrip[itick.DepthBook](t, xData(t, name))
	}
	roundTrip[map[string]itick.Quote](t, xData(t, "fund_quotes.json"))
	roundTrip[map[string][]itick.Kline](t, xData(t, "fund_klines.json"))

	// The wire form keeps the short keys, Unix ms and plain numbers.
	q, wire := roundTrip[itick.Quote](t, xData(t, "stock_quote.json"))
	if q.ChangePercent != 1.32 {
		t.Errorf("chp sent as a string decoded to %v", q.ChangePercent)
	}
	const wantWire = `{"s":"700","ld":616,"o":608,"p":608,"h":616,"l":601.5,"t":1765526889000,"v":17825495,"tu":10871536434.36,"ts":0,"ch":8,"chp":1.32}`
	if string(wire) != wantWire {
		t.Errorf("wire form\n got %s\nwant %s", wire, wantWire)
	}
}
