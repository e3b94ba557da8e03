package itick_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/stream"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Tests of Stream: subscriptions, events, reconnection, heartbeats and
// closing, against the stream simulator and scripted services.

// waitGoroutines waits until every goroutine started after before was
// taken (with goleak.IgnoreCurrent) has ended, and otherwise fails with the
// stacks of those left. goleak tells goroutines apart by id, so one from an
// earlier test that ends meanwhile cannot hide a leak.
//
// The bound is long because the simulator's side of a dropped connection may
// sit in coder/websocket's close handshake for up to 15 s; a passing run
// returns as soon as the goroutines are gone.
func waitGoroutines(t *testing.T, before goleak.Option) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := settled(ctx, before); err != nil {
		t.Fatalf("goroutines remain: %v", err)
	}
}

// fixedSource returns the same bar for a product every time.
type fixedSource struct{ at time.Time }

func (f fixedSource) Next(code, region string, _ time.Time) wssim.Bar {
	base := float64(100 + len(code))
	return wssim.Bar{Time: f.at, Last: base + 0.5, Open: base, High: base + 1, Low: base - 1,
		Volume: 1000, Turnover: 1000 * base, TradeVol: 7}
}

func TestStream_EventsOfEachType(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 9, 31, 17, 0, time.UTC)
	wantLevels := func(side float64) []itick.DepthLevel {
		var out []itick.DepthLevel
		for i := 1; i <= 2; i++ {
			p := float64(int64((103.5+side*0.01*float64(i))*100+0.5)) / 100
			out = append(out, itick.DepthLevel{Level: i, Price: p, Volume: float64(100 * i), Orders: float64(i)})
		}
		return out
	}
	want := map[string]itick.Event{
		"quote": itick.QuoteEvent{Code: "700", Region: itick.RegionHK, Quote: itick.Quote{Symbol: "700", Last: 103.5, Open: 103,
			High: 104, Low: 102, Time: at, Volume: 1000, Turnover: 103000}},
		"tick": itick.TickEvent{Code: "700", Region: itick.RegionHK, Tick: itick.Tick{Symbol: "700", Last: 103.5, Time: at, Volume: 7}},
		"depth": itick.DepthEvent{Code: "700", Region: itick.RegionHK, Depth: itick.DepthBook{Symbol: "700",
			Asks: wantLevels(+1), Bids: wantLevels(-1)}},
		"kline@1": itick.KlineEvent{Code: "700", Region: itick.RegionHK, Interval: itick.OneMinute, Kline: itick.Kline{
			Time: at.Truncate(time.Minute), Open: 103, High: 104, Low: 102, Close: 103.5, Volume: 1000, Turnover: 103000}},
		"kline@5": itick.KlineEvent{Code: "700", Region: itick.RegionHK, Interval: itick.OneHour, Kline: itick.Kline{
			Time: at.Truncate(time.Hour), Open: 103, High: 104, Low: 102, Close: 103.5, Volume: 1000, Turnover: 103000}},
	}
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacyKline=%v", legacy), func(t *testing.T) {
			t.Parallel()
			c := newServerClient(t, httptest.NewServer(streamSim(wssim.Config{Source: fixedSource{at}, PushInterval: 5 * time.Millisecond,
				DepthLevels: 2, LegacyKline: legacy})), simToken)
			s := openStream(t, c, "stock")
			err := s.Subscribe(within(t), []string{"700$HK", " AAPL$US "}, itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth,
				itick.ChannelKline(itick.OneMinute), itick.ChannelKline(itick.OneHour))
			if err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			got := make(map[string]itick.Event)
			sawAAPL := false
			for len(got) < len(want) || !sawAAPL {
				switch ev := next(t, s, nil).(type) {
				case itick.QuoteEvent:
					sawAAPL = sawAAPL || ev.Code == "AAPL" && ev.Region == itick.RegionUS && ev.Quote.Last == 104.5
					if ev.Code == "700" {
						got["quote"] = ev
					}
				case itick.TickEvent:
					if ev.Code == "700" {
						got["tick"] = ev
					}
				case itick.DepthEvent:
					if ev.Code == "700" {
						got["depth"] = ev
					}
				case itick.KlineEvent:
					if ev.Code == "700" {
						got[string(itick.ChannelKline(ev.Interval))] = ev
					}
				default:
					t.Fatalf("unexpected event %#v", ev)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

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

func TestStream_SubscribeErrors(t *testing.T) {
	t.Parallel()
	c := newServerClient(t, httptest.NewServer(streamSim(wssim.Config{PushInterval: time.Hour, MaxSymbols: 2})), simToken)
	s := openStream(t, c, "stock", itick.WithSymbolsPerConn(3))
	tests := []struct {
		name     string
		symbols  []string
		channels []itick.Channel
		want     error
	}{
		{"no symbols", nil, []itick.Channel{itick.ChannelQuote}, itick.ErrInvalidArgument},
		{"no region", []string{"700"}, []itick.Channel{itick.ChannelQuote}, itick.ErrInvalidArgument},
		{"empty code", []string{"$HK"}, []itick.Channel{itick.ChannelQuote}, itick.ErrInvalidArgument},
		{"empty region", []string{"700$"}, []itick.Channel{itick.ChannelQuote}, itick.ErrInvalidArgument},
		{"comma", []string{"7,00$HK"}, []itick.Channel{itick.ChannelQuote}, itick.ErrInvalidArgument},
		{"no channels", []string{"700$HK"}, nil, itick.ErrInvalidArgument},
		{"unknown channel", []string{"700$HK"}, []itick.Channel{"trades"}, itick.ErrInvalidArgument},
		{"kline@0", []string{"700$HK"}, []itick.Channel{itick.ChannelKline(0)}, itick.ErrInvalidArgument},
		{"kline@11", []string{"700$HK"}, []itick.Channel{"kline@11"}, itick.ErrInvalidArgument},
		{"server limit", []string{"1$HK", "2$HK", "3$HK"}, []itick.Channel{itick.ChannelQuote}, itick.ErrPlanLimit},
	}
	for _, tt := range tests {
		err := s.Subscribe(within(t), tt.symbols, tt.channels...)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	var se *itick.StreamError
	if err := s.Subscribe(within(t), []string{"1$HK", "2$HK", "3$HK"}, itick.ChannelQuote); !errors.As(err, &se) || se.Action != "subscribe" {
		t.Errorf("server refusal: err = %v, want a *StreamError for subscribe", err)
	}
	if st := s.Stats(); st.Symbols != 0 {
		t.Errorf("after refusals the stream keeps %d products, want 0", st.Symbols)
	}
}

func TestStream_Unsubscribe(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
	c := newServerClient(t, httptest.NewServer(sim), simToken)
	s := openStream(t, c, "stock")
	if err := s.Subscribe(within(t), []string{"700$HK", "AAPL$US"}, itick.ChannelQuote, itick.ChannelTick); err != nil {
		t.Fatal(err)
	}
	if err := s.Unsubscribe(within(t), []string{"AAPL$US", "NOTSUB$US"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Unsubscribe(within(t), []string{"700$HK"}, itick.ChannelTick); err != nil {
		t.Fatal(err)
	}
	// The reader queues every push that came before an acknowledgement
	// before it hands the acknowledgement over, so the events pushed
	// before the unsubscriptions are exactly those queued now; after them
	// only 700's quotes arrive.
	stale := len(s.Events())
	if n := sim.Subscriptions(); n != 1 {
		t.Errorf("server has %d products, want 1", n)
	}
	if st := s.Stats(); st.Symbols != 1 {
		t.Errorf("stream has %d products, want 1", st.Symbols)
	}
	for n := range stale + 10 {
		ev := next(t, s, nil)
		if q, ok := ev.(itick.QuoteEvent); n >= stale && (!ok || q.Code != "700") {
			t.Fatalf("event %d, after %d queued before the unsubscriptions: got %#v", n, stale, ev)
		}
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

func TestStream_SubscribeWhileReconnecting(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
	c := newServerClient(t, httptest.NewServer(sim), simToken)
	s := openStream(t, c, "stock", itick.WithDialTimeout(time.Second))
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	sim.SetSilent(true) // the reconnection hangs before authentication
	sim.DropAll()
	eventually(t, "a reconnection", func() bool { return sim.Accepted() >= 2 })

	errc := make(chan error, 1)
	go func() { errc <- s.Subscribe(within(t), []string{"AAPL$US"}, itick.ChannelQuote) }()
	sim.SetSilent(false)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Subscribe during a reconnection: %v", err)
		}
	case <-within(t).Done():
		t.Fatal("Subscribe did not return")
	}
	next(t, s, func(ev itick.Event) bool { q, ok := ev.(itick.QuoteEvent); return ok && q.Code == "AAPL" })
	next(t, s, func(ev itick.Event) bool { q, ok := ev.(itick.QuoteEvent); return ok && q.Code == "700" })
	if n := sim.Subscriptions(); n != 2 {
		t.Errorf("server has %d products, want 2", n)
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

const okAck = `{"code":1,"resAc":"subscribe","msg":"subscribe Successfully"}`

// held is a wsHost that accepts everything except what hold picks: those
// acknowledgements wait until the test releases them.
type held struct {
	*wsHost
	got     chan streamRequest // every subscribe and unsubscribe, in order
	release chan string        // the reply to a held request
	hold    func(streamRequest) bool
}

func newHeld(hold func(streamRequest) bool) *held {
	h := &held{got: make(chan streamRequest, 100), release: make(chan string), hold: hold}
	h.wsHost = newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) != nil {
			return
		}
		answer(ctx, c, func(req streamRequest) string {
			h.got <- req
			if !h.hold(req) {
				return acceptAll(req)
			}
			select {
			case reply := <-h.release:
				return reply
			case <-ctx.Done():
				return ""
			}
		})
	})
	return h
}

// TestStream_CancelledSubscribeStaysConsistent: a Subscribe whose ctx ends
// after its request went out still takes its acknowledgement; the
// service has the product, so the client keeps it, counts it and renews it.
func TestStream_CancelledSubscribeStaysConsistent(t *testing.T) {
	t.Parallel()
	var once atomic.Bool
	h := newHeld(func(req streamRequest) bool { return req.Params == "X$HK" && once.CompareAndSwap(false, true) })
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(within(t))
	errc := make(chan error, 1)
	go func() { errc <- s.Subscribe(ctx, []string{"X$HK"}, itick.ChannelQuote) }()
	if req := waitOrFail(t, h.got, "the subscribe"); req.Params != "X$HK" {
		t.Fatalf("first request %+v", req)
	}
	cancel()
	if err := waitOrFail(t, errc, "Subscribe to return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Subscribe = %v, want context.Canceled", err)
	}
	h.release <- okAck
	eventually(t, "the late acknowledgement to count", func() bool { return s.Stats().Symbols == 1 })

	// The next request is answered by its own acknowledgement.
	if err := s.Subscribe(within(t), []string{"Y$HK"}, itick.ChannelTick); err != nil {
		t.Fatal(err)
	}
	waitOrFail(t, h.got, "the second subscribe")
	h.DropAllConns()
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	if got := strings.Join(gap.Symbols, ","); got != "X$HK,Y$HK" {
		t.Errorf("gap lists %s, want X$HK,Y$HK", got)
	}
	renewed := map[string]string{}
	for len(renewed) < 2 {
		req := waitOrFail(t, h.got, "the renewals")
		renewed[req.Params] = req.Types
	}
	if renewed["X$HK"] != "quote" || renewed["Y$HK"] != "tick" {
		t.Errorf("renewed %v, want X$HK quote and Y$HK tick", renewed)
	}
}

// TestStream_LateAckIsNotTakenForTheNext: the acknowledgement of a request
// whose caller gave up is not the answer to the next request.
func TestStream_LateAckIsNotTakenForTheNext(t *testing.T) {
	t.Parallel()
	h := newHeld(func(req streamRequest) bool { return true })
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(within(t))
	errc := make(chan error, 1)
	go func() { errc <- s.Subscribe(ctx, []string{"X$HK"}, itick.ChannelQuote) }()
	waitOrFail(t, h.got, "the first subscribe")
	cancel()
	waitOrFail(t, errc, "the first Subscribe to return")

	go func() { errc <- s.Subscribe(within(t), []string{"Y$HK"}, itick.ChannelQuote) }()
	// Only one request may await an acknowledgement: the second must not
	// go out before the first is answered. The host answers the first
	// when the second arrives, or after a while.
	select {
	case req := <-h.got:
		t.Errorf("%s %s went out while another awaited its acknowledgement", req.Ac, req.Params)
	case <-time.After(100 * time.Millisecond):
	}
	h.release <- okAck // X accepted
	waitOrFail(t, h.got, "the second subscribe")
	h.release <- `{"code":0,"resAc":"subscribe","msg":"exceeding the maximum subscription limit"}` // Y refused
	err = waitOrFail(t, errc, "the second Subscribe to return")
	if !errors.Is(err, itick.ErrPlanLimit) {
		t.Errorf("refused Subscribe = %v, want ErrPlanLimit", err)
	}
	eventually(t, "X to count", func() bool { return s.Stats().Symbols == 1 })
}

// clientView is what the Stream holds as subscribed: each product's
// acknowledged channels.
func clientView(s *itick.Stream) map[string][]string { return itick.StreamSubscriptions(s) }

// serviceView is what the simulator holds, over every connection.
func serviceView(sim *wssim.Server) map[string][]string {
	out := make(map[string][]string)
	for _, conn := range sim.ConnSubscriptions() {
		for sym, types := range conn {
			out[sym] = slices.Compact(slices.Sorted(slices.Values(append(out[sym], types...))))
		}
	}
	return out
}

// TestStream_SubscriptionsMatchService runs random sequences of
// subscribes, unsubscribes, cancelled subscribes and dropped connections,
// and checks after each step that the client's view of what is subscribed
// comes to equal the service's.
func TestStream_SubscriptionsMatchService(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 7))
			sim := streamSim(wssim.Config{PushInterval: time.Hour})
			c := newServerClient(t, httptest.NewServer(sim), simToken)
			s := openStream(t, c, itick.AssetStock, itick.WithSymbolsPerConn(3), itick.WithMaxConns(3),
				itick.WithReconnectBackoff(0, 2*time.Millisecond))
			syms := []string{"A$HK", "B$HK", "C$HK", "D$HK", "E$HK", "F$HK", "G$HK", "H$HK"}
			chans := []itick.Channel{itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth}
			pick := func() ([]string, []itick.Channel) {
				var ss []string
				for _, sym := range syms {
					if rng.IntN(3) == 0 {
						ss = append(ss, sym)
					}
				}
				if len(ss) == 0 {
					ss = syms[:1]
				}
				var cs []itick.Channel
				for _, ch := range chans {
					if rng.IntN(2) == 0 {
						cs = append(cs, ch)
					}
				}
				return ss, cs
			}
			for step := range 60 {
				ss, cs := pick()
				var what string
				switch op := rng.IntN(10); {
				case op < 4:
					what = "subscribe"
					if len(cs) == 0 {
						cs = chans[:1]
					}
					err := s.Subscribe(within(t), ss, cs...)
					if err != nil && !errors.Is(err, itick.ErrPlanLimit) {
						t.Fatalf("step %d: Subscribe(%v, %v): %v", step, ss, cs, err)
					}
				case op < 6:
					what = "cancelled subscribe"
					if len(cs) == 0 {
						cs = chans[:1]
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(2000))*time.Microsecond)
					s.Subscribe(ctx, ss, cs...)
					cancel()
				case op < 8:
					what = "unsubscribe"
					if err := s.Unsubscribe(within(t), ss, cs...); err != nil {
						t.Fatalf("step %d: Unsubscribe(%v, %v): %v", step, ss, cs, err)
					}
				case op < 9:
					what = "drop"
					sim.DropAll()
				default:
					what = "drop during a subscribe"
					if len(cs) == 0 {
						cs = chans[:1]
					}
					done := make(chan struct{})
					go func() {
						defer close(done)
						ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
						defer cancel()
						s.Subscribe(ctx, ss, cs...)
					}()
					sim.DropAll()
					<-done
				}
				var c, v map[string][]string
				ctx := within(t)
				for {
					c, v = clientView(s), serviceView(sim)
					if cmp.Equal(c, v) && s.Stats().Symbols == len(c) && s.Stats().Conns == len(sim.ConnSubscriptions()) {
						break
					}
					select {
					case <-ctx.Done():
						t.Fatalf("step %d (%s %v %v): client and service disagree (-client +service):\n%s\nStats %+v, service conns %d",
							step, what, ss, cs, cmp.Diff(c, v), s.Stats(), len(sim.ConnSubscriptions()))
					case <-time.After(2 * time.Millisecond):
					}
				}
			}
		})
	}
}

// TestStream_UnsubscribeWithdrawsWaitingSubscribe: a Subscribe waiting for
// the connection to come back, then an Unsubscribe of the same product,
// leaves nothing subscribed anywhere.
func TestStream_UnsubscribeWithdrawsWaitingSubscribe(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: time.Hour})
	c := newServerClient(t, httptest.NewServer(sim), simToken)
	s := openStream(t, c, itick.AssetStock, itick.WithDialTimeout(200*time.Millisecond), itick.WithReconnectBackoff(0, time.Millisecond))
	if err := s.Subscribe(within(t), []string{"A$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	sim.SetSilent(true) // reconnections hang before authentication
	sim.DropAll()
	eventually(t, "the connection to go down", func() bool { return s.Stats().Conns == 0 })

	errc := make(chan error, 1)
	go func() { errc <- s.Subscribe(within(t), []string{"X$HK"}, itick.ChannelQuote) }()
	eventually(t, "the Subscribe to wait", func() bool { return itick.StreamHolds(s, "X$HK") })
	if err := s.Unsubscribe(within(t), []string{"X$HK"}); err != nil {
		t.Fatal(err)
	}
	sim.SetSilent(false)
	if err := waitOrFail(t, errc, "the withdrawn Subscribe to return"); err != nil {
		t.Errorf("withdrawn Subscribe = %v", err)
	}
	// Requests go out in order: once B is acknowledged, any subscribe of
	// X would have reached the service.
	if err := s.Subscribe(within(t), []string{"B$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"A$HK": {"quote"}, "B$HK": {"quote"}}
	if diff := cmp.Diff(want, serviceView(sim)); diff != "" {
		t.Errorf("service holds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, clientView(s)); diff != "" {
		t.Errorf("client holds (-want +got):\n%s", diff)
	}
}

// streamFixture returns testdata/stream/name, a message as the service's
// documentation shows it, with {{TOKEN}} replaced by token.
func streamFixture(t testing.TB, name, token string) string {
	t.Helper()
	return strings.ReplaceAll(strings.TrimSpace(string(fixture(t, "stream/"+name))), "{{TOKEN}}", token)
}

// withoutTime drops the times from push events, so the events compare on
// what routes them.
func withoutTime(ev itick.Event) itick.Event {
	switch e := ev.(type) {
	case itick.QuoteEvent:
		e.Quote = itick.Quote{Symbol: e.Quote.Symbol}
		return e
	case itick.TickEvent:
		e.Tick = itick.Tick{Symbol: e.Tick.Symbol}
		return e
	case itick.DepthEvent:
		e.Depth = itick.DepthBook{Symbol: e.Depth.Symbol}
		return e
	case itick.KlineEvent:
		e.Kline = itick.Kline{}
		return e
	}
	return ev
}

// TestStream_RoutesDocumentedMessages: the service's messages are routed
// by resAc, then by what data holds, never by code: an auth ack that
// echoes the token opens the stream and shows the token nowhere; a pong
// with no code and a reply to nothing are not pushes; pushes in the
// service's loose case, the legacy kline push with code 0 and a push for
// a code$EXCHANGE$REGION subscription each reach the consumer named as
// they were subscribed.
func TestStream_RoutesDocumentedMessages(t *testing.T) {
	t.Parallel()
	const token = "sk+live/0123456789abcdefXYZ=="
	pushes := []string{"push_quote_lower.json", "push_depth_loose_region.json", "push_tick_lower.json",
		"push_kline_legacy.json", "push_kline_exchange.json"}
	subscribed := make(chan string, 1)
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		if wsSend(ctx, c, streamFixture(t, "connected.json", "")) != nil ||
			wsSend(ctx, c, streamFixture(t, "auth_ok_echo.json", token)) != nil {
			return
		}
		req, err := wsRead(ctx, c)
		if err != nil {
			return
		}
		subscribed <- req.Params
		msgs := []string{streamFixture(t, "subscribe_ok.json", ""), streamFixture(t, "pong.json", ""),
			`{"code":1,"resAc":"notice","msg":"` + token + `","data":{"s":"XAUUSD","r":"GB","type":"quote"}}`}
		for _, p := range pushes {
			msgs = append(msgs, streamFixture(t, p, ""))
		}
		for _, m := range msgs {
			if wsSend(ctx, c, m) != nil {
				return
			}
		}
		answer(ctx, c, acceptAll)
	})
	logs := new(testutil.SyncBuffer)
	s, err := newServerClient(t, httptest.NewServer(h), token, itick.WithLogger(debugLogger(logs))).Stream(within(t), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	syms := []string{"XAUUSD$GB", "BTCUSDT$BA", "600519$SHSE$CN"}
	if err := s.Subscribe(within(t), syms, itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute)); err != nil {
		t.Fatal(err)
	}
	sent := strings.Split(waitOrFail(t, subscribed, "the subscribe"), ",")
	slices.Sort(sent)
	if want := []string{"600519$SHSE$CN", "BTCUSDT$BA", "XAUUSD$GB"}; !slices.Equal(sent, want) {
		t.Errorf("subscribed %v, want %v", sent, want)
	}

	var got []itick.Event
	for len(got) < len(pushes) {
		ev := next(t, s, nil)
		if e, ok := ev.(itick.ErrorEvent); ok {
			t.Errorf("error event: %v", e.Err)
			continue
		}
		got = append(got, withoutTime(ev))
	}
	want := []itick.Event{
		itick.QuoteEvent{Code: "XAUUSD", Region: itick.RegionGB, Quote: itick.Quote{Symbol: "XAUUSD"}},
		itick.DepthEvent{Code: "BTCUSDT", Region: itick.RegionBA, Depth: itick.DepthBook{Symbol: "BTCUSDT"}},
		itick.TickEvent{Code: "BTCUSDT", Region: itick.RegionBA, Tick: itick.Tick{Symbol: "BTCUSDT"}},
		itick.KlineEvent{Code: "XAUUSD", Region: itick.RegionGB, Interval: itick.OneMinute},
		itick.KlineEvent{Code: "600519", Region: "CN", Exchange: "SHSE", Interval: itick.OneMinute},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if sym := got[4].(itick.KlineEvent).Symbol(); sym != "600519$SHSE$CN" {
		t.Errorf("Symbol() = %q, want 600519$SHSE$CN", sym)
	}
	s.Close()
	if leak := leaksToken(logs.String(), token); leak != "" {
		t.Errorf("logs show %q of the token:\n%s", leak, logs.String())
	}
}

// TestStream_RefusalWithTextCode: an acknowledgement whose code is the
// service's E-number as a string is a refusal like any other.
func TestStream_RefusalWithTextCode(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) == nil {
			answer(ctx, c, func(streamRequest) string { return streamFixture(t, "subscribe_limit_text_code.json", "") })
		}
	})
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithDialTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote)
	var se *itick.StreamError
	if !errors.Is(err, itick.ErrPlanLimit) || !errors.As(err, &se) || se.CodeText != "E003" {
		t.Fatalf("Subscribe = %v, want a *StreamError with code E003 matching ErrPlanLimit", err)
	}
}

// TestStream_MatchesSubscriptionsIgnoringCase: against a service that
// pushes codes and regions in lower case, every event names its product
// as it was subscribed, whatever case that was in, and a product
// subscribed again in another case is the same product.
func TestStream_MatchesSubscriptionsIgnoringCase(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		sim := streamSim(wssim.Config{PushInterval: 2 * time.Millisecond, LooseCase: true, LegacyKline: legacy})
		c := newServerClient(t, httptest.NewServer(sim), simToken)
		s := openStream(t, c, itick.AssetStock)
		syms := []string{"XAUUSD$GB", "BTCUSDT$ba", "600519$SHSE$CN", "aapl$US"}
		if err := s.Subscribe(within(t), syms, itick.ChannelQuote, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"xauusd$gb", "BTCUSDT$BA"}, itick.ChannelTick); err != nil {
			t.Fatal(err)
		}
		if n := s.Stats().Symbols; n != len(syms) {
			t.Errorf("legacy=%v: %d products, want %d", legacy, n, len(syms))
		}
		if n := sim.Subscriptions(); n != len(syms) {
			t.Errorf("legacy=%v: the service holds %d products, want %d", legacy, n, len(syms))
		}
		seen := map[string]bool{}
		for len(seen) < len(syms)*3+2 {
			var sym, kind string
			switch e := next(t, s, nil).(type) {
			case itick.QuoteEvent:
				sym, kind = e.Symbol(), "quote"
			case itick.TickEvent:
				sym, kind = e.Symbol(), "tick"
			case itick.DepthEvent:
				sym, kind = e.Symbol(), "depth"
			case itick.KlineEvent:
				sym, kind = e.Symbol(), "kline"
			case itick.ErrorEvent:
				t.Fatalf("legacy=%v: %v", legacy, e.Err)
			}
			if !slices.Contains(syms, sym) {
				t.Fatalf("legacy=%v: %s event for %q, which is not a subscribed form (%v)", legacy, kind, sym, syms)
			}
			seen[sym+" "+kind] = true
		}
		s.Close()
	}
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
