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

	"github.com/coder/websocket"
	"github.com/jarcoal/httpmock"
	"go.uber.org/goleak"
	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
	"github.com/d19c4e34/itick/markettest"
)

// The helpers every test file shares: three client builders (one per
// kind of fake service), fixtures, fake services, waits and leak checks.

// testToken is the token most test clients send. Tests look for it in
// errors, logs and printed values, where it must never appear.
const testToken = "tok-7f3a9c-SECRET-d41d8c"

// faultToken is the token of the clients of the fault, secret and
// validation tests; they look for it where it must not be.
const faultToken = "tok-7f3a9c-do-not-leak"

// simToken is the token a stream simulator accepts unless told otherwise.
const simToken = "stream-test-token"

// mockBase is the default base URL, which the mock transport answers for.
const mockBase = itick.DefaultBaseURL

// e2eNow is the simulator's clock unless a test sets another.
var e2eNow = time.Date(2025, 6, 3, 14, 30, 15, 250_000_000, time.UTC)

// faultCallTimeout bounds every call: a call that does not end by then has
// failed to stop on its own.
const faultCallTimeout = 2 * time.Second

// Builders.

// fastOpts keep retries and pacing quick unless a test is about them.
func fastOpts() []itick.Option {
	return []itick.Option{
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond),
		itick.WithRateLimit(rate.Inf, 0),
	}
}

// newMockClient returns a client sending token whose requests go to a
// fresh httpmock transport, with fastOpts; opts apply after those and win.
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
// token, with fastOpts; opts apply after those and win. It closes srv when
// the test ends, and first srv's handler if it has a Close method, as the
// stream simulator and the fake services below do.
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

// ownTransport gives a client hc with a transport of its own, whose idle
// connections close when the test ends, for tests that check that no
// goroutine is left running.
func ownTransport(t testing.TB, hc *http.Client) itick.Option {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	hc.Transport = tr
	t.Cleanup(tr.CloseIdleConnections)
	return itick.WithHTTPClient(hc)
}

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

// streamSim is a stream simulator with cfg that accepts simToken unless
// cfg names another token; newServerClient serves it and closes it.
func streamSim(cfg wssim.Config) *wssim.Server {
	if cfg.Token == "" {
		cfg.Token = simToken
	}
	return wssim.New(cfg)
}

// wsHost is a hand-built WebSocket service on which a test scripts every
// connection, numbered from 1, to act as a hostile or broken service
// would. Close, which newServerClient calls before it closes the server,
// ends serve's ctx and waits for every serve to return.
type wsHost struct {
	serve  func(ctx context.Context, n int64, r *http.Request, c *websocket.Conn)
	ctx    context.Context
	cancel context.CancelFunc
	conns  atomic.Int64

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	open   map[*websocket.Conn]struct{}
}

func (h *wsHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		http.Error(w, "closed", http.StatusServiceUnavailable)
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	h.mu.Lock()
	h.open[c] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.open, c)
		h.mu.Unlock()
	}()
	h.serve(h.ctx, h.conns.Add(1), r, c)
}

// Close ends every serve's ctx and waits for them to return.
func (h *wsHost) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// DropAllConns closes every open connection without a close handshake.
func (h *wsHost) DropAllConns() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.open {
		c.CloseNow()
	}
}

// newWSHost scripts every connection with serve.
func newWSHost(serve func(ctx context.Context, n int64, r *http.Request, c *websocket.Conn)) *wsHost {
	ctx, cancel := context.WithCancel(context.Background())
	return &wsHost{serve: serve, ctx: ctx, cancel: cancel, open: make(map[*websocket.Conn]struct{})}
}

// streamRequest is a request the client sends over a stream connection,
// as the service reads it.
type streamRequest struct {
	Ac     string `json:"ac"`
	Params string `json:"params"`
	Types  string `json:"types,omitempty"`
}

// wsSend writes msg as a text message.
func wsSend(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// wsRead reads the client's next request.
func wsRead(ctx context.Context, c *websocket.Conn) (streamRequest, error) {
	var req streamRequest
	_, b, err := c.Read(ctx)
	if err == nil {
		err = json.Unmarshal(b, &req)
	}
	return req, err
}

// greet sends the connect message and accepts the token.
func greet(ctx context.Context, c *websocket.Conn) error {
	if err := wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`); err != nil {
		return err
	}
	return wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
}

// answer serves requests until the connection ends: pongs for pings, and
// for subscribe and unsubscribe what ack returns (nothing when it returns "").
func answer(ctx context.Context, c *websocket.Conn, ack func(streamRequest) string) {
	for {
		req, err := wsRead(ctx, c)
		if err != nil {
			return
		}
		var reply string
		switch req.Ac {
		case "ping":
			reply = `{"resAc":"pong","data":{"params":"` + req.Params + `"}}`
		default:
			reply = ack(req)
		}
		if reply != "" && wsSend(ctx, c, reply) != nil {
			return
		}
	}
}

// acceptAll acknowledges every request.
func acceptAll(req streamRequest) string {
	return `{"code":1,"resAc":"` + req.Ac + `","msg":"` + req.Ac + ` Successfully"}`
}

// wsAnswer serves a connection's requests until it ends: a pong for a
// ping, an acknowledgement for the rest; then calls after(req), if set.
func wsAnswer(ctx context.Context, c *websocket.Conn, after func(req string)) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req struct{ Ac, Params string }
		if json.Unmarshal(b, &req) != nil {
			return
		}
		if req.Ac == "ping" {
			wsSend(ctx, c, `{"resAc":"pong","data":{"params":"`+req.Params+`"}}`)
			continue
		}
		wsSend(ctx, c, `{"code":1,"resAc":"`+req.Ac+`","msg":"ok"}`)
		if after != nil {
			after(req.Ac)
		}
	}
}

// wsAuthOK is the service's acceptance of the token.
const wsAuthOK = `{"code":1,"resAc":"auth","msg":"authenticated"}`

// quotePush is a quote push for 700 of HK whose Last is last.
func quotePush(last int) string {
	return fmt.Sprintf(`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":%d,"t":1765526889000}}`, last)
}

// Streams.

// openStream opens a Stream of class on c, with a short dial timeout
// unless opts set another, and closes it when the test ends.
func openStream(t testing.TB, c *itick.Client, class itick.AssetType, opts ...itick.StreamOption) *itick.Stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	opts = append([]itick.StreamOption{itick.WithDialTimeout(2 * time.Second)}, opts...)
	s, err := c.Stream(ctx, class, opts...)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// streamOf opens a stock Stream on c that reconnects at once and lives
// until the test ends.
func streamOf(t *testing.T, c *itick.Client, opts ...itick.StreamOption) *itick.Stream {
	t.Helper()
	s, err := c.Stream(context.Background(), itick.AssetStock,
		append([]itick.StreamOption{itick.WithReconnectBackoff(0, 2*time.Millisecond), itick.WithDialTimeout(10 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// next returns the next event that keep accepts, failing the test if none
// comes in time or the stream ends.
func next(t testing.TB, s *itick.Stream, keep func(itick.Event) bool) itick.Event {
	t.Helper()
	ctx := within(t)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("stream ended: %v", s.Err())
			}
			if keep == nil || keep(ev) {
				return ev
			}
		case <-ctx.Done():
			t.Fatal("no matching event in time")
		}
	}
}

// nextOf waits for the next event of type T, skipping others, and returns
// it with the events skipped.
func nextOf[T itick.Event](t *testing.T, s *itick.Stream) (T, []itick.Event) {
	t.Helper()
	var skipped []itick.Event
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				var zero T
				t.Fatalf("the stream ended (%v) before a %T", s.Err(), zero)
			}
			if v, ok := ev.(T); ok {
				return v, skipped
			}
			skipped = append(skipped, ev)
		case <-deadline:
			var zero T
			t.Fatalf("no %T in time; had %v", zero, skipped)
		}
	}
}

// Limiters and loggers.

// countingLimiter counts the attempts that asked to go.
type countingLimiter struct{ n atomic.Int32 }

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.n.Add(1)
	return ctx.Err()
}

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

// Waiting.

// within is a bounded safety net for waits in tests.
func within(t testing.TB) context.Context {
	t.Helper()
	// Generous: a passing test never waits for it, and a loaded machine
	// under the race detector can take seconds over a reconnection.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds, failing the test after a bound.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := within(t)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// recv returns the next value from ch, failing the test if none comes in
// time.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-within(t).Done():
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
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

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Token checks.

// noToken fails if s holds the token or any 4-byte piece of it.
func noToken(t *testing.T, what, s string) {
	t.Helper()
	noPiece(t, what, s, 4)
}

// noPiece fails if s holds any n-byte piece of the token.
func noPiece(t *testing.T, what, s string, n int) {
	t.Helper()
	for i := 0; i+n <= len(testToken); i++ {
		if strings.Contains(s, testToken[i:i+n]) {
			t.Errorf("%s holds %q of the token: %q", what, testToken[i:i+n], s)
			return
		}
	}
}

// leaksToken reports the first 8-byte piece of token found in text.
func leaksToken(text, token string) string {
	for i := 0; i+8 <= len(token); i++ {
		if strings.Contains(text, token[i:i+8]) {
			return token[i : i+8]
		}
	}
	return ""
}

// Leak checks.

// leakWait bounds how long a leak check waits for goroutines to end. It is
// long because a passing run returns as soon as they have, while a server's
// goroutines may take a while to notice a closed connection on a loaded
// machine.
const leakWait = 15 * time.Second

// checkGoroutines records which goroutines run now and, when the test ends,
// waits for every goroutine started since to end, failing the test with the
// stacks of those that do not.
//
// Call it first in a test, before starting servers and clients, and register
// their Close and CloseIdleConnections with t.Cleanup afterwards: cleanups
// run last-in first-out, so they have run by the time this check does.
//
// goleak tells goroutines apart by id, not by count, so a goroutine left by
// an earlier test that ends during this one cannot hide a leak, whatever
// order -shuffle runs the tests in.
func checkGoroutines(t testing.TB) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), leakWait)
		defer cancel()
		if err := settled(ctx, before); err != nil {
			t.Errorf("goroutines leaked: %v", err)
		}
	})
}

// settled waits until no goroutine runs but those before covers, or ctx
// ends. It returns nil once they are gone, else goleak's report of the
// goroutines still running.
func settled(ctx context.Context, before goleak.Option) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		// Find itself retries for a few hundred milliseconds before it
		// reports; the loop stretches that to ctx's deadline.
		err := goleak.Find(before)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-tick.C:
		}
	}
}

// TestWaitGoroutines checks that the leak check sees a goroutine left
// running, even when a goroutine that ran before the check ends meanwhile
// (as an earlier test's may), and sees it go.
func TestWaitGoroutines(t *testing.T) {
	earlierDone := make(chan struct{})
	earlierStopped := make(chan struct{})
	go func() {
		defer close(earlierStopped)
		<-earlierDone
	}()
	before := goleak.IgnoreCurrent()

	release := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-release
	}()
	close(earlierDone)
	<-earlierStopped

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := settled(ctx, before); err == nil {
		t.Fatal("a blocked goroutine went unnoticed once an earlier one ended")
	}
	close(release)
	<-stopped
	ctx2, cancel2 := context.WithTimeout(context.Background(), leakWait)
	defer cancel2()
	if err := settled(ctx2, before); err != nil {
		t.Errorf("the goroutine ended but the check still reports: %v", err)
	}
}

// The client/server builders. Each gives a client with fastOpts unless a
// test's opts say otherwise; opts apply after them and win.
