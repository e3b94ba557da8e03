package itick_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
	"github.com/google/go-cmp/cmp"
)

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
	if err := recv(t, errc, "the withdrawn Subscribe to return"); err != nil {
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
