package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
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

// refDecodeData is decodeData as it was: encoding/json into the targets.
func refDecodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	switch p := out.(type) {
	case *map[string]Quote:
		var m map[string]refQuote
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		*p = convertMap(m, func(q refQuote) Quote { return Quote(q) })
	case *map[string]DepthBook:
		var m map[string]refBook
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		*p = convertMap(m, func(b refBook) DepthBook { return DepthBook(b) })
	case *map[string][]Kline:
		var m map[string][]refKline
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		*p = convertMap(m, func(ks []refKline) []Kline { return convertSlice(ks, toKline) })
	case **DepthBook:
		var b *refBook
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		*p = (*DepthBook)(b)
	default:
		return json.Unmarshal(raw, out)
	}
	return nil
}

// refDecodeResponse is decodeResponse as it was.
func refDecodeResponse(status int, body []byte, out any) error {
	data, err := parseEnvelope("/test", status, nil, body, noRedact)
	if err != nil {
		return err
	}
	if err := refDecodeData(data, out); err != nil {
		return &APIError{StatusCode: status, Path: "/test", Message: "cannot decode data: " + err.Error()}
	}
	return nil
}

// fastOnlyResponse is the fast path with no fallback: a refusal is an error.
func fastOnlyResponse(status int, body []byte, out any) (refused bool, err error) {
	return fastResponse("/test", status, nil, body, noRedact, out)
}

// bitsEqual compares floats by their bits: -0 is not 0, and the fast
// number path must give exactly strconv's result.
var bitsEqual = cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })

// target is one result type the fast path serves.
type target struct {
	name string
	new  func() any // a pointer to a zero result
}

var targets = []target{
	{"quotes", func() any { return new(map[string]Quote) }},
	{"depths", func() any { return new(map[string]DepthBook) }},
	{"klines", func() any { return new(map[string][]Kline) }},
	{"depth", func() any { return new(*DepthBook) }},
}

// checkEquivalent decodes body with the fast and the reference paths, as a
// whole response and as bare data, into every target, and reports any
// difference in error-ness or value. ok counts the targets that decoded.
func checkEquivalent(t testing.TB, body []byte) (ok []string) {
	t.Helper()
	for _, tg := range targets {
		for _, status := range []int{200, 500} {
			fast, ref := tg.new(), tg.new()
			refused, ferr := fastOnlyResponse(status, body, fast)
			rerr := refDecodeResponse(status, body, ref)
			if (ferr != nil) != (rerr != nil) {
				t.Fatalf("%s, HTTP %d: fast error %v (refused %v), reference error %v\nbody: %q", tg.name, status, ferr, refused, rerr, body)
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
			if !refused && errors.As(ferr, &fe) && errors.As(rerr, &re) && !strings.HasPrefix(re.Message, "cannot decode data") {
				if diff := cmp.Diff(re, fe); diff != "" {
					t.Fatalf("%s, HTTP %d: errors differ (-ref +fast):\n%s\nbody: %q", tg.name, status, diff, body)
				}
			}
		}

		fast, ref := tg.new(), tg.new()
		handled, ferr := decodeFast(body, fast)
		rerr := refDecodeData(body, ref)
		if len(body) == 0 || bytes.Equal(body, []byte("null")) {
			continue // decodeData returns before either decoder runs
		}
		if !handled {
			t.Fatalf("%s: no fast path", tg.name)
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

// checkModelsEquivalent holds each model's fast decoder (no fallback) to
// its wire struct, and json.Unmarshal of the model to the same result.
func checkModelsEquivalent(t testing.TB, b []byte) {
	t.Helper()
	compare := func(name string, fast any, ferr error, ref any, rerr error, viaJSON func() (any, error)) {
		t.Helper()
		if (ferr != nil) != (rerr != nil) {
			t.Fatalf("%s: fast error %v, reference error %v\ninput: %q", name, ferr, rerr, b)
		}
		if ferr != nil {
			return
		}
		if diff := cmp.Diff(ref, fast, bitsEqual); diff != "" {
			t.Fatalf("%s: fast and reference differ (-ref +fast):\n%s\ninput: %q", name, diff, b)
		}
		got, err := viaJSON()
		if err != nil {
			t.Fatalf("%s: json.Unmarshal: %v\ninput: %q", name, err, b)
		}
		if diff := cmp.Diff(ref, got, bitsEqual); diff != "" {
			t.Fatalf("%s: json.Unmarshal and reference differ (-ref +json):\n%s\ninput: %q", name, diff, b)
		}
	}
	st := getState(b)
	q, qerr := fastQuote(st, "")
	if qerr == nil {
		qerr = st.d.End()
	}
	putState(st)
	var rq refQuote
	rqErr := json.Unmarshal(b, &rq)
	compare("Quote", q, qerr, Quote(rq), rqErr, func() (any, error) { var v Quote; err := json.Unmarshal(b, &v); return v, err })

	st = getState(b)
	tk, terr := fastTick(st, "")
	if terr == nil {
		terr = st.d.End()
	}
	putState(st)
	var rt refTick
	rtErr := json.Unmarshal(b, &rt)
	compare("Tick", tk, terr, Tick(rt), rtErr, func() (any, error) { var v Tick; err := json.Unmarshal(b, &v); return v, err })

	st = getState(b)
	book, berr := fastBook(st, "")
	if berr == nil {
		berr = st.d.End()
	}
	putState(st)
	var rb refBook
	rbErr := json.Unmarshal(b, &rb)
	compare("DepthBook", book, berr, DepthBook(rb), rbErr, func() (any, error) { var v DepthBook; err := json.Unmarshal(b, &v); return v, err })

	st = getState(b)
	lv, lerr := fastLevel(&st.d)
	if lerr == nil {
		lerr = st.d.End()
	}
	k, kerr := func() (Kline, error) {
		st.d.Reset(b)
		k, err := fastKline(&st.d)
		if err == nil {
			err = st.d.End()
		}
		return k, err
	}()
	putState(st)
	var rl refLevel
	rlErr := json.Unmarshal(b, &rl)
	compare("DepthLevel", lv, lerr, DepthLevel(rl), rlErr, func() (any, error) { var v DepthLevel; err := json.Unmarshal(b, &v); return v, err })
	var rk refKline
	rkErr := json.Unmarshal(b, &rk)
	compare("Kline", k, kerr, Kline(rk), rkErr, func() (any, error) { var v Kline; err := json.Unmarshal(b, &v); return v, err })
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
