package itick_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/stream"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Tests of Stream: reconnection, heartbeats, spreading products over
// connections and closing, against the stream simulator and scripted
// services. Subscriptions and messages have files of their own.

func TestStream_ReconnectsAfterDrop(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
	c := newServerClient(t, httptest.NewServer(sim), simToken)
	s := openStream(t, c, "forex")
	syms := []string{"EURUSD$GB", "GBPUSD$GB"}
	if err := s.Subscribe(within(t), syms, itick.ChannelQuote, itick.ChannelDepth); err != nil {
		t.Fatal(err)
	}
	next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.QuoteEvent); return ok })

	before := time.Now()
	if n := sim.DropAll(); n != 1 {
		t.Fatalf("DropAll closed %d connections, want 1", n)
	}
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	if diff := cmp.Diff(syms, gap.Symbols); diff != "" {
		t.Errorf("gap symbols (-want +got):\n%s", diff)
	}
	if gap.Reason == nil || gap.From.Before(before) || gap.To.Before(gap.From) {
		t.Errorf("gap = %+v, want a reason and %s <= From <= To", gap, before.Format(time.RFC3339Nano))
	}
	// Both products and both channels flow again on the new connection.
	seen := map[string]bool{}
	for len(seen) < 4 {
		switch ev := next(t, s, nil).(type) {
		case itick.QuoteEvent:
			seen["quote "+ev.Code] = true
		case itick.DepthEvent:
			seen["depth "+ev.Code] = true
		}
	}
	if got := sim.Accepted(); got != 2 {
		t.Errorf("connections accepted = %d, want 2", got)
	}
	if got := sim.Subscriptions(); got != 2 {
		t.Errorf("server-side subscriptions = %d, want 2", got)
	}
	if st := s.Stats(); st.Reconnects != 1 || st.Gaps != 1 || st.Conns != 1 {
		t.Errorf("stats = %+v, want 1 reconnect, 1 gap, 1 connection", st)
	}
}

func TestStream_HeartbeatNoticesSilentServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func(*wssim.Server, bool)
	}{
		{"silent server", (*wssim.Server).SetSilent},
		{"unanswered pings", func(s *wssim.Server, on bool) { s.SetPongs(!on) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
			c := newServerClient(t, httptest.NewServer(sim), simToken)
			s := openStream(t, c, "crypto", itick.WithHeartbeat(50*time.Millisecond, 300*time.Millisecond),
				itick.WithDialTimeout(2*time.Second))
			if err := s.Subscribe(within(t), []string{"BTCUSDT$BA"}, itick.ChannelTick); err != nil {
				t.Fatal(err)
			}
			next(t, s, nil)
			eventually(t, "a ping", func() bool { return sim.Pings() > 0 })

			tt.fault(sim, true)
			eventually(t, "a new connection", func() bool { return sim.Accepted() >= 2 })
			tt.fault(sim, false)

			gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
			if !errors.Is(gap.Reason, stream.ErrNoPong) {
				t.Errorf("gap reason = %v, want the heartbeat's", gap.Reason)
			}
			next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.TickEvent); return ok })
		})
	}
}

func TestStream_SpreadsProductsOverConnections(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 200 * time.Millisecond})
	c := newServerClient(t, httptest.NewServer(sim), simToken)
	s := openStream(t, c, "stock", itick.WithMaxSymbols(2000)) // PlanBase: 3 connections of 500
	syms := make([]string, 1200)
	for i := range syms {
		syms[i] = fmt.Sprintf("S%04d$US", i)
	}
	if err := s.Subscribe(within(t), syms, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe 1200: %v", err)
	}
	got := sim.ConnSymbols()
	slices.Sort(got)
	if diff := cmp.Diff([]int{200, 500, 500}, got); diff != "" {
		t.Errorf("products per connection (-want +got):\n%s", diff)
	}
	if st := s.Stats(); st.Conns != 3 || st.Symbols != 1200 {
		t.Errorf("stats = %+v, want 3 connections, 1200 products", st)
	}
	// A product of the third connection pushes too.
	next(t, s, func(ev itick.Event) bool { q, ok := ev.(itick.QuoteEvent); return ok && q.Code == "S1199" })

	more := make([]string, 301)
	for i := range more {
		more[i] = fmt.Sprintf("T%04d$US", i)
	}
	err := s.Subscribe(within(t), more, itick.ChannelQuote)
	if !errors.Is(err, itick.ErrPlanLimit) {
		t.Errorf("Subscribe beyond the cap: err = %v, want ErrPlanLimit", err)
	}
	if n := sim.Subscriptions(); n != 1200 {
		t.Errorf("after a refused Subscribe the server has %d products, want 1200", n)
	}
	if err := s.Subscribe(within(t), more[:300], itick.ChannelQuote); err != nil {
		t.Errorf("Subscribe up to the cap: %v", err)
	}
	if n := sim.Subscriptions(); n != 1500 {
		t.Errorf("server has %d products, want 1500", n)
	}

	// Every connection comes back with its own products.
	sim.DropAll()
	gapConns := map[int]int{}
	for len(gapConns) < 3 {
		gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
		gapConns[gap.Conn] = len(gap.Symbols)
	}
	if diff := cmp.Diff(map[int]int{0: 500, 1: 500, 2: 500}, gapConns); diff != "" {
		t.Errorf("products per gap (-want +got):\n%s", diff)
	}
	eventually(t, "the renewals", func() bool { return sim.Subscriptions() == 1500 })
	if got := sim.ConnSymbols(); !cmp.Equal(got, []int{500, 500, 500}) {
		t.Errorf("products per connection after the renewals = %v", got)
	}
}

func TestStream_AuthRefused(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{})
	srv := httptest.NewServer(sim)
	_, err := newServerClient(t, srv, "wrong-token").Stream(within(t), "stock")
	var se *itick.StreamError
	if !errors.Is(err, itick.ErrUnauthorized) || !errors.As(err, &se) || se.Action != "auth" {
		t.Fatalf("wrong token: err = %v, want a *StreamError matching ErrUnauthorized", err)
	}

	// A token refused on reconnection ends the stream.
	s := openStream(t, newServerClient(t, srv, simToken), "stock")
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	sim.SetRefuseAuth(true)
	sim.DropAll()
	ctx := within(t)
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("stream still running after a refused reconnection")
	}
	if err := s.Err(); !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("Err = %v, want ErrUnauthorized", err)
	}
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); !errors.Is(err, itick.ErrStreamClosed) {
		t.Errorf("Subscribe after the end: err = %v, want ErrStreamClosed", err)
	}
}

func TestStream_CloseLeavesNoGoroutine(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	tests := []struct {
		name    string
		stop    func(*itick.Stream, context.CancelFunc)
		wantErr error
	}{
		{"Close", func(s *itick.Stream, _ context.CancelFunc) { s.Close() }, nil},
		{"cancel", func(_ *itick.Stream, cancel context.CancelFunc) { cancel() }, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := streamSim(wssim.Config{Token: simToken, PushInterval: time.Millisecond})
			c := newServerClient(t, httptest.NewServer(sim), simToken)
			before := goleak.IgnoreCurrent()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := c.Stream(ctx, "stock", itick.WithSymbolsPerConn(2), itick.WithHeartbeat(5*time.Millisecond, time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Subscribe(within(t), []string{"1$HK", "2$HK", "3$HK", "4$HK", "5$HK"}, itick.ChannelQuote, itick.ChannelDepth); err != nil {
				t.Fatal(err)
			}
			for range 50 {
				next(t, s, nil)
			}
			sim.DropAll() // a reconnection in flight must end too
			tt.stop(s, cancel)
			<-s.Done()
			for range s.Events() {
			}
			if err := s.Err(); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Err = %v, want %v", err, tt.wantErr)
			}
			eventually(t, "the server to see the connections close", func() bool { return sim.Conns() == 0 })
			waitGoroutines(t, before)
		})
	}
}

// A nil context is ErrInvalidArgument at every entry point of a Stream, as
// it is for the REST calls; it never panics, in the caller's goroutine or
// the SDK's.
func TestStream_RefusesANilContext(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
		c.Read(ctx)
	})
	c := newServerClient(t, httptest.NewServer(h), testToken)
	//lint:ignore SA1012 a nil context is what this test passes
	if _, err := c.Stream(nil, itick.AssetStock); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Stream(nil) = %v, want ErrInvalidArgument", err)
	}
	s, err := c.Stream(context.Background(), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	//lint:ignore SA1012 a nil context is what this test passes
	if err := s.Subscribe(nil, []string{"700$HK"}, itick.ChannelQuote); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Subscribe(nil) = %v, want ErrInvalidArgument", err)
	}
	//lint:ignore SA1012 a nil context is what this test passes
	if err := s.Unsubscribe(nil, []string{"700$HK"}); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Unsubscribe(nil) = %v, want ErrInvalidArgument", err)
	}
}

// Behaviour 18: a lost connection is reported at once, once, by a
// DisconnectEvent and StreamStats.Down, however many reconnections fail; by
// the time the GapEvent arrives, Down no longer counts it.
func TestStream_ReportsALostConnectionAtOnce(t *testing.T) {
	t.Parallel()
	drop, release := make(chan struct{}), make(chan struct{})
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		switch {
		case n == 1:
			wsSend(ctx, c, wsAuthOK)
			go wsAnswer(ctx, c, func(string) { wsSend(ctx, c, quotePush(1)) })
			select {
			case <-drop:
			case <-ctx.Done():
			}
		case n < 4: // reconnections that fail
		default:
			select {
			case <-release:
			case <-ctx.Done():
				return
			}
			wsSend(ctx, c, wsAuthOK)
			wsAnswer(ctx, c, nil)
		}
	})
	c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
	s := streamOf(t, c)
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	nextOf[itick.QuoteEvent](t, s)
	close(drop)
	d, _ := nextOf[itick.DisconnectEvent](t, s)
	if d.Conn != 0 || d.Reason == nil || d.At.IsZero() || !slices.Equal(d.Symbols, []string{"700$HK"}) {
		t.Errorf("DisconnectEvent = %+v", d)
	}
	if st := s.Stats(); st.Down != 1 || st.Conns != 0 {
		t.Errorf("Stats while down = %+v, want Down 1, Conns 0", st)
	}
	for h.conns.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	g, skipped := nextOf[itick.GapEvent](t, s)
	if st := s.Stats(); st.Down != 0 {
		t.Errorf("Stats when the gap arrives = %+v, want Down 0", st)
	}
	for _, ev := range skipped {
		if _, ok := ev.(itick.DisconnectEvent); ok {
			t.Errorf("a second DisconnectEvent for one lost connection: %+v", ev)
		}
	}
	if !g.From.Equal(d.At) || !slices.Equal(g.Symbols, d.Symbols) {
		t.Errorf("GapEvent %+v does not match DisconnectEvent %+v", g, d)
	}
}

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
	waitOrFail(t, dialing, "the reconnection's dial")
	s.Close()
	close(release)
	tc := waitOrFail(t, late, "the late dial to finish")
	waitOrFail(t, tc.closed, "the connection dialed after Close to be closed")
}

// wrapping is a RoundTripper that wraps another and says which.
type wrapping struct{ inner http.RoundTripper }

func (w wrapping) RoundTrip(r *http.Request) (*http.Response, error) { return w.inner.RoundTrip(r) }
func (w wrapping) Unwrap() http.RoundTripper                         { return w.inner }

// opaque wraps another and does not say which.
type opaque struct{ inner http.RoundTripper }

func (o opaque) RoundTrip(r *http.Request) (*http.Response, error) { return o.inner.RoundTrip(r) }

// A client whose transport wraps another that says which keeps its proxy
// and TLS settings for the stream's handshake; one that does not say falls
// back to http.DefaultTransport's copy.
func TestHandshakeTransportFindsTheWrappedOne(t *testing.T) {
	t.Parallel()
	proxy, _ := url.Parse("http://proxy.internal:3128")
	inner := &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{ServerName: "itick.internal"}}
	for name, rt := range map[string]http.RoundTripper{
		"the transport":     inner,
		"one wrapper":       wrapping{inner},
		"wrappers in a row": wrapping{wrapping{inner}},
	} {
		got := itick.HandshakeTransport(rt)
		if got == nil || got == inner || !got.DisableKeepAlives || got.TLSClientConfig.ServerName != "itick.internal" {
			t.Errorf("%s: handshake transport %+v, want a copy of the inner one without keep-alives", name, got)
			continue
		}
		if p, err := got.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: "api.itick.org"}}); err != nil || p.String() != proxy.String() {
			t.Errorf("%s: proxy %v, %v; want the inner transport's", name, p, err)
		}
	}
	if got := itick.HandshakeTransport(opaque{inner}); got == nil || got.TLSClientConfig != nil && got.TLSClientConfig.ServerName == "itick.internal" {
		t.Errorf("a wrapper that does not say: %+v, want a copy of http.DefaultTransport", got)
	}
}
