package itick_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
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
