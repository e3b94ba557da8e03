package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// caseCandle is the start of the one candle the case-blind service answers
// a kline request with.
var caseCandle = time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)

// caseBlindService answers every batch endpoint as a service that takes
// codes in any case and answers in its own: each chunk gets the entries of
// answer whose code matches one it asked but for case, keyed as in answer.
// A chunk that asks for a code starting with FAIL gets a 500.
func caseBlindService(answer map[string]float64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		asked := strings.Split(r.URL.Query().Get("codes"), ",")
		data := map[string]any{}
		for k, v := range answer {
			if !slices.ContainsFunc(asked, func(c string) bool { return strings.EqualFold(c, k) }) {
				continue
			}
			switch {
			case strings.HasSuffix(r.URL.Path, "/quotes"):
				data[k] = map[string]any{"s": k, "ld": v, "t": caseCandle.UnixMilli()}
			case strings.HasSuffix(r.URL.Path, "/ticks"):
				data[k] = map[string]any{"s": k, "ld": v, "t": caseCandle.UnixMilli(), "v": 1}
			case strings.HasSuffix(r.URL.Path, "/depths"):
				data[k] = map[string]any{"s": k, "a": []any{map[string]any{"po": 1, "p": v, "v": 1, "o": 1}}, "b": []any{}}
			case strings.HasSuffix(r.URL.Path, "/klines"):
				data[k] = []any{map[string]any{"t": caseCandle.UnixMilli(), "o": v, "h": v, "l": v, "c": v, "v": 1, "tu": 1}}
			}
		}
		if slices.ContainsFunc(asked, func(c string) bool { return strings.HasPrefix(c, "FAIL") }) {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
		w.Write(b)
	}
}

// batchCalls are the batch calls, each giving a number that tells which
// entry of the answer each code got.
var batchCalls = map[string]func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error){
	"Quotes": func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error) {
		got, err := c.Stock.Quotes(ctx, itick.RegionUS, codes)
		return numbers(got, func(q itick.Quote) float64 { return q.Last }), err
	},
	"Ticks": func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error) {
		got, err := c.Stock.Ticks(ctx, itick.RegionUS, codes)
		return numbers(got, func(t itick.Tick) float64 { return t.Last }), err
	},
	"Depths": func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error) {
		got, err := c.Crypto.Depths(ctx, itick.RegionBA, codes)
		return numbers(got, func(b itick.DepthBook) float64 { return b.Asks[0].Price }), err
	},
	"Klines": func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error) {
		got, err := c.Forex.Klines(ctx, itick.RegionGB, codes, itick.OneDay, 5)
		return numbers(got, func(ks []itick.Kline) float64 { return ks[0].Close }), err
	},
	"KlinesRange": func(ctx context.Context, c *itick.Client, codes []string) (map[string]float64, error) {
		got, err := c.Indices.KlinesRange(ctx, itick.RegionUS, codes, itick.OneDay, caseCandle, caseCandle.AddDate(0, 0, 1))
		return numbers(got, func(ks []itick.Kline) float64 { return ks[0].Close }), err
	},
}

func numbers[V any](m map[string]V, of func(V) float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = of(v)
	}
	return out
}

// A code the service answers in another case comes back under the code
// asked when it is the only candidate; codes asked in two cases, and two
// answers for one code, are not guessed at. Every call keeps behaviour 17:
// each code asked is in exactly one of the map and FailedCodes, or in
// neither, and MissingCodes names the codes the map lacks.
func TestCodesAnsweredInAnotherCase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		codes  []string
		size   int
		answer map[string]float64
		want   map[string]float64
		failed []string
	}{
		{"answered in upper case", []string{"aapl", "700", " Msft "}, 10,
			map[string]float64{"AAPL": 1, "700": 2, "MSFT": 3}, map[string]float64{"aapl": 1, "700": 2, "Msft": 3}, nil},
		{"answered in lower case, chunk by chunk", []string{"BTCUSDT", "ETHUSDT", "x"}, 1,
			map[string]float64{"btcusdt": 1, "ethusdt": 2, "X": 3}, map[string]float64{"BTCUSDT": 1, "ETHUSDT": 2, "x": 3}, nil},
		{"the exact answer wins", []string{"aapl"}, 10,
			map[string]float64{"AAPL": 1, "aapl": 2}, map[string]float64{"aapl": 2}, nil},
		{"two answers for one code", []string{"aapl", "700"}, 10,
			map[string]float64{"AAPL": 1, "Aapl": 2, "700": 3}, map[string]float64{"700": 3}, nil},
		{"codes asked in two cases, one chunk", []string{"aapl", "AAPL"}, 10,
			map[string]float64{"AAPL": 1}, map[string]float64{"AAPL": 1}, nil},
		{"codes asked in two cases, two chunks", []string{"aapl", "AAPL"}, 1,
			map[string]float64{"AAPL": 1}, map[string]float64{"AAPL": 1}, nil},
		{"codes asked in two cases, neither answered as asked", []string{"aapl", "AAPL", "700"}, 1,
			map[string]float64{"Aapl": 1, "700": 2}, map[string]float64{"700": 2}, nil},
		{"a failed chunk", []string{"aapl", "FAIL1", "msft"}, 1,
			map[string]float64{"AAPL": 1, "FAIL1": 2, "MSFT": 3}, map[string]float64{"aapl": 1, "msft": 3}, []string{"FAIL1"}},
	}
	for _, tt := range tests {
		for name, call := range batchCalls {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(caseBlindService(tt.answer))
				c := newServerClient(t, srv, testToken, itick.WithBatchSize(tt.size), itick.WithRetries(0),
					itick.WithClock(func() time.Time { return caseCandle.AddDate(0, 0, 3) }))
				got, err := call(within(t), c, tt.codes)
				var failed []string
				var be *itick.BatchError
				if errors.As(err, &be) {
					failed = be.FailedCodes()
				} else if err != nil {
					t.Fatalf("err = %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.failed, failed); diff != "" {
					t.Errorf("FailedCodes (-want +got):\n%s", diff)
				}
				var missing []string
				for _, code := range tt.codes {
					code = strings.TrimSpace(code)
					if _, ok := got[code]; !ok {
						missing = append(missing, code)
					}
					if slices.Contains(failed, code) && slices.Contains(slices.Sorted(maps.Keys(got)), code) {
						t.Errorf("%s is both in the map and in FailedCodes", code)
					}
				}
				if diff := cmp.Diff(missing, itick.MissingCodes(tt.codes, got)); diff != "" {
					t.Errorf("MissingCodes (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestCodes_Escaped: codes with characters that mean something in a query
// string reach the service intact.
func TestCodes_Escaped(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	in := []string{"BRK.B", "A&B", "X=Y", "ES#1", "600519.SH", "a b"}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("BRK.B,A&B,X=Y,ES#1,600519.SH,a b", rec.all()[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if len(got) != len(in) {
		t.Errorf("%d quotes, want %d", len(got), len(in))
	}
}

// Behaviour 1: codes are trimmed and de-duplicated, first occurrence first,
// and case is kept.
func TestCodesTrimmedDedupedCaseKept(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, []string{" aapl", "AAPL ", "aapl", "\tMSFT\n", "AAPL", "Msft"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff("aapl,AAPL,MSFT,Msft", reqs[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"AAPL", "MSFT", "Msft", "aapl"}, sortedKeys(got)); diff != "" {
		t.Errorf("map keys (-want +got):\n%s", diff)
	}
}

// Behaviour 2: a code the service leaves out is not in the map and is not an
// error, in one chunk or several.
func TestMissingCodeIsAbsent(t *testing.T) {
	t.Parallel()
	for _, batchSize := range []int{10, 2} {
		t.Run(fmt.Sprintf("batch%d", batchSize), func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithBatchSize(batchSize))
			mt.RegisterResponder("GET", mockBase+"/crypto/quotes", func(req *http.Request) (*http.Response, error) {
				return httpmock.NewStringResponse(200, quotesEnvelope(requestedCodes(req), map[string]bool{"C3": true})), nil
			})
			got, err := c.Crypto.Quotes(t.Context(), itick.RegionBA, codes(5))
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if diff := cmp.Diff([]string{"C0", "C1", "C2", "C4"}, sortedKeys(got)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if _, ok := got["C3"]; ok {
				t.Error("C3 is in the map")
			}
		})
	}
}

// Behaviour 17: a result map holds only what was asked; a code the service
// sent but nobody asked for is dropped, and no code is both in the map and
// in FailedCodes.
func TestResultMapsHoldOnlyRequestedCodes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		codes := r.URL.Query().Get("codes")
		if strings.Contains(codes, "FAIL") {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		first, _, _ := strings.Cut(codes, ",")
		// Every answer names codes of another chunk and a code nobody asked for.
		fmt.Fprintf(w, `{"code":0,"data":{%q:{"ld":1},"FAIL1":{"ld":2},"EXTRA":{"ld":3},"aapl":{"ld":4}}}`, first)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	got, err := c.Stock.Quotes(context.Background(), itick.RegionUS, []string{"AAPL", "MSFT", "FAIL1", "FAIL2", "IBM"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BatchError", err)
	}
	keys := slices.Sorted(maps.Keys(got))
	if diff := cmp.Diff([]string{"AAPL", "IBM"}, keys); diff != "" {
		t.Errorf("result map keys (-want +got):\n%s", diff)
	}
	for _, code := range be.FailedCodes() {
		if _, ok := got[code]; ok {
			t.Errorf("%s is both in the map and in FailedCodes", code)
		}
	}
	if diff := cmp.Diff([]string{"MSFT", "FAIL1", "FAIL2"}, itick.MissingCodes([]string{"AAPL", "MSFT", "FAIL1", "FAIL2", "IBM"}, got)); diff != "" {
		t.Errorf("MissingCodes (-want +got):\n%s", diff)
	}
}

// MissingCodes normalises as the batch calls do, keeps request order and
// skips codes a batch call refuses; a REST code in the stream's code$REGION
// form is refused before anything is sent.
func TestMissingCodesAndTheStreamsForm(t *testing.T) {
	t.Parallel()
	got := map[string]itick.Quote{"700": {}, "9988": {}}
	want := []string{"3690", "5"}
	if diff := cmp.Diff(want, itick.MissingCodes([]string{" 700", "3690 ", "", "a,b", "9988", "3690", "5", "700$HK", "x\ty"}, got)); diff != "" {
		t.Errorf("MissingCodes (-want +got):\n%s", diff)
	}
	if m := itick.MissingCodes[itick.Quote](nil, nil); m != nil {
		t.Errorf("MissingCodes(nil, nil) = %v", m)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := newServerClient(t, srv, testToken)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"Quotes": func() error { _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700$HK"}); return err },
		"Quote":  func() error { _, err := c.Stock.Quote(ctx, itick.RegionHK, "700$HK"); return err },
		"Klines": func() error {
			_, err := c.Stock.Klines(ctx, itick.RegionHK, []string{"9988", "700$HK"}, itick.OneDay, 5)
			return err
		},
	} {
		err := call()
		if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), `"700"`) || !strings.Contains(err.Error(), `"HK"`) {
			t.Errorf("%s with 700$HK: %v, want ErrInvalidArgument naming the code and the region apart", name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
