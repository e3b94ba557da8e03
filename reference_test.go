package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

func xdate(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

var (
	statusHK = itick.MarketStatus{Code: "HK", Region: "Hong Kong", Open: true, State: itick.MarketLunchBreak,
		Sessions: []string{"09:00-09:30", "09:30-12:00", "13:00-16:00", "16:00-16:10"},
		Zone:     "Asia/Hong_Kong", LocalTime: "2025-12-12 12:31:05"}
	statusUS = itick.MarketStatus{Code: "US", Region: "United States", Open: false, State: itick.MarketClosedHoliday,
		Holiday: "Christmas Day", Sessions: []string{"04:00-09:30", "09:30-16:00", "16:00-20:00"},
		Zone: "America/New_York", LocalTime: "2025-12-25 10:02:44"}
)

func referenceCases() []xCase {
	return []xCase{
		{"Market.Symbols", "/symbol/list", "symbol_list.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "")
			},
			xq("type", "stock", "region", "US"),
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
			xq("type", "stock", "region", "US", "code", "AAPL"),
			3},
		{"Market.Holidays", "/symbol/v2/holidays", "symbol_holidays.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Holidays(ctx) },
			xq(),
			[]itick.Holiday{
				{Market: "US", Country: "United States", UTCOffset: -5, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{xdate(2025, 1, 1), xdate(2025, 1, 20), xdate(2025, 7, 4), xdate(2025, 12, 25)}},
				{Market: "HK", Country: "Hong Kong", UTCOffset: 8, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{xdate(2025, 1, 1), xdate(2025, 1, 29), xdate(2025, 1, 30)}},
				{Market: "IN", Country: "India", UTCOffset: 5.5, TradingHours: "09:15 - 15:30", Year: 2025},
			}},
		{"Market.HolidaysOf", "/symbol/v2/holidays", "symbol_holidays_us.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.Market.HolidaysOf(ctx, itick.RegionUS)
			},
			xq("code", "US"),
			[]itick.Holiday{
				{Market: "US", Country: "United States", UTCOffset: -5, TradingHours: "09:30 - 16:00", Year: 2025,
					Dates: []time.Time{xdate(2025, 1, 1), xdate(2025, 1, 20), xdate(2025, 7, 4), xdate(2025, 12, 25)}},
			}},
		{"Market.Status object", "/market/status", "market_status.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Status(ctx, itick.RegionHK) },
			xq("code", "HK"),
			[]itick.MarketStatus{statusHK}},
		{"Market.Status array", "/market/status", "market_status_array.json",
			func(ctx context.Context, c *itick.Client) (any, error) { return c.Market.Status(ctx, itick.RegionUS) },
			xq("code", "US"),
			[]itick.MarketStatus{statusUS}},
	}
}

func TestReference_DecodeFixtures(t *testing.T) {
	t.Parallel()
	runCases(t, referenceCases())
}

func TestReference_Validate(t *testing.T) {
	t.Parallel()
	runBadCalls(t, []xBadCall{
		{"Symbols unknown type", "stocks", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, "stocks", itick.RegionUS, ""))
		}},
		{"Symbols empty type", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, "", itick.RegionUS, ""))
		}},
		{"Symbols empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetCrypto, "", ""))
		}},
		{"Symbols comma code", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetForex, itick.RegionGB, "A,B"))
		}},
		{"Symbols blank code", `"  "`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetFund, itick.RegionUS, "  "))
		}},
		{"Status empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Status(ctx, ""))
		}},
		{"Status bad region", "H&K", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Status(ctx, "H&K"))
		}},
	})
}

// TestReference_StatusEmptyIsNotFound: a status answer with no entry is
// ErrNotFound, whether data is null or an empty array.
func TestReference_StatusEmptyIsNotFound(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"null", "[]"} {
		t.Run(data, func(t *testing.T) {
			t.Parallel()
			c, mt := xClient(t)
			xServe(mt, "/market/status", `{"code":0,"msg":null,"data":`+data+`}`)
			got, err := c.Market.Status(t.Context(), itick.RegionHK)
			if !errors.Is(err, itick.ErrNotFound) || got != nil {
				t.Fatalf("Status = %v, %v; want nil, ErrNotFound", got, err)
			}
		})
	}
}

// TestReference_HolidayDates covers the shapes the date list may take.
func TestReference_HolidayDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v       string
		want    []time.Time
		wantErr bool
	}{
		{`"[\"2025-01-01\",\"2025-12-25\"]"`, []time.Time{xdate(2025, 1, 1), xdate(2025, 12, 25)}, false},
		{`["2025/05/01","20250502"]`, []time.Time{xdate(2025, 5, 1), xdate(2025, 5, 2)}, false},
		{`"[]"`, nil, false},
		{`""`, nil, false},
		{`null`, nil, false},
		{`"[\"25 December\"]"`, nil, true},
		{`"2025-01-01"`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.v, func(t *testing.T) {
			t.Parallel()
			var h itick.Holiday
			err := json.Unmarshal([]byte(`{"c":"US","v":`+tc.v+`}`), &h)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, h.Dates); !tc.wantErr && diff != "" {
				t.Errorf("Dates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReference_MarketStatusOpen: o arrives as a boolean or as a string.
func TestReference_MarketStatusOpen(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{`true`: true, `"true"`: true, `false`: false, `"false"`: false, `null`: false} {
		var s itick.MarketStatus
		if err := json.Unmarshal([]byte(`{"c":"HK","o":`+in+`}`), &s); err != nil {
			t.Fatalf("o=%s: %v", in, err)
		}
		if s.Open != want {
			t.Errorf("o=%s: Open = %v, want %v", in, s.Open, want)
		}
	}
}

func TestReference_RoundTrip(t *testing.T) {
	t.Parallel()
	roundTrip[[]itick.Symbol](t, xData(t, "symbol_list.json"))
	hs, wire := roundTrip[[]itick.Holiday](t, xData(t, "symbol_holidays.json"))
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

	_, wire = roundTrip[itick.MarketStatus](t, xData(t, "market_status.json"))
	const wantStatus = `{"c":"HK","r":"Hong Kong","o":true,"s":"LUNCH_BREAK","h":"","t":"09:00-09:30,09:30-12:00,13:00-16:00,16:00-16:10","z":"Asia/Hong_Kong","l":"2025-12-12 12:31:05"}`
	if string(wire) != wantStatus {
		t.Errorf("status wire form\n got %s\nwant %s", wire, wantStatus)
	}
	roundTrip[[]itick.MarketStatus](t, xData(t, "market_status_array.json"))
}

func TestReference_EnumStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    interface{ String() string }
		want string
	}{
		{itick.MarketPreMarket, "pre-market"},
		{itick.MarketOpen, "open"},
		{itick.MarketLunchBreak, "lunch break"},
		{itick.MarketPostMarket, "post-market"},
		{itick.MarketClosed, "closed"},
		{itick.MarketClosedWeekend, "closed for the weekend"},
		{itick.MarketClosedHoliday, "closed for a holiday"},
		{itick.MarketHolidayHalfDay, "holiday half day"},
		{itick.MarketState("AUCTION"), "MarketState(AUCTION)"},
		{itick.AssetStock, "stock"},
		{itick.AssetIndices, "indices"},
		{itick.IPOUpcoming, "upcoming"},
		{itick.IPORecent, "recent"},
		{itick.StatusNormal, "normal"},
		{itick.StatusHalted, "halted"},
		{itick.StatusDelisted, "delisted"},
		{itick.StatusCircuitBreaker, "circuit breaker"},
		{itick.TradingStatus(9), "TradingStatus(9)"},
		{itick.SessionRegular, "regular"},
		{itick.SessionPreMarket, "pre-market"},
		{itick.SessionAfterHours, "after-hours"},
		{itick.TickSession(-1), "TickSession(-1)"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.v, got, tc.want)
		}
	}
	q := itick.Quote{Status: 3}
	if q.TradingStatus() != itick.StatusCircuitBreaker {
		t.Errorf("Quote{Status: 3}.TradingStatus() = %v", q.TradingStatus())
	}
}
