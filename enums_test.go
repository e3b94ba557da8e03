package itick_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Tests of the enumerations: intervals, regions, statuses, sessions and
// trade directions, and their names.

// TestInterval_WireKType: every Interval is sent as its kType number.
func TestInterval_WireKType(t *testing.T) {
	t.Parallel()
	intervals := []itick.Interval{itick.OneMinute, itick.FiveMinutes, itick.FifteenMinutes, itick.ThirtyMinutes, itick.OneHour,
		itick.TwoHours, itick.FourHours, itick.OneDay, itick.OneWeek, itick.OneMonth}
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/crypto/klines", record(&rec, body(200, `{"code":0,"msg":null,"data":{}}`)))
	for _, iv := range intervals {
		if _, err := c.Crypto.Klines(t.Context(), itick.RegionBA, []string{"BTCUSDT"}, iv, 1); err != nil {
			t.Fatalf("%v: %v", iv, err)
		}
	}
	var got []string
	for _, r := range rec.all() {
		got = append(got, r.Query.Get("kType"))
	}
	want := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kType sent (-want +got):\n%s", diff)
	}
}

func TestInterval_StringAndDuration(t *testing.T) {
	t.Parallel()
	cases := []struct {
		iv   itick.Interval
		name string
		d    time.Duration
	}{
		{itick.OneMinute, "1m", time.Minute},
		{itick.FiveMinutes, "5m", 5 * time.Minute},
		{itick.FifteenMinutes, "15m", 15 * time.Minute},
		{itick.ThirtyMinutes, "30m", 30 * time.Minute},
		{itick.OneHour, "1h", time.Hour},
		{itick.TwoHours, "2h", 2 * time.Hour},
		{itick.FourHours, "4h", 4 * time.Hour},
		{itick.OneDay, "1d", 24 * time.Hour},
		{itick.OneWeek, "1w", 7 * 24 * time.Hour},
		{itick.OneMonth, "1M", 30 * 24 * time.Hour},
		{itick.Interval(0), "Interval(0)", 0},
		{itick.Interval(11), "Interval(11)", 0},
	}
	for _, tc := range cases {
		if tc.iv.String() != tc.name || tc.iv.Duration() != tc.d {
			t.Errorf("Interval %d: %q %v, want %q %v", int(tc.iv), tc.iv.String(), tc.iv.Duration(), tc.name, tc.d)
		}
	}
}

// TestRegion_OpenEnded: a region the SDK has no constant for is sent as is;
// one with characters no region has is refused before sending.
func TestRegion_OpenEnded(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	if _, err := c.Stock.Quotes(t.Context(), itick.Region("VN"), []string{"VNM"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.all()[0].Query.Get("region"); got != "VN" {
		t.Errorf("region sent = %q, want VN", got)
	}
	for _, bad := range []itick.Region{"HK&token=x", "H K", "HK/"} {
		_, err := c.Stock.Quotes(t.Context(), bad, []string{"700"})
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("region %q: err = %v, want ErrInvalidArgument", bad, err)
		}
	}
	if n := rec.len(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestTradingStatusAndSession(t *testing.T) {
	t.Parallel()
	var q itick.Quote
	if err := json.Unmarshal([]byte(`{"s":"700","ts":1}`), &q); err != nil {
		t.Fatal(err)
	}
	if q.TradingStatus() != itick.StatusHalted || q.TradingStatus().String() != "halted" {
		t.Errorf("TradingStatus = %v", q.TradingStatus())
	}
	names := map[string]string{
		itick.StatusNormal.String(): "normal", itick.StatusDelisted.String(): "delisted",
		itick.StatusCircuitBreaker.String(): "circuit breaker", itick.TradingStatus(7).String(): "TradingStatus(7)",
		itick.SessionRegular.String(): "regular", itick.SessionPreMarket.String(): "pre-market",
		itick.SessionAfterHours.String(): "after-hours", itick.TickSession(5).String(): "TickSession(5)",
	}
	for got, want := range names {
		if got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// TestTradeDirectionRoundTrip: d decodes, marshals back and names itself.
func TestTradeDirectionRoundTrip(t *testing.T) {
	t.Parallel()
	for d, name := range map[itick.TradeDirection]string{
		itick.DirectionNeutral: "neutral", itick.DirectionSell: "sell", itick.DirectionBuy: "buy", 7: "TradeDirection(7)",
	} {
		if d.String() != name {
			t.Errorf("%d.String() = %q, want %q", int(d), d.String(), name)
		}
		b, err := json.Marshal(itick.Tick{Symbol: "700", Direction: d})
		if err != nil {
			t.Fatal(err)
		}
		var back itick.Tick
		if err := json.Unmarshal(b, &back); err != nil || back.Direction != d {
			t.Errorf("%s: round trip gave %v, %v from %s", name, back.Direction, err, b)
		}
	}
}

// TestCryptoOnlyIntervalsAreNotRefused: TwoHours and FourHours, crypto only
// by the newest official SDK's types, are still sent for other classes
// (kType 6 and 7); FifteenMinutes is kType 3 and 15 minutes long.
func TestCryptoOnlyIntervalsAreNotRefused(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	for _, iv := range []itick.Interval{itick.TwoHours, itick.FourHours, itick.FifteenMinutes} {
		ks, err := c.Stock.Kline(t.Context(), itick.RegionUS, "AAPL", iv, 3)
		if err != nil {
			t.Fatalf("%v: %v", iv, err)
		}
		// Candles lie on the interval's grid; the simulator's calendar
		// skips the hours the market is closed, so two neighbours may lie
		// several intervals apart, never a fraction of one.
		if len(ks) != 3 {
			t.Fatalf("%v: %d candles, want 3", iv, len(ks))
		}
		for i := 1; i < len(ks); i++ {
			if gap := ks[i].Time.Sub(ks[i-1].Time); gap <= 0 || gap%iv.Duration() != 0 {
				t.Errorf("%v: candles %v and %v are %v apart, want a multiple of %v", iv, ks[i-1].Time, ks[i].Time, gap, iv.Duration())
			}
		}
	}
	var kTypes []string
	for _, r := range srv.Requests() {
		kTypes = append(kTypes, r.Query.Get("kType"))
	}
	if strings.Join(kTypes, ",") != "6,7,3" || itick.FifteenMinutes.Duration() != 15*time.Minute {
		t.Errorf("kTypes sent %v, want 6,7,3", kTypes)
	}
}

func TestEnumStrings(t *testing.T) {
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

// Intervals read and write as text: config files and query strings.
func TestIntervalText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]itick.Interval{
		"1m": itick.OneMinute, "5m": itick.FiveMinutes, "15m": itick.FifteenMinutes, "30m": itick.ThirtyMinutes,
		"1h": itick.OneHour, "2h": itick.TwoHours, "4h": itick.FourHours, "1d": itick.OneDay, "1w": itick.OneWeek,
		"1M": itick.OneMonth, "OneDay": itick.OneDay, "oneday": itick.OneDay, "FIFTEENMINUTES": itick.FifteenMinutes,
		" 8 ": itick.OneDay, "10": itick.OneMonth,
	} {
		got, err := itick.ParseInterval(text)
		if err != nil || got != want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "1s", "0", "11", "-1", "1D", "day", "1mo", "08x"} {
		if got, err := itick.ParseInterval(bad); !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("ParseInterval(%q) = %v, %v; want ErrInvalidArgument", bad, got, err)
		}
	}
	type config struct {
		Every  itick.Interval
		Unset  itick.Interval
		Custom itick.Interval
	}
	b, err := json.Marshal(config{Every: itick.OneDay, Custom: itick.Interval(42)})
	if err != nil || string(b) != `{"Every":"1d","Unset":"0","Custom":"42"}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	var back config
	if err := json.Unmarshal([]byte(`{"Every":"1M","Unset":"5m"}`), &back); err != nil || back.Every != itick.OneMonth || back.Unset != itick.FiveMinutes {
		t.Errorf("Unmarshal = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"Every":"fortnight"}`), &back); !errors.Is(err, itick.ErrInvalidArgument) || back.Every != itick.OneMonth {
		t.Errorf("Unmarshal of a bad interval = %v, left %v", err, back.Every)
	}
}

// Every Interval value round-trips as text: MarshalText writes the short
// form, or the kType number of a value with none (the zero Interval of an
// unset field), and UnmarshalText reads each back as the same value.
func TestIntervalTextRoundTrip(t *testing.T) {
	t.Parallel()
	values := []itick.Interval{math.MinInt, math.MinInt + 1, -1 << 40, math.MaxInt - 1, math.MaxInt}
	for n := -1000; n <= 1000; n++ {
		values = append(values, itick.Interval(n))
	}
	for _, iv := range values {
		checkIntervalText(t, iv)
	}
	type config struct{ Every, Unset itick.Interval }
	b, err := json.Marshal(config{Every: itick.OneWeek})
	if err != nil {
		t.Fatal(err)
	}
	back := config{Unset: itick.OneDay}
	if err := json.Unmarshal(b, &back); err != nil || back != (config{Every: itick.OneWeek}) {
		t.Errorf("json of %s read back as %+v, %v; want the zero Interval kept", b, back, err)
	}
	// ParseInterval still takes only intervals a call accepts.
	if _, err := itick.ParseInterval("0"); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf(`ParseInterval("0") = %v, want ErrInvalidArgument`, err)
	}
}

// checkIntervalText asserts that iv's text reads back as iv.
func checkIntervalText(t *testing.T, iv itick.Interval) {
	t.Helper()
	b, err := iv.MarshalText()
	if err != nil {
		t.Fatalf("Interval(%d).MarshalText: %v", int(iv), err)
	}
	var back itick.Interval
	if err := back.UnmarshalText(b); err != nil || back != iv {
		t.Fatalf("Interval(%d) as %q reads back as %d, %v", int(iv), b, int(back), err)
	}
}

// FuzzIntervalText: every value's text reads back as the value, and text
// that UnmarshalText accepts writes back as text that reads as the same.
func FuzzIntervalText(f *testing.F) {
	for _, s := range []string{"0", "1d", "1M", "OneDay", " 8 ", "-3", "42", "9223372036854775807", "x"} {
		f.Add(int64(len(s)), s)
	}
	f.Fuzz(func(t *testing.T, n int64, s string) {
		if n == int64(int(n)) {
			checkIntervalText(t, itick.Interval(n))
		}
		var iv itick.Interval
		if err := iv.UnmarshalText([]byte(s)); err != nil {
			if !errors.Is(err, itick.ErrInvalidArgument) || iv != 0 {
				t.Fatalf("UnmarshalText(%q) = %v, left %d; want ErrInvalidArgument and the value untouched", s, err, int(iv))
			}
			return
		}
		checkIntervalText(t, iv)
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
			if p, err := itick.ParseInterval(s); err != nil || p != iv {
				t.Fatalf("UnmarshalText(%q) = %d, but ParseInterval gives %d, %v", s, int(iv), int(p), err)
			}
		}
	})
}
