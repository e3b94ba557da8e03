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

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Helpers for HTTP tests: fixtures and the values they decode to,
// httpmock responders, and handlers for httptest servers.

// Fixtures and values.

// fixture returns the bytes of testdata/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
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

// quote700 is a whole quote of 700 in the service's wire form.
const quote700 = `{"s":"700","ld":616,"o":608,"p":608,"h":616,"l":601.5,"t":1765526889000,"v":17825495,"tu":10871536434.36,"ts":0,"ch":8,"chp":1.32}`

// quotesOK is a quotes answer holding quote700.
const quotesOK = `{"code":0,"msg":null,"data":{"700":` + quote700 + `}}`

// okQuotes is a quotes answer holding a bare quote of 700.
const okQuotes = `{"code":0,"msg":null,"data":{"700":{"s":"700","ld":616}}}`

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

// wantQuote is the generator's quote as the SDK decodes it: crypto quotes
// carry no p, ch and chp, so those stay zero.
func wantQuote(g *markettest.Generator, class markettest.Class, region itick.Region, code string) itick.Quote {
	q := g.Quote(class, region, code, e2eNow)
	if class == markettest.Crypto {
		q.PrevClose, q.Change, q.ChangePercent = 0, 0, 0
	}
	return q
}

// ms is a Unix millisecond timestamp as the UTC time the SDK decodes.
func ms(v int64) time.Time { return time.UnixMilli(v).UTC() }

// sec is a Unix timestamp in seconds as the UTC time the SDK decodes.
func sec(v int64) time.Time { return time.Unix(v, 0).UTC() }

// date is midnight UTC of a day.
func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

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

// query is a url.Values of key-value pairs.
func query(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// httpmock responders.

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

// echoQuotes answers a quotes request with one quote for each requested code.
func echoQuotes() httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, quotesEnvelope(requestedCodes(req), nil)), nil
	}
}

// Fake services: handlers for httptest servers.

// script is a handler that records what reaches it and answers every
// request with the next of its replies, repeating the last.
type script struct {
	mu      sync.Mutex
	reqs    []*http.Request
	replies []scriptReply
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Clone(context.Background()))
	rep := s.replies[min(len(s.reqs), len(s.replies))-1]
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rep.status)
	fmt.Fprint(w, rep.body)
}

func (s *script) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

// scriptReply is one reply of a script.
type scriptReply struct {
	status int
	header http.Header
	body   string
}

// newScript answers with replies in turn.
func newScript(replies ...scriptReply) *script { return &script{replies: replies} }

// ok is a 200 reply with body.
func ok(body string) scriptReply { return scriptReply{status: 200, body: body} }

// faultHandler counts the requests it gets and hands each to serve with
// its number. Handlers that block select on done, which Close closes;
// newServerClient closes the handler before the server.
type faultHandler struct {
	serve func(h *faultHandler, w http.ResponseWriter, r *http.Request, n int)
	hits  atomic.Int32
	done  chan struct{}
	once  sync.Once
}

func (h *faultHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(h, w, r, int(h.hits.Add(1)))
}

// Close ends the requests that wait on done.
func (h *faultHandler) Close() { h.once.Do(func() { close(h.done) }) }

// newFaultHandler counts requests for serve.
func newFaultHandler(serve func(h *faultHandler, w http.ResponseWriter, r *http.Request, n int)) *faultHandler {
	return &faultHandler{serve: serve, done: make(chan struct{})}
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
