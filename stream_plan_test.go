package itick_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

func symbolsN(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d$US", prefix, i)
	}
	return out
}

// TestStream_PlanLimits: a Stream's caps follow the client's plan; a
// Subscribe past either is ErrPlanLimit and sends nothing; the options
// override both.
func TestStream_PlanLimits(t *testing.T) {
	t.Parallel()
	open := func(t *testing.T, plan itick.Plan, opts ...itick.StreamOption) (*wssim.Server, *itick.Stream) {
		sim := streamSim(wssim.Config{PushInterval: time.Hour})
		c := newServerClient(t, httptest.NewServer(sim), simToken, itick.WithPlan(plan))
		s, err := c.Stream(within(t), itick.AssetStock, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return sim, s
	}

	t.Run("Free: 3 products", func(t *testing.T) {
		t.Parallel()
		sim, s := open(t, itick.PlanFree)
		if err := s.Subscribe(within(t), symbolsN("A", 4), itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("4 products on Free: %v, want ErrPlanLimit", err)
		}
		if err := s.Subscribe(within(t), symbolsN("A", 3), itick.ChannelQuote, itick.ChannelTick); err != nil {
			t.Fatalf("3 products on Free: %v", err)
		}
		if err := s.Subscribe(within(t), []string{"A0$US", "a1$us"}, itick.ChannelDepth); err != nil {
			t.Errorf("more channels of products held: %v", err)
		}
		if err := s.Subscribe(within(t), []string{"B$US"}, itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("a 4th product on Free: %v, want ErrPlanLimit", err)
		}
		if n := sim.Subscriptions(); n != 3 {
			t.Errorf("the service holds %d products, want 3: a refused Subscribe sent something", n)
		}
		if err := s.Unsubscribe(within(t), []string{"A2$US"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"B$US"}, itick.ChannelQuote); err != nil {
			t.Errorf("a product in the room an Unsubscribe made: %v", err)
		}
	})
	t.Run("Free: 1 connection", func(t *testing.T) {
		t.Parallel()
		sim, s := open(t, itick.PlanFree, itick.WithSymbolsPerConn(1))
		if err := s.Subscribe(within(t), []string{"A$US"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"B$US"}, itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("a 2nd connection on Free: %v, want ErrPlanLimit", err)
		}
		if n := sim.Conns(); n != 1 {
			t.Errorf("%d connections, want 1", n)
		}
	})
	t.Run("Professional: 6 connections", func(t *testing.T) {
		t.Parallel()
		sim, s := open(t, itick.PlanProfessional, itick.WithSymbolsPerConn(1))
		if err := s.Subscribe(within(t), symbolsN("A", 6), itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"B$US"}, itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("a 7th connection on Professional: %v, want ErrPlanLimit", err)
		}
		if n := sim.Conns(); n != 6 {
			t.Errorf("%d connections, want 6", n)
		}
	})
	t.Run("Base: 200 products", func(t *testing.T) {
		t.Parallel()
		sim, s := open(t, itick.PlanBase)
		if err := s.Subscribe(within(t), symbolsN("A", 201), itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("201 products on Base: %v, want ErrPlanLimit", err)
		}
		if err := s.Subscribe(within(t), symbolsN("A", 200), itick.ChannelQuote); err != nil {
			t.Errorf("200 products on Base: %v", err)
		}
		if n := sim.Subscriptions(); n != 200 {
			t.Errorf("the service holds %d products, want 200", n)
		}
	})
	t.Run("options override the plan", func(t *testing.T) {
		t.Parallel()
		sim, s := open(t, itick.PlanFree, itick.WithMaxSymbols(6), itick.WithMaxConns(3), itick.WithSymbolsPerConn(2))
		if err := s.Subscribe(within(t), symbolsN("A", 6), itick.ChannelQuote); err != nil {
			t.Fatalf("6 products on 3 connections: %v", err)
		}
		if n, conns := sim.Subscriptions(), sim.Conns(); n != 6 || conns != 3 {
			t.Errorf("the service holds %d products on %d connections, want 6 on 3", n, conns)
		}
		if err := s.Subscribe(within(t), []string{"B$US"}, itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
			t.Errorf("a 7th product past WithMaxSymbols(6): %v, want ErrPlanLimit", err)
		}
	})
}
