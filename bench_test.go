package itick_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/quota"
	"github.com/d19c4e34/itick/markettest"
)

// Benchmarks of REST calls against hand-written baselines (one call,
// decoding, a 1,000-code fan-out, a quota, memory), and tests of what they
// assume.

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

const (
	fanOutCodes   = 1000
	fanOutLatency = 5 * time.Millisecond
)

func fanOutCodeList() []string { return codeList("C", fanOutCodes) }

// idealFanOut is the baseline: the fewest requests that carry the codes
// (chunks of the plan's batch size), run by a fixed number of workers,
// with net/http and encoding/json and nothing else.
func idealFanOut(ctx context.Context, hc *http.Client, srv *markettest.Server, codes []string, size, workers int) (map[string]plainQuote, error) {
	var chunks [][]string
	for c := range slices.Chunk(codes, size) {
		chunks = append(chunks, c)
	}
	results := make([]map[string]plainQuote, len(chunks))
	// The same worker pool as the SDK's, so only the request and its
	// decoding differ.
	errs := batch.Run(ctx, len(chunks), workers, func(ctx context.Context, i int) error {
		var err error
		results[i], err = fanOutRequest(ctx, hc, srv, chunks[i])
		return err
	})
	merged := make(map[string]plainQuote, len(codes))
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for k, v := range r {
			merged[k] = v
		}
	}
	return merged, nil
}

func fanOutRequest(ctx context.Context, hc *http.Client, srv *markettest.Server, codes []string) (map[string]plainQuote, error) {
	q := url.Values{"region": {"US"}, "codes": {strings.Join(codes, ",")}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock/quotes?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("token", srv.Token)
	resp, err := hc.Do(req)
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
	var env struct {
		Code int                   `json:"code"`
		Data map[string]plainQuote `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if env.Code != 0 {
		return nil, fmt.Errorf("envelope code %d", env.Code)
	}
	return env.Data, nil
}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}

// BenchmarkFanOut fetches 1,000 quotes on the Base plan (batch size 10,
// concurrency 4) from the simulator, which delays every request by 5 ms.
// The sdk case builds a client per operation, so each operation starts
// with the plan's default limiter fresh, as a process fetching once
// would; its transport lives across operations, like the baseline's.
func BenchmarkFanOut(b *testing.B) {
	_, srv := newSimClient(b, []markettest.Option{markettest.WithPlan(itick.PlanBase),
		markettest.WithRecordLimit(1)})
	srv.AddLatency(fanOutLatency)
	codes := fanOutCodeList()

	report := func(b *testing.B, before markettest.Stats) {
		after := srv.Stats()
		b.ReportMetric(float64(after.Requests-before.Requests)/float64(b.N), "reqs/op")
		b.ReportMetric(float64(after.RateLimited-before.RateLimited)/float64(b.N), "429s/op")
	}
	b.Run("sdk", func(b *testing.B) {
		rt := newTransport()
		defer rt.CloseIdleConnections()
		before := srv.Stats()
		for b.Loop() {
			// The plan's own default limiter, batch size and concurrency.
			c, err := itick.NewClient(srv.Token, itick.WithBaseURL(srv.URL), itick.WithPlan(itick.PlanBase),
				itick.WithHTTPClient(&http.Client{Transport: rt, Timeout: 30 * time.Second}))
			if err != nil {
				b.Fatal(err)
			}
			got, err := c.Stock.Quotes(b.Context(), itick.RegionUS, codes)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(codes))
			}
		}
		report(b, before)
	})
	b.Run("baseline", func(b *testing.B) {
		rt := newTransport()
		defer rt.CloseIdleConnections()
		hc := &http.Client{Transport: rt, Timeout: 30 * time.Second}
		before := srv.Stats()
		for b.Loop() {
			got, err := idealFanOut(b.Context(), hc, srv, codes, itick.PlanBase.BatchSize(), itick.DefaultConcurrency)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(codes))
			}
		}
		report(b, before)
	})
}

// TestFanOutSendsMinimumRequests checks BenchmarkFanOut's premises: with
// the Base plan's defaults the SDK sends exactly ceil(1000/10) requests of
// 10 distinct codes each, draws no 429, and answers like the baseline.
func TestFanOutSendsMinimumRequests(t *testing.T) {
	t.Parallel()
	clock := func() time.Time { return time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC) }
	_, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(itick.PlanBase), markettest.WithClock(clock),
		markettest.WithQuota(itick.PlanBase.CallsPerMinute())})
	codes := fanOutCodeList()
	rt := newTransport()
	t.Cleanup(rt.CloseIdleConnections)

	// The plan's own default limiter, batch size and concurrency.
	c, err := itick.NewClient(srv.Token, itick.WithBaseURL(srv.URL), itick.WithPlan(itick.PlanBase),
		itick.WithHTTPClient(&http.Client{Transport: rt, Timeout: 30 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, codes)
	if err != nil {
		t.Fatal(err)
	}
	want := (fanOutCodes + itick.PlanBase.BatchSize() - 1) / itick.PlanBase.BatchSize()
	if diff := cmp.Diff(markettest.Stats{Requests: want, Succeeded: want}, srv.Stats()); diff != "" {
		t.Errorf("server stats (-want +got):\n%s", diff)
	}
	var sent []string
	for _, r := range srv.Requests() {
		if n := len(r.Codes()); n != itick.PlanBase.BatchSize() {
			t.Errorf("a request carried %d codes, want %d", n, itick.PlanBase.BatchSize())
		}
		sent = append(sent, r.Codes()...)
	}
	slices.Sort(sent)
	wantCodes := slices.Sorted(slices.Values(codes))
	if diff := cmp.Diff(wantCodes, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}

	srv.Reset()
	srv.SetQuota(itick.PlanBase.CallsPerMinute()) // an empty window for the baseline
	base, err := idealFanOut(t.Context(), &http.Client{Transport: newTransport()}, srv, codes,
		itick.PlanBase.BatchSize(), itick.DefaultConcurrency)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().Requests; n != want {
		t.Errorf("baseline sent %d requests, want %d", n, want)
	}
	if len(got) != len(base) || len(got) != fanOutCodes {
		t.Fatalf("SDK got %d quotes, baseline %d, want %d", len(got), len(base), fanOutCodes)
	}
	for code, q := range base {
		if g := got[code]; g.Symbol != q.S || g.Last != q.Ld || !g.Time.Equal(time.UnixMilli(q.T)) {
			t.Errorf("%s: SDK %+v, baseline %+v", code, g, q)
		}
	}
}

// klineHandler answers /stock/klines for any codes with the same 500
// one-minute candles per code, written from one precomputed array so the
// server itself allocates next to nothing while the client is measured.
// With declare false it sends no Content-Length, so the body comes
// chunked in writes of one code each.
func klineHandler(tb testing.TB, declare bool) http.Handler {
	tb.Helper()
	raw := fixture(tb, "bench/klines_10x500.json")
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		tb.Fatal(err)
	}
	series := env.Data[slices.Sorted(maps.Keys(env.Data))[0]]
	const head, tail = `{"code":0,"msg":null,"data":{`, `}}`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("token") != callToken || r.URL.Path != "/stock/klines" || r.URL.Query().Get("limit") != "500" {
			http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
			return
		}
		codes := strings.Split(r.URL.Query().Get("codes"), ",")
		n := len(head) + len(tail)
		for _, c := range codes {
			n += len(c) + 3 + len(series) + 1
		}
		n--
		w.Header().Set("Content-Type", "application/json")
		if declare {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		io.WriteString(w, head)
		for i, c := range codes {
			if i > 0 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, `"`+c+`":`)
			w.Write(series)
			if !declare {
				w.(http.Flusher).Flush()
			}
		}
		io.WriteString(w, tail)
	})
}

// seriesBytes estimates the memory a decoded map[string][]K holds: each
// slice's backing array (cap * size of K) and each key's bytes, both
// rounded up to the size the allocator hands out, plus the map itself at a
// load of 7/8 with a control byte per slot.
func seriesBytes[K any](m map[string][]K) int64 {
	var k K
	var total int64
	for key, ks := range m {
		total += allocSize(int64(cap(ks))*int64(unsafe.Sizeof(k))) + allocSize(int64(len(key)))
	}
	slot := int64(unsafe.Sizeof("")) + int64(unsafe.Sizeof([]K(nil))) + 1
	return total + int64(len(m))*slot*8/7
}

// sizeClasses are the Go allocator's small object sizes (runtime/sizeclasses.go).
var sizeClasses = []int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240,
	256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536,
	1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728,
	10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// allocSize is what allocating n bytes takes: the smallest size class that
// holds n, or n rounded up to whole 8 KiB pages past the largest class.
func allocSize(n int64) int64 {
	if n == 0 {
		return 0
	}
	if i, _ := slices.BinarySearch(sizeClasses, n); i < len(sizeClasses) {
		return sizeClasses[i]
	}
	return (n + 8191) &^ 8191
}

var heapObjects = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapNow() int64 {
	s := slices.Clone(heapObjects)
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// peakHeap runs f after a full collection and returns the most heap in
// objects (live and not yet swept) seen above the level before f, sampled
// every 100 µs, and what f retains after another full collection.
func peakHeap(f func()) (peak, retained int64) {
	runtime.GC()
	runtime.GC()
	base := heapNow()
	stop := make(chan struct{})
	done := make(chan int64)
	go func() {
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		high := base
		for {
			if h := heapNow(); h > high {
				high = h
			}
			select {
			case <-stop:
				done <- high
				return
			case <-tick.C:
			}
		}
	}()
	f()
	if h := heapNow(); h > base { // the end of f is sampled too
		peak = h - base
	}
	close(stop)
	if high := <-done - base; high > peak {
		peak = high
	}
	runtime.GC() // sync.Pool contents survive one collection
	runtime.GC()
	retained = heapNow() - base
	return peak, retained
}

// baselineKlines is the hand-written fan-out: chunks of 10 codes, 4
// workers, net/http and encoding/json into plain structs.
func baselineKlines(ctx context.Context, hc *http.Client, baseURL string, codes []string) (map[string][]plainKline, error) {
	chunks := slices.Collect(slices.Chunk(codes, 10))
	results := make([]map[string][]plainKline, len(chunks))
	// The same worker pool as the SDK's, so only the request and its
	// decoding differ.
	errs := batch.Run(ctx, len(chunks), 4, func(ctx context.Context, i int) error {
		var err error
		results[i], err = baselineKlineChunk(ctx, hc, baseURL, chunks[i])
		return err
	})
	merged := make(map[string][]plainKline, len(codes))
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for k, v := range r {
			merged[k] = v
		}
	}
	return merged, nil
}

func baselineKlineChunk(ctx context.Context, hc *http.Client, baseURL string, codes []string) (map[string][]plainKline, error) {
	q := url.Values{"region": {"HK"}, "codes": {strings.Join(codes, ",")}, "kType": {"1"}, "limit": {"500"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/stock/klines?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("token", callToken)
	resp, err := hc.Do(req)
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
	var env plainEnvelope[map[string][]plainKline]
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// memoryRun fetches codes x 500 candles once and measures it.
type memoryRun struct {
	peak, retained, result int64
}

func (r memoryRun) ratio() float64 { return float64(r.peak) / float64(r.result) }

func sdkKlineRun(tb testing.TB, c *itick.Client, codes []string) memoryRun {
	var got map[string][]itick.Kline
	var err error
	peak, retained := peakHeap(func() {
		got, err = c.Stock.Klines(context.Background(), itick.RegionHK, codes, itick.OneMinute, 500)
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(got) != len(codes) || len(got[codes[0]]) != 500 {
		tb.Fatalf("got %d codes, %d candles for %s; want %d, 500", len(got), len(got[codes[0]]), codes[0], len(codes))
	}
	r := memoryRun{peak, retained, seriesBytes(got)}
	runtime.KeepAlive(got)
	return r
}

func baselineKlineRun(tb testing.TB, hc *http.Client, baseURL string, codes []string) memoryRun {
	var got map[string][]plainKline
	var err error
	peak, retained := peakHeap(func() {
		got, err = baselineKlines(context.Background(), hc, baseURL, codes)
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(got) != len(codes) || len(got[codes[0]]) != 500 {
		tb.Fatalf("got %d codes, %d candles for %s; want %d, 500", len(got), len(got[codes[0]]), codes[0], len(codes))
	}
	r := memoryRun{peak, retained, seriesBytes(got)}
	runtime.KeepAlive(got)
	return r
}

// BenchmarkMemory fetches 1,000 codes x 500 one-minute candles (100
// requests of 10 codes, 4 at a time) and reports the peak heap above the
// level before the fetch (peak-B), the decoded result's size by
// seriesBytes (result-B), what the fetch retains after a full collection
// (retained-B), and peak/result.
func BenchmarkMemory(b *testing.B) {
	srv := httptest.NewServer(klineHandler(b, true))
	c := newServerClient(b, srv, callToken)
	codes := codeList("K", 1000)
	report := func(b *testing.B, runs []memoryRun) {
		var peak, retained, result, worst float64
		for _, r := range runs {
			peak += float64(r.peak)
			retained += float64(r.retained)
			result += float64(r.result)
			worst = max(worst, r.ratio())
		}
		n := float64(len(runs))
		b.ReportMetric(peak/n, "peak-B")
		b.ReportMetric(retained/n, "retained-B")
		b.ReportMetric(result/n, "result-B")
		b.ReportMetric(peak/result, "peak/result")
		b.ReportMetric(worst, "worst-peak/result")
	}
	b.Run("sdk", func(b *testing.B) {
		var runs []memoryRun
		b.ReportAllocs()
		for b.Loop() {
			runs = append(runs, sdkKlineRun(b, c, codes))
		}
		report(b, runs)
	})
	b.Run("baseline", func(b *testing.B) {
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		var runs []memoryRun
		b.ReportAllocs()
		for b.Loop() {
			runs = append(runs, baselineKlineRun(b, hc, srv.URL, codes))
		}
		report(b, runs)
	})
}

// TestResultSizeEstimate checks seriesBytes, the yardstick of
// BenchmarkMemory, against what a decoded result really retains after a
// full collection, on a smaller fetch. An estimate above what is retained
// would flatter peak/result, so that side is tight; the other side leaves
// room for allocations by goroutines other tests left behind.
func TestResultSizeEstimate(t *testing.T) {
	c := newServerClient(t, httptest.NewServer(klineHandler(t, true)), callToken)
	r := sdkKlineRun(t, c, codeList("K", 100))
	if r.result < 100*500*int64(unsafe.Sizeof(itick.Kline{})) {
		t.Fatalf("estimate %d bytes is below the candles' own size", r.result)
	}
	if r.result > r.retained*102/100 || r.result < r.retained*80/100 {
		t.Errorf("fetch retained %d bytes, estimate %d; want the estimate within -20%% and +2%%", r.retained, r.result)
	}
}

// TestChunkedBodyCostsItsSize: a body of unknown length is decoded from
// the blocks the transport read it in, never joined into one buffer, so a
// call allocates about the body once plus the result it returns. Joining
// the blocks, as the client once did, allocated the body twice.
func TestChunkedBodyCostsItsSize(t *testing.T) {
	for _, declare := range []bool{false, true} {
		srv := httptest.NewServer(klineHandler(t, declare))
		c := newServerClient(t, srv, callToken, itick.WithBatchSize(40))
		codes := codeList("K", 40)
		call := func() (map[string][]itick.Kline, error) {
			return c.Stock.Klines(context.Background(), itick.RegionHK, codes, itick.OneMinute, 500)
		}
		if _, err := call(); err != nil { // the connection, the pools
			t.Fatal(err)
		}
		before := c.Stats().BytesRead
		var got map[string][]itick.Kline
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got, err := call()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		body := c.Stats().BytesRead - before
		rest := int64(m1.TotalAlloc-m0.TotalAlloc) - seriesBytes(got)
		t.Logf("declared %v: body %d bytes; allocated %d besides the result (%.2fx the body)", declare, body, rest, float64(rest)/float64(body))
		if body < 1<<20 || len(got) != len(codes) {
			t.Fatalf("read %d bytes for %d codes; want over 1 MiB for %d", body, len(got), len(codes))
		}
		// The body once, the last block's unused end and the request's own
		// allocations; joining would have added the body again.
		if limit := body + body/8 + 256<<10; rest > limit {
			t.Errorf("declared %v: allocated %d bytes besides the result for a %d-byte body, want at most %d", declare, rest, body, limit)
		}
		srv.Close()
	}
}

// The quota comparison fetches 1,000 quotes on the Free plan: batch size
// 10, so 100 requests, against a service allowing 5 calls in any 60 s.
// The quota lets the last of them start no earlier than
// floor((100-1)/5) * 60 s = 19 min after the first; that is the time the
// quota allows. The client's default limiter for the plan is a window of 5
// calls per 61 s (the plan's quota plus a second of margin).
const (
	quotaCodes  = 1000
	quotaWindow = time.Minute // the service's (and the simulator's) window
	// quotaClientWindow is the window of the client's default limiter;
	// TestPlanLimiterWindows ties it to the plan's.
	quotaClientWindow = time.Minute + time.Second
)

func quotaRequests(p itick.Plan) int { return (quotaCodes + p.BatchSize() - 1) / p.BatchSize() }

// quotaAllowed is the earliest the last request may start under the
// service's quota, counted from the first.
func quotaAllowed(p itick.Plan) time.Duration {
	return time.Duration((quotaRequests(p)-1)/p.CallsPerMinute()) * quotaWindow
}

// virtualClock is a markettest.ManualClock whose waits move it instead of
// sleeping.
type virtualClock struct{ *markettest.ManualClock }

func (c virtualClock) sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// TestQuotaFreePlanNeverRateLimited runs the Free-plan fetch on a virtual
// clock shared by the client's limiter and the simulator's quota, so the
// 19 minutes the quota allows pass at once. Requests go one at a time so
// each reaches the simulator at the instant its slot was granted. The
// client's window must draw no 429 and finish within 1.05x of what the
// quota allows; a window shorter than the service's must draw one, which
// shows the check can fail.
func TestQuotaFreePlanNeverRateLimited(t *testing.T) {
	t.Parallel()
	plan := itick.PlanFree
	tests := []struct {
		name    string
		per     time.Duration
		want429 bool
	}{
		{"client window", quotaClientWindow, false},
		{"window as long as the service's", quotaWindow, false},
		{"window shorter than the service's", quotaWindow - time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC)
			clock := virtualClock{markettest.NewManualClock(start)}
			lim := quota.NewWithClock(plan.CallsPerMinute(), tt.per, clock.Now, clock.sleep)
			c, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(plan), markettest.WithClock(clock.Now),
				markettest.WithQuota(plan.CallsPerMinute())}, itick.WithLimiter(lim), itick.WithConcurrency(1), itick.WithRetries(0))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, codeList("Q", quotaCodes))
			st := srv.Stats()
			if tt.want429 {
				if st.RateLimited == 0 || !errors.Is(err, itick.ErrRateLimited) {
					t.Fatalf("got %d 429s and error %v, want a 429 matching ErrRateLimited", st.RateLimited, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.RateLimited != 0 || st.Succeeded != quotaRequests(plan) || len(got) != quotaCodes {
				t.Fatalf("got %d 429s, %d answered requests, %d quotes; want 0, %d, %d",
					st.RateLimited, st.Succeeded, len(got), quotaRequests(plan), quotaCodes)
			}
			reqs := srv.Requests()
			took := reqs[len(reqs)-1].Time.Sub(reqs[0].Time)
			wantTook := time.Duration((quotaRequests(plan)-1)/plan.CallsPerMinute()) * tt.per
			if took != wantTook {
				t.Errorf("last request started %s after the first, want %s", took, wantTook)
			}
			if ratio := float64(took) / float64(quotaAllowed(plan)); ratio > 1.05 {
				t.Errorf("took %s, %.4fx the %s the quota allows, want at most 1.05x", took, ratio, quotaAllowed(plan))
			}
		})
	}
}

// scaledClock runs scale times faster than real time from its start.
type scaledClock struct {
	start, real time.Time
	scale       time.Duration
}

func (c scaledClock) Now() time.Time { return c.start.Add(time.Since(c.real) * c.scale) }

// BenchmarkQuota fetches 1,000 quotes on the Free plan with the SDK's
// defaults (concurrency 4, retries on) from a simulator enforcing 5 calls
// in any 60 s. ratio is the time from the first request to the end of the
// call over the time the quota allows (19 min); 429s/op counts refusals.
//
// By default time runs 100 times faster on both sides: the simulator's
// clock is scaled and the client's limiter is the plan's window divided by
// 100, so one operation takes about 12 s. ITICK_QUOTA_TEST=1 runs it in
// real time with the plan's default limiter instead, which takes about
// 19.5 minutes.
func BenchmarkQuota(b *testing.B) {
	plan := itick.PlanFree
	scale := time.Duration(100)
	if os.Getenv("ITICK_QUOTA_TEST") == "1" {
		scale = 1
	}
	var rateLimited, requests int
	var ratios float64
	for b.Loop() {
		clock := scaledClock{start: time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC), real: time.Now(), scale: scale}
		srv := markettest.NewServer(markettest.WithPlan(plan), markettest.WithClock(clock.Now),
			markettest.WithQuota(plan.CallsPerMinute()))
		opts := []itick.Option{itick.WithBaseURL(srv.URL), itick.WithPlan(plan)}
		if scale != 1 {
			opts = append(opts, itick.WithLimiter(quota.New(plan.CallsPerMinute(), quotaClientWindow/scale)))
		}
		c, err := itick.NewClient(srv.Token, opts...)
		if err != nil {
			b.Fatal(err)
		}
		got, err := c.Stock.Quotes(b.Context(), itick.RegionUS, codeList("Q", quotaCodes))
		end := clock.Now()
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != quotaCodes {
			b.Fatalf("got %d quotes, want %d", len(got), quotaCodes)
		}
		st := srv.Stats()
		rateLimited += st.RateLimited
		requests += st.Requests
		first := srv.Requests()[0].Time
		ratios += float64(end.Sub(first)) / float64(quotaAllowed(plan))
		srv.Close()
	}
	b.ReportMetric(float64(rateLimited)/float64(b.N), "429s/op")
	b.ReportMetric(float64(requests)/float64(b.N), "reqs/op")
	b.ReportMetric(ratios/float64(b.N), "ratio")
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
