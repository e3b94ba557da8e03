package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Helpers for stream tests: the stream simulator, hand-scripted WebSocket
// services, and opening and reading streams.

// simToken is the token a stream simulator accepts unless told otherwise.
const simToken = "stream-test-token"

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
