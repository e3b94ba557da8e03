package markettest_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// compact returns raw JSON without insignificant space.
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b.String()
}

// batchItem fetches a batch endpoint and returns the entry of code.
func batchItem(t *testing.T, srv *markettest.Server, pathAndQuery, code string) string {
	t.Helper()
	env := decodeEnvelope(t, get(t, srv, pathAndQuery, srv.Token))
	var m map[string]json.RawMessage
	if err := json.Unmarshal(env.Data, &m); err != nil {
		t.Fatalf("%s: %v", pathAndQuery, err)
	}
	raw, ok := m[code]
	if !ok {
		t.Fatalf("%s: no entry for %s in %s", pathAndQuery, code, env.Data)
	}
	return compact(t, raw)
}

func singleData(t *testing.T, srv *markettest.Server, pathAndQuery string) string {
	t.Helper()
	env := decodeEnvelope(t, get(t, srv, pathAndQuery, srv.Token))
	if env.Code != 0 {
		t.Fatalf("%s: code %d msg %v", pathAndQuery, env.Code, env.Msg)
	}
	return compact(t, env.Data)
}

func TestSingularEndpointsEqualTheirBatchForms(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	for _, c := range classes {
		for _, code := range c.codes {
			base := "/" + string(c.class) + "/"
			rc := "?region=" + string(c.region) + "&code=" + code
			rcs := "?region=" + string(c.region) + "&codes=" + code + ",OTHER"
			for _, tt := range []struct{ single, batch string }{
				{base + "quote" + rc, base + "quotes" + rcs},
				{base + "kline" + rc + "&kType=3&limit=7", base + "klines" + rcs + "&kType=3&limit=7"},
				{base + "kline" + rc + "&kType=8&limit=4&et=1741000000000", base + "klines" + rcs + "&kType=8&limit=4&et=1741000000000"},
				{base + "depth" + rc, base + "depths" + rcs},
				{base + "tick" + rc, base + "ticks" + rcs},
			} {
				if diff := cmp.Diff(batchItem(t, srv, tt.batch, code), singleData(t, srv, tt.single)); diff != "" {
					t.Errorf("%s differs from %s (-batch +single):\n%s", tt.single, tt.batch, diff)
				}
			}
		}
	}
}

func TestSingularAnswersComeFromTheGenerator(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	g := srv.Generator()
	ctx := t.Context()
	q, err := client.Fund.Quote(ctx, itick.RegionUS, "QQQ")
	if err != nil {
		t.Fatal(err)
	}
	// Fund quotes carry p, ch and chp.
	if diff := cmp.Diff(g.Quote(markettest.Fund, itick.RegionUS, "QQQ", fixedNow), *q); diff != "" {
		t.Errorf("fund quote (-generator +client):\n%s", diff)
	}
	ks, err := client.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneHour, 12)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g.Klines(markettest.Crypto, itick.RegionBA, "BTCUSDT", itick.OneHour, 12, time.Time{}, fixedNow), ks); diff != "" {
		t.Errorf("crypto kline (-generator +client):\n%s", diff)
	}
	book, err := client.Forex.Depth(ctx, itick.RegionGB, "EURUSD")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g.Depth(markettest.Forex, itick.RegionGB, "EURUSD", fixedNow), *book); diff != "" {
		t.Errorf("forex depth (-generator +client):\n%s", diff)
	}
}

func TestTickWireFieldsByClass(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	g := srv.Generator()
	for _, c := range classes {
		want := []string{"ld", "s", "t", "v"}
		switch c.class {
		case markettest.Stock:
			want = []string{"d", "ld", "s", "t", "te", "v"}
		case markettest.Crypto:
			want = []string{"ld", "s", "t", "ts", "tu", "v"}
		}
		for _, code := range c.codes {
			pq := "/" + string(c.class) + "/tick?region=" + string(c.region) + "&code=" + code
			m := rawData(t, srv, pq)
			keys := slices.Sorted(maps.Keys(m))
			if diff := cmp.Diff(want, keys); diff != "" {
				t.Errorf("%s: fields (-want +got):\n%s", pq, diff)
			}
			price := g.Price(c.class, c.region, code, fixedNow)
			at := lastTrade(c.class, c.region, code)
			if m["ld"] != price || m["s"] != code || m["t"] != float64(at.UnixMilli()) || m["v"].(float64) <= 0 {
				t.Errorf("%s: tick %v, want the price %v at %d", pq, m, price, at.UnixMilli())
			}
		}
	}
}

func TestStockTickSessionFollowsTheMarketsHours(t *testing.T) {
	t.Parallel()
	g := markettest.NewGenerator(3)
	tests := []struct {
		region itick.Region
		at     time.Time
		want   itick.TickSession
	}{
		{itick.RegionUS, time.Date(2025, 6, 3, 9, 0, 0, 0, time.UTC), itick.SessionPreMarket},    // 05:00 in New York
		{itick.RegionUS, time.Date(2025, 6, 3, 15, 0, 0, 0, time.UTC), itick.SessionRegular},     // 11:00
		{itick.RegionUS, time.Date(2025, 6, 3, 21, 30, 0, 0, time.UTC), itick.SessionAfterHours}, // 17:30
		{itick.RegionUS, time.Date(2025, 1, 7, 14, 0, 0, 0, time.UTC), itick.SessionPreMarket},   // 09:00 in winter
		{itick.RegionHK, time.Date(2025, 6, 3, 2, 0, 0, 0, time.UTC), itick.SessionRegular},      // 10:00 in Hong Kong
		{itick.RegionHK, time.Date(2025, 6, 3, 1, 10, 0, 0, time.UTC), itick.SessionPreMarket},   // 09:10
	}
	for _, tt := range tests {
		if got := g.Tick(markettest.Stock, tt.region, "X", tt.at).Session; got != tt.want {
			t.Errorf("%s at %s: session %v, want %v", tt.region, tt.at, got, tt.want)
		}
	}
	if got := g.Tick(markettest.Future, itick.RegionUS, "GC", time.Date(2025, 6, 3, 9, 0, 0, 0, time.UTC)).Session; got != itick.SessionRegular {
		t.Errorf("a futures tick has session %v; te is for stocks", got)
	}
}

func TestNewBatchEndpointsEnforceTheBatchSize(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithBatchSize(4))
	for _, path := range []string{"/stock/ticks?region=US", "/crypto/ticks?region=BA", "/fund/quotes?region=US",
		"/fund/klines?region=US&kType=8&limit=2", "/indices/ticks?region=GB"} {
		ok := decodeEnvelope(t, get(t, srv, path+"&codes="+codesOf(4), srv.Token))
		if ok.Code != 0 {
			t.Errorf("%s with 4 codes: code %d msg %v", path, ok.Code, ok.Msg)
		}
		over := decodeEnvelope(t, get(t, srv, path+"&codes="+codesOf(5), srv.Token))
		if over.Code != markettest.CodePlanLimit || over.Msg == nil || !strings.Contains(*over.Msg, "E003") {
			t.Errorf("%s with 5 codes: code %d msg %v, want the E003 refusal", path, over.Code, over.Msg)
		}
	}
}
