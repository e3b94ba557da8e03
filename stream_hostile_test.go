package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/transport"
)

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

func newWSHost(serve func(ctx context.Context, n int64, r *http.Request, c *websocket.Conn)) *wsHost {
	ctx, cancel := context.WithCancel(context.Background())
	return &wsHost{serve: serve, ctx: ctx, cancel: cancel, open: make(map[*websocket.Conn]struct{})}
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

func hsend(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// streamRequest is a request the client sends over a stream connection,
// as the service reads it.
type streamRequest struct {
	Ac     string `json:"ac"`
	Params string `json:"params"`
	Types  string `json:"types,omitempty"`
}

func hread(ctx context.Context, c *websocket.Conn) (streamRequest, error) {
	var req streamRequest
	_, b, err := c.Read(ctx)
	if err == nil {
		err = json.Unmarshal(b, &req)
	}
	return req, err
}

// greet sends the connect message and accepts the token.
func greet(ctx context.Context, c *websocket.Conn) error {
	if err := hsend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`); err != nil {
		return err
	}
	return hsend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
}

// answer serves requests until the connection ends: pongs for pings, and
// for subscribe and unsubscribe what ack returns (nothing when it returns "").
func answer(ctx context.Context, c *websocket.Conn, ack func(streamRequest) string) {
	for {
		req, err := hread(ctx, c)
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
		if reply != "" && hsend(ctx, c, reply) != nil {
			return
		}
	}
}

func acceptAll(req streamRequest) string {
	return `{"code":1,"resAc":"` + req.Ac + `","msg":"` + req.Ac + ` Successfully"}`
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

// TestStream_OriginRule: the handshake's redirects are judged by the
// transport's origin rule, with ws as http and wss as https.
func TestStream_OriginRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"ws://h.example/stock", "http://h.example:80/moved", true},
		{"wss://h.example/stock", "https://h.example:443/", true},
		{"wss://H.Example/stock", "https://h.example/", true},
		{"ws://h.example:8080/", "http://h.example:8080/x", true},
		{"ws://[::1]/", "http://[::1]:80/", true},
		{"wss://h.example/", "ws://h.example/", false},
		{"wss://h.example/", "http://h.example:443/", false},
		{"ws://h.example/", "http://h.example:8080/", false},
		{"ws://h.example/", "http://other.example/", false},
		{"ws://h.example/", "http://h.example.evil/", false},
		{"ws://h.example/", "ftp://h.example/", false},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := transport.SameOrigin(a, b); got != tt.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestStream_RedirectStaysInOrigin: the handshake's token goes to the
// stream URL's origin only.
func TestStream_RedirectStaysInOrigin(t *testing.T) {
	t.Parallel()
	var tokens atomic.Int64 // requests elsewhere that carried the token
	elsewhere := newWSHost(func(ctx context.Context, _ int64, r *http.Request, c *websocket.Conn) {
		if r.Header.Get("token") != "" {
			tokens.Add(1)
		}
		if greet(ctx, c) == nil {
			answer(ctx, c, acceptAll)
		}
	})
	elsewhereSrv := httptest.NewServer(elsewhere)
	t.Cleanup(func() {
		elsewhere.Close()
		elsewhereSrv.Close()
	})
	var moved atomic.Int64 // handshakes that reached the moved path with the token
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away/stock":
			http.Redirect(w, r, elsewhereSrv.URL+"/stock", http.StatusTemporaryRedirect)
		case "/near/stock":
			http.Redirect(w, r, "/moved/stock", http.StatusFound)
		case "/moved/stock":
			if r.Header.Get("token") != simToken {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			moved.Add(1)
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			if greet(r.Context(), c) == nil {
				answer(r.Context(), c, acceptAll)
			}
		default:
			http.NotFound(w, r)
		}
	}))

	c := newServerClient(t, origin, simToken)
	if s, err := c.Stream(within(t), itick.AssetStock, itick.WithStreamURL(origin.URL+"/away")); err == nil {
		s.Close()
		t.Error("a handshake redirected to another origin succeeded")
	} else if leak := leaksToken(err.Error(), simToken); leak != "" {
		t.Errorf("error %q shows the token", err)
	}
	if n := tokens.Load(); n != 0 {
		t.Errorf("another origin received the token %d time(s)", n)
	}

	s, err := c.Stream(within(t), itick.AssetStock, itick.WithStreamURL(origin.URL+"/near"))
	if err != nil {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	s.Close()
	if moved.Load() != 1 {
		t.Errorf("the redirect within the origin reached the moved path %d time(s) with the token, want 1", moved.Load())
	}
}

// TestStream_ServerTextIsRedactedAndBounded: whatever a server echoes, in
// whatever form, the token stays out of events, errors and logs, and the
// text stays bounded.
func TestStream_ServerTextIsRedactedAndBounded(t *testing.T) {
	t.Parallel()
	const token = "sk+live/0123456789abcdefXYZ=="
	pad := strings.Repeat("x", 300)
	forms := []string{token, url.QueryEscape(token), url.PathEscape(token)}
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) != nil {
			return
		}
		if n > 1 {
			answer(ctx, c, acceptAll)
			return
		}
		req, err := hread(ctx, c)
		if err != nil || hsend(ctx, c, acceptAll(req)) != nil {
			return
		}
		for _, f := range forms {
			pushes := []string{
				`{"code":1,"data":{"s":"700","r":"HK","type":"` + pad + f + `","t":1}}`,
				`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":"` + f + pad + `","t":1}}`,
				`{"code":1,"data":{"s":"` + pad + f + `","t":99,"k":{}}}`,
			}
			for _, p := range pushes {
				if hsend(ctx, c, p) != nil {
					return
				}
			}
		}
		// A close reason holds at most 123 bytes.
		c.Close(websocket.StatusPolicyViolation, "bye "+url.QueryEscape(token))
	})
	logs := new(testutil.SyncBuffer)
	s, err := newServerClient(t, httptest.NewServer(h), token, itick.WithLogger(debugLogger(logs))).Stream(within(t), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for errs := 0; errs < 3*len(forms); {
		switch ev := next(t, s, nil).(type) {
		case itick.ErrorEvent:
			errs++
			texts = append(texts, ev.Err.Error())
		case itick.GapEvent:
			t.Fatalf("gap before the bad pushes arrived: %v", ev.Reason)
		}
	}
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	texts = append(texts, gap.Reason.Error())
	s.Close()
	texts = append(texts, logs.String())
	if !strings.Contains(logs.String(), "connection lost") {
		t.Errorf("no WARN line for the lost connection:\n%s", logs.String())
	}
	for i, text := range texts {
		if leak := leaksToken(text, token); leak != "" {
			t.Errorf("text %d shows %q of the token: %s", i, leak, text)
		}
		if i < len(texts)-1 && len(text) > 1024 {
			t.Errorf("text %d is %d bytes: %.100s...", i, len(text), text)
		}
	}

	// A refusal that echoes the token, at length.
	refuser := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		hsend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
		hsend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed for `+url.PathEscape(token)+strings.Repeat("é", 1<<16)+`"}`)
		c.Close(websocket.StatusPolicyViolation, "auth failed")
	})
	_, err = newServerClient(t, httptest.NewServer(refuser), token).Stream(within(t), itick.AssetStock)
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("refused token: %v, want ErrUnauthorized", err)
	}
	var se *itick.StreamError
	if !errors.As(err, &se) {
		t.Fatalf("refused token: %T, want a *StreamError", err)
	}
	for _, text := range []string{err.Error(), se.Message} {
		if leak := leaksToken(text, token); leak != "" {
			t.Errorf("refusal shows %q of the token: %.200s", leak, text)
		}
		if len(text) > 1024 || !utf8.ValidString(text) {
			t.Errorf("refusal text is %d bytes or not UTF-8: %.100s...", len(text), text)
		}
	}
}

// refuse answers a handshake as the service does a revoked token: the
// refusal, then the connection closed at once.
func refuse(ctx context.Context, c *websocket.Conn) {
	hsend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
	hsend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed"}`)
	c.CloseNow()
}

// TestStream_RefusalIsUnauthorizedEveryTime: a refusal followed at once
// by the end of the connection is ErrUnauthorized, never a plain
// connection error.
func TestStream_RefusalIsUnauthorizedEveryTime(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) { refuse(ctx, c) })
	c := newServerClient(t, httptest.NewServer(h), simToken)
	for i := range 50 {
		s, err := c.Stream(within(t), itick.AssetStock)
		if err == nil {
			s.Close()
			t.Fatalf("connection %d: a refused token opened a stream", i)
		}
		if !errors.Is(err, itick.ErrUnauthorized) {
			t.Fatalf("connection %d: %v, want ErrUnauthorized", i, err)
		}
	}
}

// TestStream_RefusalOnReconnectEndsStream: a token accepted once and then
// refused ends the stream with ErrUnauthorized instead of retrying it.
func TestStream_RefusalOnReconnectEndsStream(t *testing.T) {
	t.Parallel()
	for i := range 10 {
		h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
			if n > 1 {
				refuse(ctx, c)
				return
			}
			if greet(ctx, c) != nil {
				return
			}
			req, err := hread(ctx, c)
			if err == nil && hsend(ctx, c, acceptAll(req)) == nil {
				c.CloseNow() // the token is revoked: drop and refuse from now on
			}
		})
		// With no retries of a refused re-authentication (WithAuthRetries).
		s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(0, time.Millisecond),
			itick.WithAuthRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Done():
		case <-within(t).Done():
			s.Close()
			t.Fatalf("run %d: stream still running after %d connections", i, h.conns.Load())
		}
		if err := s.Err(); !errors.Is(err, itick.ErrUnauthorized) {
			t.Errorf("run %d: Err = %v, want ErrUnauthorized", i, err)
		}
		if n := h.conns.Load(); n != 2 {
			t.Errorf("run %d: %d connections, want 2: a refused token was tried again", i, n)
		}
	}
}

// TestStream_FlappingServerBacksOff: a server that authenticates, acks
// the renewal and drops at once must see the waits between connections
// grow along the backoff schedule, not start over after each drop.
func TestStream_FlappingServerBacksOff(t *testing.T) {
	t.Parallel()
	const conns = 7
	var mu sync.Mutex
	var at []time.Time
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if greet(ctx, c) != nil {
			return
		}
		req, err := hread(ctx, c)
		if err == nil && hsend(ctx, c, acceptAll(req)) == nil {
			c.CloseNow()
		}
	})
	const min, max = 10 * time.Millisecond, 160 * time.Millisecond
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(min, max))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reconnections", func() bool { return h.conns.Load() >= conns })
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < conns; i++ {
		// The i-th reconnection waits at least half the i-th step of the
		// schedule, and never less than min.
		step := min << i
		if step > max {
			step = max
		}
		least := step / 2
		if least < min {
			least = min
		}
		if gap := at[i].Sub(at[i-1]); gap < least {
			t.Errorf("reconnection %d came %s after the drop, want at least %s", i, gap, least)
		}
	}
}

// TestStream_ToleratesDataShapes: an acknowledgement with "data":[] and a
// pong whose data is a string are still an acknowledgement and a pong.
func TestStream_ToleratesDataShapes(t *testing.T) {
	t.Parallel()
	var pings atomic.Int64 // on the first connection
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) != nil {
			return
		}
		for {
			req, err := hread(ctx, c)
			if err != nil {
				return
			}
			reply := `{"code":1,"resAc":"` + req.Ac + `","msg":"ok","data":[]}`
			if req.Ac == "ping" {
				if n == 1 {
					pings.Add(1)
				}
				reply = `{"resAc":"pong","data":"` + req.Params + `"}`
			}
			if hsend(ctx, c, reply) != nil {
				return
			}
		}
	})
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock,
		itick.WithHeartbeat(5*time.Millisecond, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe with an acknowledgement carrying data:[]: %v", err)
	}
	eventually(t, "five pings on the first connection", func() bool { return pings.Load() >= 5 || h.conns.Load() > 1 })
	if n := h.conns.Load(); n != 1 {
		t.Errorf("%d connections: string pongs went unnoticed", n)
	}
}

// TestStream_HandshakeRefusalCarriesEvidence: a gateway that refuses the
// WebSocket handshake with an HTTP status gives an *APIError with the
// body and headers it sent, the token taken out of both, like a REST call's.
func TestStream_HandshakeRefusalCarriesEvidence(t *testing.T) {
	t.Parallel()
	const token = "tk-9f3a7c1e5b2d8f4a6c0e"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("token"))
		w.Header().Set("X-Request-Id", "req-42")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"message":"Invalid API key in request: %s"}`, r.Header.Get("token"))
	}))
	c := newServerClient(t, srv, token)
	_, err := c.Stream(within(t), itick.AssetStock)
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v (%T), want *APIError", err, err)
	}
	if apiErr.StatusCode != http.StatusUnauthorized || !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("status %d, Is(ErrUnauthorized) %v; want 401 and true", apiErr.StatusCode, errors.Is(err, itick.ErrUnauthorized))
	}
	if !strings.Contains(apiErr.Body, "Invalid API key in request") || apiErr.Header.Get("X-Request-Id") != "req-42" {
		t.Errorf("Body %q, X-Request-Id %q: want the refusal's body and headers", apiErr.Body, apiErr.Header.Get("X-Request-Id"))
	}
	for what, text := range map[string]string{
		"Body": apiErr.Body, "X-Echo": apiErr.Header.Get("X-Echo"), "%#v": fmt.Sprintf("%#v", apiErr), "Error": err.Error(),
	} {
		if piece := leaksToken(text, token); piece != "" {
			t.Errorf("%s shows %q of the token: %s", what, piece, text)
		}
	}
}
