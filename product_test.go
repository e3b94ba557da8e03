package itick_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

func TestParseProduct(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want itick.Product
		text string // String's form
	}{
		{"stock:US:AAPL", itick.Product{Class: itick.AssetStock, Region: itick.RegionUS, Code: "AAPL"}, "stock:US:AAPL"},
		{"crypto:BA:BTCUSDT", itick.Product{Class: itick.AssetCrypto, Region: itick.RegionBA, Code: "BTCUSDT"}, "crypto:BA:BTCUSDT"},
		{"STOCK:hk:700", itick.Product{Class: itick.AssetStock, Region: itick.RegionHK, Code: "700"}, "stock:HK:700"},
		{"Forex:gb:EURUSD", itick.Product{Class: itick.AssetForex, Region: itick.RegionGB, Code: "EURUSD"}, "forex:GB:EURUSD"},
		{"  indices:GB: SPX ", itick.Product{Class: itick.AssetIndices, Region: itick.RegionGB, Code: "SPX"}, "indices:GB:SPX"},
		{"future:us:gc", itick.Product{Class: itick.AssetFuture, Region: itick.RegionUS, Code: "gc"}, "future:US:gc"}, // code case kept
		{"fund:US:QQQ", itick.Product{Class: itick.AssetFund, Region: itick.RegionUS, Code: "QQQ"}, "fund:US:QQQ"},
		{"stock:US:BRK:B", itick.Product{Class: itick.AssetStock, Region: itick.RegionUS, Code: "BRK:B"}, "stock:US:BRK:B"}, // all after the second colon
		{"stock:XX:ABC", itick.Product{Class: itick.AssetStock, Region: "XX", Code: "ABC"}, "stock:XX:ABC"},                 // regions are open-ended
	}
	for _, c := range cases {
		got, err := itick.ParseProduct(c.in)
		if err != nil {
			t.Errorf("ParseProduct(%q): %v", c.in, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ParseProduct(%q) (-want +got):\n%s", c.in, diff)
		}
		if s := got.String(); s != c.text {
			t.Errorf("ParseProduct(%q).String() = %q, want %q", c.in, s, c.text)
		}
		back, err := itick.ParseProduct(got.String())
		if err != nil || back != got {
			t.Errorf("ParseProduct(String()) of %q = %+v, %v; want it back", c.in, back, err)
		}
	}
}

func TestParseProduct_Refusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, names string // names: the part the error must name
	}{
		{"", "class:REGION:code"},
		{"stock", "class:REGION:code"},
		{"stock:US", "class:REGION:code"},
		{"stocks:US:AAPL", `class "stocks"`},
		{":US:AAPL", `class ""`},
		{"bond:US:AAPL", `class "bond"`},
		{"stock::AAPL", `region ""`},
		{"stock:U S:AAPL", `region "U S"`},
		{"stock:U1:AAPL", `region "U1"`},
		{"stock: US:AAPL", `region " US"`},
		{"stock:US:", "empty"},
		{"stock:US:   ", "empty"},
		{"stock:US:AAPL,MSFT", "comma"},
		{"stock:US:AAPL$US", "'$'"},
		{"stock:US:AA\x1bPL", "control character"},
		{"stock:US:AA\x7fPL", "control character"},
	}
	for _, c := range cases {
		p, err := itick.ParseProduct(c.in)
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("ParseProduct(%q) = %+v, %v; want ErrInvalidArgument", c.in, p, err)
			continue
		}
		if !strings.Contains(err.Error(), c.names) {
			t.Errorf("ParseProduct(%q): %q does not name %s", c.in, err, c.names)
		}
		if p != (itick.Product{}) {
			t.Errorf("ParseProduct(%q) returned %+v with its error; want the zero Product", c.in, p)
		}
	}
}

// TestProduct_Text: a Product is a JSON string in String's form, as a
// value and as a map key, and reads back from it; a bad text leaves the
// value as it was.
func TestProduct_Text(t *testing.T) {
	t.Parallel()
	aapl := itick.Product{Class: itick.AssetStock, Region: itick.RegionUS, Code: "AAPL"}
	btc := itick.Product{Class: itick.AssetCrypto, Region: itick.RegionBA, Code: "BTCUSDT"}
	type holder struct {
		P    itick.Product          `json:"p"`
		List []itick.Product        `json:"list"`
		Last map[itick.Product]bool `json:"last"`
	}
	in := holder{P: aapl, List: []itick.Product{aapl, btc}, Last: map[itick.Product]bool{btc: true}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"p":"stock:US:AAPL","list":["stock:US:AAPL","crypto:BA:BTCUSDT"],"last":{"crypto:BA:BTCUSDT":true}}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	var out holder
	if err := json.Unmarshal([]byte(`{"p":"STOCK:us:AAPL","list":["stock:US:AAPL","crypto:ba:BTCUSDT"],"last":{"crypto:BA:BTCUSDT":true}}`), &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	p := aapl
	if err := p.UnmarshalText([]byte("stock:US:A,B")); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("UnmarshalText of a code with a comma: %v; want ErrInvalidArgument", err)
	}
	if p != aapl {
		t.Errorf("a failed UnmarshalText changed the value to %+v", p)
	}
	if err := json.Unmarshal([]byte(`{"p":"stock:US"}`), &out); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("json.Unmarshal of a bad product: %v; want ErrInvalidArgument", err)
	}
}
