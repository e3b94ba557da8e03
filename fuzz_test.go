package itick_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Fuzz targets: every model survives a round trip through JSON, and the
// response path of a call keeps its rules whatever the status, header and
// body.

// modelSeeds are shapes and quirks the service is seen to send, plus edges
// of the decoder's rules: numbers as strings, missing and unknown fields,
// fractional counts, timestamps below one unit, huge and negative numbers.
var modelSeeds = []string{
	`null`, `{}`, `[]`, `""`, `0`,
	quote700,
	`{"s":"EURUSD","ld":1.3431899999999999,"o":1.34,"h":1.35,"l":1.33,"t":1765526889000,"v":0,"tu":0,"ts":0}`,
	`{"s":700,"ld":"616.5","o":"","p":null,"t":"1765526889000","ts":"0","unknown":{"x":[1,2,{"y":null}]}}`,
	`{"s":"700","ld":-0,"h":1e308,"l":-1e-308,"tu":2.1e13,"ts":3,"t":-1}`,
	`{"s":"700","t":0.5}`, `{"s":"700","t":-0.5}`, `{"s":"700","t":"0.9"}`,
	`{"po":1,"v":0,"o":0}`,
	`{"po":"2","p":"0.5","v":1.25,"o":1.25}`,
	`{"po":1.0,"p":65000.5,"v":0.123,"o":0.123}`,
	`{"s":"BTCUSDT","a":[{"po":1,"p":65000.5,"v":0.123,"o":0.123},{"po":2,"p":65001,"v":2,"o":1}],"b":[]}`,
	`{"s":"ES","a":[{"po":1,"v":0,"o":0}],"b":[{"po":1,"p":0,"v":0,"o":0}]}`,
	`{"t":1700000000000,"o":1,"h":2,"l":0.5,"c":1.5,"v":100,"tu":2.1e13}`,
	`{"t":"1700000000000","o":"1","h":"2","l":"0.5","c":"1.5","v":"100","tu":""}`,
	`{"d":1700000000000,"r":"US","n":"Nvidia Corp","c":"NVDA","v":"10:1"}`,
	`{"d":"1700000000000","r":"HK","n":"\u817e\u8baf","c":700,"v":"1:4"}`,
	`{"content":[{"d":1700000000000,"r":"US","n":"A","c":"A","v":"2:1"}],"totalPages":3,"totalElements":41,"page":0,"last":false,"size":20}`,
	`{"content":[],"totalPages":"1","totalElements":"0","page":"0","last":"true","size":"20"}`,
	`{"id":"7b3c9e0e-1f2a","te":"Title","pt":1700000000,"mt":"stock","lg":"en","lk":"https://example.com/a","pv":"Wire"}`,
	`{"id":"x","te":"T","pt":"1700000000","mt":"stock","lg":"hk"}`,
	`{"id":"x","pt":0.5}`,
	`{"data":[{"id":"x","te":"T","pt":1700000000}],"pagination":{"nextCursor":"2025-01-01T00:00:00.123456789Z","hasMore":true,"count":1}}`,
	`{"data":[],"pagination":{"nextCursor":null,"hasMore":"false","count":"0"}}`,
	`{"s":"700","ld":567,"t":1754554087000,"v":1134500,"te":0}`,
	`{"s":"BTCUSDT","ld":65000.1,"t":1754554087000,"v":0.5,"tu":32500.05,"ts":0}`,
	`{"700":` + quote700 + `,"9988":{"s":"9988","ld":"80.1"}}`,
	`{"700":[{"t":1700000060000,"o":1,"h":2,"l":0.5,"c":1.5,"v":100,"tu":1},{"t":1700000000000,"o":1,"h":2,"l":0.5,"c":1.5,"v":100,"tu":1}],"AAPL":[]}`,
	`{"BTCUSDT":{"s":"BTCUSDT","a":[{"po":1,"p":1,"v":1,"o":1}],"b":null}}`,
}

// seedsFromTestdata returns every testdata/*.json file, and the values
// nested in it down to three levels, so the fuzzers start from whole
// responses, their data, and each item of it.
func seedsFromTestdata(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var seeds [][]byte
	var walk func(raw json.RawMessage, depth int)
	walk = func(raw json.RawMessage, depth int) {
		seeds = append(seeds, raw)
		if depth == 0 {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			for _, v := range obj {
				walk(v, depth-1)
			}
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) == nil {
			for _, v := range arr {
				walk(v, depth-1)
			}
		}
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		walk(b, 3)
	}
	return seeds
}

func addModelSeeds(f *testing.F) {
	for _, s := range modelSeeds {
		f.Add([]byte(s))
	}
	for _, s := range seedsFromTestdata(f) {
		f.Add(s)
	}
}

// fuzzRoundTrip checks that whatever decodes into a T encodes to JSON that
// decodes to the same value, and that encoding is stable. NaN, which would
// compare unequal to itself, cannot occur: the decoder refuses it.
func fuzzRoundTrip[T any](f *testing.F) {
	addModelSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return
		}
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("decoded %+v from %q but cannot encode it: %v", v, b, err)
		}
		var back T
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("cannot decode its own encoding %q (from %q): %v", enc, b, err)
		}
		if diff := cmp.Diff(v, back); diff != "" {
			t.Fatalf("round trip of %q through %q changed the value (-first +second):\n%s", b, enc, diff)
		}
		again, err := json.Marshal(back)
		if err != nil {
			t.Fatalf("cannot encode %+v: %v", back, err)
		}
		if !bytes.Equal(enc, again) {
			t.Fatalf("encoding is not stable: %q then %q", enc, again)
		}
	})
}

func FuzzQuote(f *testing.F)          { fuzzRoundTrip[itick.Quote](f) }
func FuzzDepthBook(f *testing.F)      { fuzzRoundTrip[itick.DepthBook](f) }
func FuzzDepthLevel(f *testing.F)     { fuzzRoundTrip[itick.DepthLevel](f) }
func FuzzKline(f *testing.F)          { fuzzRoundTrip[itick.Kline](f) }
func FuzzSplitRecord(f *testing.F)    { fuzzRoundTrip[itick.SplitRecord](f) }
func FuzzSplitPage(f *testing.F)      { fuzzRoundTrip[itick.SplitPage](f) }
func FuzzNewsItem(f *testing.F)       { fuzzRoundTrip[itick.NewsItem](f) }
func FuzzNewsPage(f *testing.F)       { fuzzRoundTrip[itick.NewsPage](f) }
func FuzzTick(f *testing.F)           { fuzzRoundTrip[itick.Tick](f) }
func FuzzQuoteMap(f *testing.F)       { fuzzRoundTrip[map[string]itick.Quote](f) }
func FuzzDepthBookMap(f *testing.F)   { fuzzRoundTrip[map[string]itick.DepthBook](f) }
func FuzzKlineSeriesMap(f *testing.F) { fuzzRoundTrip[map[string][]itick.Kline](f) }

// FuzzResponse drives the whole response path of Stock.Quotes with a fuzzed
// status, Retry-After header and body, and checks that the call ends with a
// result or an *APIError carrying the status, never both and never neither,
// that only a 2xx response with an envelope code succeeds, and that no
// error shows the token even when the body echoes it.
func FuzzResponse(f *testing.F) {
	for _, s := range seedsFromTestdata(f) {
		f.Add(uint16(200), "", s)
	}
	seeds := []struct {
		status     uint16
		retryAfter string
		body       string
	}{
		{200, "", quotesOK},
		{200, "", `{"code":200,"msg":"ok","data":{"700":` + quote700 + `}}`},
		{200, "", `{"code":"0","msg":null,"data":{}}`},
		{200, "", `{"code":0,"msg":null,"data":null}`},
		{200, "", `{"code":"E002","msg":"auth failed","data":null}`},
		{200, "", `{"code":"E001","msg":null,"data":{}}`},
		{200, "", `{"code":"E003","msg":"exceeding the maximum subscription limit"}`},
		{200, "", `{"code":"200","msg":"ok","data":{}}`},
		{200, "", `{"code":"E9` + faultToken + `","msg":null,"data":{}}`},
		{200, "", `{"code":0,"msg":"auth failed","data":null}`},
		{200, "", `{"code":1,"msg":"E003 exceeding the maximum subscription limit"}`},
		{200, "", `{"message":"Invalid API key in request"}`},
		{401, "", `{"message":"Invalid API key ` + faultToken + `"}`},
		{200, "", `{"code":0,"msg":"token ` + faultToken + ` expired"}`},
		{200, "", `<html>` + faultToken + `</html>`},
		{429, "120", `{"code":429,"msg":"too many requests"}`},
		{429, "Wed, 21 Oct 2015 07:28:00 GMT", ``},
		{503, "-1", `upstream connect error`},
		{502, "1e400", `<html><body>Bad Gateway</body></html>`},
		{204, "", ``},
		{302, "", quotesOK},
		{200, "", `{"code":0,"data":{"700":{"ld":"NaN"}}}`},
		{200, "", `{"CODE":0,"data":{}}`},
		{200, "", `{"code":0,"msg":null,"data":{"700":` + quote700 + `}} trailing`},
	}
	for _, s := range seeds {
		f.Add(s.status, s.retryAfter, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status16 uint16, retryAfter string, body []byte) {
		status := 100 + int(status16)%500
		c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithRetries(0))
		mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
			h := http.Header{"Content-Type": {"application/json"}}
			if retryAfter != "" {
				h.Set("Retry-After", retryAfter)
			}
			return &http.Response{
				Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
				StatusCode:    status,
				Proto:         "HTTP/1.1",
				ProtoMajor:    1,
				ProtoMinor:    1,
				Header:        h,
				Body:          io.NopCloser(bytes.NewReader(body)),
				ContentLength: int64(len(body)),
				Request:       r,
			}, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
		if (got == nil) == (err == nil) {
			t.Fatalf("status %d, body %q: got %v and error %v; want exactly one", status, body, got, err)
		}
		if err == nil {
			if status < 200 || status > 299 {
				t.Fatalf("status %d, body %q: succeeded with %v", status, body, got)
			}
			lower := bytes.ToLower(body)
			if !bytes.Contains(lower, []byte("code")) && !bytes.Contains(body, []byte(`\`)) {
				t.Fatalf("status %d, body %q with no envelope code: succeeded with %v", status, body, got)
			}
			return
		}
		var apiErr *itick.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("status %d, body %q: error %v (%T) is not an *APIError", status, body, err, err)
		}
		if apiErr.StatusCode != status {
			t.Errorf("APIError.StatusCode = %d, want %d", apiErr.StatusCode, status)
		}
		if apiErr.RetryAfter < 0 {
			t.Errorf("APIError.RetryAfter = %v is negative", apiErr.RetryAfter)
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(verb, err); strings.Contains(s, faultToken) {
				t.Fatalf("%s of the error shows the token: %s", verb, s)
			}
		}
	})
}
