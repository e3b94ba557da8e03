package wssim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeMarket answers with fixed values and records the class and time it
// was asked about.
type fakeMarket struct {
	at    time.Time
	asked chan string
}

func (m fakeMarket) note(class string, now time.Time) {
	if !now.Equal(m.at) {
		class += " at the wrong time " + now.String()
	}
	select {
	case m.asked <- class:
	default:
	}
}

func (m fakeMarket) Quote(class, code, region string, now time.Time) Bar {
	m.note(class, now)
	return Bar{Time: now, Last: 2.5, Open: 2, High: 3, Low: 1, Volume: 7, Turnover: 17}
}

func (m fakeMarket) Tick(class, code, region string, now time.Time) Bar {
	m.note(class, now)
	return Bar{Time: now, Last: 2.5, TradeVol: 0.25}
}

func (m fakeMarket) Depth(class, code, region string, now time.Time) (asks, bids []Level) {
	m.note(class, now)
	return []Level{{Po: 1, Price: 2.6, Volume: 0.5, Orders: 0.5}}, []Level{{Po: 1, NoPrice: true}}
}

func (m fakeMarket) Candle(class, code, region string, kType int, now time.Time) Candle {
	m.note(class, now)
	return Candle{Time: now.Add(-time.Duration(kType) * time.Minute), Open: 1, High: 3, Low: 0.5, Close: 2.5, Volume: 9, Turnover: 19}
}

func TestMarketPushes(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1765526889000).UTC()
	ms := float64(at.UnixMilli())
	tests := []struct {
		legacy bool
		types  string
		want   map[string]any
	}{
		{false, "quote", map[string]any{"code": 1.0, "data": map[string]any{"s": "BTCUSDT", "r": "BA", "type": "quote",
			"ld": 2.5, "o": 2.0, "h": 3.0, "l": 1.0, "v": 7.0, "tu": 17.0, "t": ms}}},
		{false, "tick", map[string]any{"code": 1.0, "data": map[string]any{"s": "BTCUSDT", "r": "BA", "type": "tick",
			"ld": 2.5, "v": 0.25, "t": ms}}},
		{false, "depth", map[string]any{"code": 1.0, "data": map[string]any{"s": "BTCUSDT", "r": "BA", "type": "depth",
			"a": []any{map[string]any{"po": 1.0, "p": 2.6, "v": 0.5, "o": 0.5}},
			"b": []any{map[string]any{"po": 1.0, "v": 0.0, "o": 0.0}}}}},
		{false, "kline@2", map[string]any{"code": 1.0, "data": map[string]any{"s": "BTCUSDT", "r": "BA", "type": "kline@2",
			"o": 1.0, "h": 3.0, "l": 0.5, "c": 2.5, "v": 9.0, "tu": 19.0, "t": ms - 2*60000}}},
		{true, "kline@3", map[string]any{"code": 0.0, "data": map[string]any{"s": "BTCUSDT", "t": 3.0, "k": map[string]any{
			"o": 1.0, "h": 3.0, "l": 0.5, "c": 2.5, "v": 9.0, "tu": 19.0, "t": ms - 3*60000}}}},
	}
	for _, tt := range tests {
		t.Run(tt.types, func(t *testing.T) {
			t.Parallel()
			m := fakeMarket{at: at, asked: make(chan string, 1)}
			_, url := start(t, Config{Market: m, Clock: func() time.Time { return at }, PushInterval: time.Millisecond,
				LegacyKline: tt.legacy, Authorize: func(token string) bool { return token == "tok" }})
			c := authed(t, url+"/crypto")
			send(t, c, `{"ac":"subscribe","params":"BTCUSDT$BA","types":"`+tt.types+`"}`)
			if got := readJSON(t, c)["code"]; got != 1.0 {
				t.Fatalf("subscribe ack code %v", got)
			}
			if diff := cmp.Diff(tt.want, readJSON(t, c)); diff != "" {
				t.Errorf("push (-want +got):\n%s", diff)
			}
			select {
			case got := <-m.asked:
				if got != "crypto" {
					t.Errorf("market asked about %q, want crypto", got)
				}
			case <-bounded(t).Done():
				t.Error("market never asked")
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	t.Parallel()
	_, url := start(t, Config{Token: "ignored", Authorize: func(token string) bool { return token == "tok" }})
	authed(t, url+"/stock") // authed uses "tok"
	c := dial(t, url+"/stock", "ignored")
	readJSON(t, c)
	if diff := cmp.Diff(map[string]any{"code": 0.0, "resAc": "auth", "msg": MsgAuthFailed}, readJSON(t, c)); diff != "" {
		t.Errorf("a token Authorize refuses (-want +got):\n%s", diff)
	}
}
