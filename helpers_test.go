package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

// newMockClient returns a client whose requests go to a fresh mock
// transport; opts apply after the fast defaults, so they win.
func newMockClient(t testing.TB, opts ...itick.Option) (*itick.Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	all := append([]itick.Option{itick.WithHTTPClient(&http.Client{Transport: mt})}, fastOpts()...)
	c, err := itick.NewClient(testToken, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, mt
}

// newServerClient returns a client talking to the httptest server at base.
func newServerClient(t testing.TB, base string, opts ...itick.Option) *itick.Client {
	t.Helper()
	all := append([]itick.Option{itick.WithBaseURL(base)}, fastOpts()...)
	c, err := itick.NewClient(testToken, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// seen is what a responder saw of one request.
type seen struct {
	Path   string
	Query  url.Values
	Header http.Header
}

// recorder keeps every request a responder saw, safe for concurrent use.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (r *recorder) add(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, seen{Path: req.URL.Path, Query: req.URL.Query(), Header: req.Header.Clone()})
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

// withHeader sets a response header on what next answers.
func withHeader(next httpmock.Responder, key, value string) httpmock.Responder {
	return next.HeaderSet(http.Header{key: {value}})
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

// ms is a Unix millisecond timestamp as the UTC time the SDK decodes.
func ms(v int64) time.Time { return time.UnixMilli(v).UTC() }

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
