package itick

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// What the decoder tolerates and refuses: every case decoded as
// encoding/json decodes it, or refused with an error naming where.

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
