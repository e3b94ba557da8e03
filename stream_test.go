package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/stream"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/wssim"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

const simToken = "stream-test-token"

// streamSim is a stream simulator with cfg that accepts simToken unless
// cfg names another token; newServerClient serves it and closes it.
func streamSim(cfg wssim.Config) *wssim.Server {
	if cfg.Token == "" {
		cfg.Token = simToken
	}
	return wssim.New(cfg)
}

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

// within is a bounded safety net for waits in tests.
func within(t testing.TB) context.Context {
	t.Helper()
	// Generous: a passing test never waits for it, and a loaded machine
	// under the race detector can take seconds over a reconnection.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
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
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		// Find retries for a few hundred milliseconds itself.
		err := goleak.Find(before)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("goroutines remain: %v", err)
		case <-tick.C:
		}
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

func TestStream_SlowConsumer(t *testing.T) {
	t.Parallel()
	const buf = 8
	tests := []struct {
		policy itick.Overflow
		// want picks the values of Last that stay, given how many were pushed.
		want func(pushed int) []float64
	}{
		{itick.DropOldest, func(n int) []float64 { return seq(n-buf+1, n) }},
		{itick.DropNewest, func(int) []float64 { return seq(1, buf) }},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.policy), func(t *testing.T) {
			t.Parallel()
			src := &countingSource{}
			sim := streamSim(wssim.Config{Source: src, PushInterval: time.Millisecond})
			c := newServerClient(t, httptest.NewServer(sim), simToken)
			s := openStream(t, c, "stock", itick.WithBuffer(buf, tt.policy))
			if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
				t.Fatal(err)
			}
			// Nobody reads: the buffer fills and the policy drops.
			eventually(t, "overflow", func() bool { return s.Stats().Events >= 5*buf })
			sim.SetPaused(true)
			var pushed int64
			eventually(t, "the last push", func() bool {
				pushed = sim.Pushes()
				return s.Stats().Events == uint64(pushed)
			})
			var got []float64
			for len(s.Events()) > 0 {
				got = append(got, (<-s.Events()).(itick.QuoteEvent).Quote.Last)
			}
			if diff := cmp.Diff(tt.want(int(pushed)), got); diff != "" {
				t.Errorf("delivered (-want +got):\n%s", diff)
			}
			if want := uint64(pushed) - buf; s.Dropped() != want {
				t.Errorf("Dropped = %d, want %d of %d", s.Dropped(), want, pushed)
			}
		})
	}
}

func seq(from, to int) []float64 {
	var out []float64
	for i := from; i <= to; i++ {
		out = append(out, float64(i))
	}
	return out
}

// countingSource numbers its bars 1, 2, 3... in Last.
type countingSource struct{ n atomic.Int64 }

func (c *countingSource) Next(_, _ string, now time.Time) wssim.Bar {
	return wssim.Bar{Time: now, Last: float64(c.n.Add(1))}
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

func TestStreamURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base string
		opts []itick.StreamOption
		want string
	}{
		{"https://api.itick.org", nil, "wss://api.itick.org/stock"},
		{"http://127.0.0.1:8080/prefix/", nil, "ws://127.0.0.1:8080/prefix/stock"},
		{"https://api.itick.org", []itick.StreamOption{itick.WithStreamURL("wss://stream.example.com/ws/")}, "wss://stream.example.com/ws/stock"},
		{"https://api.itick.org", []itick.StreamOption{itick.WithStreamURL("http://localhost:9")}, "ws://localhost:9/stock"},
	}
	for _, tt := range tests {
		c, err := itick.NewClient("tok", itick.WithBaseURL(tt.base))
		if err != nil {
			t.Fatal(err)
		}
		u, err := itick.StreamURL(c, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		u.Path += "/stock"
		if got := u.String(); got != tt.want {
			t.Errorf("base %s: URL = %s, want %s", tt.base, got, tt.want)
		}
	}
}

func TestStream_TokenStaysOutOfLogsAndErrors(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
	var logs testutil.SyncBuffer
	c := newServerClient(t, httptest.NewServer(sim), simToken, itick.WithLogger(debugLogger(&logs)))
	s, err := c.Stream(within(t), "stock")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	sim.DropAll()
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	s.Close()

	out := logs.String()
	if !strings.Contains(out, "itick stream connection lost") || !strings.Contains(out, "itick stream connected") {
		t.Errorf("logs lack the connection lines:\n%s", out)
	}
	for _, text := range []string{out, gap.Reason.Error(), fmt.Sprint(s), fmt.Sprintf("%#v", s), fmt.Sprintf("%+v", gap)} {
		if strings.Contains(text, simToken) {
			t.Errorf("the token leaked into %q", text)
		}
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
