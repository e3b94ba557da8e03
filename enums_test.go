package itick_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

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

// TestCodes_Escaped: codes with characters that mean something in a query
// string reach the service intact.
func TestCodes_Escaped(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	in := []string{"BRK.B", "A&B", "X=Y", "ES#1", "600519.SH", "a b"}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("BRK.B,A&B,X=Y,ES#1,600519.SH,a b", rec.all()[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if len(got) != len(in) {
		t.Errorf("%d quotes, want %d", len(got), len(in))
	}
}

func TestPlan_NamesAndQuotas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p      itick.Plan
		name   string
		perMin int
	}{
		{itick.PlanFree, "Free", 5},
		{itick.PlanBase, "Base", 120},
		{itick.PlanProfessional, "Professional", 600},
		{itick.PlanPremium, "Premium", 1200},
		{itick.PlanEnterprise, "Enterprise", 1200},
	}
	for _, tc := range cases {
		if tc.p.String() != tc.name || tc.p.CallsPerMinute() != tc.perMin {
			t.Errorf("%d: %q %d, want %q %d", int(tc.p), tc.p.String(), tc.p.CallsPerMinute(), tc.name, tc.perMin)
		}
		for _, s := range []string{tc.name, " " + strings.ToLower(tc.name) + " ", strings.ToUpper(tc.name),
			"Plan" + tc.name, strconv.Itoa(int(tc.p))} {
			if p, err := itick.ParsePlan(s); err != nil || p != tc.p {
				t.Errorf("ParsePlan(%q) = %v, %v", s, p, err)
			}
		}
	}
	for _, bad := range []string{"gold", "", "plan", "9", "-1"} {
		if _, err := itick.ParsePlan(bad); !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParsePlan(%q) err = %v, want ErrInvalidArgument naming it", bad, err)
		}
	}
	if s := itick.Plan(9).String(); s != "Plan(9)" {
		t.Errorf("Plan(9).String() = %q", s)
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
