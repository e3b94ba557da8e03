package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/markettest"
)

// waitBound is how long a test waits for a state; generous, so a loaded
// machine does not fail it. A stream reconnection may wait out the
// stream's 15 s dial timeout.
const waitBound = 60 * time.Second

var servingRE = regexp.MustCompile(`Serving on (http://127\.0\.0\.1:\d+) `)

// waitServing returns the URL the program's output says it serves on, or
// fails the test when done reports first or the bound passes.
func waitServing(t *testing.T, out *testutil.SyncBuffer, done <-chan error) string {
	t.Helper()
	return exampletest.WaitMatch(t, out, servingRE, done, waitBound)[1]
}

// startService serves the service for sim with the given flags and
// returns its base URL. At cleanup it stops the service and checks that
// it stopped cleanly.
func startService(t *testing.T, sim *markettest.Server, args ...string) string {
	t.Helper()
	return startServiceWith(t, sim, nil, args...)
}

// startServiceWith is startService with options for the SDK client.
func startServiceWith(t *testing.T, sim *markettest.Server, clientOpts []itick.Option, args ...string) string {
	t.Helper()
	cfg, err := parseConfig(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.Client(clientOpts...)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := new(testutil.SyncBuffer)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, c, cfg, ln, out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(waitBound):
			t.Errorf("the service did not stop:\n%s", out.String())
		}
	})
	return waitServing(t, out, done)
}

// get fetches url and decodes its JSON body into v, if v is not nil.
func get(t *testing.T, url string, v any) *http.Response {
	t.Helper()
	hc := &http.Client{Timeout: waitBound}
	defer hc.CloseIdleConnections()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %s: %v in %q", url, resp.Status, err, body)
		}
	}
	return resp
}

// quotes fetches /quotes and returns the quotes by symbol.
func quotes(t *testing.T, base, codes string) (map[string]quoteJSON, quotesJSON) {
	t.Helper()
	var out quotesJSON
	url := base + "/quotes"
	if codes != "" {
		url += "?codes=" + codes
	}
	if resp := get(t, url, &out); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /quotes?codes=%s: %s", codes, resp.Status)
	}
	bySymbol := make(map[string]quoteJSON)
	for _, q := range out.Quotes {
		bySymbol[q.Symbol] = q
	}
	return bySymbol, out
}

// allFrom reports whether every one of symbols is served from source.
func allFrom(t *testing.T, base, source string, symbols ...string) bool {
	t.Helper()
	got, _ := quotes(t, base, strings.Join(symbols, ","))
	for _, s := range symbols {
		if got[s].Source != source {
			return false
		}
	}
	return true
}

// want is the quote the simulator serves of a product at its clock's
// time, as the service should answer it.
func want(sim *markettest.Server, class markettest.Class, region itick.Region, code, symbol, source string) quoteJSON {
	q := sim.Generator().Quote(class, region, code, sim.Now())
	if class == markettest.Crypto {
		q.PrevClose, q.Change, q.ChangePercent = 0, 0, 0 // the service sends none
	}
	return newQuoteJSON(symbol, entry{quote: q, source: source})
}

// approx compares prices to the cent: the simulator's REST change fields
// are rounded, the stream's are computed from the previous close.
var approx = cmpopts.EquateApprox(0, 0.006)

func TestServesStreamedQuotes(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.HongKongTrading))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK,9988$HK", "-crypto", "BTCUSDT$BA")

	exampletest.WaitFor(t, waitBound, "every product is streamed", func() bool {
		return allFrom(t, base, sourceStream, "700$HK", "9988$HK", "BTCUSDT$BA")
	})
	got, _ := quotes(t, base, "700$hk,BTCUSDT$BA") // any case
	wants := []quoteJSON{
		want(sim, markettest.Stock, itick.RegionHK, "700", "700$HK", sourceStream),
		want(sim, markettest.Crypto, itick.RegionBA, "BTCUSDT", "BTCUSDT$BA", sourceStream),
	}
	if wants[0].PrevClose == nil {
		t.Fatal("the simulator's stock quote has no previous close")
	}
	for _, w := range wants {
		if diff := cmp.Diff(w, got[w.Symbol], approx); diff != "" {
			t.Errorf("%s (-want +got):\n%s", w.Symbol, diff)
		}
	}
}

func TestOutageServesRESTUntilTheGap(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.HongKongTrading))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK", "-crypto", "BTCUSDT$BA")
	symbols := []string{"700$HK", "BTCUSDT$BA"}
	exampletest.WaitFor(t, waitBound, "every product is streamed", func() bool { return allFrom(t, base, sourceStream, symbols...) })

	// Lost connections whose replacements hang until the stream speaks.
	sim.SetStreamSilent(true)
	sim.DropStreams()
	var h healthJSON
	exampletest.WaitFor(t, waitBound, "/healthz reports both connections down", func() bool {
		h = healthJSON{}
		get(t, base+"/healthz", &h)
		return h.Status == "degraded" && h.Streams[itick.AssetStock].Down == 1 && h.Streams[itick.AssetCrypto].Down == 1 &&
			h.Streams[itick.AssetStock].ProductsDown == 1 && h.Streams[itick.AssetCrypto].ProductsDown == 1
	})
	got, _ := quotes(t, base, strings.Join(symbols, ","))
	for _, w := range []quoteJSON{
		want(sim, markettest.Stock, itick.RegionHK, "700", "700$HK", sourceREST),
		want(sim, markettest.Crypto, itick.RegionBA, "BTCUSDT", "BTCUSDT$BA", sourceREST),
	} {
		if diff := cmp.Diff(w, got[w.Symbol], approx); diff != "" {
			t.Errorf("%s during the outage (-want +got):\n%s", w.Symbol, diff)
		}
	}

	// The stream speaks again; drop the attempts that hung meanwhile.
	sim.SetStreamSilent(false)
	sim.DropStreams()
	exampletest.WaitFor(t, waitBound, "/healthz reports both streams renewed", func() bool {
		h = healthJSON{}
		resp := get(t, base+"/healthz", &h)
		return resp.StatusCode == http.StatusOK && h.Status == "ok" &&
			h.Streams[itick.AssetStock].Gaps >= 1 && h.Streams[itick.AssetCrypto].Gaps >= 1
	})
	exampletest.WaitFor(t, waitBound, "every product is streamed again", func() bool { return allFrom(t, base, sourceStream, symbols...) })
}

// TestSilentCryptoConnectionIsReplaced: a crypto connection that answers
// pings but pushes nothing is replaced (-crypto-stale-after), and its
// pairs come from REST meanwhile.
func TestSilentCryptoConnectionIsReplaced(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.Weekend)) // crypto trades on a Saturday
	defer sim.Close()
	base := startService(t, sim, "-stocks", "", "-crypto", "BTCUSDT$BA", "-crypto-stale-after", "1s")
	exampletest.WaitFor(t, waitBound, "BTCUSDT$BA is streamed", func() bool { return allFrom(t, base, sourceStream, "BTCUSDT$BA") })

	sim.SetStreamPaused(true) // pings answered, nothing pushed
	exampletest.WaitFor(t, waitBound, "the silent connection is replaced and REST serves", func() bool {
		var h healthJSON
		get(t, base+"/healthz", &h)
		return h.Streams[itick.AssetCrypto].Reconnects >= 1 && allFrom(t, base, sourceREST, "BTCUSDT$BA")
	})
}

func TestUpstreamErrorStatuses(t *testing.T) {
	t.Parallel()
	// A limiter whose one slot the previous close's snapshot takes at
	// start, as a busy shared limiter would have: the next is an hour off.
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	for _, tt := range []struct {
		name       string
		clientOpts []itick.Option
		fault      func(*markettest.Server)
		timeout    string
		wantStatus int
		// wantRetryAfter bounds the Retry-After in seconds; 0 means none.
		wantRetryAfter [2]int
	}{
		// The quota's Retry-After (up to a minute) passes the deadline:
		// the call ends at once, matching ErrRateLimited and
		// context.DeadlineExceeded both.
		{"quota spent", nil, func(s *markettest.Server) { s.SetQuota(1) }, "10s", http.StatusTooManyRequests, [2]int{1, 60}},
		// The slot lies past the deadline: refused at once, and the wait
		// the limiter refused, an hour, is how long to wait.
		{"client's limiter spent", []itick.Option{itick.WithLimiter(lim)}, func(*markettest.Server) { lim.Allow() },
			"10s", http.StatusTooManyRequests, [2]int{3590, 3600}},
		{"slow network", nil, func(s *markettest.Server) { s.AddLatency(time.Minute) }, "500ms", http.StatusGatewayTimeout, [2]int{}},
		{"token refused", nil, func(s *markettest.Server) { s.FailNext(1, http.StatusUnauthorized) }, "10s", http.StatusServiceUnavailable, [2]int{}},
		{"service failing", nil, func(s *markettest.Server) { s.FailNext(1000, http.StatusInternalServerError) }, "10s", http.StatusBadGateway, [2]int{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Stocks are not pushed on a Saturday: every quote is fetched.
			sim := markettest.NewServer(exampletest.At(exampletest.Weekend))
			defer sim.Close()
			base := startServiceWith(t, sim, tt.clientOpts, "-stocks", "700$HK", "-crypto", "", "-rest-ttl", "0", "-timeout", tt.timeout)
			tt.fault(sim)
			defer sim.ClearFaults()
			if tt.name == "quota spent" {
				if got, _ := quotes(t, base, "700$HK"); got["700$HK"].Source != sourceREST {
					t.Fatalf("the quota's one call: %+v, want a REST quote", got)
				}
			}
			var body struct{ Error string }
			resp := get(t, base+"/quotes?codes=700$HK", &body)
			if resp.StatusCode != tt.wantStatus || body.Error == "" {
				t.Fatalf("status %s, error %q; want %d with an error", resp.Status, body.Error, tt.wantStatus)
			}
			ra := resp.Header.Get("Retry-After")
			if tt.wantRetryAfter == [2]int{} {
				if ra != "" {
					t.Errorf("Retry-After %q on a %d", ra, tt.wantStatus)
				}
				return
			}
			if secs, err := strconv.Atoi(ra); err != nil || secs < tt.wantRetryAfter[0] || secs > tt.wantRetryAfter[1] {
				t.Errorf("Retry-After %q, want whole seconds from %d to %d", ra, tt.wantRetryAfter[0], tt.wantRetryAfter[1])
			}
		})
	}
}

// TestFailedChunkKeepsWhatArrived: when one chunk of the REST fallback
// fails, the request fails with its status, and the quotes that arrived
// serve the retry, which asks only for the rest.
func TestFailedChunkKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.Weekend), markettest.WithBatchSize(1))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK,9988$HK", "-crypto", "", "-rest-ttl", "1h")
	sim.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusInternalServerError, Code: "9988"})
	if resp := get(t, base+"/quotes?codes=700$HK,9988$HK", nil); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("with 9988's chunk failing: %s, want 502", resp.Status)
	}

	sim.ClearFaults()
	sim.Reset()
	got, _ := quotes(t, base, "700$HK,9988$HK")
	if got["700$HK"].Source != sourceREST || got["9988$HK"].Source != sourceREST {
		t.Errorf("after the failure: %+v, want both from REST", got)
	}
	var asked [][]string
	for _, r := range sim.Requests() {
		asked = append(asked, r.Codes())
	}
	if diff := cmp.Diff([][]string{{"9988"}}, asked); diff != "" {
		t.Errorf("codes asked for by the retry (-want +got):\n%s", diff)
	}
}

func TestStatusOf(t *testing.T) {
	t.Parallel()
	retry := &itick.APIError{StatusCode: http.StatusTooManyRequests, RetryAfter: 7 * time.Second}
	for _, tt := range []struct {
		name       string
		err        error
		wantStatus int
		wantRetry  time.Duration
	}{
		{"429", retry, http.StatusTooManyRequests, 7 * time.Second},
		{"429 in a batch", &itick.BatchError{Chunks: []itick.ChunkError{{Codes: []string{"700"}, Err: retry}}},
			http.StatusTooManyRequests, 7 * time.Second},
		{"quota past the deadline, wait unknown", errors.Join(itick.ErrRateLimited, context.DeadlineExceeded), http.StatusTooManyRequests, 0},
		{"quota past the deadline", errors.Join(context.DeadlineExceeded, retry), http.StatusTooManyRequests, 7 * time.Second},
		{"deadline", context.DeadlineExceeded, http.StatusGatewayTimeout, 0},
		{"refused token", &itick.APIError{StatusCode: http.StatusUnauthorized}, http.StatusServiceUnavailable, 0},
		{"server error", &itick.APIError{StatusCode: http.StatusInternalServerError}, http.StatusBadGateway, 0},
		{"plan limit", &itick.APIError{StatusCode: http.StatusOK, Message: markettest.MsgPlanLimit}, http.StatusBadGateway, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, retry := statusOf(tt.err)
			if status != tt.wantStatus || retry != tt.wantRetry {
				t.Errorf("statusOf(%v) = %d, %v; want %d, %v", tt.err, status, retry, tt.wantStatus, tt.wantRetry)
			}
		})
	}
}

func TestOutsideThePlanIsMissing(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.HongKongTrading),
		markettest.WithRegions(itick.RegionHK))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK,AAPL$US", "-crypto", "")
	exampletest.WaitFor(t, waitBound, "700$HK is streamed", func() bool { return allFrom(t, base, sourceStream, "700$HK") })

	_, got := quotes(t, base, "700$HK,AAPL$US")
	if len(got.Quotes) != 1 || got.Quotes[0].Symbol != "700$HK" {
		t.Errorf("quotes %+v, want 700$HK's alone", got.Quotes)
	}
	if diff := cmp.Diff([]string{"AAPL$US"}, got.Missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	sim := markettest.NewServer(exampletest.At(exampletest.Weekend))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK", "-crypto", "BTCUSDT$BA")
	for _, tt := range []struct {
		path       string
		wantStatus int
		wantError  string
	}{
		{"/quotes?codes=9988$HK", http.StatusBadRequest, `"9988$HK" is not a product this service streams`},
		{"/quotes?codes=700$HK,,BTCUSDT$BA", http.StatusBadRequest, "an empty code"},
		{"/quotes?codes=", http.StatusBadRequest, "an empty code"},
		{"/quotes?codes=700", http.StatusBadRequest, `"700" is not a product`},
		{"/nothing", http.StatusNotFound, ""},
	} {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			var body struct{ Error string }
			var v any = &body
			if tt.wantError == "" {
				v = nil
			}
			resp := get(t, base+tt.path, v)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body.Error, tt.wantError) {
				t.Errorf("%s, error %q; want %d with %q", resp.Status, body.Error, tt.wantStatus, tt.wantError)
			}
		})
	}
	// Without codes, every product, in the configured order, each once.
	_, all := quotes(t, base, "")
	var symbols []string
	for _, q := range all.Quotes {
		symbols = append(symbols, q.Symbol)
	}
	if diff := cmp.Diff([]string{"700$HK", "BTCUSDT$BA"}, symbols); diff != "" {
		t.Errorf("GET /quotes (-want +got):\n%s", diff)
	}
	resp, err := http.Post(base+"/quotes", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /quotes: %s, want 405", resp.Status)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"-stocks", " 700$hk , AAPL$US", "-crypto", "BTCUSDT$BA"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	wantProducts := []product{
		{"700$hk", itick.AssetStock, "700", itick.RegionHK},
		{"AAPL$US", itick.AssetStock, "AAPL", itick.RegionUS},
		{"BTCUSDT$BA", itick.AssetCrypto, "BTCUSDT", itick.RegionBA},
	}
	if diff := cmp.Diff(wantProducts, cfg.products, cmp.AllowUnexported(product{})); diff != "" {
		t.Errorf("products (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-stocks", "700"}, `-stocks: product "700" is not code$REGION`},
		{[]string{"-crypto", "BTCUSDT$BA,"}, `-crypto: product "" is not code$REGION`},
		{[]string{"-stocks", "600519$SHSE$CN"}, "is not code$REGION"},
		{[]string{"-stocks", "700$HK,700$hk"}, `"700$hk" is listed twice`},
		{[]string{"-stocks", "", "-crypto", " "}, "no products"},
		{[]string{"-timeout", "0s"}, "-timeout must be positive"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		if _, err := parseConfig(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseConfig(%q) = %v, want an error saying %q", tt.args, err, tt.want)
		}
	}
	var buf bytes.Buffer
	if _, err := parseConfig([]string{"-h"}, &buf); !errors.Is(err, flag.ErrHelp) ||
		!strings.HasPrefix(buf.String(), "Usage: service [flags]\n\nService streams ") {
		t.Errorf("-h: %v, printed %q", err, buf.String())
	}
}

// TestDebugVars reads both counters from /debug/vars, snake case. Not
// parallel: the expvar variables are the process's, and read the service
// published last.
func TestDebugVars(t *testing.T) {
	sim := markettest.NewServer(exampletest.At(exampletest.HongKongTrading))
	defer sim.Close()
	base := startService(t, sim, "-stocks", "700$HK", "-crypto", "BTCUSDT$BA")
	exampletest.WaitFor(t, waitBound, "every product is streamed", func() bool { return allFrom(t, base, sourceStream, "700$HK", "BTCUSDT$BA") })

	var vars struct {
		Client  map[string]float64            `json:"itick_client"`
		Streams map[string]map[string]float64 `json:"itick_streams"`
	}
	get(t, base+"/debug/vars", &vars)
	for _, k := range []string{"requests", "errors", "attempts", "retries", "rate_limited", "bytes_read", "limiter_wait_ns"} {
		if _, ok := vars.Client[k]; !ok {
			t.Errorf("itick_client has no %q: %v", k, vars.Client)
		}
	}
	// One snapshot of the previous close, and one REST call per request
	// made before the first pushes.
	if vars.Client["requests"] < 1 || vars.Client["errors"] != 0 {
		t.Errorf("itick_client %v, want requests and no errors", vars.Client)
	}
	for _, class := range []string{"stock", "crypto"} {
		st := vars.Streams[class]
		if st["conns"] != 1 || st["down"] != 0 || st["symbols"] != 1 || st["events"] < 1 {
			t.Errorf("itick_streams.%s = %v, want one connection up with one product pushed", class, st)
		}
	}
}

// TestRunStopsCleanly runs the program as a user would, then cancels it
// as a signal does: run returns nil and leaves no goroutine behind. Not
// parallel: goleak sees the whole process.
func TestRunStopsCleanly(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	before := goleak.IgnoreCurrent()
	out := new(testutil.SyncBuffer)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, out, exampletest.At(exampletest.HongKongTrading))
	}()
	base := waitServing(t, out, done)
	exampletest.WaitFor(t, waitBound, "700$HK is streamed", func() bool { return allFrom(t, base, sourceStream, "700$HK") })
	exampletest.CheckOffline(t, out.String())

	cancel()
	if err := exampletest.Returned(t, done, waitBound); err != nil {
		t.Fatalf("run: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for err := goleak.Find(before); err != nil; err = goleak.Find(before) {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after run returned: %v", err)
		}
	}
}

// TestMain lets the tests run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	t.Parallel()
	exampletest.MainHelp(t, "Usage: service [flags]\n\nService streams ", "GET /healthz")
}

// TestMainExitsZeroOnSIGTERM starts the program, asks it for its health,
// then sends it SIGTERM: it exits with status 0.
func TestMainExitsZeroOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 2*waitBound)
	defer cancel()
	cmd := exampletest.Command(ctx, exampletest.HongKongTrading, "-addr", "127.0.0.1:0", "-stocks", "700$HK", "-crypto", "BTCUSDT$BA")
	var out, stderr testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	base := waitServing(t, &out, done)
	var h healthJSON
	if resp := get(t, base+"/healthz", &h); resp.StatusCode != http.StatusOK || len(h.Streams) != 2 {
		t.Errorf("/healthz: %s %+v", resp.Status, h)
	}
	// The process's simulator stands at the instant Command gave it.
	if got, _ := quotes(t, base, "700$HK"); !got["700$HK"].Time.Equal(exampletest.HongKongTrading) {
		t.Errorf("700$HK's quote %+v, want one at %s", got["700$HK"], exampletest.HongKongTrading)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
}
