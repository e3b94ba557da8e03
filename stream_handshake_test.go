package itick_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/d19c4e34/itick"
)

// closeTracked is a connection that says when it is closed.
type closeTracked struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *closeTracked) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// TestStream_LateHandshakeDialIsClosed: a reconnection's dial that
// finishes after Close leaves no connection behind. net/http finishes a
// dial whose request was cancelled and keeps the connection idle for a
// later request; in the Client's pool, that connection and the goroutines
// serving it outlived the Stream.
func TestStream_LateHandshakeDialIsClosed(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) == nil {
			answer(ctx, c, acceptAll)
		}
	})
	var (
		dials   atomic.Int64
		dialing = make(chan struct{}, 1)
		release = make(chan struct{})
		late    = make(chan *closeTracked, 1)
		d       net.Dialer
	)
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return d.DialContext(ctx, network, addr)
		}
		// Later dials finish only once the test says so, whatever their
		// context, as a slow network would.
		select {
		case dialing <- struct{}{}:
		default:
		}
		<-release
		c, err := d.DialContext(context.Background(), network, addr)
		if err != nil {
			return nil, err
		}
		tc := &closeTracked{Conn: c, closed: make(chan struct{})}
		select {
		case late <- tc:
		default:
		}
		return tc, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	c := newServerClient(t, httptest.NewServer(h), simToken, itick.WithHTTPClient(&http.Client{Transport: tr}))
	s, err := c.Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	h.DropAllConns()
	recv(t, dialing, "the reconnection's dial")
	s.Close()
	close(release)
	tc := recv(t, late, "the late dial to finish")
	recv(t, tc.closed, "the connection dialed after Close to be closed")
}
