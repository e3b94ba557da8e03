package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// testToken is the token every test client sends. Tests look for it in
// errors, logs and printed values, where it must never appear.
const testToken = "tok-7f3a9c-SECRET-d41d8c"

// mockBase is the default base URL, which the mock transport answers for.
const mockBase = itick.DefaultBaseURL

// fixture returns the bytes of testdata/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

// fastOpts keep retries and pacing quick unless a test is about them.
func fastOpts() []itick.Option {
	return []itick.Option{
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond),
		itick.WithRateLimit(rate.Inf, 0),
	}
}

// The client/server builders. Each gives a client with fastOpts unless a
// test's opts say otherwise; opts apply after them and win.

// newMockClient returns a client sending token whose requests go to a
// fresh httpmock transport.
func newMockClient(t testing.TB, token string, opts ...itick.Option) (*itick.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := append([]itick.Option{itick.WithHTTPClient(&http.Client{Transport: mt})}, fastOpts()...)
	c, err := itick.NewClient(token, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// newServerClient returns a client of the httptest server srv sending
// token, and closes srv when the test ends; a handler of srv with a Close
// method, such as a stream simulator, is closed first.
func newServerClient(t testing.TB, srv *httptest.Server, token string, opts ...itick.Option) *itick.Client {
	t.Helper()
	t.Cleanup(func() {
		if h, ok := srv.Config.Handler.(interface{ Close() }); ok {
			h.Close()
		}
		srv.Close()
	})
	all := append([]itick.Option{itick.WithBaseURL(srv.URL)}, fastOpts()...)
	c, err := itick.NewClient(token, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// ownTransport gives a client hc with a transport of its own, whose idle
// connections close when the test ends, for tests that check that no
// goroutine is left running.
func ownTransport(t testing.TB, hc *http.Client) itick.Option {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	hc.Transport = tr
	t.Cleanup(tr.CloseIdleConnections)
	return itick.WithHTTPClient(hc)
}

// e2eNow is the simulator's clock unless a test sets another.
var e2eNow = time.Date(2025, 6, 3, 14, 30, 15, 250_000_000, time.UTC)

// newSimClient starts the markettest simulator with simOpts, its clock
// stopped at e2eNow unless simOpts set another, closes it when the test
// ends, and returns its own client (markettest.Server.Client) with opts.
func newSimClient(t testing.TB, simOpts []markettest.Option, opts ...itick.Option) (*itick.Client, *markettest.Server) {
	t.Helper()
	srv := markettest.NewServer(append([]markettest.Option{markettest.WithClock(func() time.Time { return e2eNow })}, simOpts...)...)
	t.Cleanup(srv.Close)
	c, err := srv.Client(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// seen is what a responder saw of one request.
type seen struct {
	Path        string
	EscapedPath string // as sent
	Query       url.Values
	Header      http.Header
}

// recorder keeps every request a responder saw, safe for concurrent use.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (r *recorder) add(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, seen{Path: req.URL.Path, EscapedPath: req.URL.EscapedPath(), Query: req.URL.Query(), Header: req.Header.Clone()})
}

func (r *recorder) all() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// record wraps a responder so that rec sees every request it answers.
func record(rec *recorder, next httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		rec.add(req)
		return next(req)
	}
}

// body answers with status and a fixed body.
func body(status int, b string) httpmock.Responder {
	return httpmock.NewStringResponder(status, b)
}

// sequence answers each request with the next responder, repeating the
// last one when they run out.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	var n atomic.Int64
	return func(req *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		if i >= len(rs) {
			i = len(rs) - 1
		}
		return rs[i](req)
	}
}

// requestedCodes splits the codes query parameter of a request.
func requestedCodes(req *http.Request) []string {
	v := req.URL.Query().Get("codes")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// quotesEnvelope is a success envelope with one quote per code, except
// those in skip, whose Last is the code's position in codes.
func quotesEnvelope(codes []string, skip map[string]bool) string {
	data := map[string]any{}
	for i, c := range codes {
		if skip[c] {
			continue
		}
		data[c] = map[string]any{"s": c, "ld": i + 1, "t": 1765526889000, "ts": 0}
	}
	b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
	return string(b)
}

// echoQuotes answers a quotes request with one quote for each requested code.
func echoQuotes() httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, quotesEnvelope(requestedCodes(req), nil)), nil
	}
}

// countingLimiter (validation_test.go) counts its waits.

// blockingLimiter blocks every wait until ctx ends, signalling entered
// first.
type blockingLimiter struct{ entered chan struct{} }

func (l *blockingLimiter) Wait(ctx context.Context) error {
	select {
	case l.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// debugLogger logs every level to w, as text.
func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// ms is a Unix millisecond timestamp as the UTC time the SDK decodes.
func ms(v int64) time.Time { return time.UnixMilli(v).UTC() }

// sec is a Unix timestamp in seconds as the UTC time the SDK decodes.
func sec(v int64) time.Time { return time.Unix(v, 0).UTC() }

// lv builds a DepthLevel.
func lv(level int, price, volume, orders float64) itick.DepthLevel {
	return itick.DepthLevel{Level: level, Price: price, Volume: volume, Orders: orders}
}

// codes returns n distinct codes C0, C1, ...
func codes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("C%d", i)
	}
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// waitOrFail waits for ch, failing the test after a generous safety bound.
func waitOrFail[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// query is a url.Values of key-value pairs.
func query(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// fixtureData returns the data member of a fixture's envelope.
func fixtureData(t *testing.T, name string) json.RawMessage {
	t.Helper()
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(fixture(t, name), &env); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return env.Data
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
