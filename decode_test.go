package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
)

// Tests of the fast decoding path, held to the oracle in oracle_test.go
// on every fixture and fuzzed body, its tolerances, round trips through
// encoding/json, and the generator of the benchmark bodies.

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "bench", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestModelsRoundTrip marshals every decoded model of the fixtures and
// decodes it back, through json.Unmarshal and the fast path alike.
func TestModelsRoundTrip(t *testing.T) {
	t.Parallel()
	var quotes map[string]Quote
	var books map[string]DepthBook
	var klines map[string][]Kline
	for name, out := range map[string]any{"quotes_50.json": &quotes, "depths_50.json": &books, "klines_10x500.json": &klines} {
		if err := decodeResponse("/test", 200, nil, readFixture(t, name), noRedact, out); err != nil {
			t.Fatal(err)
		}
	}
	roundTrip := func(name string, v any, back any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: marshal: %v", name, err)
		}
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatalf("%s: unmarshal %s: %v", name, b, err)
		}
	}
	var q2 map[string]Quote
	roundTrip("quotes", quotes, &q2)
	if diff := cmp.Diff(quotes, q2, bitsEqual); diff != "" {
		t.Errorf("quotes round trip (-before +after):\n%s", diff)
	}
	var b2 map[string]DepthBook
	roundTrip("depths", books, &b2)
	if diff := cmp.Diff(books, b2, bitsEqual); diff != "" {
		t.Errorf("depths round trip (-before +after):\n%s", diff)
	}
	var k2 map[string][]Kline
	roundTrip("klines", klines, &k2)
	if diff := cmp.Diff(klines, k2, bitsEqual); diff != "" {
		t.Errorf("klines round trip (-before +after):\n%s", diff)
	}
	// A marshalled model is a valid body for the fast path too.
	b, err := json.Marshal(map[string]any{"code": 0, "data": quotes})
	if err != nil {
		t.Fatal(err)
	}
	var q3 map[string]Quote
	if err := decodeResponse("/test", 200, nil, b, noRedact, &q3); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(quotes, q3, bitsEqual); diff != "" {
		t.Errorf("quotes through the fast path (-before +after):\n%s", diff)
	}
}

func TestDecodeDataNilTarget(t *testing.T) {
	t.Parallel()
	var nilMap *map[string]Quote
	err := decodeData([]byte(`{"a":{}}`), nilMap)
	var invalid *json.InvalidUnmarshalError
	if !errors.As(err, &invalid) {
		t.Errorf("got %v, want encoding/json's InvalidUnmarshalError", err)
	}
}

// decodeResponse is decodeBlocks over a body in one slice.
func decodeResponse(path string, status int, header http.Header, body []byte, red *redact.Redactor, out any) error {
	return decodeBlocks(path, status, header, [][]byte{body}, red, out)
}

// decodeBlocks decodes a response held in blocks into out, which points to
// one of the result types the SDK reads, with that type's reader, through
// the library's decode.
func decodeBlocks(path string, status int, header http.Header, blocks [][]byte, red *redact.Redactor, out any) error {
	return withReader(out, func(read any) error {
		return read.(func(decodeInput) error)(decodeInput{path: path, status: status, header: header, blocks: blocks, red: red})
	})
}

// decodeData decodes a response's data alone into out; null or nothing
// leaves out as it is.
func decodeData(raw []byte, out any) error {
	return withReader(out, func(read any) error {
		return read.(func(decodeInput) error)(decodeInput{blocks: [][]byte{raw}, bare: true})
	})
}

// decodeInput is one answer to decode, and where it came from; bare is data
// with no envelope around it.
type decodeInput struct {
	path   string
	status int
	header http.Header
	blocks [][]byte
	red    *redact.Redactor
	bare   bool
}

// withReader calls run with the decoder of out's type.
func withReader(out any, run func(read any) error) error {
	var read func(decodeInput) error
	switch p := out.(type) {
	case *map[string]Quote:
		read = into(p, quotesReader.Read)
	case *map[string]Tick:
		read = into(p, ticksReader.Read)
	case *map[string]DepthBook:
		read = into(p, booksReader.Read)
	case *map[string][]Kline:
		read = into(p, seriesReader.Read)
	case **Quote:
		read = into(p, quoteModel.Ptr)
	case **Tick:
		read = into(p, tickModel.Ptr)
	case **DepthBook:
		read = into(p, bookModel.Ptr)
	case **StockInfo:
		read = into(p, stockInfoModel.Ptr)
	case **NewsArticle:
		read = into(p, articleModel.Ptr)
	case *klineData:
		read = into(p, readKlineData)
	case *[]Symbol:
		read = into(p, symbolModel.List)
	case *[]Holiday:
		read = into(p, holidayModel.List)
	case *[]MarketStatus:
		read = into(p, readStatusList)
	case *SplitPage:
		read = into(p, valueOf(splitPageModel.Ptr))
	case *IPOPage:
		read = into(p, valueOf(ipoPageModel.Ptr))
	case *NewsPage:
		read = into(p, valueOf(newsPageModel.Ptr))
	default:
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
	}
	return run(read)
}

// valueOf reads a value where read gives a pointer to one.
func valueOf[T any](read codec.Reader[*T]) codec.Reader[T] {
	return func(st *codec.State) (T, error) {
		var zero T
		p, err := read(st)
		if p == nil || err != nil {
			return zero, err
		}
		return *p, nil
	}
}

// into returns the decoder that stores what read gives in out.
func into[T any](out *T, read codec.Reader[T]) func(decodeInput) error {
	return func(in decodeInput) error {
		if out == nil {
			return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
		}
		if in.bare {
			return decodeBare(in.blocks[0], out, read)
		}
		v, err := decode(in.path, in.status, in.header, in.blocks, in.red, read)
		if err == nil {
			*out = v
		}
		return err
	}
}

// decodeBare decodes data with no envelope around it.
func decodeBare[T any](data []byte, out *T, read codec.Reader[T]) error {
	st := codec.Get(data)
	defer codec.Put(st)
	if len(data) == 0 {
		return nil
	}
	if st.D.Null() {
		return st.D.End()
	}
	v, err := read(st)
	if err == nil {
		err = st.D.End()
	}
	if err != nil {
		return err
	}
	*out = v
	return nil
}

// noRedact removes nothing but still bounds, as a client with no token.
var noRedact *redact.Redactor

// target is one result type the decoder serves, and the oracle's decoder
// of it.
type target struct {
	name string
	new  func() any // a pointer to a zero result
	ref  func(raw []byte, out any) error
}

var targets = []target{
	{"quotes", func() any { return new(map[string]Quote) }, refInto(func(m map[string]refOf[Quote]) map[string]Quote {
		return convertMap(m, unref)
	})},
	{"ticks", func() any { return new(map[string]Tick) }, refInto(func(m map[string]refOf[Tick]) map[string]Tick {
		return convertMap(m, unref)
	})},
	{"depths", func() any { return new(map[string]DepthBook) }, refInto(func(m map[string]refOf[DepthBook]) map[string]DepthBook {
		return convertMap(m, unref)
	})},
	{"klines", func() any { return new(map[string][]Kline) }, refInto(func(m map[string][]refOf[Kline]) map[string][]Kline {
		return convertMap(m, func(ks []refOf[Kline]) []Kline { return convertSlice(ks, unref) })
	})},
	{"depth", func() any { return new(*DepthBook) }, refPtr[DepthBook]()},
	{"quote", func() any { return new(*Quote) }, refPtr[Quote]()},
	{"tick", func() any { return new(*Tick) }, refPtr[Tick]()},
	{"stock info", func() any { return new(*StockInfo) }, refPtr[StockInfo]()},
	{"article", func() any { return new(*NewsArticle) }, refPtr[NewsArticle]()},
	{"kline list", func() any { return new(klineData) }, refKlineData},
	{"symbols", func() any { return new([]Symbol) }, refInto(func(r []refOf[Symbol]) []Symbol { return convertSlice(r, unref) })},
	{"holidays", func() any { return new([]Holiday) }, refInto(func(r []refOf[Holiday]) []Holiday { return convertSlice(r, unref) })},
	{"market status", func() any { return new([]MarketStatus) }, refStatusList},
	{"split page", func() any { return new(SplitPage) }, refValue[SplitPage]},
	{"IPO page", func() any { return new(IPOPage) }, refValue[IPOPage]},
	{"news page", func() any { return new(NewsPage) }, refValue[NewsPage]},
}

// refValue decodes raw as a T through the oracle into out.
func refValue[T any](raw []byte, out any) (err error) {
	*out.(*T), err = refDecode[T](raw)
	return err
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
	typ    reflect.Type
	dec    func([]byte) (any, error)
	ref    func([]byte) (any, error)
	enc    func(any) ([]byte, error)
	refEnc func(any) ([]byte, error)
}

// modelCases are every model Describe has described that has its own
// UnmarshalJSON and MarshalJSON: the models of the public API.
var modelCases = sync.OnceValue(func() []modelCase {
	var out []modelCase
	for _, t := range codec.Described() {
		if !reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) ||
			!t.Implements(reflect.TypeFor[json.Marshaler]()) {
			continue
		}
		out = append(out, modelCase{name: t.Name(), typ: t,
			dec: func(b []byte) (any, error) {
				v := reflect.New(t)
				err := v.Interface().(json.Unmarshaler).UnmarshalJSON(b)
				return v.Elem().Interface(), err
			},
			ref: func(b []byte) (any, error) {
				v, err := refDecodeValue(t, b)
				return v.Interface(), err
			},
			enc:    func(v any) ([]byte, error) { return json.Marshal(v) },
			refEnc: func(v any) ([]byte, error) { return refEncodeValue(reflect.ValueOf(v)) }})
	}
	return out
})

// checkModelsEquivalent holds each model's decoder (its UnmarshalJSON,
// called directly) to the oracle, and its MarshalJSON to json.Marshal of
// the wire struct, byte for byte.
func checkModelsEquivalent(t testing.TB, b []byte) {
	t.Helper()
	for _, mc := range modelCases() {
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

var update = flag.Bool("update", false, "rewrite the generated fixtures under testdata/bench")

// TestGenerateBenchFixtures writes the benchmark bodies under testdata/bench
// when run with -update. They are whole envelopes shaped like the service's
// answers: whole prices as JSON integers, fractional volumes, short keys.
func TestGenerateBenchFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/bench")
	}
	dir := filepath.Join("testdata", "bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"quotes_50.json":     genQuotes(50),
		"depths_50.json":     genDepths(50, 10),
		"klines_10x500.json": genKlines(10, 500),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchCodes are stock-like codes: numeric Hong Kong codes and tickers.
func benchCodes(n int) []string {
	tickers := []string{"AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOGL", "META", "BRK.B", "JPM", "V"}
	codes := make([]string, 0, n)
	for i := 0; len(codes) < n; i++ {
		if i%3 == 2 && i/3 < len(tickers) {
			codes = append(codes, tickers[i/3])
			continue
		}
		codes = append(codes, strconv.Itoa(700+i*37))
	}
	return codes
}

// price rounds to a tick of 0.01, 0.05 or 0.5 so that many prices are whole
// numbers and travel as JSON integers.
func price(r *rand.Rand, base float64) float64 {
	ticks := []float64{0.01, 0.05, 0.5, 1}
	tick := ticks[r.IntN(len(ticks))]
	return math.Round(base/tick) * tick
}

func appendRounded(b []byte, f float64, prec int) []byte {
	f = math.Round(f*math.Pow10(prec)) / math.Pow10(prec)
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

func appendField(b []byte, key string, f float64, prec int) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendRounded(b, f, prec)
}

func envelopeStart() []byte { return []byte(`{"code":0,"msg":null,"data":{`) }

func genQuotes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		last := price(r, 5+r.Float64()*600)
		prev := price(r, last*(0.95+r.Float64()*0.1))
		b = strconv.AppendQuote(b, code)
		b = append(b, `:{"s":`...)
		b = strconv.AppendQuote(b, code)
		b = appendField(b, "ld", last, 3)
		b = appendField(b, "o", price(r, prev*(0.99+r.Float64()*0.02)), 3)
		b = appendField(b, "p", prev, 3)
		b = appendField(b, "h", price(r, math.Max(last, prev)*1.01), 3)
		b = appendField(b, "l", price(r, math.Min(last, prev)*0.99), 3)
		b = appendField(b, "t", float64(1765526889000+int64(i)*1371), 0)
		vol := float64(r.IntN(30_000_000))
		if i%4 == 3 {
			vol += float64(r.IntN(1000)) / 1000
		}
		b = appendField(b, "v", vol, 3)
		b = appendField(b, "tu", vol*last, 2)
		b = appendField(b, "ts", 0, 0)
		b = appendField(b, "ch", last-prev, 3)
		b = appendField(b, "chp", (last-prev)/prev*100, 2)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func genDepths(n, levels int) []byte {
	r := rand.New(rand.NewPCG(2, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		mid := price(r, 5+r.Float64()*600)
		step := 0.05
		if mid > 100 {
			step = 0.5
		}
		b = strconv.AppendQuote(b, code)
		b = append(b, `:{"s":`...)
		b = strconv.AppendQuote(b, code)
		for side, key := range []string{"a", "b"} {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":[`...)
			for lv := 1; lv <= levels; lv++ {
				if lv > 1 {
					b = append(b, ',')
				}
				p := mid + float64(lv)*step
				if side == 1 {
					p = mid - float64(lv-1)*step
				}
				vol := float64(100 * (1 + r.IntN(500)))
				orders := float64(1 + r.IntN(40))
				if i%5 == 4 { // crypto-like: fractional volumes and order counts
					vol = float64(r.IntN(200000)) / 10000
					orders = vol
				}
				b = append(b, `{"po":`...)
				b = strconv.AppendInt(b, int64(lv), 10)
				b = appendField(b, "p", p, 3)
				b = appendField(b, "v", vol, 4)
				b = appendField(b, "o", orders, 4)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func genKlines(n, bars int) []byte {
	r := rand.New(rand.NewPCG(3, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, code)
		b = append(b, `:[`...)
		c := price(r, 5+r.Float64()*600)
		t0 := int64(1765526880000) - int64(bars)*60000
		for k := 0; k < bars; k++ {
			if k > 0 {
				b = append(b, ',')
			}
			o := c
			c = price(r, o*(0.995+r.Float64()*0.01))
			h := price(r, math.Max(o, c)*(1+r.Float64()*0.002))
			l := price(r, math.Min(o, c)*(1-r.Float64()*0.002))
			vol := float64(r.IntN(500000)) + float64(r.IntN(100))/100
			b = append(b, `{"t":`...)
			b = strconv.AppendInt(b, t0+int64(k)*60000, 10)
			b = appendField(b, "o", o, 3)
			b = appendField(b, "h", h, 3)
			b = appendField(b, "l", l, 3)
			b = appendField(b, "c", c, 3)
			b = appendField(b, "v", vol, 2)
			b = appendField(b, "tu", vol*(o+c)/2, 2)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
}

func unixMs(n int64) time.Time { return time.UnixMilli(n).UTC() }

// toleranceCase is one body through decodeResponse into out, with what it
// must give: want, or an error (wantErr, matching is when set).
type toleranceCase struct {
	name    string
	status  int
	body    string
	out     func() any
	want    any
	wantErr bool
	is      error
}

func quotes() any { return new(map[string]Quote) }

func books() any { return new(map[string]DepthBook) }

func series() any { return new(map[string][]Kline) }

func book() any { return new(*DepthBook) }

func env(data string) string { return `{"code":0,"msg":null,"data":` + data + `}` }

var toleranceCases = []toleranceCase{
	// Tolerances.
	{name: "numbers as strings", body: env(`{"700":{"s":"700","ld":"616.5","o":" 608 ","t":"1765526889000","ts":"1","v":"1e3"}}`),
		out: quotes, want: &map[string]Quote{"700": {Symbol: "700", Last: 616.5, Open: 608, Time: unixMs(1765526889000), Status: 1, Volume: 1000}}},
	{name: "integers where floats are declared", body: env(`{"700":{"s":"700","ld":616,"ch":-8,"chp":0}}`),
		out: quotes, want: &map[string]Quote{"700": {Symbol: "700", Last: 616, Change: -8}}},
	{name: "integral float where an integer is declared", body: env(`{"700":{"ts":2.0}}`),
		out: quotes, want: &map[string]Quote{"700": {Status: 2}}},
	{name: "bare number as a string", body: env(`{"700":{"s":700}}`),
		out: quotes, want: &map[string]Quote{"700": {Symbol: "700"}}},
	{name: "bare number as a string keeps its text", body: env(`{"x":{"s":-1.50e2}}`),
		out: quotes, want: &map[string]Quote{"x": {Symbol: "-1.50e2"}}},
	{name: "null for every field", body: env(`{"700":{"s":null,"ld":null,"t":null,"ts":null,"v":null}}`),
		out: quotes, want: &map[string]Quote{"700": {}}},
	{name: "null quote", body: env(`{"700":null}`), out: quotes, want: &map[string]Quote{"700": {}}},
	{name: "empty string as zero", body: env(`{"700":{"ld":"","t":"","ts":""}}`),
		out: quotes, want: &map[string]Quote{"700": {}}},
	{name: "null data leaves the map nil", body: env(`null`), out: quotes, want: new(map[string]Quote)},
	{name: "no data leaves the map nil", body: `{"code":0}`, out: quotes, want: new(map[string]Quote)},
	{name: "empty data", body: env(`{}`), out: quotes, want: &map[string]Quote{}},
	{name: "unknown fields, nested", body: env(`{"700":{"x":{"a":[1,{"b":null}],"c":"\u00e9"},"ld":1,"y":[[],{}],"z":true}}`),
		out: quotes, want: &map[string]Quote{"700": {Last: 1}}},
	{name: "unknown envelope fields", body: `{"extra":[1,2,{"x":null}],"code":0,"data":{"a":{"ld":2}},"trace":"t"}`,
		out: quotes, want: &map[string]Quote{"a": {Last: 2}}},
	{name: "keys match case-insensitively", body: `{"CODE":0,"Data":{"a":{"LD":3,"S":"A","Chp":1.5}}}`,
		out: quotes, want: &map[string]Quote{"a": {Symbol: "A", Last: 3, ChangePercent: 1.5}}},
	{name: "long s matches s, as in encoding/json", body: env(`{"a":{"\u017f":"B","ſ":"C"}}`),
		out: quotes, want: &map[string]Quote{"a": {Symbol: "C"}}},
	{name: "escaped keys and values", body: env(`{"\u0037\u0030\u0030":{"\u0073":"7\u00300","l\u0064":4}}`),
		out: quotes, want: &map[string]Quote{"700": {Symbol: "700", Last: 4}}},
	{name: "later duplicate wins", body: env(`{"a":{"ld":1,"ld":2},"a":{"ld":3,"o":1,"o":null}}`),
		out: quotes, want: &map[string]Quote{"a": {Last: 3}}},
	{name: "whitespace everywhere", body: " \n{ \"code\" : 0 ,\r\n\t\"data\" : { \"a\" : { \"ld\" : 1.25 } } }\n ",
		out: quotes, want: &map[string]Quote{"a": {Last: 1.25}}},
	{name: "fractional timestamp drops the fraction", body: env(`{"a":{"t":1765526889000.9}}`),
		out: quotes, want: &map[string]Quote{"a": {Time: unixMs(1765526889000)}}},
	{name: "negative zero stays negative", body: env(`{"a":{"ch":-0.0}}`),
		out: quotes, want: &map[string]Quote{"a": {Change: math.Copysign(0, -1)}}},
	{name: "float noise kept exactly", body: env(`{"a":{"ld":1.3431899999999999,"tu":2.1e13,"v":0.1}}`),
		out: quotes, want: &map[string]Quote{"a": {Last: 1.3431899999999999, Turnover: 2.1e13, Volume: 0.1}}},
	{name: "depth level without p, fractional orders", body: env(`{"BTCUSDT":{"s":"BTCUSDT","a":[{"po":1,"v":0,"o":0}],"b":[{"po":1,"p":"97000.5","v":0.25,"o":0.25}]}}`),
		out: books, want: &map[string]DepthBook{"BTCUSDT": {Symbol: "BTCUSDT", Asks: []DepthLevel{{Level: 1}},
			Bids: []DepthLevel{{Level: 1, Price: 97000.5, Volume: 0.25, Orders: 0.25}}}}},
	{name: "empty, null and absent sides", body: env(`{"a":{"a":[],"b":null},"b":{"a":[null]}}`),
		out: books, want: &map[string]DepthBook{"a": {Asks: []DepthLevel{}}, "b": {Asks: []DepthLevel{{}}}}},
	{name: "single depth", body: env(`{"s":"700","a":[{"po":1,"p":616,"v":100,"o":3}],"b":[]}`),
		out: book, want: ptr(&DepthBook{Symbol: "700", Asks: []DepthLevel{{Level: 1, Price: 616, Volume: 100, Orders: 3}}, Bids: []DepthLevel{}})},
	{name: "single depth null", body: env(`null`), out: book, want: new(*DepthBook)},
	{name: "klines, null bar and empty series", body: env(`{"a":[{"t":60000,"o":1,"h":"2","l":0.5,"c":1.5,"v":10.25,"tu":12},null],"b":[],"c":null}`),
		out: series, want: &map[string][]Kline{"a": {{Time: unixMs(60000), Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 10.25, Turnover: 12}, {}},
			"b": {}, "c": nil}},
	{name: "later data key wins over one of another shape", body: `{"code":0,"data":[1],"data":{"a":{"ld":1}}}`,
		out: quotes, want: &map[string]Quote{"a": {Last: 1}}},
	{name: "later null data key wins", body: `{"code":0,"data":{"a":{}},"data":null}`, out: quotes, want: new(map[string]Quote)},
	{name: "code 200 and a string code", body: `{"code":"200","msg":"ok","data":{}}`, out: quotes, want: &map[string]Quote{}},
	{name: "numeric msg", body: `{"code":0,"msg":1,"data":{}}`, out: quotes, want: &map[string]Quote{}},
	{name: "code 0 as a spaced string", body: `{"code":" 0 ","msg":null,"data":{}}`, out: quotes, want: &map[string]Quote{}},
	{name: "code 200 as a string", body: `{"code":"200","msg":"ok","data":{}}`, out: quotes, want: &map[string]Quote{}},
	{name: "message ok", body: `{"code":0,"message":"ok","data":{}}`, out: quotes, want: &map[string]Quote{}},
	{name: "news pt as a number or a string", body: env(`{"data":[{"id":"1","pt":1765526889},{"id":"2","pt":"1765526890"}],"pagination":{"hasMore":"true","count":2}}`),
		out: func() any { return new(NewsPage) },
		want: &NewsPage{Items: []NewsItem{{ID: "1", Published: time.Unix(1765526889, 0).UTC()}, {ID: "2", Published: time.Unix(1765526890, 0).UTC()}},
			HasMore: true, Count: 2}},

	// Rejections.
	{name: "NaN", body: env(`{"a":{"ld":"NaN"}}`), out: quotes, wantErr: true},
	{name: "Inf", body: env(`{"a":{"ld":"Infinity"}}`), out: quotes, wantErr: true},
	{name: "overflow", body: env(`{"a":{"ld":1e400}}`), out: quotes, wantErr: true},
	{name: "quoted overflow", body: env(`{"a":{"ld":"-1e400"}}`), out: quotes, wantErr: true},
	{name: "hex", body: env(`{"a":{"ld":"0x10"}}`), out: quotes, wantErr: true},
	{name: "underscores", body: env(`{"a":{"ld":"1_000"}}`), out: quotes, wantErr: true},
	{name: "escaped digits", body: env(`{"a":{"ld":"\u0031"}}`), out: quotes, wantErr: true},
	{name: "boolean for a number", body: env(`{"a":{"ld":true}}`), out: quotes, wantErr: true},
	{name: "object for a number", body: env(`{"a":{"v":{}}}`), out: quotes, wantErr: true},
	{name: "array for a string", body: env(`{"a":{"s":[]}}`), out: quotes, wantErr: true},
	{name: "boolean for a string", body: env(`{"a":{"s":false}}`), out: quotes, wantErr: true},
	{name: "infinite bare number for a string", body: env(`{"a":{"s":1e999}}`), out: quotes, wantErr: true},
	{name: "fractional integer", body: env(`{"a":{"ts":1.5}}`), out: quotes, wantErr: true},
	{name: "integer beyond 2^53", body: env(`{"a":{"ts":9007199254740994}}`), out: quotes, wantErr: true},
	{name: "timestamp after year 9999", body: env(`{"a":{"t":253402300800000}}`), out: quotes, wantErr: true},
	{name: "timestamp before year -9999", body: env(`{"a":[{"t":"-253402300800000"}]}`), out: series, wantErr: true},
	{name: "string quote", body: env(`{"a":"x"}`), out: quotes, wantErr: true},
	{name: "array data for a map", body: env(`[]`), out: quotes, wantErr: true},
	{name: "object for levels", body: env(`{"a":{"a":{}}}`), out: books, wantErr: true},
	{name: "number for a level", body: env(`{"a":{"b":[1]}}`), out: books, wantErr: true},
	{name: "object for a series", body: env(`{"a":{}}`), out: series, wantErr: true},
	{name: "fractional level", body: env(`{"a":{"a":[{"po":1.5}]}}`), out: books, wantErr: true},
	{name: "trailing comma", body: env(`{"a":{"ld":1,}}`), out: quotes, wantErr: true},
	{name: "truncated", body: `{"code":0,"data":{"a":{"ld":1}`, out: quotes, wantErr: true},
	{name: "trailing data", body: env(`{}`) + ` x`, out: quotes, wantErr: true},
	{name: "two documents", body: env(`{}`) + env(`{}`), out: quotes, wantErr: true},
	{name: "control character in a string", body: env(`{"a":{"s":"a` + "\x01" + `"}}`), out: quotes, wantErr: true},
	{name: "bad escape", body: env(`{"a":{"s":"\x"}}`), out: quotes, wantErr: true},
	{name: "leading zero", body: env(`{"a":{"ld":01}}`), out: quotes, wantErr: true},
	{name: "bare point", body: env(`{"a":{"ld":1.}}`), out: quotes, wantErr: true},
	{name: "bad literal in an unknown field", body: env(`{"a":{"x":nul}}`), out: quotes, wantErr: true},
	{name: "nesting beyond 10000", body: env(`{"a":{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}}`), out: quotes, wantErr: true},
	{name: "no code", body: `{"msg":null,"data":{}}`, out: quotes, wantErr: true},
	{name: "null code", body: `{"code":null,"data":{}}`, out: quotes, wantErr: true},
	{name: "non-zero code", body: `{"code":5,"msg":"failed","data":{}}`, out: quotes, wantErr: true},
	{name: "fractional code", body: `{"code":0.5,"data":{}}`, out: quotes, wantErr: true},
	{name: "code as an E-number", body: `{"code":"E002","msg":"auth failed","data":null}`, out: quotes, wantErr: true, is: ErrUnauthorized},
	{name: "code as an escaped E-number", body: `{"code":"\u0045001","msg":null,"data":{}}`, out: quotes, wantErr: true, is: ErrNotFound},
	{name: "code as other text", body: `{"code":"FAIL","data":{}}`, out: quotes, wantErr: true},
	{name: "code as a long text", body: `{"code":"` + strings.Repeat("Z", 100) + `","data":{}}`, out: quotes, wantErr: true},
	{name: "code as a fractional string", body: `{"code":"0.5","data":{}}`, out: quotes, wantErr: true},
	{name: "code as an overflowing string", body: `{"code":"-1e400","data":{}}`, out: quotes, wantErr: true},
	{name: "error text under code 0", body: `{"code":0,"msg":"auth failed","data":{}}`, out: quotes, wantErr: true, is: ErrUnauthorized},
	{name: "gateway message", status: 401, body: `{"message":"Invalid API key in request"}`, out: quotes, wantErr: true, is: ErrUnauthorized},
	{name: "null body", body: `null`, out: quotes, wantErr: true},
	{name: "empty body", body: ``, out: quotes, wantErr: true},
	{name: "array body", body: `[]`, out: quotes, wantErr: true},
	{name: "HTTP 500 with a success envelope", status: 500, body: env(`{}`), out: quotes, wantErr: true},
}

func ptr[T any](v T) *T { return &v }

const notEnvelope = "response is not a JSON envelope ("

var byteOffset = regexp.MustCompile(`at byte [0-9]+( in [^)]*)?`)

func TestDecodeTolerances(t *testing.T) {
	t.Parallel()
	for _, tc := range toleranceCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status := tc.status
			if status == 0 {
				status = 200
			}
			got := tc.out()
			err := decodeResponse("/test", status, nil, []byte(tc.body), noRedact, got)
			ref := tc.out()
			refErr := refDecodeResponse(status, []byte(tc.body), ref)
			if tc.wantErr {
				var apiErr *APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("got %v (%T), want an *APIError", err, err)
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("error %v does not match %v", err, tc.is)
				}
				if refErr == nil {
					t.Errorf("the reference decodes this: %v", ref)
				}
				// Data errors name the reference's own types; the rest match exactly.
				const dataErr = "cannot decode data: "
				if strings.Contains(refErr.Error(), dataErr) {
					if !strings.Contains(err.Error(), dataErr) {
						t.Errorf("error %q, want a data error like the reference's %q", err, refErr)
					}
				} else if strings.Contains(refErr.Error(), notEnvelope) {
					// The scanner words a broken body its own way; where
					// it broke must be the same.
					if at := byteOffset.FindString(refErr.Error()); !strings.Contains(err.Error(), notEnvelope) || !strings.Contains(err.Error(), at) {
						t.Errorf("error %q, want one like the reference's %q", err, refErr)
					}
				} else if diff := cmp.Diff(refErr, err, cmp.Comparer(func(a, b error) bool { return a.Error() == b.Error() })); diff != "" {
					t.Errorf("error differs from the reference's (-ref +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, bitsEqual); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if refErr != nil {
				t.Fatalf("reference error: %v", refErr)
			}
			if diff := cmp.Diff(ref, got, bitsEqual); diff != "" {
				t.Errorf("differs from the reference (-ref +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeToleranceCasesAreEquivalent holds every case of the table to
// the encoding/json oracle, in one slice and in blocks.
func TestDecodeToleranceCasesAreEquivalent(t *testing.T) {
	t.Parallel()
	for _, tc := range toleranceCases {
		checkEquivalent(t, []byte(tc.body))
	}
}

// TestEveryFieldRoundTrips sets every field of every model to a value of
// its own, then requires json.Marshal and json.Unmarshal to bring all of
// them back. A field whose tag the table lost comes back zero and fails
// here: the tag is the one place that gives a field its wire name, its
// decoder and its encoder. Every model Describe has described is tried,
// the sixteen of the API among them.
func TestEveryFieldRoundTrips(t *testing.T) {
	t.Parallel()
	var models []any
	for _, mc := range modelCases() {
		models = append(models, reflect.New(mc.typ).Interface())
	}
	for _, want := range []any{
		new(Quote), new(Tick), new(DepthBook), new(DepthLevel), new(Kline), new(SplitRecord), new(SplitPage),
		new(NewsItem), new(NewsPage), new(NewsArticle), new(StockInfo), new(IPO), new(IPOPage), new(Symbol),
		new(Holiday), new(MarketStatus),
	} {
		if !slices.ContainsFunc(models, func(m any) bool { return reflect.TypeOf(m) == reflect.TypeOf(want) }) {
			t.Errorf("%T is not among the described models", want)
		}
	}
	for _, v := range models {
		n := 0
		fill(reflect.ValueOf(v).Elem(), &n)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		back := reflect.New(reflect.TypeOf(v).Elem())
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Fatalf("%T: %v\n%s", v, err, b)
		}
		if diff := cmp.Diff(v, back.Interface()); diff != "" {
			t.Errorf("%T does not round-trip every field (-set +decoded):\n%s\nwire: %s", v, diff, b)
		}
	}
}

// fill gives every field of v a value no other field has; n counts them.
func fill(v reflect.Value, n *int) {
	*n++
	i := *n
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			// Whole days: the holiday dates are dates, and every time is
			// then whole seconds and milliseconds too.
			v.Set(reflect.ValueOf(time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)))
			return
		}
		for f := range v.NumField() {
			fill(v.Field(f), n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), n)
		fill(s.Index(1), n)
		v.Set(s)
	case reflect.String:
		v.SetString("v" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	case reflect.Float64:
		v.SetFloat(float64(i) + 0.25)
	case reflect.Int:
		v.SetInt(int64(2000 + i))
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}
