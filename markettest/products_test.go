package markettest_test

import (
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// TestRegionsAreTheDocumentedOnes: each class's regions are those the
// service's documentation lists, no more.
func TestRegionsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	want := map[markettest.Class][]itick.Region{
		markettest.Stock: {"HK", "SH", "SZ", "US", "SG", "JP", "TW", "IN", "TH", "DE", "MX", "MY", "TR", "ES", "NL",
			"GB", "ID", "VN", "IT"},
		markettest.Crypto:  {"BA", "BT", "PB"},
		markettest.Future:  {"HK", "US", "CN"},
		markettest.Fund:    {"US"},
		markettest.Forex:   {"GB"},
		markettest.Indices: {"GB"},
	}
	got := map[markettest.Class][]itick.Region{}
	for class := range want {
		got[class] = markettest.Regions(class)
	}
	if diff := cmp.Diff(want, got, cmpSortedRegions); diff != "" {
		t.Errorf("regions (-documented +served):\n%s", diff)
	}
	if r := markettest.Regions("bonds"); r != nil {
		t.Errorf("Regions(bonds) = %v, want none", r)
	}
}

var cmpSortedRegions = cmp.Transformer("sorted", func(in []itick.Region) []itick.Region {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
})

func TestExists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		class  markettest.Class
		region itick.Region
		code   string
		want   bool
	}{
		{markettest.Stock, "US", "AAPL", true},
		{markettest.Stock, "us", "aapl", true}, // any case, as the service
		{markettest.Stock, "US", "BRK.B", true},
		{markettest.Stock, "US", "BF-A", true},
		{markettest.Stock, "US", "S0042", true}, // a test's own code
		{markettest.Stock, "US", "GOOGL", true},
		{markettest.Stock, "US", "NOSUCHCODE", false}, // longer than any US ticker
		{markettest.Stock, "US", "GOOGLE", false},
		{markettest.Stock, "US", "AAPL.", false},
		{markettest.Stock, "US", "BRK.BBB", false},
		{markettest.Stock, "US", "AA PL", false},
		{markettest.Stock, "US", "", false},
		{markettest.Stock, "USA", "AAPL", false}, // no such region
		{markettest.Stock, "XX", "AAPL", false},
		{markettest.Stock, "CN", "600519", false}, // CN has futures, not stocks
		{markettest.Stock, "HK", "700", true},
		{markettest.Stock, "HK", "C299", true},
		{markettest.Stock, "SH", "600519", true},
		{markettest.Stock, "GB", "BT.A", true},
		{markettest.Stock, "GB", "NOSUCHCODE", false},
		{markettest.Stock, "IN", "BAJAJ-AUTO", true},
		{markettest.Stock, "IN", "M&M", true},
		{markettest.Stock, "US", "M&M", false},
		{markettest.Stock, "IN", "-AUTO", false},
		{markettest.Crypto, "BA", "BTCUSDT", true},
		{markettest.Crypto, "pb", "ethbtc", true},
		{markettest.Crypto, "BT", "1000SHIBUSDT", true},
		{markettest.Crypto, "BA", "BTC", false},  // no quote asset
		{markettest.Crypto, "BA", "USDT", false}, // no base
		{markettest.Crypto, "BA", "NOSUCHCODE", false},
		{markettest.Crypto, "US", "BTCUSDT", false},
		{markettest.Forex, "GB", "EURUSD", true},
		{markettest.Forex, "GB", "XAUUSD", true},
		{markettest.Forex, "GB", "EUR/USD", false},
		{markettest.Forex, "US", "EURUSD", false},
		{markettest.Indices, "GB", "SPX", true},
		{markettest.Indices, "GB", "N225", true},
		{markettest.Indices, "US", "SPX", false},
		{markettest.Future, "CN", "RB2510", true},
		{markettest.Future, "HK", "HSI", true},
		{markettest.Future, "GB", "GC", false},
		{markettest.Fund, "US", "QQQ", true},
		{markettest.Fund, "HK", "QQQ", false},
		{"bonds", "US", "T10", false},
	}
	for _, tt := range tests {
		if got := markettest.Exists(tt.class, tt.region, tt.code); got != tt.want {
			t.Errorf("Exists(%s, %q, %q) = %v, want %v", tt.class, tt.region, tt.code, got, tt.want)
		}
	}
}

// swapParam returns q with name set to v, when q has name.
func swapParam(q, name, v string) (string, bool) {
	vals, err := url.ParseQuery(q)
	if err != nil || !vals.Has(name) {
		return q, false
	}
	vals.Set(name, v)
	return vals.Encode(), true
}

// notFoundBody is the E001 refusal as the simulator sends it.
const notFoundBody = `{"code":1,"msg":"E001 not found this produce","data":null}`

// TestEveryRouteRefusesARegionItsClassDoesNotHave asks every route that
// takes a region for one its class does not have: E001, as for an unknown
// product.
func TestEveryRouteRefusesARegionItsClassDoesNotHave(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	asked := 0
	queries := queries(t)
	for _, path := range markettest.Paths() {
		other := "BA" // a crypto region
		if strings.HasPrefix(path, "/crypto/") {
			other = "US"
		}
		for _, region := range []string{"XX", "USA", other} {
			q, ok := swapParam(queries[path], "region", region)
			if !ok {
				continue
			}
			asked++
			r := get(t, srv, target(srv, path, q), srv.Token)
			if got := string(r.body); r.status != 200 || got != notFoundBody {
				t.Errorf("%s?%s: HTTP %d %s, want %s", path, q, r.status, got, notFoundBody)
			}
		}
	}
	if asked < 100 {
		t.Errorf("asked %d requests, want every route with a region asked thrice", asked)
	}
	if st := srv.Stats(); st.Rejected != asked || st.Succeeded != 0 {
		t.Errorf("stats = %+v, want %d rejected, none succeeded", st, asked)
	}
}

// TestUnknownCodes: a single product's unknown code is E001; a batch
// leaves unknown codes out of its data, as the service does.
func TestUnknownCodes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	queries := queries(t)
	for _, path := range markettest.Paths() {
		q := queries[path]
		if single, ok := swapParam(q, "code", "NOSUCHCODE"); ok {
			r := get(t, srv, target(srv, path, single), srv.Token)
			if got := string(r.body); got != notFoundBody {
				t.Errorf("%s?%s: %s, want %s", path, single, got, notFoundBody)
			}
		}
		batch, ok := swapParam(q, "codes", "NOSUCHCODE")
		if !ok {
			continue
		}
		env := decodeEnvelope(t, get(t, srv, target(srv, path, batch), srv.Token))
		if env.Code != 0 || string(env.Data) != "{}" {
			t.Errorf("%s?%s: code %d data %s, want code 0 and {}", path, batch, env.Code, env.Data)
		}
		vals, _ := url.ParseQuery(q)
		known := vals.Get("codes")
		mixed, _ := swapParam(q, "codes", "NOSUCHCODE,"+known)
		var data map[string]json.RawMessage
		if err := json.Unmarshal(decodeEnvelope(t, get(t, srv, target(srv, path, mixed), srv.Token)).Data, &data); err != nil {
			t.Fatalf("%s?%s: %v", path, mixed, err)
		}
		want := strings.Split(known, ",")
		slices.Sort(want)
		if diff := cmp.Diff(want, slices.Sorted(maps.Keys(data))); diff != "" {
			t.Errorf("%s?%s: codes answered (-want +got):\n%s", path, mixed, diff)
		}
	}
}

func TestUnknownProductsWithTextCodes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithTextCodes())
	for _, pq := range []string{"/stock/quote?region=USA&code=AAPL", "/stock/quote?region=US&code=NOSUCHCODE",
		"/crypto/quotes?region=US&codes=BTCUSDT"} {
		want := `{"code":"E001","msg":"E001 not found this produce","data":null}`
		if got := string(get(t, srv, pq, srv.Token).body); got != want {
			t.Errorf("%s: %s, want %s", pq, got, want)
		}
	}
}

// TestUnknownRegionBeforePlanCoverage: with WithRegions, a region the
// class has but the plan does not cover is answered with success and no
// data, and a region the class does not have is still E001.
func TestUnknownRegionBeforePlanCoverage(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithRegions(itick.RegionUS))
	tests := []struct {
		pq   string
		want string
	}{
		{"/stock/quotes?region=HK&codes=700", `{"code":0,"msg":null,"data":{}}`},
		{"/stock/quotes?region=USA&codes=AAPL", notFoundBody},
		{"/crypto/quotes?region=US&codes=BTCUSDT", notFoundBody},
	}
	for _, tt := range tests {
		if got := string(get(t, srv, tt.pq, srv.Token).body); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.pq, got, tt.want)
		}
	}
}

// TestSDKSeesUnknownProductsAsTheServiceSendsThem: through the SDK, a
// region its class does not have and a single unknown code match
// ErrNotFound; a batch's unknown code is absent from the map.
func TestSDKSeesUnknownProductsAsTheServiceSendsThem(t *testing.T) {
	t.Parallel()
	srv := newServer(t, markettest.WithClock(func() time.Time { return fixedNow }))
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	notFound := []struct {
		name string
		call func() error
	}{
		{"stock USA", func() error { _, err := client.Stock.Quote(ctx, "USA", "AAPL"); return err }},
		{"stock XX batch", func() error { _, err := client.Stock.Quotes(ctx, "XX", []string{"AAPL"}); return err }},
		{"crypto US", func() error { _, err := client.Crypto.Quotes(ctx, itick.RegionUS, []string{"BTCUSDT"}); return err }},
		{"forex US", func() error { _, err := client.Forex.Quote(ctx, itick.RegionUS, "EURUSD"); return err }},
		{"indices US", func() error {
			_, err := client.Indices.Kline(ctx, itick.RegionUS, "SPX", itick.OneDay, 5)
			return err
		}},
		{"NOSUCHCODE quote", func() error { _, err := client.Stock.Quote(ctx, itick.RegionUS, "NOSUCHCODE"); return err }},
		{"NOSUCHCODE depth", func() error { _, err := client.Stock.Depth(ctx, itick.RegionUS, "NOSUCHCODE"); return err }},
		{"BTC without its quote", func() error { _, err := client.Crypto.Tick(ctx, itick.RegionBA, "BTC"); return err }},
		{"info of NOSUCHCODE", func() error { _, err := client.Stock.Info(ctx, itick.RegionUS, "NOSUCHCODE"); return err }},
		{"splits of XX", func() error { _, err := client.Stock.SplitPage(ctx, "XX", 0); return err }},
	}
	for _, tt := range notFound {
		err := tt.call()
		var apiErr *itick.APIError
		if !errors.Is(err, itick.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Code != markettest.CodeNotFound {
			t.Errorf("%s: %v, want an *APIError with code %d matching ErrNotFound", tt.name, err, markettest.CodeNotFound)
		}
	}

	quotes, err := client.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL", "NOSUCHCODE", "C042"})
	if err != nil {
		t.Fatalf("a batch with an unknown code: %v, want it left out", err)
	}
	if diff := cmp.Diff([]string{"AAPL", "C042"}, slices.Sorted(maps.Keys(quotes))); diff != "" {
		t.Errorf("codes answered (-want +got):\n%s", diff)
	}
	if q := quotes["AAPL"]; q.Last != srv.Generator().Quote(markettest.Stock, itick.RegionUS, "AAPL", fixedNow).Last {
		t.Errorf("AAPL's quote %v, want the generator's", q.Last)
	}
}

// TestStreamRefusesUnknownProducts: a subscription naming a region its
// class does not have or an unknown code is refused, whole, with code 0
// and the E001 text, on the wire and through the SDK as ErrNotFound.
func TestStreamRefusesUnknownProducts(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithStreamInterval(time.Hour))
	c, _ := rawConn(t, srv, "stock", srv.Token)
	refused := map[string]any{"code": 0.0, "resAc": "subscribe", "msg": markettest.MsgNotFound}
	steps := []struct {
		send string
		want map[string]any
	}{
		{`{"ac":"subscribe","params":"AAPL$USA","types":"quote"}`, refused},
		{`{"ac":"subscribe","params":"AAPL$US,NOSUCHCODE$US","types":"quote"}`, refused},
		{`{"ac":"subscribe","params":"700$HK,600519$SSE$CN","types":"quote"}`, refused},
		{`{"ac":"subscribe","params":"AAPL$US,700$HK","types":"quote"}`,
			map[string]any{"code": 1.0, "resAc": "subscribe", "msg": "subscribe Successfully"}},
	}
	for _, st := range steps {
		if err := c.Write(bounded(t), websocket.MessageText, []byte(st.send)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, readMsg(t, c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.send, diff)
		}
	}
	if st := srv.StreamStats(); st.Subscriptions != 2 {
		t.Errorf("%d subscriptions, want the 2 of the accepted request only", st.Subscriptions)
	}

	s := openStream(t, srv, "crypto")
	for _, syms := range [][]string{{"BTCUSDT$US"}, {"BTCUSDT$BA", "NOSUCHCODE$BA"}} {
		err := s.Subscribe(bounded(t), syms, itick.ChannelQuote)
		var se *itick.StreamError
		if !errors.Is(err, itick.ErrNotFound) || !errors.As(err, &se) || se.Action != "subscribe" {
			t.Errorf("Subscribe(%v): %v, want a *StreamError for subscribe matching ErrNotFound", syms, err)
		}
	}
	if st := s.Stats(); st.Symbols != 0 {
		t.Errorf("the stream keeps %d products after the refusals, want 0", st.Symbols)
	}
	if err := s.Subscribe(bounded(t), []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
		t.Errorf("Subscribe(BTCUSDT$BA): %v", err)
	}
}
