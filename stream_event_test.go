package itick

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/stream"
)

func TestDecodePush(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1765526889000).UTC()
	lookup := func(p stream.Symbol) (stream.Symbol, bool) {
		if p.Code == "700" && (p.Region == "" || p.Region == "HK") {
			return stream.Symbol{Code: "700", Region: "HK"}, true
		}
		return p, false
	}
	tests := []struct {
		name string
		data string
		want Event
	}{
		{"quote", `{"s":"700","r":"HK","type":"quote","ld":616,"o":608,"h":616,"l":601.5,"t":1765526889000,"v":17825495,"tu":10871536434.36}`,
			QuoteEvent{Code: "700", Region: RegionHK, Quote: Quote{Symbol: "700", Last: 616, Open: 608, High: 616, Low: 601.5,
				Time: at, Volume: 17825495, Turnover: 10871536434.36}}},
		{"quote with numbers as strings and a numeric code", `{"s":700,"r":"HK","type":"quote","ld":"616.5","t":"1765526889000"}`,
			QuoteEvent{Code: "700", Region: RegionHK, Quote: Quote{Symbol: "700", Last: 616.5, Time: at}}},
		{"tick", `{"s":"BTCUSDT","r":"BA","type":"tick","ld":91234.5,"v":0.0123,"t":1765526889000,"extra":true}`,
			TickEvent{Code: "BTCUSDT", Region: RegionBA, Tick: Tick{Symbol: "BTCUSDT", Last: 91234.5, Volume: 0.0123, Time: at}}},
		{"depth with $REGION and no r", `{"s":"EURUSD$GB","type":"depth","a":[{"po":1,"p":1.3431899999999999,"v":0,"o":0}],"b":[{"po":1,"v":0,"o":0.5}]}`,
			DepthEvent{Code: "EURUSD", Region: RegionGB, Depth: DepthBook{Symbol: "EURUSD",
				Asks: []DepthLevel{{Level: 1, Price: 1.3431899999999999}}, Bids: []DepthLevel{{Level: 1, Orders: 0.5}}}}},
		{"kline", `{"s":"AAPL","r":"US","type":"kline@2","o":1,"h":2,"l":0.5,"c":1.5,"v":10,"tu":15,"t":1765526700000}`,
			KlineEvent{Code: "AAPL", Region: RegionUS, Interval: FiveMinutes, Kline: Kline{Time: time.UnixMilli(1765526700000).UTC(),
				Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 10, Turnover: 15}}},
		{"legacy kline, region from the subscriptions", `{"s":"700","t":8,"k":{"o":1,"h":2,"l":0.5,"c":1.5,"v":10,"tu":15,"t":1765526889000}}`,
			KlineEvent{Code: "700", Region: RegionHK, Interval: OneDay, Kline: Kline{Time: at, Open: 1, High: 2, Low: 0.5,
				Close: 1.5, Volume: 10, Turnover: 15}}},
		{"legacy kline with $REGION", `{"s":"AAPL$US","t":"10","k":{"c":3}}`,
			KlineEvent{Code: "AAPL", Region: RegionUS, Interval: OneMonth, Kline: Kline{Close: 3}}},
	}
	for _, tt := range tests {
		got, err := decodePushJSON([]byte(tt.data), lookup)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}

	for _, bad := range []string{
		`{"s":"700","r":"HK","type":"trades","ld":1}`,
		`{"s":"700","r":"HK","type":"kline@11"}`,
		`{"s":"700","t":11,"k":{"c":1}}`,
		`{"s":"700","r":"HK","type":"quote","ld":"NaN"}`,
		`[1,2]`,
	} {
		if ev, err := decodePushJSON([]byte(bad), lookup); err == nil {
			t.Errorf("decodePush(%s) = %#v, want an error", bad, ev)
		}
	}
}

func TestStreamError_Is(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *StreamError
		want error
	}{
		{&StreamError{Action: "auth", Message: "auth failed"}, ErrUnauthorized},
		{&StreamError{Action: "subscribe", Message: "exceeding the maximum subscription limit"}, ErrPlanLimit},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%v does not match %v", tt.err, tt.want)
		}
		if errors.Is(tt.err, ErrNotFound) {
			t.Errorf("%v matches ErrNotFound", tt.err)
		}
	}
}
