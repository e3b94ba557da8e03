package itick_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of what the service's newest documentation and clients show, each
// against the simulator.

// TestAlign_TextCodes: the service's E-numbers sent as a string in code map
// to their sentinels and are kept in APIError.CodeText.
func TestAlign_TextCodes(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, []markettest.Option{markettest.WithTextCodes(), markettest.WithBatchSize(2)})
	ctx := t.Context()

	check := func(t *testing.T, err error, sentinel error, code string) {
		t.Helper()
		var apiErr *itick.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v (%T), want an *APIError", err, err)
		}
		if !errors.Is(err, sentinel) || apiErr.CodeText != code || apiErr.Code != 0 {
			t.Errorf("err = %#v, want %v with CodeText %q", apiErr, sentinel, code)
		}
		if !strings.Contains(err.Error(), "code "+code) {
			t.Errorf("error text %q does not show the code", err)
		}
	}
	t.Run("E001", func(t *testing.T) {
		t.Parallel()
		_, err := c.Market.Status(ctx, itick.Region("ZZ"))
		check(t, err, itick.ErrNotFound, "E001")
	})
	t.Run("E002", func(t *testing.T) {
		t.Parallel()
		bad, err := itick.NewClient("not-the-token", itick.WithBaseURL(srv.URL), itick.WithRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"})
		check(t, err, itick.ErrUnauthorized, "E002")
	})
	t.Run("E003", func(t *testing.T) {
		t.Parallel()
		wide, err := srv.Client(itick.WithBatchSize(3))
		if err != nil {
			t.Fatal(err)
		}
		_, err = wide.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL", "MSFT", "TSLA"})
		check(t, err, itick.ErrPlanLimit, "E003")
	})
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		if _, err := c.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL", "MSFT"}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAlign_UncoveredMarketIsNotFound: code 0 with data {} (a market outside
// the plan) is ErrNotFound on every call that returns one object, and an
// empty map, not an error, on batch calls.
func TestAlign_UncoveredMarketIsNotFound(t *testing.T) {
	t.Parallel()
	c, _ := newSimClient(t, []markettest.Option{markettest.WithRegions(itick.RegionUS)})
	ctx := t.Context()
	const r = itick.RegionJP
	single := map[string]func() (any, error){
		"Stock.Quote":    func() (any, error) { return c.Stock.Quote(ctx, r, "7203") },
		"Stock.Depth":    func() (any, error) { return c.Stock.Depth(ctx, r, "7203") },
		"Stock.Tick":     func() (any, error) { return c.Stock.Tick(ctx, r, "7203") },
		"Stock.Info":     func() (any, error) { return c.Stock.Info(ctx, r, "7203") },
		"Stock.Kline":    func() (any, error) { return c.Stock.Kline(ctx, r, "7203", itick.OneDay, 5) },
		"Crypto.Quote":   func() (any, error) { return c.Crypto.Quote(ctx, itick.RegionBA, "BTCUSDT") },
		"Crypto.Depth":   func() (any, error) { return c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT") },
		"Forex.Tick":     func() (any, error) { return c.Forex.Tick(ctx, itick.RegionGB, "EURUSD") },
		"Indices.Quote":  func() (any, error) { return c.Indices.Quote(ctx, itick.RegionGB, "UKX") },
		"Future.Depth":   func() (any, error) { return c.Future.Depth(ctx, itick.RegionHK, "HSI") },
		"Fund.Tick":      func() (any, error) { return c.Fund.Tick(ctx, itick.RegionHK, "2800") },
		"Indices.Kline":  func() (any, error) { return c.Indices.Kline(ctx, itick.RegionGB, "UKX", itick.OneHour, 5) },
		"Forex.Quote GB": func() (any, error) { return c.Forex.Quote(ctx, itick.RegionGB, "GBPUSD") },
	}
	for name, call := range single {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := call()
			if !errors.Is(err, itick.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if v := reflect.ValueOf(got); !v.IsNil() {
				t.Errorf("got %v with the error, want nil", got)
			}
		})
	}
	batch := map[string]func() (int, error){
		"Stock.Quotes": func() (int, error) { m, err := c.Stock.Quotes(ctx, r, []string{"7203", "6758"}); return len(m), err },
		"Stock.Depths": func() (int, error) { m, err := c.Stock.Depths(ctx, r, []string{"7203"}); return len(m), err },
		"Stock.Ticks":  func() (int, error) { m, err := c.Stock.Ticks(ctx, r, []string{"7203"}); return len(m), err },
		"Stock.Klines": func() (int, error) {
			m, err := c.Stock.Klines(ctx, r, []string{"7203"}, itick.OneDay, 5)
			return len(m), err
		},
	}
	for name, call := range batch {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, err := call()
			if err != nil || n != 0 {
				t.Fatalf("got %d entries, %v; want an empty map and no error", n, err)
			}
		})
	}
	// The covered region still answers.
	if q, err := c.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil || q.Symbol != "AAPL" {
		t.Fatalf("covered region: %v, %v", q, err)
	}
}

// TestAlign_WireFields: stock ticks carry their trade direction, index,
// forex and fund quotes their previous close and change, and the stock
// calls with options send exchange on every request, singular and batch.
func TestAlign_WireFields(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, []markettest.Option{markettest.WithBatchSize(2)})
	g := srv.Generator()
	ctx := t.Context()
	codes := []string{"AAPL", "MSFT", "TSLA", "NVDA", "AMZN", "META", "KO", "JPM"}

	ticks, err := c.Stock.TicksWith(ctx, itick.RegionUS, codes, itick.WithQuoteExchange("NASDAQ"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[itick.TradeDirection]bool{}
	for _, code := range codes {
		want := g.Tick(markettest.Stock, itick.RegionUS, code, e2eNow)
		if got := ticks[code]; !cmp.Equal(got, want) {
			t.Errorf("tick %s = %+v, want %+v", code, got, want)
		}
		seen[ticks[code].Direction] = true
	}
	if !seen[itick.DirectionBuy] && !seen[itick.DirectionSell] {
		t.Errorf("no buy or sell among %d ticks: directions %v", len(codes), seen)
	}

	quotes, err := c.Stock.QuotesWith(ctx, itick.RegionUS, codes[:3], itick.WithQuoteExchange("NASDAQ"))
	if err != nil || len(quotes) != 3 {
		t.Fatalf("QuotesWith = %d quotes, %v", len(quotes), err)
	}
	books, err := c.Stock.DepthsWith(ctx, itick.RegionUS, codes[:3], itick.WithQuoteExchange("NASDAQ"))
	if err != nil || len(books) != 3 {
		t.Fatalf("DepthsWith = %d books, %v", len(books), err)
	}
	book, err := c.Stock.DepthWith(ctx, itick.RegionUS, "AAPL", itick.WithQuoteExchange("NASDAQ"))
	if err != nil || book.Symbol != "AAPL" {
		t.Fatalf("DepthWith = %v, %v", book, err)
	}
	for _, r := range srv.Requests() {
		if r.Query.Get("exchange") != "NASDAQ" {
			t.Errorf("%s?%s was sent without exchange=NASDAQ", r.Path, r.Query.Encode())
		}
	}

	for _, tc := range []struct {
		class  markettest.Class
		region itick.Region
		code   string
		quote  func(context.Context, itick.Region, string) (*itick.Quote, error)
	}{
		{markettest.Indices, itick.RegionGB, "UKX", c.Indices.Quote},
		{markettest.Forex, itick.RegionGB, "EURUSD", c.Forex.Quote},
		{markettest.Fund, itick.RegionUS, "QQQ", c.Fund.Quote},
	} {
		q, err := tc.quote(ctx, tc.region, tc.code)
		if err != nil {
			t.Fatal(err)
		}
		want := g.Quote(tc.class, tc.region, tc.code, e2eNow)
		if q.PrevClose == 0 || q.PrevClose != want.PrevClose || q.Change != want.Change || q.ChangePercent != want.ChangePercent {
			t.Errorf("%s quote p/ch/chp = %v/%v/%v, want %v/%v/%v", tc.class, q.PrevClose, q.Change, q.ChangePercent,
				want.PrevClose, want.Change, want.ChangePercent)
		}
	}
}
