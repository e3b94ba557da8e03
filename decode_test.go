package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
)

// Tests of the fast decoding path, held to the oracle in oracle_test.go
// on every fixture and fuzzed body, and round trips through encoding/json.
// Its tolerances are in decode_tolerance_test.go.

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
