package itick

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/stream"
)

// The reference for pushes: encoding/json into one flat struct of every
// field any push carries, then the conversion the stream used before it
// decoded pushes with the models' own decoders. It checks every field of
// every push, where the models' decoders skip the fields of other types,
// so the stream may accept more than it; never less, nor differently.

type refPushWire struct {
	S    str          `json:"s"`
	R    str          `json:"r"`
	Type str          `json:"type"`
	Ld   num          `json:"ld"`
	O    num          `json:"o"`
	P    num          `json:"p"`
	H    num          `json:"h"`
	L    num          `json:"l"`
	C    num          `json:"c"`
	T    num          `json:"t"`
	V    num          `json:"v"`
	Tu   num          `json:"tu"`
	TS   integer      `json:"ts"`
	Te   integer      `json:"te"`
	D    integer      `json:"d"`
	Ch   num          `json:"ch"`
	Chp  num          `json:"chp"`
	A    []freshLevel `json:"a"`
	B    []freshLevel `json:"b"`
	K    *klineWire   `json:"k"`
}

// freshLevel is a level decoded whole, as DepthLevel.UnmarshalJSON decodes
// it: when a side's key repeats, encoding/json decodes the second array over
// the first one's elements, and a plain struct element would keep the
// fields the second one leaves out.
type freshLevel depthLevelWire

func (l *freshLevel) UnmarshalJSON(b []byte) error {
	var w depthLevelWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*l = freshLevel(w)
	return nil
}

func refDecodePushJSON(data []byte, match stream.Matcher) (Event, error) {
	var w refPushWire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	return refDecodePush(&w, match)
}

// refDecodePush is the decoder pushes had before the scanner: it turns a push's data into an event, routed by its type: a
// kline push by its k, in the legacy form, and any other by data.type.
// match names the product as it was subscribed.
func refDecodePush(w *refPushWire, match stream.Matcher) (Event, error) {
	sym := stream.PushedSymbol(string(w.S), string(w.R))
	if match != nil {
		if sub, ok := match(sym); ok {
			sym = sub
		}
	}
	code, reg, exch := sym.Code, Region(sym.Region), sym.Exchange
	if w.K != nil && w.Type == "" {
		kt := Interval(w.T)
		if float64(kt) != float64(w.T) || !kt.valid() {
			return nil, fmt.Errorf("itick: stream kline push for %s: bad kType %v", code, float64(w.T))
		}
		k := w.K
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: kt, Kline: Kline{Time: time.Time(k.T),
			Open: float64(k.O), High: float64(k.H), Low: float64(k.L), Close: float64(k.C),
			Volume: float64(k.V), Turnover: float64(k.Tu)}}, nil
	}
	t, err := refPushTime(w.T)
	if err != nil {
		return nil, fmt.Errorf("itick: stream %s push for %s: %w", string(w.Type), code, err)
	}
	switch typ := Channel(w.Type); typ {
	case ChannelQuote:
		return QuoteEvent{Code: code, Region: reg, Exchange: exch, Quote: Quote{Symbol: code, Last: float64(w.Ld),
			Open: float64(w.O), PrevClose: float64(w.P), High: float64(w.H), Low: float64(w.L), Time: t,
			Volume: float64(w.V), Turnover: float64(w.Tu), Status: int(w.TS), Change: float64(w.Ch),
			ChangePercent: float64(w.Chp)}}, nil
	case ChannelTick:
		return TickEvent{Code: code, Region: reg, Exchange: exch, Tick: Tick{Symbol: code, Last: float64(w.Ld), Time: t,
			Volume: float64(w.V), Session: TickSession(w.Te), Turnover: float64(w.Tu),
			Status: TradingStatus(w.TS), Direction: TradeDirection(w.D)}}, nil
	case ChannelDepth:
		return DepthEvent{Code: code, Region: reg, Exchange: exch, Depth: DepthBook{Symbol: code,
			Asks: refDepthLevels(w.A), Bids: refDepthLevels(w.B)}}, nil
	default:
		iv := typ.klineInterval()
		if iv == 0 {
			return nil, fmt.Errorf("itick: stream push for %s: unknown type %q", code, string(w.Type))
		}
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: iv, Kline: Kline{Time: t, Open: float64(w.O),
			High: float64(w.H), Low: float64(w.L), Close: float64(w.C), Volume: float64(w.V),
			Turnover: float64(w.Tu)}}, nil
	}
}

// pushTime reads a push's t with the rules of every other Unix-ms field.
func refPushTime(f num) (time.Time, error) {
	var m millis
	err := m.UnmarshalJSON(strconv.AppendFloat(make([]byte, 0, 24), float64(f), 'f', -1, 64))
	return time.Time(m), err
}

func refDepthLevels(ws []freshLevel) []DepthLevel {
	if ws == nil {
		return nil
	}
	out := make([]DepthLevel, len(ws))
	for i, w := range ws {
		out[i] = DepthLevel{Level: int(w.Po), Price: float64(w.P), Volume: float64(w.V), Orders: float64(w.O)}
	}
	return out
}

// checkPushEquivalent holds the stream's push decoder to the reference.
func checkPushEquivalent(t testing.TB, data []byte) {
	t.Helper()
	match := func(p stream.Symbol) (stream.Symbol, bool) {
		if strings.EqualFold(p.Code, "AAPL") && (p.Region == "" || strings.EqualFold(p.Region, "US")) {
			return stream.Symbol{Code: "AAPL", Region: "US"}, true
		}
		return p, false
	}
	ref, rerr := refDecodePushJSON(data, match)
	got, err := decodePushJSON(data, match)
	switch {
	case rerr == nil && err != nil:
		t.Fatalf("push refused: %v; the reference gives %#v\ndata: %q", err, ref, data)
	case rerr == nil:
		if diff := cmp.Diff(ref, got, bitsEqual); diff != "" {
			t.Fatalf("push and reference differ (-ref +push):\n%s\ndata: %q", diff, data)
		}
	case err == nil && !json.Valid(data):
		t.Fatalf("push accepted from invalid JSON: %#v\ndata: %q", got, data)
	}
}

// pushSeeds are the data of the stream fixtures, the replay benchmark's
// pushes and a few tolerances.
func pushSeeds(t testing.TB) [][]byte {
	t.Helper()
	var seeds [][]byte
	files, err := filepath.Glob("testdata/stream/push_*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no push fixtures: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Data json.RawMessage }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, m.Data)
	}
	for _, f := range replayFrames()[:10] {
		var m struct{ Data json.RawMessage }
		if err := json.Unmarshal(f, &m); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, m.Data)
	}
	for _, s := range []string{
		`{"s":700,"r":"HK","type":"quote","ld":"616.5","t":"1765526889000","ts":"1","ch":null,"chp":""}`,
		`{"S":"aapl","R":"us","TYPE":"tick","ld":1,"t":1765526889000,"te":2,"d":1}`,
		`{"s":"AAPL","t":"10","k":{"c":3}}`,
		`{"s":"AAPL$US","type":"depth","a":null,"b":[]}`,
		`{"s":"AAPL","r":"US","type":"kline@11"}`,
		`{"s":"AAPL","r":"US","type":"quote","t":1e30}`,
		`{"s":"AAPL","type":"quote","type":"tick","ld":2}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestPushDecodeEquivalence(t *testing.T) {
	t.Parallel()
	for _, s := range pushSeeds(t) {
		checkPushEquivalent(t, s)
	}
}

func FuzzPushDecodeEquivalence(f *testing.F) {
	for _, s := range pushSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPushEquivalent(t, data) })
}
