package itick_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The end-to-end tests of the endpoints beyond the batch ones: singular
// quote, kline, depth and tick, ticks, fund quotes and klines, and the
// reference data, each against the simulator's generator and against the
// batch form of the same question.

// classCalls are one asset class's single-code and batch methods.
type classCalls struct {
	class  markettest.Class
	region itick.Region
	codes  []string
	quote  func(context.Context, itick.Region, string) (*itick.Quote, error)
	kline  func(context.Context, itick.Region, string, itick.Interval, int, ...itick.KlineOption) ([]itick.Kline, error)
	depth  func(context.Context, itick.Region, string) (*itick.DepthBook, error)
	tick   func(context.Context, itick.Region, string) (*itick.Tick, error)
	ticks  func(context.Context, itick.Region, []string) (map[string]itick.Tick, error)
	quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
	klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	depths func(context.Context, itick.Region, []string) (map[string]itick.DepthBook, error)
}

func everyClass(c *itick.Client) []classCalls {
	stockQuote := func(ctx context.Context, r itick.Region, code string) (*itick.Quote, error) {
		return c.Stock.Quote(ctx, r, code, itick.WithQuoteExchange("NASDAQ"))
	}
	stockTick := func(ctx context.Context, r itick.Region, code string) (*itick.Tick, error) {
		return c.Stock.Tick(ctx, r, code, itick.WithQuoteExchange("NASDAQ"))
	}
	return []classCalls{
		{markettest.Stock, itick.RegionUS, []string{"AAPL", "TSLA", "MSFT"}, stockQuote, c.Stock.Kline, c.Stock.Depth,
			stockTick, c.Stock.Ticks, c.Stock.Quotes, c.Stock.Klines, c.Stock.Depths},
		{markettest.Crypto, itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"}, c.Crypto.Quote, c.Crypto.Kline, c.Crypto.Depth,
			c.Crypto.Tick, c.Crypto.Ticks, c.Crypto.Quotes, c.Crypto.Klines, c.Crypto.Depths},
		{markettest.Forex, itick.RegionGB, []string{"EURUSD", "USDJPY"}, c.Forex.Quote, c.Forex.Kline, c.Forex.Depth,
			c.Forex.Tick, c.Forex.Ticks, c.Forex.Quotes, c.Forex.Klines, c.Forex.Depths},
		{markettest.Indices, itick.RegionGB, []string{"HSI", "SPX"}, c.Indices.Quote, c.Indices.Kline, c.Indices.Depth,
			c.Indices.Tick, c.Indices.Ticks, c.Indices.Quotes, c.Indices.Klines, c.Indices.Depths},
		{markettest.Future, itick.RegionUS, []string{"GC", "CL"}, c.Future.Quote, c.Future.Kline, c.Future.Depth,
			c.Future.Tick, c.Future.Ticks, c.Future.Quotes, c.Future.Klines, c.Future.Depths},
		{markettest.Fund, itick.RegionUS, []string{"QQQ", "SPY"}, c.Fund.Quote, c.Fund.Kline, c.Fund.Depth,
			c.Fund.Tick, c.Fund.Ticks, c.Fund.Quotes, c.Fund.Klines, c.Fund.Depths},
	}
}

// quoteAsDecoded is the generator's quote as the SDK decodes it: crypto
// quotes arrive without p, ch and chp.
func quoteAsDecoded(g *markettest.Generator, class markettest.Class, region itick.Region, code string, at time.Time) itick.Quote {
	q := g.Quote(class, region, code, at)
	if class == markettest.Crypto {
		q.PrevClose, q.Change, q.ChangePercent = 0, 0, 0
	}
	return q
}

func TestE2ESingularAndTickMethodsOfEveryClass(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	g := srv.Generator()
	ctx := t.Context()
	end := e2eNow.Add(-36 * time.Hour)
	for _, cc := range everyClass(c) {
		t.Run(string(cc.class), func(t *testing.T) {
			t.Parallel()
			quotes, err := cc.quotes(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Quotes: %v", err)
			}
			klines, err := cc.klines(ctx, cc.region, cc.codes, itick.FiveMinutes, 30, itick.WithEnd(end))
			if err != nil {
				t.Fatalf("Klines: %v", err)
			}
			depths, err := cc.depths(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Depths: %v", err)
			}
			ticks, err := cc.ticks(ctx, cc.region, cc.codes)
			if err != nil {
				t.Fatalf("Ticks: %v", err)
			}
			if len(ticks) != len(cc.codes) {
				t.Errorf("Ticks gave %d, want %d", len(ticks), len(cc.codes))
			}
			for _, code := range cc.codes {
				q, err := cc.quote(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Quote(%s): %v", code, err)
				}
				if diff := cmp.Diff(quoteAsDecoded(g, cc.class, cc.region, code, e2eNow), *q); diff != "" {
					t.Errorf("Quote(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(quotes[code], *q); diff != "" {
					t.Errorf("Quote(%s) differs from Quotes (-batch +single):\n%s", code, diff)
				}

				ks, err := cc.kline(ctx, cc.region, code, itick.FiveMinutes, 30, itick.WithEnd(end))
				if err != nil {
					t.Fatalf("Kline(%s): %v", code, err)
				}
				if diff := cmp.Diff(g.Klines(cc.class, cc.region, code, itick.FiveMinutes, 30, end, e2eNow), ks); diff != "" {
					t.Errorf("Kline(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(klines[code], ks); diff != "" {
					t.Errorf("Kline(%s) differs from Klines (-batch +single):\n%s", code, diff)
				}

				book, err := cc.depth(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Depth(%s): %v", code, err)
				}
				if diff := cmp.Diff(depths[code], *book); diff != "" {
					t.Errorf("Depth(%s) differs from Depths (-batch +single):\n%s", code, diff)
				}

				tk, err := cc.tick(ctx, cc.region, code)
				if err != nil {
					t.Fatalf("Tick(%s): %v", code, err)
				}
				if diff := cmp.Diff(g.Tick(cc.class, cc.region, code, e2eNow), *tk); diff != "" {
					t.Errorf("Tick(%s) (-generator +got):\n%s", code, diff)
				}
				if diff := cmp.Diff(ticks[code], *tk); diff != "" {
					t.Errorf("Tick(%s) differs from Ticks (-batch +single):\n%s", code, diff)
				}
				// The last trade is the quote's last price at the same instant.
				if tk.Last != q.Last || !tk.Time.Equal(q.Time) || tk.Volume <= 0 {
					t.Errorf("%s: tick %v at %s, quote %v at %s", code, tk.Last, tk.Time, q.Last, q.Time)
				}
				if (cc.class == markettest.Crypto) != (tk.Turnover > 0) {
					t.Errorf("%s: tick turnover %v (crypto only)", code, tk.Turnover)
				}
			}
		})
	}
}

func TestE2EStockTickSessionAndExchange(t *testing.T) {
	t.Parallel()
	preMarket := time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC) // 08:00 in New York
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return preMarket })})
	tk, err := c.Stock.Tick(t.Context(), itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ"))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Session != itick.SessionPreMarket {
		t.Errorf("session %v at 08:00 in New York, want pre-market", tk.Session)
	}
	if _, err := c.Stock.Quote(t.Context(), itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ")); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, r := range srv.Requests() {
		sent = append(sent, r.Path+" "+r.Query.Get("exchange"))
	}
	if diff := cmp.Diff([]string{"/stock/tick NASDAQ", "/stock/quote NASDAQ"}, sent); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestE2EReferenceData(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	g := srv.Generator()
	ctx := t.Context()

	t.Run("symbols", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			typ    itick.AssetType
			class  markettest.Class
			region itick.Region
		}{
			{itick.AssetStock, markettest.Stock, itick.RegionUS},
			{itick.AssetStock, markettest.Stock, itick.RegionJP},
			{itick.AssetCrypto, markettest.Crypto, itick.RegionBA},
			{itick.AssetFund, markettest.Fund, itick.RegionUS},
		} {
			syms, err := c.Market.Symbols(ctx, tt.typ, tt.region, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g.Listings(tt.class, tt.region), syms); diff != "" || len(syms) == 0 {
				t.Errorf("%s %s (-generator +got):\n%s", tt.typ, tt.region, diff)
			}
			// A listed code can be asked for alone, and quoted.
			one, err := c.Market.Symbols(ctx, tt.typ, tt.region, syms[len(syms)-1].Code)
			if err != nil || len(one) != 1 || one[0] != syms[len(syms)-1] {
				t.Errorf("%s %s by code: %v, %v", tt.typ, tt.region, one, err)
			}
		}
		// A code with a dot goes through as it is.
		brk, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "BRK.B")
		if err != nil || len(brk) != 1 || brk[0].Code != "BRK.B" || brk[0].Exchange != "NYSE" {
			t.Errorf("BRK.B: %v, %v", brk, err)
		}
		syms, err := c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "AAPL")
		if err != nil || len(syms) != 1 {
			t.Fatalf("%v, %v", syms, err)
		}
		q, err := c.Stock.Quote(ctx, itick.RegionUS, syms[0].Code, itick.WithQuoteExchange(syms[0].Exchange))
		if err != nil || q.Symbol != "AAPL" || q.Last <= 0 {
			t.Errorf("quote of a listed symbol: %+v, %v", q, err)
		}
	})

	t.Run("holidays", func(t *testing.T) {
		t.Parallel()
		hs, err := c.Market.Holidays(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var us *itick.Holiday
		for i := range hs {
			if hs[i].Market == "US" {
				us = &hs[i]
			}
		}
		if us == nil || us.Year != e2eNow.Year() || us.UTCOffset != -5 || us.TradingHours != "09:30 - 16:00" ||
			!slices.ContainsFunc(us.Dates, func(d time.Time) bool { return d.Equal(time.Date(2025, 12, 25, 0, 0, 0, 0, time.UTC)) }) {
			t.Errorf("US calendar %+v", us)
		}
	})

	t.Run("status", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			region itick.Region
			state  itick.MarketState
			local  string
		}{
			{itick.RegionUS, itick.MarketOpen, "2025-06-03 10:30:15"}, // 14:30 UTC in June
			{itick.RegionHK, itick.MarketClosed, "2025-06-03 22:30:15"},
		} {
			st, err := c.Market.Status(ctx, tt.region)
			if err != nil {
				t.Fatal(err)
			}
			if len(st) != 1 || st[0].Code != string(tt.region) || st[0].State != tt.state ||
				st[0].Open != (tt.state == itick.MarketOpen) || st[0].LocalTime != tt.local || st[0].Zone == "" {
				t.Errorf("%s: %+v", tt.region, st)
			}
		}
		if _, err := c.Market.Status(ctx, "ZZ"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("status of an unknown market: %v, want ErrNotFound", err)
		}
	})

	t.Run("stock info", func(t *testing.T) {
		t.Parallel()
		info, err := c.Stock.Info(ctx, itick.RegionUS, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(g.StockInfo(itick.RegionUS, "AAPL", e2eNow), *info); diff != "" {
			t.Errorf("Info (-generator +got):\n%s", diff)
		}
		q, err := c.Stock.Quote(ctx, itick.RegionUS, "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		if got := info.MarketCap / info.Shares; got < q.Last*0.999 || got > q.Last*1.001 {
			t.Errorf("market cap / shares = %v, quote %v", got, q.Last)
		}
	})

	t.Run("IPOs", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []itick.IPOKind{itick.IPOUpcoming, itick.IPORecent} {
			var got []itick.IPO
			for ipo, err := range c.Stock.IPOs(ctx, kind, itick.RegionHK) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ipo)
			}
			want := g.IPOs(kind, itick.RegionHK, e2eNow)
			if diff := cmp.Diff(want, got); diff != "" || len(got) <= markettest.IPOPageSize {
				t.Errorf("%s IPOs (%d, want more than a page) (-generator +got):\n%s", kind, len(got), diff)
			}
			p, err := c.Stock.IPOPage(ctx, kind, itick.RegionHK, 1)
			if err != nil {
				t.Fatal(err)
			}
			n := markettest.IPOPageSize
			wantPage := &itick.IPOPage{Records: want[n:min(2*n, len(want))], Page: 1, Size: n,
				TotalPages: (len(want) + n - 1) / n, TotalElements: len(want), Last: len(want) <= 2*n}
			if diff := cmp.Diff(wantPage, p); diff != "" {
				t.Errorf("%s IPOPage(1) (-want +got):\n%s", kind, diff)
			}
		}
	})

	t.Run("news detail", func(t *testing.T) {
		t.Parallel()
		page, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			a, err := c.News.Get(ctx, it.ID, "en")
			if err != nil {
				t.Fatalf("Get(%s): %v", it.ID, err)
			}
			want, ok := g.NewsArticle(it.ID, "en", e2eNow)
			if diff := cmp.Diff(want, *a); !ok || diff != "" {
				t.Errorf("Get(%s) (-generator +got):\n%s", it.ID, diff)
			}
			if a.Title != it.Title || !a.Published.Equal(it.Published) || a.Link != it.Link || a.Market != it.Market ||
				a.Lang != it.Lang || !strings.Contains(a.Body, strings.Fields(it.Title)[0]) {
				t.Errorf("article %+v does not match the item %+v", a, it)
			}
		}
		if _, err := c.News.Get(ctx, "no-such-article", "en"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("Get of an unknown id: %v, want ErrNotFound", err)
		}
	})
}
