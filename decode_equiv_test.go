package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The reference decoders: encoding/json through the wire structs only, as
// the SDK decoded before the fast path. The ref types never reach the
// models' UnmarshalJSON methods, which take the fast path themselves.

type refQuote Quote

func (r *refQuote) UnmarshalJSON(b []byte) error {
	q, err := quoteFromWire(b)
	if err != nil {
		return err
	}
	*r = refQuote(q)
	return nil
}

type refTick Tick

func (r *refTick) UnmarshalJSON(b []byte) error {
	t, err := tickFromWire(b)
	if err != nil {
		return err
	}
	*r = refTick(t)
	return nil
}

type refLevel DepthLevel

func (r *refLevel) UnmarshalJSON(b []byte) error {
	l, err := depthLevelFromWire(b)
	if err != nil {
		return err
	}
	*r = refLevel(l)
	return nil
}

type refBook DepthBook

func (r *refBook) UnmarshalJSON(b []byte) error {
	var w struct {
		S str        `json:"s"`
		A []refLevel `json:"a"`
		B []refLevel `json:"b"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = refBook{Symbol: string(w.S), Asks: convertSlice(w.A, toLevel), Bids: convertSlice(w.B, toLevel)}
	return nil
}

type refKline Kline

func (r *refKline) UnmarshalJSON(b []byte) error {
	k, err := klineFromWire(b)
	if err != nil {
		return err
	}
	*r = refKline(k)
	return nil
}

func toLevel(l refLevel) DepthLevel { return DepthLevel(l) }
func toKline(k refKline) Kline      { return Kline(k) }

// convertSlice keeps nil apart from empty, as cmp does.
func convertSlice[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func convertMap[A, B any](in map[string]A, f func(A) B) map[string]B {
	if in == nil {
		return nil
	}
	out := make(map[string]B, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// refDecodeData is decodeData as it was: encoding/json into the targets,
// through the oracle.
func refDecodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	for _, tg := range targets {
		if reflect.TypeOf(tg.new()) == reflect.TypeOf(out) {
			return tg.ref(raw, out)
		}
	}
	return json.Unmarshal(raw, out)
}

// refInto decodes raw as R with encoding/json and stores conv of it.
func refInto[T, R any](conv func(R) T) func([]byte, any) error {
	return func(raw []byte, out any) error {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		*out.(*T) = conv(r)
		return nil
	}
}

func refPtr[T any](dec func([]byte) (T, error)) func([]byte, any) error {
	return func(raw []byte, out any) error {
		v, err := dec(raw)
		if err != nil {
			return err
		}
		*out.(**T) = &v
		return nil
	}
}

type (
	symbolRef  struct{}
	holidayRef struct{}
	statusRef  struct{}
)

func (symbolRef) decode(b []byte) (Symbol, error)       { return symbolFromWire(b) }
func (holidayRef) decode(b []byte) (Holiday, error)     { return holidayFromWire(b) }
func (statusRef) decode(b []byte) (MarketStatus, error) { return marketStatusFromWire(b) }

func refStatusList(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		one, err := marketStatusFromWire(raw)
		if err == nil {
			*out.(*[]MarketStatus) = []MarketStatus{one}
		}
		return err
	}
	return refInto(func(r []refItem[MarketStatus, statusRef]) []MarketStatus { return items(r) })(raw, out)
}

func refKlineData(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err == nil && len(m) == 0 {
			*out.(*klineData) = klineData{emptyObject: true}
			return nil
		}
	}
	return refInto(func(r []refKline) klineData { return klineData{klines: convertSlice(r, toKline)} })(raw, out)
}

// refDecodeResponse is decodeResponse as it was.
func refDecodeResponse(status int, body []byte, out any) error {
	data, err := refParseEnvelope(status, body)
	if err != nil {
		return err
	}
	if err := refDecodeData(data, out); err != nil {
		return &APIError{StatusCode: status, Path: "/test", Message: "cannot decode data: " + err.Error()}
	}
	return nil
}

// bitsEqual compares floats by their bits: -0 is not 0, and the fast
// number path must give exactly strconv's result.
var bitsEqual = cmp.Options{cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }), cmp.AllowUnexported(klineData{})}

// target is one result type the decoder serves, and the oracle's decoder
// of it.
type target struct {
	name string
	new  func() any // a pointer to a zero result
	ref  func(raw []byte, out any) error
}

var targets = []target{
	{"quotes", func() any { return new(map[string]Quote) }, refInto(func(m map[string]refQuote) map[string]Quote {
		return convertMap(m, func(q refQuote) Quote { return Quote(q) })
	})},
	{"ticks", func() any { return new(map[string]Tick) }, refInto(func(m map[string]refTick) map[string]Tick {
		return convertMap(m, func(t refTick) Tick { return Tick(t) })
	})},
	{"depths", func() any { return new(map[string]DepthBook) }, refInto(func(m map[string]refBook) map[string]DepthBook {
		return convertMap(m, func(b refBook) DepthBook { return DepthBook(b) })
	})},
	{"klines", func() any { return new(map[string][]Kline) }, refInto(func(m map[string][]refKline) map[string][]Kline {
		return convertMap(m, func(ks []refKline) []Kline { return convertSlice(ks, toKline) })
	})},
	{"depth", func() any { return new(*DepthBook) }, refInto(func(b *refBook) *DepthBook { return (*DepthBook)(b) })},
	{"quote", func() any { return new(*Quote) }, refInto(func(q *refQuote) *Quote { return (*Quote)(q) })},
	{"tick", func() any { return new(*Tick) }, refInto(func(t *refTick) *Tick { return (*Tick)(t) })},
	{"stock info", func() any { return new(*StockInfo) }, refPtr(stockInfoFromWire)},
	{"article", func() any { return new(*NewsArticle) }, refPtr(articleFromWire)},
	{"kline list", func() any { return new(klineData) }, refKlineData},
	{"symbols", func() any { return new([]Symbol) }, refInto(func(r []refItem[Symbol, symbolRef]) []Symbol { return items(r) })},
	{"holidays", func() any { return new([]Holiday) }, refInto(func(r []refItem[Holiday, holidayRef]) []Holiday { return items(r) })},
	{"market status", func() any { return new([]MarketStatus) }, refStatusList},
	{"split page", func() any { return new(SplitPage) }, func(raw []byte, out any) (err error) {
		*out.(*SplitPage), err = splitPageFromWire(raw)
		return err
	}},
	{"IPO page", func() any { return new(IPOPage) }, func(raw []byte, out any) (err error) {
		*out.(*IPOPage), err = ipoPageFromWire(raw)
		return err
	}},
	{"news page", func() any { return new(NewsPage) }, func(raw []byte, out any) (err error) {
		*out.(*NewsPage), err = newsPageFromWire(raw)
		return err
	}},
}

// checkEquivalent decodes body with the fast and the reference paths, as a
// whole response and as bare data, into every target, and reports any
// difference in error-ness or value. ok counts the targets that decoded.
func checkEquivalent(t testing.TB, body []byte) (ok []string) {
	t.Helper()
	for _, tg := range targets {
		for _, status := range []int{200, 500} {
			fast, ref := tg.new(), tg.new()
			ferr := decodeResponse("/test", status, nil, body, noRedact, fast)
			rerr := refDecodeResponse(status, body, ref)
			checkBlocksAgree(t, tg, status, body, fast, ferr)
			if (ferr != nil) != (rerr != nil) {
				t.Fatalf("%s, HTTP %d: error %v, reference error %v\nbody: %q", tg.name, status, ferr, rerr, body)
			}
			if ferr == nil {
				if diff := cmp.Diff(ref, fast, bitsEqual); diff != "" {
					t.Fatalf("%s, HTTP %d: fast and reference differ (-ref +fast):\n%s\nbody: %q", tg.name, status, diff, body)
				}
				if status == 200 {
					ok = append(ok, tg.name)
				}
				continue
			}
			// An envelope the scanner read must fail the success rule with
			// the same code and message as the reference.
			var fe, re *APIError
			if errors.As(ferr, &fe) && errors.As(rerr, &re) && !strings.HasPrefix(re.Message, "cannot decode data") &&
				!strings.Contains(re.Message, "not a JSON envelope") {
				if diff := cmp.Diff(re, fe); diff != "" {
					t.Fatalf("%s, HTTP %d: errors differ (-ref +fast):\n%s\nbody: %q", tg.name, status, diff, body)
				}
			}
		}

		fast, ref := tg.new(), tg.new()
		ferr := decodeData(body, fast)
		rerr := refDecodeData(body, ref)
		if len(body) == 0 || bytes.Equal(body, []byte("null")) {
			continue // decodeData returns before either decoder runs
		}
		if (ferr != nil) != (rerr != nil) {
			t.Fatalf("%s data: fast error %v, reference error %v\ndata: %q", tg.name, ferr, rerr, body)
		}
		if ferr == nil {
			if diff := cmp.Diff(ref, fast, bitsEqual); diff != "" {
				t.Fatalf("%s data: fast and reference differ (-ref +fast):\n%s\ndata: %q", tg.name, diff, body)
			}
		}
	}
	checkModelsEquivalent(t, body)
	return ok
}

// checkBlocksAgree decodes body split into blocks, as the transport holds a
// body of unknown length, at boundaries the body itself chooses, and
// requires the result and the error, message included, that the body in
// one slice gave.
func checkBlocksAgree(t testing.TB, tg target, status int, body []byte, want any, wantErr error) {
	t.Helper()
	h := fnv.New64a()
	h.Write(body)
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(status)))
	var blocks [][]byte
	for rest := body; ; {
		n := min(len(rest), rng.IntN(8))
		if rng.IntN(4) == 0 {
			n = min(len(rest), rng.IntN(64))
		}
		blocks = append(blocks, rest[:n])
		if rest = rest[n:]; len(rest) == 0 {
			break
		}
	}
	got := tg.new()
	err := decodeBlocks("/test", status, nil, blocks, noRedact, got)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s, HTTP %d, %d blocks: error %v, in one slice %v\nbody: %q", tg.name, status, len(blocks), err, wantErr, body)
	}
	if diff := cmp.Diff(want, got, bitsEqual); err == nil && diff != "" {
		t.Fatalf("%s, HTTP %d, %d blocks: blocks and one slice differ (-slice +blocks):\n%s\nbody: %q", tg.name, status, len(blocks), diff, body)
	}
}

// modelCase is one model: its own UnmarshalJSON and MarshalJSON, and the
// oracle's decoder and encoder.
type modelCase struct {
	name   string
	dec    func([]byte) (any, error)
	ref    func([]byte) (any, error)
	enc    func(any) ([]byte, error)
	refEnc func(any) ([]byte, error)
}

func mcase[T any, P interface {
	*T
	json.Unmarshaler
}](name string, ref func([]byte) (T, error), toWire func(T) any) modelCase {
	return modelCase{name: name,
		dec:    func(b []byte) (any, error) { var v T; err := P(&v).UnmarshalJSON(b); return v, err },
		ref:    func(b []byte) (any, error) { return ref(b) },
		enc:    func(v any) ([]byte, error) { return json.Marshal(v) },
		refEnc: func(v any) ([]byte, error) { return json.Marshal(toWire(v.(T))) }}
}

func asRef[T, R any](conv func(R) T) func([]byte) (T, error) {
	return func(b []byte) (T, error) {
		var r R
		err := json.Unmarshal(b, &r)
		return conv(r), err
	}
}

var modelCases = []modelCase{
	mcase("Quote", asRef(func(r refQuote) Quote { return Quote(r) }), quoteToWire),
	mcase("Tick", asRef(func(r refTick) Tick { return Tick(r) }), tickToWire),
	mcase("DepthBook", asRef(func(r refBook) DepthBook { return DepthBook(r) }), bookToWire),
	mcase("DepthLevel", asRef(func(r refLevel) DepthLevel { return DepthLevel(r) }), levelToWire),
	mcase("Kline", asRef(func(r refKline) Kline { return Kline(r) }), klineToWire),
	mcase("SplitRecord", splitFromWire, splitToWire),
	mcase("SplitPage", splitPageFromWire, splitPageToWire),
	mcase("NewsItem", newsItemFromWire, newsItemToWire),
	mcase("NewsPage", newsPageFromWire, newsPageToWire),
	mcase("NewsArticle", articleFromWire, articleToWire),
	mcase("StockInfo", stockInfoFromWire, stockInfoToWire),
	mcase("IPO", ipoFromWire, ipoToWire),
	mcase("IPOPage", ipoPageFromWire, ipoPageToWire),
	mcase("Symbol", symbolFromWire, symbolToWire),
	mcase("Holiday", holidayFromWire, holidayToWire),
	mcase("MarketStatus", marketStatusFromWire, marketStatusToWire),
}

// checkModelsEquivalent holds each model's decoder (its UnmarshalJSON,
// called directly) to the oracle, and its MarshalJSON to json.Marshal of
// the wire struct, byte for byte.
func checkModelsEquivalent(t testing.TB, b []byte) {
	t.Helper()
	for _, mc := range modelCases {
		got, err := mc.dec(b)
		ref, rerr := mc.ref(b)
		if (err != nil) != (rerr != nil) {
			t.Fatalf("%s: error %v, reference error %v\ninput: %q", mc.name, err, rerr, b)
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(ref, got, bitsEqual); diff != "" {
			t.Fatalf("%s: decoder and reference differ (-ref +got):\n%s\ninput: %q", mc.name, diff, b)
		}
		enc, err := mc.enc(got)
		refEnc, rerr := mc.refEnc(got)
		if (err != nil) != (rerr != nil) || !bytes.Equal(enc, refEnc) {
			t.Fatalf("%s: MarshalJSON %q (%v), reference %q (%v)\ninput: %q", mc.name, enc, err, refEnc, rerr, b)
		}
	}
}

// fixtureBodies returns every *.json under testdata except fuzz corpora.
func fixtureBodies(t testing.TB) map[string][]byte {
	t.Helper()
	bodies := map[string][]byte{}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "fuzz" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			bodies[filepath.ToSlash(path)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bodies
}

func TestDecodeFixturesEquivalence(t *testing.T) {
	t.Parallel()
	bodies := fixtureBodies(t)
	wantOK := map[string]string{
		"testdata/bench/quotes_50.json":     "quotes",
		"testdata/bench/depths_50.json":     "depths",
		"testdata/bench/klines_10x500.json": "klines",
	}
	for name := range wantOK {
		if _, ok := bodies[name]; !ok {
			t.Errorf("fixture %s is missing", name)
		}
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ok := checkEquivalent(t, body)
			t.Logf("decodes as %v", ok)
			if want, isBench := wantOK[name]; isBench && !strings.Contains(strings.Join(ok, ","), want) {
				t.Errorf("%s does not decode as %s (decodes as %v)", name, want, ok)
			}
		})
	}
}

func FuzzDecodeEquivalence(f *testing.F) {
	for _, body := range fixtureBodies(f) {
		f.Add(shrinkFixture(f, body))
	}
	for _, tc := range toleranceCases {
		f.Add([]byte(tc.body))
	}
	for _, body := range repeatedKeyBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkEquivalent(t, body)
	})
}

// shrinkFixture cuts a large fixture down to its first few entries at every
// level, keeping its shape and number literals: the fuzzer mutates and
// minimises small inputs far faster.
func shrinkFixture(t testing.TB, body []byte) []byte {
	const small = 4 << 10
	if len(body) <= small {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body[:small]
	}
	var trim func(any) any
	trim = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(v))
			out := map[string]any{}
			for _, k := range keys[:min(len(keys), 3)] {
				out[k] = trim(v[k])
			}
			return out
		case []any:
			out := v[:min(len(v), 3)]
			for i := range out {
				out[i] = trim(out[i])
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(trim(v))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// repeatedKeyBodies repeat a key that holds an array, which encoding/json
// decodes over the slice the first occurrence filled: a level or item the
// second array leaves a field out of keeps the first one's value there.
var repeatedKeyBodies = []string{
	`{"code":0,"data":{"s":"700","a":[{"po":1,"p":1,"v":1,"o":1},{"po":2,"p":2,"v":2,"o":2}],"a":[{"po":3},{"x":0}]}}`,
	`{"code":0,"data":{"s":"700","a":[{"po":1,"p":1},{"po":2,"p":2},{"po":3,"p":3}],"a":[{"v":9}],"a":[{"o":1},null,{"o":3}]}}`,
	`{"code":0,"data":{"s":"700","b":[{"po":1,"p":1}],"b":[],"b":[{"v":2}]}}`,
	`{"code":0,"data":{"s":"700","b":[{"po":1,"p":1}],"b":null,"b":[{"v":2}]}}`,
	`{"code":0,"data":{"content":[{"c":"A","n":"a"},{"c":"B","n":"b"}],"content":[{"v":"1:2"},{"v":"3:4"},{"c":"C"}]}}`,
	`{"code":0,"data":{"data":[{"id":"1","te":"one"},{"id":"2"}],"data":[{"lg":"en"}],"pagination":{"count":2}}}`,
}

func TestRepeatedArrayKeysDecodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, body := range repeatedKeyBodies {
		if ok := checkEquivalent(t, []byte(body)); len(ok) == 0 {
			t.Errorf("%s decodes as no type", body)
		}
	}
}
