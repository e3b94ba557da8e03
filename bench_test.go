package itick_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/quota"
)

// Benchmarks of REST calls against hand-written baselines (one call and
// decoding here; a 1,000-code fan-out, a quota and memory in the bench
// files named for them), and tests of what they assume.

// callService serves one fixed, realistic 10-code quotes envelope,
// gzipped when the request accepts gzip, and counts what it did. Its
// connState, set as the server's ConnState, counts connections.
type callService struct {
	codes             []string
	plainBody, gzBody []byte
	conns             atomic.Int64 // connections opened
	gzipped           atomic.Int64 // responses sent gzipped
	plain             atomic.Int64 // responses sent uncompressed
}

const callToken = "bench-token"

func newCallService(tb testing.TB) *callService {
	tb.Helper()
	raw := fixture(tb, "bench/quotes_50.json")
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		tb.Fatal(err)
	}
	codes := slices.Sorted(maps.Keys(env.Data))[:10]
	var body bytes.Buffer
	body.WriteString(`{"code":0,"msg":null,"data":{`)
	for i, c := range codes {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, "%q:%s", c, env.Data[c])
	}
	body.WriteString(`}}`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body.Bytes())
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return &callService{codes: codes, plainBody: body.Bytes(), gzBody: gz.Bytes()}
}

func (cs *callService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("token") != callToken || r.URL.Path != "/stock/quotes" ||
		r.URL.Query().Get("codes") != strings.Join(cs.codes, ",") || r.URL.Query().Get("region") != "HK" {
		http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	b := cs.plainBody
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		b = cs.gzBody
		cs.gzipped.Add(1)
	} else {
		cs.plain.Add(1)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

func (cs *callService) connState(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		cs.conns.Add(1)
	}
}

// baselineCall is the hand-written client: net/http with a transport of
// its own and encoding/json into plain structs of the same fields.
type baselineCall struct {
	hc  *http.Client
	url string
}

func newBaselineCall(baseURL string, codes []string) *baselineCall {
	q := url.Values{"region": {"HK"}, "codes": {strings.Join(codes, ",")}}
	return &baselineCall{
		hc:  &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 30 * time.Second},
		url: baseURL + "/stock/quotes?" + q.Encode(),
	}
}

func (bc *baselineCall) quotes(ctx context.Context) (map[string]plainQuote, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, bc.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("token", callToken)
	resp, err := bc.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env plainEnvelope[map[string]plainQuote]
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if env.Code != 0 {
		return nil, fmt.Errorf("code %d", env.Code)
	}
	return env.Data, nil
}

// BenchmarkCall is one 10-code quotes call over loopback: the SDK against a
// hand-written net/http + encoding/json client. The server is the same; the
// clients share no transport. conns/op is new connections per call.
func BenchmarkCall(b *testing.B) {
	cs := newCallService(b)
	srv := httptest.NewUnstartedServer(cs)
	srv.Config.ConnState = cs.connState
	srv.Start()
	c := newServerClient(b, srv, callToken)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		start := cs.conns.Load()
		for b.Loop() {
			got, err := c.Stock.Quotes(b.Context(), itick.RegionHK, cs.codes)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(cs.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(cs.codes))
			}
		}
		b.ReportMetric(float64(cs.conns.Load()-start)/float64(b.N), "conns/op")
	})
	b.Run("baseline", func(b *testing.B) {
		bc := newBaselineCall(srv.URL, cs.codes)
		b.ReportAllocs()
		start := cs.conns.Load()
		for b.Loop() {
			got, err := bc.quotes(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(cs.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(cs.codes))
			}
		}
		b.ReportMetric(float64(cs.conns.Load()-start)/float64(b.N), "conns/op")
	})
}

// TestCallReusesConnectionAndAcceptsGzip checks what BenchmarkCall relies
// on: repeated calls from one client travel over one connection, the SDK
// asks for gzip without being told and decodes the gzipped body, and the
// SDK and the baseline decode the same values.
func TestCallReusesConnectionAndAcceptsGzip(t *testing.T) {
	t.Parallel()
	const calls = 20
	cs := newCallService(t)
	srv := httptest.NewUnstartedServer(cs)
	srv.Config.ConnState = cs.connState
	srv.Start()
	c := newServerClient(t, srv, callToken)
	var sdk map[string]itick.Quote
	for range calls {
		got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, cs.codes)
		if err != nil {
			t.Fatal(err)
		}
		sdk = got
	}
	if n := cs.conns.Load(); n != 1 {
		t.Errorf("SDK opened %d connections for %d sequential calls, want 1", n, calls)
	}
	if g, p := cs.gzipped.Load(), cs.plain.Load(); g != calls || p != 0 {
		t.Errorf("SDK got %d gzipped and %d plain responses, want %d and 0", g, p, calls)
	}

	bc := newBaselineCall(srv.URL, cs.codes)
	var base map[string]plainQuote
	for range calls {
		got, err := bc.quotes(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		base = got
	}
	if n := cs.conns.Load(); n != 2 {
		t.Errorf("after the baseline's calls the server saw %d connections, want 2 (one per client)", n)
	}
	want := make(map[string]itick.Quote, len(base))
	for k, q := range base {
		want[k] = itick.Quote{Symbol: q.S, Last: q.Ld, Open: q.O, PrevClose: q.P, High: q.H, Low: q.L,
			Time: time.UnixMilli(q.T).UTC(), Volume: q.V, Turnover: q.Tu, Status: int(q.TS),
			Change: q.Ch, ChangePercent: q.Chp}
	}
	if diff := cmp.Diff(want, sdk); diff != "" {
		t.Errorf("SDK and baseline disagree (-baseline +sdk):\n%s", diff)
	}
	if len(sdk) != 10 {
		t.Errorf("got %d quotes, want 10", len(sdk))
	}
}

// The baselines decode the same bodies with encoding/json into plain
// structs of the same fields: no tolerance of strings, nulls or stray types.
type plainQuote struct {
	S   string  `json:"s"`
	Ld  float64 `json:"ld"`
	O   float64 `json:"o"`
	P   float64 `json:"p"`
	H   float64 `json:"h"`
	L   float64 `json:"l"`
	T   int64   `json:"t"`
	V   float64 `json:"v"`
	Tu  float64 `json:"tu"`
	TS  int64   `json:"ts"`
	Ch  float64 `json:"ch"`
	Chp float64 `json:"chp"`
}

type plainDepthLevel struct {
	Po int64   `json:"po"`
	P  float64 `json:"p"`
	V  float64 `json:"v"`
	O  float64 `json:"o"`
}

type plainDepthBook struct {
	S string            `json:"s"`
	A []plainDepthLevel `json:"a"`
	B []plainDepthLevel `json:"b"`
}

type plainKline struct {
	T  int64   `json:"t"`
	O  float64 `json:"o"`
	H  float64 `json:"h"`
	L  float64 `json:"l"`
	C  float64 `json:"c"`
	V  float64 `json:"v"`
	Tu float64 `json:"tu"`
}

type plainEnvelope[T any] struct {
	Code int     `json:"code"`
	Msg  *string `json:"msg"`
	Data T       `json:"data"`
}

// benchDecode runs the SDK's decode path and the encoding/json baseline
// over the same body, each checking that it got want entries.
func benchDecode[T any, P any](b *testing.B, file, path string, want int, read codec.Reader[T], n func(T) int, pn func(P) int) {
	body := fixture(b, "bench/"+file)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			// A nil redactor removes nothing but still bounds, as a client
			// with no token.
			out, err := itick.Decode(path, 200, nil, [][]byte{body}, nil, read)
			if err != nil {
				b.Fatal(err)
			}
			if n(out) != want {
				b.Fatalf("got %d entries, want %d", n(out), want)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var env plainEnvelope[P]
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
			if pn(env.Data) != want {
				b.Fatalf("got %d entries, want %d", pn(env.Data), want)
			}
		}
	})
}

func BenchmarkDecodeQuotes(b *testing.B) {
	benchDecode(b, "quotes_50.json", "/stock/quotes", 50, itick.QuotesReader,
		func(m map[string]itick.Quote) int { return len(m) },
		func(m map[string]plainQuote) int { return len(m) })
}

func BenchmarkDecodeDepths(b *testing.B) {
	benchDecode(b, "depths_50.json", "/stock/depths", 50, itick.BooksReader,
		func(m map[string]itick.DepthBook) int { return len(m) },
		func(m map[string]plainDepthBook) int { return len(m) })
}

func BenchmarkDecodeKlines(b *testing.B) {
	benchDecode(b, "klines_10x500.json", "/stock/klines", 10, itick.SeriesReader,
		func(m map[string][]itick.Kline) int { return len(m) },
		func(m map[string][]plainKline) int { return len(m) })
}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}

// codeList returns n distinct codes starting with prefix.
func codeList(prefix string, n int) []string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = prefix + strconv.Itoa(i)
	}
	return codes
}

// TestLimiterWaitOutsideAttemptTimeout: a limiter wait longer than the
// http.Client's per-attempt Timeout, as when a plan's quota for the minute
// is spent, delays the attempt but does not fail it.
func TestLimiterWaitOutsideAttemptTimeout(t *testing.T) {
	t.Parallel()
	// The second chunk waits 2.5 s for the limiter, well past the 1 s an
	// attempt may take, which is itself ample for one request on a loaded
	// machine under the race detector.
	c, srv := newSimClient(t, nil, itick.WithHTTPClient(&http.Client{Timeout: time.Second}),
		itick.WithLimiter(quota.New(1, 2500*time.Millisecond)), itick.WithConcurrency(1), itick.WithRetries(0))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, codeList("W", 2*srv.BatchSize()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*srv.BatchSize() || srv.Stats().Succeeded != 2 {
		t.Errorf("got %d quotes in %d requests, want %d in 2", len(got), srv.Stats().Succeeded, 2*srv.BatchSize())
	}
}
