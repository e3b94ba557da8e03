package itick_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// The soak test's size. ITICK_SOAK_CALLS and ITICK_SOAK_WORKERS override
// the defaults, which keep `go test ./...` within a few seconds; .ci/run
// runs a larger soak on its own.
const (
	soakDefaultCalls   = 3000
	soakDefaultWorkers = 200
	soakCodesPerClass  = 300 // codes to draw from in each asset class
	soakMaxBatchCodes  = 35  // a batch call carries 1 to this many codes: up to 4 chunks of 10
)

// soakFaultRate is the share of requests the simulator fails, with a 503 or
// a 429 (neither with a Retry-After), a connection dropped before the
// status line, a connection reset mid-body or a body cut short of its
// Content-Length. Every one of them is retryable.
const soakFaultRate = 0.05

// soakRetries is the client's retry budget. A call fails only if one of its
// requests fails on every attempt: with draws independent per request, that
// is soakFaultRate^(soakRetries+1) = 0.05^9 ≈ 2.0e-12 per request, so even
// 100 000 requests (a 30 000-call soak) fail a call with probability about
// 2e-7. Any failure is therefore a bug, not bad luck.
const soakRetries = 8

// soakHeapMargin is how far the live heap may end above its baseline. The
// baseline is taken after a warm-up at full concurrency, so it already holds
// what grows once to the peak number of connections and goroutines; what is
// left is the collector's noise, seen within ±200 KiB. Keeping 200 bytes a
// call would add 600 KiB over the default soak and 4 MiB over .ci/run's.
const soakHeapMargin = 512 << 10

// attemptCounter is a slog.Handler that counts the client's attempts and,
// among them, the retries (attempt 2 and later of a call).
type attemptCounter struct {
	attempts, retries *atomic.Int64
}

func (h attemptCounter) Enabled(context.Context, slog.Level) bool { return true }

func (h attemptCounter) Handle(_ context.Context, r slog.Record) error {
	h.attempts.Add(1)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "attempt" {
			if a.Value.Int64() > 1 {
				h.retries.Add(1)
			}
			return false
		}
		return true
	})
	return nil
}

func (h attemptCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h attemptCounter) WithGroup(string) slog.Handler      { return h }

func soakEnv(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// soakClass is one asset class as the soak test calls it: its region, its
// codes and the client's methods for it (nil where the class has none the
// simulator serves).
type soakClass struct {
	class  markettest.Class
	region itick.Region
	codes  []string
	quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
	depths func(context.Context, itick.Region, []string) (map[string]itick.DepthBook, error)
	klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	depth  func(context.Context, itick.Region, string) (*itick.DepthBook, error)
	ticks  func(context.Context, itick.Region, []string) (map[string]itick.Tick, error)
}

func soakClasses(c *itick.Client) []soakClass {
	codes := func(format string) []string {
		out := make([]string, soakCodesPerClass)
		for i := range out {
			out[i] = fmt.Sprintf(format, i+1)
		}
		return out
	}
	return []soakClass{
		{markettest.Stock, itick.RegionHK, codes("%d"), c.Stock.Quotes, c.Stock.Depths, c.Stock.Klines, c.Stock.Depth, c.Stock.Ticks},
		{markettest.Crypto, itick.RegionBA, codes("C%dUSDT"), c.Crypto.Quotes, c.Crypto.Depths, c.Crypto.Klines, c.Crypto.Depth, c.Crypto.Ticks},
		{markettest.Forex, itick.RegionGB, codes("FX%03d"), c.Forex.Quotes, c.Forex.Depths, c.Forex.Klines, c.Forex.Depth, c.Forex.Ticks},
		{markettest.Future, itick.RegionUS, codes("F%03d"), c.Future.Quotes, c.Future.Depths, c.Future.Klines, c.Future.Depth, c.Future.Ticks},
		{markettest.Fund, itick.RegionUS, codes("U%03d"), c.Fund.Quotes, c.Fund.Depths, c.Fund.Klines, c.Fund.Depth, c.Fund.Ticks},
		{markettest.Indices, itick.RegionGB, codes("I%03d"), c.Indices.Quotes, c.Indices.Depths, c.Indices.Klines, c.Indices.Depth, c.Indices.Ticks},
	}
}

// soakDiff is cmp.Diff, with reflect.DeepEqual first: it gives the same
// answer for equal values at a fraction of the cost, and the soak compares
// tens of thousands of them. cmp decides whenever DeepEqual says no.
func soakDiff[T any](want, got T) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

// soakCall makes call number i, drawn from a generator seeded with i, and
// compares its result with the generator's values at the server's clock.
// It returns how many requests the call needs when none fails, and the
// call's error, or a mismatch, as an error.
func soakCall(ctx context.Context, i int, classes []soakClass, g *markettest.Generator, batch int) (int, error) {
	rng := rand.New(rand.NewPCG(uint64(i), 0x50a4))
	kind := rng.IntN(5)
	sc := classes[rng.IntN(len(classes))]
	if kind == 3 {
		code := sc.codes[rng.IntN(len(sc.codes))]
		got, err := sc.depth(ctx, sc.region, code)
		if err != nil {
			return 1, fmt.Errorf("%s Depth %s: %w", sc.class, code, err)
		}
		if diff := soakDiff(g.Depth(sc.class, sc.region, code, e2eNow), *got); diff != "" {
			return 1, fmt.Errorf("%s Depth %s (-want +got):\n%s", sc.class, code, diff)
		}
		return 1, nil
	}

	n := 1 + rng.IntN(soakMaxBatchCodes)
	codes := make([]string, 0, n)
	for _, j := range rng.Perm(len(sc.codes))[:n] {
		codes = append(codes, sc.codes[j])
	}
	requests := (n + batch - 1) / batch
	var diff string
	var err error
	switch kind {
	case 0:
		var got map[string]itick.Quote
		if got, err = sc.quotes(ctx, sc.region, codes); err == nil {
			want := make(map[string]itick.Quote, n)
			for _, code := range codes {
				want[code] = wantQuote(g, sc.class, sc.region, code)
			}
			diff = soakDiff(want, got)
		}
	case 1:
		var got map[string]itick.DepthBook
		if got, err = sc.depths(ctx, sc.region, codes); err == nil {
			want := make(map[string]itick.DepthBook, n)
			for _, code := range codes {
				want[code] = g.Depth(sc.class, sc.region, code, e2eNow)
			}
			diff = soakDiff(want, got)
		}
	case 2:
		interval := []itick.Interval{itick.OneMinute, itick.FifteenMinutes, itick.OneDay}[rng.IntN(3)]
		limit := 1 + rng.IntN(10)
		var got map[string][]itick.Kline
		if got, err = sc.klines(ctx, sc.region, codes, interval, limit); err == nil {
			want := make(map[string][]itick.Kline, n)
			for _, code := range codes {
				want[code] = g.Klines(sc.class, sc.region, code, interval, limit, time.Time{}, e2eNow)
			}
			diff = soakDiff(want, got)
		}
	case 4:
		var got map[string]itick.Tick
		if got, err = sc.ticks(ctx, sc.region, codes); err == nil {
			want := make(map[string]itick.Tick, n)
			for _, code := range codes {
				want[code] = g.Tick(sc.class, sc.region, code, e2eNow)
			}
			diff = soakDiff(want, got)
		}
	}
	method := [...]string{"Quotes", "Depths", "Klines", "", "Ticks"}[kind]
	if err != nil {
		return requests, fmt.Errorf("%s %s of %d codes: %w", sc.class, method, n, err)
	}
	if diff != "" {
		return requests, fmt.Errorf("%s %s of %d codes (-want +got):\n%s", sc.class, method, n, diff)
	}
	return requests, nil
}

// liveHeap returns the bytes of live heap objects after a full collection.
// Two collections: the first empties sync.Pools into their victim caches,
// the second frees those.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

type soakFailure struct {
	call int
	err  error
}

// soakRun makes the calls numbered from up to but not including to, from
// the given number of goroutines, calling before (when not nil) ahead of
// handing each call out; it stops handing calls out once ctx ends. It returns
// the sum of the requests the calls need when none fails, and the calls
// that failed.
func soakRun(ctx context.Context, from, to, workers int, call func(i int) (int, error), before func(i int)) (int64, []soakFailure) {
	var (
		mu       sync.Mutex
		failures []soakFailure
		wg       sync.WaitGroup
		needed   atomic.Int64
	)
	jobs := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				n, err := call(i)
				needed.Add(int64(n))
				if err != nil {
					mu.Lock()
					failures = append(failures, soakFailure{i, err})
					mu.Unlock()
				}
			}
		}()
	}
	for i := from; i < to && ctx.Err() == nil; i++ {
		if before != nil {
			before(i)
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return needed.Load(), failures
}

// settledHeap closes the client's idle connections, waits for the server
// to end the goroutines that served them (each holds its own buffers),
// and returns the live heap. serverIdle covers the goroutines that ran
// while the server had no connection.
func settledHeap(ctx context.Context, t *testing.T, tr *http.Transport, serverIdle goleak.Option) uint64 {
	t.Helper()
	tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, leakWait)
	defer cancel()
	if err := settled(ctx, serverIdle); err != nil {
		t.Fatalf("goroutines still run after closing the idle connections: %v", err)
	}
	return liveHeap()
}

// TestSoak makes thousands of concurrent calls on one client against the
// simulator while it fails a share of requests at random. Every call must
// succeed with exactly the generator's values for every code it asked
// for, and once the calls are over the goroutines and the live heap must
// come back to their baselines.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test: skipped with -short")
	}
	calls := soakEnv(t, "ITICK_SOAK_CALLS", soakDefaultCalls)
	workers := min(soakEnv(t, "ITICK_SOAK_WORKERS", soakDefaultWorkers), calls)

	checkGoroutines(t)
	before := goleak.IgnoreCurrent()
	goroutinesBefore := runtime.NumGoroutine()

	clock := markettest.NewManualClock(e2eNow)
	var attempts, retries atomic.Int64
	// Enough idle connections for every chunk in flight, so the soak does
	// not also churn through ephemeral ports.
	tr := &http.Transport{MaxIdleConnsPerHost: workers * itick.DefaultConcurrency}
	t.Cleanup(tr.CloseIdleConnections)
	client, srv := newSimClient(t, []markettest.Option{markettest.WithClock(clock.Now), markettest.WithSeed(5),
		markettest.WithRecordLimit(1)},
		itick.WithHTTPClient(&http.Client{Transport: tr}),
		itick.WithRetries(soakRetries),
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond),
		itick.WithRateLimit(rate.Inf, 0),
		itick.WithLogger(slog.New(attemptCounter{&attempts, &retries})),
	)
	// What the server runs while no request is open: its accept loop.
	serverIdle := goleak.IgnoreCurrent()
	classes := soakClasses(client)
	g := srv.Generator()
	batch := client.BatchSize()

	// A safety net only: the calls end long before it.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	// The soak's faults switch between 503 and 429 every quarter of the calls;
	// SetRandomFaults is safe while requests are in flight.
	faultsFor := func(quarter int) markettest.RandomFaults {
		status := http.StatusServiceUnavailable
		if quarter%2 == 1 {
			status = http.StatusTooManyRequests
		}
		return markettest.RandomFaults{
			Probability: soakFaultRate,
			Seed:        uint64(100 + quarter),
			Kinds: []markettest.FaultKind{markettest.FaultStatus, markettest.FaultDrop,
				markettest.FaultDropMidBody, markettest.FaultTruncate},
			Status: status,
		}
	}

	// Warm up at full concurrency with faults, so the baseline heap
	// already holds what the client, the server and the runtime grow once
	// to the peak number of connections and goroutines (pools, connection
	// tables, goroutine records), and see the soak add nothing to it.
	srv.SetRandomFaults(faultsFor(0))
	_, warmFailures := soakRun(ctx, -2*workers, 0, workers, func(i int) (int, error) {
		return soakCall(ctx, i, classes, g, batch)
	}, nil)
	if len(warmFailures) > 0 {
		t.Fatalf("warm-up call %d: %v", warmFailures[0].call, warmFailures[0].err)
	}
	srv.ClearFaults()
	srv.Reset()
	attempts.Store(0)
	retries.Store(0)
	heapBefore := settledHeap(ctx, t, tr, serverIdle)

	start := time.Now()
	needed, failures := soakRun(ctx, 0, calls, workers, func(i int) (int, error) {
		return soakCall(ctx, i, classes, g, batch)
	}, func(i int) {
		if q := i * 4 / calls; i == 0 || q != (i-1)*4/calls {
			srv.SetRandomFaults(faultsFor(q))
		}
	})
	elapsed := time.Since(start)
	srv.ClearFaults()
	stats := srv.Stats()

	heapAfter := settledHeap(ctx, t, tr, serverIdle)
	runtime.KeepAlive(client)

	srv.Close()
	// The figure is for the log; checkGoroutines fails the test on a leak.
	waitCtx, waitCancel := context.WithTimeout(ctx, leakWait)
	_ = settled(waitCtx, before)
	waitCancel()
	goroutinesAfter := runtime.NumGoroutine()

	t.Logf("calls %d from %d goroutines in %v; requests %d (%d needed without faults), faults injected %d, "+
		"retries %d, failures %d", calls, workers, elapsed.Round(time.Millisecond), stats.Requests, needed,
		stats.Faults, retries.Load(), len(failures))
	t.Logf("live heap %d KiB before, %d KiB after (margin %d KiB); goroutines %d before, %d after",
		heapBefore>>10, heapAfter>>10, soakHeapMargin>>10, goroutinesBefore, goroutinesAfter)

	for k, f := range failures {
		if k == 5 {
			t.Errorf("... and %d more failed calls", len(failures)-k)
			break
		}
		t.Errorf("call %d: %v", f.call, f.err)
	}
	if stats.Faults == 0 || retries.Load() == 0 {
		t.Errorf("%d faults injected and %d retries: the soak did not exercise the retries", stats.Faults, retries.Load())
	}
	if got := int64(stats.Requests); got < needed {
		t.Errorf("the server saw %d requests, fewer than the %d the calls need", got, needed)
	}
	if got := attempts.Load(); got < needed {
		t.Errorf("the client logged %d attempts, fewer than the %d the calls need", got, needed)
	}
	// Every retry answers a failed attempt, and only injected faults fail.
	if r := retries.Load(); r > int64(stats.Faults) {
		t.Errorf("%d retries for %d injected faults: some attempts failed without a fault", r, stats.Faults)
	}
	if heapAfter > heapBefore+soakHeapMargin {
		t.Errorf("live heap grew from %d to %d bytes over the soak, more than the %d-byte margin",
			heapBefore, heapAfter, soakHeapMargin)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("the soak ran into its safety deadline")
	}
}
