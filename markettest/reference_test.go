package markettest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestMarketStatusFollowsTheClock(t *testing.T) {
	t.Parallel()
	utc := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	tests := []struct {
		name    string
		code    string
		at      time.Time
		state   itick.MarketState
		open    bool
		holiday string
		local   string
	}{
		{"HK morning", "HK", utc(2025, 6, 3, 2, 0), itick.MarketOpen, true, "", "2025-06-03 10:00:00"},
		{"HK opening auction", "HK", utc(2025, 6, 3, 1, 10), itick.MarketPreMarket, false, "", "2025-06-03 09:10:00"},
		{"HK lunch", "HK", utc(2025, 6, 3, 4, 30), itick.MarketLunchBreak, true, "", "2025-06-03 12:30:00"},
		{"HK closing auction", "HK", utc(2025, 6, 3, 8, 5), itick.MarketPostMarket, false, "", "2025-06-03 16:05:00"},
		{"HK evening", "HK", utc(2025, 6, 3, 10, 0), itick.MarketClosed, false, "", "2025-06-03 18:00:00"},
		{"HK Saturday", "HK", utc(2025, 6, 7, 2, 0), itick.MarketClosedWeekend, false, "", "2025-06-07 10:00:00"},
		{"HK Sunday evening UTC is Monday morning", "HK", utc(2025, 6, 8, 23, 0), itick.MarketClosed, false, "", "2025-06-09 07:00:00"},
		{"HK Lunar New Year", "HK", utc(2025, 1, 29, 2, 0), itick.MarketClosedHoliday, false, "Lunar New Year", "2025-01-29 10:00:00"},
		{"US summer open", "US", utc(2025, 7, 3, 14, 0), itick.MarketOpen, true, "", "2025-07-03 10:00:00"},
		{"US summer pre-market", "US", utc(2025, 7, 3, 13, 0), itick.MarketPreMarket, false, "", "2025-07-03 09:00:00"},
		{"US after hours", "US", utc(2025, 7, 2, 21, 0), itick.MarketPostMarket, false, "", "2025-07-02 17:00:00"},
		{"US winter, same UTC hour, still pre-market", "US", utc(2025, 1, 7, 14, 0), itick.MarketPreMarket, false, "", "2025-01-07 09:00:00"},
		{"US Christmas", "US", utc(2025, 12, 25, 15, 0), itick.MarketClosedHoliday, false, "Christmas Day", "2025-12-25 10:00:00"},
		{"US Good Friday", "US", utc(2025, 4, 18, 15, 0), itick.MarketClosedHoliday, false, "Good Friday", "2025-04-18 11:00:00"},
		{"US half day morning", "US", utc(2025, 11, 28, 15, 0), itick.MarketHolidayHalfDay, true, "Day after Thanksgiving", "2025-11-28 10:00:00"},
		{"US half day afternoon", "US", utc(2025, 11, 28, 19, 0), itick.MarketClosed, false, "Day after Thanksgiving", "2025-11-28 14:00:00"},
		{"US Independence Day observed", "US", utc(2026, 7, 3, 15, 0), itick.MarketClosedHoliday, false, "Independence Day", "2026-07-03 11:00:00"},
		{"SH Spring Festival", "SH", utc(2025, 1, 31, 2, 0), itick.MarketClosedHoliday, false, "Spring Festival", "2025-01-31 10:00:00"},
		{"SH lunch", "sh", utc(2025, 6, 3, 4, 0), itick.MarketLunchBreak, true, "", "2025-06-03 12:00:00"},
		{"IN half-hour zone", "IN", utc(2025, 6, 3, 4, 0), itick.MarketOpen, true, "", "2025-06-03 09:30:00"},
		{"GB Boxing Day", "GB", utc(2025, 12, 26, 10, 0), itick.MarketClosedHoliday, false, "Boxing Day", "2025-12-26 10:00:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := markettest.NewManualClock(tt.at)
			srv := newServer(t, markettest.WithClock(clock.Now))
			raw := rawData(t, srv, "/market/status?code="+tt.code)
			if _, ok := raw["h"]; !ok || raw["o"] != tt.open {
				t.Errorf("wire form %v: want h present and o the boolean %v", raw, tt.open)
			}
			client, err := srv.Client()
			if err != nil {
				t.Fatal(err)
			}
			got, err := client.Market.Status(t.Context(), itick.Region(tt.code))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d entries, want 1", len(got))
			}
			st := got[0]
			want := itick.MarketStatus{Code: strings.ToUpper(tt.code), Region: st.Region, Open: tt.open, State: tt.state,
				Holiday: tt.holiday, Sessions: st.Sessions, Zone: st.Zone, LocalTime: tt.local}
			if diff := cmp.Diff(want, st); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			loc, err := time.LoadLocation(st.Zone)
			if err != nil || st.Region == "" || len(st.Sessions) < 2 {
				t.Errorf("zone %q (%v), region %q, sessions %q", st.Zone, err, st.Region, st.Sessions)
			} else if l := tt.at.In(loc).Format(time.DateTime); l != st.LocalTime {
				t.Errorf("local time %s is not the clock in %s (%s)", st.LocalTime, st.Zone, l)
			}
		})
	}
}

func TestMarketStatusMovesWithAManualClock(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(time.Date(2025, 6, 6, 7, 59, 0, 0, time.UTC)) // Friday 15:59 in Hong Kong
	srv := newServer(t, markettest.WithClock(clock.Now))
	var states []string
	for _, step := range []time.Duration{0, time.Minute, 5 * time.Minute, time.Hour, 48 * time.Hour} {
		clock.Advance(step)
		states = append(states, rawData(t, srv, "/market/status?code=HK")["s"].(string))
	}
	want := []string{"OPEN", "POST_MARKET", "POST_MARKET", "CLOSED", "CLOSED_WEEKEND"}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

func TestMarketStatusOfAnUnknownMarket(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	env := decodeEnvelope(t, get(t, srv, "/market/status?code=XX", srv.Token))
	if env.Code != markettest.CodeNotFound || env.Msg == nil || *env.Msg != markettest.MsgNotFound {
		t.Errorf("code %d msg %v, want the E001 refusal", env.Code, env.Msg)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Market.Status(t.Context(), "XX"); !errors.Is(err, itick.ErrNotFound) {
		t.Errorf("Status(XX) error %v, want ErrNotFound", err)
	}
}

func TestHolidays(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC) }))
	env := decodeEnvelope(t, get(t, srv, "/symbol/v2/holidays", srv.Token))
	legacy := decodeEnvelope(t, get(t, srv, "/symbol/holidays", srv.Token))
	if string(env.Data) != string(legacy.Data) {
		t.Errorf("/symbol/holidays differs from /symbol/v2/holidays")
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(env.Data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, h := range raw {
		if string(h["vr"]) != "null" || h["v"][0] != '"' || string(h["ey"]) != `"2025"` || h["tz"][0] == '"' {
			t.Errorf("entry %s: want vr null, v a string, ey \"2025\", tz a number", h["c"])
		}
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	hs, err := client.Market.Holidays(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byCode := map[string]itick.Holiday{}
	for _, h := range hs {
		byCode[h.Market] = h
		for _, d := range h.Dates {
			if d.Year() != 2025 || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
				t.Errorf("%s: holiday %s is not a weekday of 2025", h.Market, d.Format(time.DateOnly))
			}
		}
		if !slices.IsSortedFunc(h.Dates, time.Time.Compare) {
			t.Errorf("%s: dates out of order", h.Market)
		}
	}
	us := byCode["US"]
	if us.Country != "United States" || us.UTCOffset != -5 || us.TradingHours != "09:30 - 16:00" || us.Year != 2025 {
		t.Errorf("US calendar %+v", us)
	}
	var days []string
	for _, d := range us.Dates {
		days = append(days, d.Format(time.DateOnly))
	}
	want := []string{"2025-01-01", "2025-01-20", "2025-02-17", "2025-04-18", "2025-05-26", "2025-06-19",
		"2025-07-04", "2025-09-01", "2025-11-27", "2025-12-25"}
	if diff := cmp.Diff(want, days); diff != "" {
		t.Errorf("US holidays of 2025 (-want +got):\n%s", diff)
	}
	if in := byCode["IN"]; in.UTCOffset != 5.5 || in.TradingHours != "09:15 - 15:30" {
		t.Errorf("IN calendar %+v", in)
	}
	if len(byCode) < 8 {
		t.Errorf("%d markets, want the main ones", len(byCode))
	}
}

func TestSymbolList(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	body := string(get(t, srv, "/symbol/list?type=stock&region=US", srv.Token).body)
	if !strings.Contains(body, `{"c":"AAPL","n":"Apple Inc.","t":"stock","e":"NASDAQ","s":null,"l":"Apple"}`) {
		t.Errorf("no Apple entry in the service's form: %s", body)
	}
	tests := []struct {
		typ      itick.AssetType
		region   itick.Region
		code     string
		min      int
		contains string
	}{
		{itick.AssetStock, itick.RegionUS, "", 8, "AAPL"},
		{itick.AssetStock, itick.RegionHK, "", 8, "700"},
		{itick.AssetStock, itick.RegionSG, "", 20, ""},
		{itick.AssetCrypto, itick.RegionBA, "", 5, "BTCUSDT"},
		{itick.AssetForex, itick.RegionGB, "", 5, "EURUSD"},
		{itick.AssetIndices, itick.RegionGB, "", 5, "HSI"},
		{itick.AssetFuture, itick.RegionUS, "", 5, "GC"},
		{itick.AssetFund, itick.RegionUS, "", 5, "QQQ"},
		{itick.AssetStock, itick.RegionHK, "700", 1, "700"},
		{itick.AssetCrypto, itick.RegionBA, "ethusdt", 1, "ETHUSDT"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/%s/%s", tt.typ, tt.region, tt.code)
		syms, err := client.Market.Symbols(ctx, tt.typ, tt.region, tt.code)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(syms) < tt.min || tt.code != "" && len(syms) != 1 {
			t.Errorf("%s: %d symbols", name, len(syms))
		}
		codes := map[string]bool{}
		for _, s := range syms {
			if s.Type != tt.typ || s.Name == "" || s.Exchange == "" || s.ShortName == "" || codes[s.Code] {
				t.Errorf("%s: symbol %+v (empty field or repeated code)", name, s)
			}
			codes[s.Code] = true
		}
		if tt.contains != "" && !codes[tt.contains] {
			t.Errorf("%s: no %s in %v", name, tt.contains, codes)
		}
	}
	if syms, err := client.Market.Symbols(ctx, itick.AssetStock, itick.RegionUS, "NOPE"); err != nil || len(syms) != 0 {
		t.Errorf("an unknown code: %v, %v; want an empty list", syms, err)
	}
	env := decodeEnvelope(t, get(t, srv, "/symbol/list?type=bond&region=US", srv.Token))
	if env.Code != markettest.CodeBadRequest {
		t.Errorf("type bond: code %d, want %d", env.Code, markettest.CodeBadRequest)
	}
}

func TestSymbolInfo(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := string(get(t, srv, "/symbol/info?type=stock&region=US&code=AAPL", srv.Token).body)
	if want := `"data":{"c":"AAPL","n":"Apple Inc.","t":"stock","e":"NASDAQ","s":null,"l":"Apple"}`; !strings.Contains(body, want) {
		t.Errorf("body %s lacks %s", body, want)
	}
	env := decodeEnvelope(t, get(t, srv, "/symbol/info?type=stock&region=US&code=NOPE", srv.Token))
	if env.Code != markettest.CodeNotFound || env.Msg == nil || *env.Msg != markettest.MsgNotFound {
		t.Errorf("an unknown code: %d %v, want the E001 refusal", env.Code, env.Msg)
	}
	env = decodeEnvelope(t, get(t, srv, "/symbol/info?type=stock&region=US", srv.Token))
	if env.Code != markettest.CodeBadRequest {
		t.Errorf("no code: code %d, want %d", env.Code, markettest.CodeBadRequest)
	}
}

func TestStockInfo(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	g := srv.Generator()
	for _, tt := range []struct {
		region           itick.Region
		code, name, exch string
		currency         string
	}{
		{itick.RegionUS, "AAPL", "Apple Inc.", "NASDAQ", "USD"},
		{itick.RegionHK, "700", "Tencent Holdings Ltd.", "HKEX", "HKD"},
		{itick.RegionJP, "7203", "", "TSE", "JPY"},
	} {
		info, err := client.Stock.Info(t.Context(), tt.region, tt.code)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(g.StockInfo(tt.region, tt.code, fixedNow), *info); diff != "" {
			t.Errorf("%s: info (-generator +client):\n%s", tt.code, diff)
		}
		if info.Code != tt.code || tt.name != "" && info.Name != tt.name || info.Exchange != tt.exch ||
			info.Currency != tt.currency || info.Region != tt.region || info.Type != "stock" {
			t.Errorf("%s: info %+v", tt.code, info)
		}
		price := g.Price(markettest.Stock, tt.region, tt.code, fixedNow)
		if info.Shares < 1e6 || info.MarketCap != float64(int64(info.Shares*price+0.5)) || info.PE <= 0 ||
			info.Sector == "" || info.Industry == "" || !strings.HasPrefix(info.Website, "https://") {
			t.Errorf("%s: info %+v, price %v", tt.code, info, price)
		}
	}
	env := decodeEnvelope(t, get(t, srv, "/stock/info?type=fund&region=US&code=AAPL", srv.Token))
	if env.Code != markettest.CodeBadRequest {
		t.Errorf("type fund: code %d, want %d", env.Code, markettest.CodeBadRequest)
	}
}

func TestIPOPages(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	day := fixedNow.Truncate(24 * time.Hour)
	for _, kind := range []itick.IPOKind{itick.IPOUpcoming, itick.IPORecent} {
		type page struct {
			Content       []map[string]json.RawMessage `json:"content"`
			Page          int                          `json:"page"`
			Size          int                          `json:"size"`
			TotalPages    int                          `json:"totalPages"`
			TotalElements int                          `json:"totalElements"`
			Last          bool                         `json:"last"`
		}
		seen, nullRo := 0, 0
		var first page
		for n := 0; ; n++ {
			env := decodeEnvelope(t, get(t, srv, "/stock/ipo?type="+string(kind)+"&region=US&page="+strconv.Itoa(n), srv.Token))
			if env.Msg == nil || *env.Msg != "ok" {
				t.Errorf("msg %v, want ok", env.Msg)
			}
			var p page
			if err := json.Unmarshal(env.Data, &p); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				first = p
			}
			if p.Page != n || p.Size != markettest.IPOPageSize || p.TotalPages != first.TotalPages || n > 10 {
				t.Fatalf("%s page %d: %+v", kind, n, p)
			}
			for _, it := range p.Content {
				if string(it["ro"]) == "null" {
					nullRo++
				}
				for _, k := range []string{"mc", "pr"} {
					if it[k][0] != '"' {
						t.Errorf("%s is %s, want text", k, it[k])
					}
				}
			}
			seen += len(p.Content)
			if p.Last {
				if n != p.TotalPages-1 {
					t.Errorf("%s: last on page %d of %d", kind, n, p.TotalPages)
				}
				break
			}
			if len(p.Content) != markettest.IPOPageSize {
				t.Fatalf("%s: page %d holds %d and is not last", kind, n, len(p.Content))
			}
		}
		if seen != first.TotalElements || first.TotalPages < 2 {
			t.Errorf("%s: saw %d, totalElements %d, %d pages", kind, seen, first.TotalElements, first.TotalPages)
		}
		if kind == itick.IPORecent && nullRo != 0 {
			t.Errorf("%d recent IPOs without a result date", nullRo)
		}
		var ipos []itick.IPO
		for ipo, err := range client.Stock.IPOs(t.Context(), kind, itick.RegionUS) {
			if err != nil {
				t.Fatal(err)
			}
			ipos = append(ipos, ipo)
		}
		if diff := cmp.Diff(srv.Generator().IPOs(kind, itick.RegionUS, fixedNow), ipos); diff != "" {
			t.Errorf("%s through the SDK (-generator +client):\n%s", kind, diff)
		}
		for i, ipo := range ipos {
			after := ipo.ListingDate.After(day)
			ordered := i == 0 || kind == itick.IPOUpcoming && !ipo.ListingDate.Before(ipos[i-1].ListingDate) ||
				kind == itick.IPORecent && !ipo.ListingDate.After(ipos[i-1].ListingDate)
			if wd := ipo.ListingDate.Weekday(); wd == time.Saturday || wd == time.Sunday {
				t.Errorf("%s %d: listed on a %s", kind, i, wd)
			}
			if after != (kind == itick.IPOUpcoming) || !ordered || !ipo.ListingDate.Equal(ipo.ListingDate.Truncate(24*time.Hour)) {
				t.Errorf("%s %d: listed %s (today %s), out of place", kind, i, ipo.ListingDate, day)
			}
			if !ipo.SubscriptionStart.Before(ipo.SubscriptionEnd) || !ipo.SubscriptionEnd.Before(ipo.ListingDate) ||
				!ipo.ResultDate.IsZero() && !ipo.ResultDate.Before(ipo.ListingDate) || ipo.Company == "" || ipo.Code == "" ||
				ipo.Country != "US" || ipo.MarketCap == "" || ipo.Price == "" {
				t.Errorf("%s %d: %+v", kind, i, ipo)
			}
		}
	}
	env := decodeEnvelope(t, get(t, srv, "/stock/ipo?type=upcoming&region=US&page=99", srv.Token))
	var beyond struct {
		Content []json.RawMessage `json:"content"`
		Last    bool              `json:"last"`
	}
	if err := json.Unmarshal(env.Data, &beyond); err != nil || beyond.Content == nil || len(beyond.Content) != 0 || !beyond.Last {
		t.Errorf("beyond the last page: %s, %v", env.Data, err)
	}
	if env := decodeEnvelope(t, get(t, srv, "/stock/ipo?type=soon&region=US", srv.Token)); env.Code != markettest.CodeBadRequest {
		t.Errorf("type soon: code %d, want %d", env.Code, markettest.CodeBadRequest)
	}
}

func TestNewsDetail(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow)
	srv := newServer(t, markettest.WithClock(clock.Now))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, q := range []itick.NewsQuery{{Market: "stock", Lang: "en", Limit: 30}, {Market: "crypto", Lang: "zh", Limit: 5}} {
		page, err := client.News.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			a, err := client.News.Get(ctx, it.ID, q.Lang)
			if err != nil {
				t.Fatalf("%s: %v", it.ID, err)
			}
			if a.ID != it.ID || a.Title != it.Title || !a.Published.Equal(it.Published) || a.Link != it.Link ||
				a.Lang != it.Lang || a.Market != it.Market || a.Summary == "" || a.Body == "" ||
				len(a.Tags) == 0 || len(a.Markets) == 0 {
				t.Errorf("article %+v does not match the list's item %+v", a, it)
			}
			got, ok := srv.Generator().NewsArticle(it.ID, q.Lang, fixedNow)
			if diff := cmp.Diff(got, *a); !ok || diff != "" {
				t.Errorf("%s (-generator +client), found %v:\n%s", it.ID, ok, diff)
			}
		}
	}
	// An article stays readable after it has dropped off the feed, and
	// without the language.
	page, err := client.News.List(ctx, itick.NewsQuery{Market: "fund", Lang: "en", Limit: 1})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("%v, %v", page, err)
	}
	clock.Advance(30 * 24 * time.Hour)
	if a, err := client.News.Get(ctx, page.Items[0].ID, ""); err != nil || a.Title != page.Items[0].Title {
		t.Errorf("a month later: %+v, %v", a, err)
	}

	body := string(get(t, srv, "/news/"+page.Items[0].ID+"?lang=en", srv.Token).body)
	for _, re := range []string{`"pt":\d+,`, `"tg":\[`, `"mts":\["`} {
		if !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("detail lacks %s: %s", re, body)
		}
	}
	id := page.Items[0].ID
	flipped := id[:len(id)-1] + map[bool]string{true: "0", false: "1"}[id[len(id)-1] != '0']
	for _, unknown := range []string{"nope", flipped, "00000000-0000-4000-8000-000000000000"} {
		env := decodeEnvelope(t, get(t, srv, "/news/"+unknown, srv.Token))
		if env.Code != markettest.CodeNotFound || env.Msg == nil || *env.Msg != markettest.MsgNotFound || string(env.Data) != "null" {
			t.Errorf("%s: %d %v %s, want the E001 refusal", unknown, env.Code, env.Msg, env.Data)
		}
		if _, err := client.News.Get(ctx, unknown, "en"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("Get(%s): %v, want ErrNotFound", unknown, err)
		}
	}
}
