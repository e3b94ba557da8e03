package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/batch"
)

// The memory a large K-line call holds at its peak and keeps, against a
// hand-written baseline.

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
