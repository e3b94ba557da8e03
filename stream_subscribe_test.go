package itick_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Subscribing and unsubscribing: errors, acknowledgements late or
// withdrawn, reconnections in between, and the ledger the service holds.

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
