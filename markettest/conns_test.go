package markettest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// answersPing reports whether c still answers a ping.
func answersPing(t *testing.T, c *websocket.Conn) bool {
	t.Helper()
	if err := c.Write(bounded(t), websocket.MessageText, []byte(`{"ac":"ping","params":"7"}`)); err != nil {
		return false
	}
	_, b, err := c.Read(bounded(t))
	return err == nil && string(b) == `{"resAc":"pong","data":{"params":"7"}}`
}

// TestStreamConnCap: the token holds as many connections as the plan
// allows, over every class; one more drops the oldest, closed with 1008
// and MsgStreamConnLimit, and the others stay up.
func TestStreamConnCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []markettest.Option
		cap  int
	}{
		{"Free", []markettest.Option{markettest.WithPlan(itick.PlanFree)}, 1},
		{"Base by default", nil, 3},
		{"Professional", []markettest.Option{markettest.WithPlan(itick.PlanProfessional)}, 6},
		{"Premium", []markettest.Option{markettest.WithPlan(itick.PlanPremium)}, 12},
		{"WithStreamMaxConns over the plan", []markettest.Option{markettest.WithPlan(itick.PlanFree),
			markettest.WithStreamMaxConns(2)}, 2},
	}
	classes := []string{"stock", "crypto", "forex", "indices", "future", "fund"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := streamServer(t, append(tt.opts, markettest.WithStreamInterval(time.Hour))...)
			conns := make([]*websocket.Conn, tt.cap)
			for i := range conns {
				conns[i], _ = rawConn(t, srv, classes[i%len(classes)], srv.Token)
			}
			for i, c := range conns {
				if !answersPing(t, c) {
					t.Fatalf("connection %d of %d dropped within the cap", i+1, tt.cap)
				}
			}
			if st := srv.StreamStats(); st.Evictions != 0 {
				t.Fatalf("Evictions = %d within the cap", st.Evictions)
			}

			rawConn(t, srv, "crypto", srv.Token) // one past the cap
			_, _, err := conns[0].Read(bounded(t))
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != markettest.MsgStreamConnLimit {
				t.Errorf("the oldest connection: %v, want a close with status 1008 and %q", err, markettest.MsgStreamConnLimit)
			}
			for i, c := range conns[1:] {
				if !answersPing(t, c) {
					t.Errorf("connection %d dropped, want only the oldest", i+2)
				}
			}
			if st := srv.StreamStats(); st.Evictions != 1 {
				t.Errorf("Evictions = %d, want 1", st.Evictions)
			}
		})
	}
}

// TestStreamConnCapLifted: WithStreamMaxConns(0) lets the token hold any
// number of connections.
func TestStreamConnCapLifted(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithPlan(itick.PlanFree), markettest.WithStreamMaxConns(0),
		markettest.WithStreamInterval(time.Hour))
	conns := make([]*websocket.Conn, 15)
	for i := range conns {
		conns[i], _ = rawConn(t, srv, "stock", srv.Token)
	}
	for i, c := range conns {
		if !answersPing(t, c) {
			t.Fatalf("connection %d dropped with no cap", i+1)
		}
	}
	if st := srv.StreamStats(); st.Evictions != 0 || st.Conns != len(conns) {
		t.Errorf("stats = %+v, want %d connections and no eviction", st, len(conns))
	}
}

// TestStreamRefusedTokenEvictsNobody: a connection whose token is refused
// takes no place under the cap.
func TestStreamRefusedTokenEvictsNobody(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithPlan(itick.PlanFree), markettest.WithStreamInterval(time.Hour))
	kept, _ := rawConn(t, srv, "stock", srv.Token)
	_, hello := rawConn(t, srv, "stock", "someone-else")
	if hello[1]["msg"] != "auth failed" {
		t.Fatalf("a wrong token: %v, want it refused", hello[1])
	}
	if !answersPing(t, kept) {
		t.Error("a refused connection dropped the token's connection")
	}
	if st := srv.StreamStats(); st.Evictions != 0 {
		t.Errorf("Evictions = %d, want 0", st.Evictions)
	}
}

// TestStreamEvictionLoop: two SDK clients with one token on the Free plan
// evict each other each time one reconnects, as two processes do on the
// service; each sees its connection lost with the reason. Once one
// closes, the other keeps its connection and gets quotes.
func TestStreamEvictionLoop(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithPlan(itick.PlanFree))
	open := func() *itick.Stream {
		return openStream(t, srv, "crypto", itick.WithReconnectBackoff(time.Millisecond, 20*time.Millisecond))
	}
	a := open()
	if err := a.Subscribe(bounded(t), []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	b := open() // evicts a, which reconnects and evicts b, and so on
	if err := subscribeThroughEvictions(t, b, "ETHUSDT$BA"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*itick.Stream{a, b} {
		ev := nextEvent(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.DisconnectEvent); return ok }).(itick.DisconnectEvent)
		if ev.Reason == nil || !strings.Contains(ev.Reason.Error(), markettest.MsgStreamConnLimit) {
			t.Errorf("disconnect reason %v, want one naming %q", ev.Reason, markettest.MsgStreamConnLimit)
		}
	}
	waitFor(t, func() bool { return srv.StreamStats().Evictions >= 4 })

	a.Close()
	// b's current connection may be the one a's last reconnection is
	// about to evict: b's quotes flow once b holds the only connection.
	waitFor(t, func() bool { return srv.StreamStats().Conns == 1 })
	q := nextEvent(t, b, isQuote).(itick.QuoteEvent)
	if q.Symbol() != "ETHUSDT$BA" {
		t.Errorf("quote for %s, want ETHUSDT$BA", q.Symbol())
	}
}

// subscribeThroughEvictions subscribes s to sym, trying again while the
// connection it was sent on is evicted before its acknowledgement.
func subscribeThroughEvictions(t *testing.T, s *itick.Stream, sym string) error {
	t.Helper()
	var err error
	for range 50 {
		if err = s.Subscribe(bounded(t), []string{sym}, itick.ChannelQuote); err == nil {
			return nil
		}
	}
	return fmt.Errorf("Subscribe(%s) through evictions: %w", sym, err)
}

// TestStreamTokenWithinCapEvictsNobody: two Streams of one token within
// the plan's cap (Base: 3) both get pushes and nobody is evicted.
func TestStreamTokenWithinCapEvictsNobody(t *testing.T) {
	t.Parallel()
	srv := streamServer(t)
	crypto, stock := openStream(t, srv, "crypto"), openStream(t, srv, "stock")
	if err := crypto.Subscribe(bounded(t), []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	if err := stock.Subscribe(bounded(t), []string{"AAPL$US"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, crypto, isQuote)
	nextEvent(t, stock, isQuote)
	if st := srv.StreamStats(); st.Evictions != 0 || st.Conns != 2 {
		t.Errorf("stats = %+v, want 2 connections and no eviction", st)
	}
	if a, b := crypto.Stats(), stock.Stats(); a.Reconnects != 0 || b.Reconnects != 0 {
		t.Errorf("reconnects %d and %d, want none", a.Reconnects, b.Reconnects)
	}
}
