package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
)

// Tests of the push decoder, held to an encoding/json reference.

// The reference for pushes: encoding/json through the oracle's wire
// struct of push, built from push's tags as every model's is (one flat
// struct of every field any push carries, a key that several models have
// read once into each), then the conversion the stream used before it
// decoded pushes with the models' own decoders. It checks every field of
// every push, where the models' decoders skip the fields of other types,
// so the stream may accept more than it; never less, nor differently.

func refDecodePushJSON(data []byte, match stream.Matcher) (Event, error) {
	w, err := refDecode[push](data)
	if err != nil {
		return nil, err
	}
	// The legacy candle, which the push reads by hand.
	var legacy struct {
		K refList `json:"k"`
	}
	if err := json.Unmarshal(data, &legacy); err != nil {
		return nil, err
	}
	var k *Kline
	for _, raw := range legacy.K {
		kl, err := refDecode[Kline](raw)
		if err != nil {
			return nil, err
		}
		if k = &kl; string(bytes.TrimSpace(raw)) == "null" {
			k = nil
		}
	}
	return refDecodePush(&w, k, match)
}

// refDecodePush is the decoder pushes had before the scanner: it turns a
// push's data into an event, routed by its type: a kline push by its k, in
// the legacy form, and any other by data.type. match names the product as
// it was subscribed.
func refDecodePush(w *push, k *Kline, match stream.Matcher) (Event, error) {
	sym := stream.PushedSymbol(w.s, w.r)
	if match != nil {
		if sub, ok := match(sym); ok {
			sym = sub
		}
	}
	code, reg, exch := sym.Code, Region(sym.Region), sym.Exchange
	if k != nil && w.typ == "" {
		kt := Interval(w.t)
		if float64(kt) != w.t || !kt.valid() {
			return nil, fmt.Errorf("itick: stream kline push for %s: bad kType %v", code, w.t)
		}
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: kt, Kline: *k}, nil
	}
	t, err := refPushTime(num(w.t))
	if err != nil {
		return nil, fmt.Errorf("itick: stream %s push for %s: %w", w.typ, code, err)
	}
	switch typ := Channel(w.typ); typ {
	case ChannelQuote:
		q := w.q
		q.Symbol, q.Time = code, t
		return QuoteEvent{Code: code, Region: reg, Exchange: exch, Quote: q}, nil
	case ChannelTick:
		tk := w.tk
		tk.Symbol, tk.Time = code, t
		return TickEvent{Code: code, Region: reg, Exchange: exch, Tick: tk}, nil
	case ChannelDepth:
		return DepthEvent{Code: code, Region: reg, Exchange: exch, Depth: DepthBook{Symbol: code, Asks: w.a, Bids: w.b}}, nil
	default:
		iv := typ.klineInterval()
		if iv == 0 {
			return nil, fmt.Errorf("itick: stream push for %s: unknown type %q", code, w.typ)
		}
		kl := w.kl
		kl.Time = t
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: iv, Kline: kl}, nil
	}
}

// refPushTime reads a push's t with the rules of every other Unix-ms field.
func refPushTime(f num) (time.Time, error) {
	var m millis
	err := m.UnmarshalJSON(strconv.AppendFloat(make([]byte, 0, 24), float64(f), 'f', -1, 64))
	return time.Time(m), err
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

// frameDecoder decodes one connection's messages as the engine's reader
// does: with its own interning State and a push decoder.
type frameDecoder struct {
	st *codec.State
	pd *pushDecoder
}

func newFrameDecoder(match stream.Matcher) *frameDecoder {
	return &frameDecoder{st: codec.NewState(), pd: newPushDecoder(match, redact.New(""))}
}

func (f *frameDecoder) decode(frame []byte) stream.Frame[Event] {
	return stream.Decode[Event](f.st, f.pd, frame)
}

// decodePushJSON decodes one push's data on its own.
func decodePushJSON(data []byte, match stream.Matcher) (Event, error) {
	f := newFrameDecoder(match)
	f.st.D.Reset(data)
	err := f.pd.Data(f.st)
	if err == nil {
		err = f.st.D.End()
	}
	if err != nil {
		return nil, fmt.Errorf("itick: stream push: %w", err)
	}
	ev, isPush, err := f.pd.Event()
	if err == nil && !isPush {
		return nil, errors.New("itick: stream push names no product, type or candle")
	}
	return ev, err
}

func TestPushDecoderInternsBounded(t *testing.T) {
	t.Parallel()
	p := newFrameDecoder(nil)
	frame := func(code string) []byte {
		return []byte(`{"code":1,"data":{"s":"` + code + `","r":"US","type":"tick","ld":1,"t":1765526889000}}`)
	}
	code := func(b []byte) string {
		f := p.decode(b)
		if !f.Push || f.Err != nil {
			t.Fatalf("decode(%s) = %+v", b, f)
		}
		return f.Event.(TickEvent).Code
	}
	a, b := code(frame("AAPL")), code(frame("AAPL"))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("a repeated code is not reused")
	}
	for i := range 3 * codec.MaxInterned {
		if got, want := code(frame(fmt.Sprintf("C%d", i))), fmt.Sprintf("C%d", i); got != want {
			t.Fatalf("code %q, want %q", got, want)
		}
	}
	if n := p.st.Interned(); n > codec.MaxInterned {
		t.Errorf("%d strings kept, want at most %d", n, codec.MaxInterned)
	}
}

func TestPushDecoderAllocations(t *testing.T) {
	p := newFrameDecoder(nil)
	frames := replayFrames()
	for _, f := range frames { // interns the codes
		if err := p.decode(f).Err; err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(len(frames), func() {
		p.decode(frames[i%len(frames)])
		i++
	})
	// One for the event in its interface, one more for a depth book's
	// levels.
	if allocs > 1.5 {
		t.Errorf("%.2f allocations a push, want at most 1.5", allocs)
	}
}

func TestPushDecoderRoutesReplies(t *testing.T) {
	t.Parallel()
	p := newFrameDecoder(nil)
	for _, m := range []string{
		`{"code":1,"msg":"Connected Successfully"}`,
		`{"code":1,"resAc":"auth","msg":"authenticated","data":{"params":"x"}}`,
		`{"resAc":"pong","data":{"params":"1731888000000"}}`,
		`{"code":"E003","resAc":"subscribe","msg":"exceeding the maximum subscription limit"}`,
		`{"code":1,"RESAC":"subscribe","data":[]}`,
		`{"code":0,"msg":"auth failed","data":null}`,
		`{"code":1,"data":{"params":"x"}}`,
	} {
		if f := p.decode([]byte(m)); f.Push {
			t.Errorf("decode(%s) = %+v, want a reply", m, f)
		}
	}
	for _, m := range []string{`{"code":1,"data":[]}`, `{"data":{"s":"A","type":"quote","ld":"x"}}`, `[]`, `{"data":{}`} {
		if f := p.decode([]byte(m)); !f.Push || f.Err == nil {
			t.Errorf("decode(%s) = %+v, want a failed push", m, f)
		}
	}
}

// replaySymbols is how many products the replayed stream carries.
const replaySymbols = 300

// replayFrames builds the pushes a replay server writes, in the shapes the
// service sends: per ten frames, four depth books (ten levels a side, s
// with its $REGION suffix), three quotes, two ticks and one kline@1 candle,
// spread over replaySymbols products.
func replayFrames() [][]byte {
	const ms = 1731888000000
	frames := make([][]byte, 0, replaySymbols*10)
	for i := range replaySymbols * 10 {
		sym := fmt.Sprintf("S%03d", (i*7)%replaySymbols)
		p := 100 + float64(i%997)/8
		var f string
		switch i % 10 {
		case 0, 1, 2, 3:
			var a, b strings.Builder
			for l := 1; l <= 10; l++ {
				if l > 1 {
					a.WriteByte(',')
					b.WriteByte(',')
				}
				fmt.Fprintf(&a, `{"po":%d,"p":%g,"v":%g,"o":%d}`, l, p+float64(l)/100, 0.5+float64(l)*1.25, l+2)
				fmt.Fprintf(&b, `{"po":%d,"p":%g,"v":%g,"o":%d}`, l, p-float64(l)/100, 0.75+float64(l)*1.5, l+4)
			}
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s$US","type":"depth","a":[%s],"b":[%s]}}`, sym, a.String(), b.String())
		case 4, 5, 6:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"quote","ld":%g,"o":%g,"h":%g,"l":%g,"t":%d,"v":%d,"tu":%g}}`,
				sym, p, p-1.5, p+2.25, p-2.75, ms+i, 120000+i, p*float64(120000+i))
		case 7, 8:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"tick","ld":%g,"v":%d,"t":%d,"tu":%g,"ts":0}}`,
				sym, p, 100+i%50, ms+i, p*float64(100+i%50))
		case 9:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"kline@1","o":%g,"h":%g,"l":%g,"c":%g,"v":%d,"tu":%g,"t":%d}}`,
				sym, p-0.5, p+0.75, p-1, p, 2300+i, p*float64(2300+i), ms-60000+i)
		}
		frames = append(frames, []byte(f))
	}
	return frames
}

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
