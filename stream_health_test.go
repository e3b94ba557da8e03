package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of the Stream's health (behaviour 18): control events that are
// never dropped and keep their place, and the stale watchdog.

// Behaviour 18: DisconnectEvent, GapEvent and ErrorEvent are never dropped
// by the overflow policy, however full the buffer is.
func TestStream_ControlEventsAreNeverDropped(t *testing.T) {
	t.Parallel()
	for _, policy := range []itick.Overflow{itick.DropOldest, itick.DropNewest} {
		h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
			wsSend(ctx, c, wsAuthOK)
			if n > 1 {
				wsAnswer(ctx, c, nil)
				return
			}
			wsAnswer(ctx, c, func(string) {
				for i := range 50 {
					wsSend(ctx, c, quotePush(i))
				}
				wsSend(ctx, c, `{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":"not a number"}}`)
				for i := range 50 {
					wsSend(ctx, c, quotePush(100+i))
				}
				c.CloseNow()
			})
		})
		c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
		s := streamOf(t, c, itick.WithBuffer(2, policy))
		if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		for s.Stats().Gaps == 0 { // the consumer reads nothing meanwhile
			time.Sleep(time.Millisecond)
		}
		kinds := map[string]int{}
		for len(s.Events()) > 0 {
			kinds[fmt.Sprintf("%T", <-s.Events())]++
		}
		if kinds["itick.ErrorEvent"] != 1 || kinds["itick.DisconnectEvent"] != 1 || kinds["itick.GapEvent"] != 1 ||
			kinds["itick.QuoteEvent"] > 2 || s.Dropped() < 98 {
			t.Errorf("%v: buffered %v, dropped %d; want every control event, at most 2 quotes", policy, kinds, s.Dropped())
		}
	}
}

// Behaviour 18: WithStaleAfter replaces a connection that carries
// subscriptions, answers pings and pushes nothing; one with no subscriptions
// is left alone.
func TestStream_ReplacesAStaleConnection(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, wsAuthOK)
		if n == 1 {
			wsAnswer(ctx, c, nil) // pongs and acks, never a push
			return
		}
		wsAnswer(ctx, c, func(string) { wsSend(ctx, c, quotePush(int(n))) })
	})
	c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
	s := streamOf(t, c, itick.WithStaleAfter(300*time.Millisecond), itick.WithHeartbeat(50*time.Millisecond, 5*time.Second))
	time.Sleep(time.Second) // nothing subscribed: nothing to miss
	if n := h.conns.Load(); n != 1 {
		t.Fatalf("%d connections before any subscription, want 1", n)
	}
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	d, _ := nextOf[itick.DisconnectEvent](t, s)
	if !errors.Is(d.Reason, itick.ErrStreamStale) {
		t.Errorf("reason %v, want ErrStreamStale", d.Reason)
	}
	g, _ := nextOf[itick.GapEvent](t, s)
	if !errors.Is(g.Reason, itick.ErrStreamStale) {
		t.Errorf("gap reason %v, want ErrStreamStale", g.Reason)
	}
	if q, _ := nextOf[itick.QuoteEvent](t, s); q.Code != "700" {
		t.Errorf("after the renewal: %+v", q)
	}
	if _, err := c.Stream(context.Background(), itick.AssetStock, itick.WithStaleAfter(-time.Second)); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("WithStaleAfter(-1s): %v, want ErrInvalidArgument", err)
	}
}

// Close returns at once with the stale watchdog on and a connection that
// keeps pushing.
func TestStreamWithStaleAfterClosesAtOnce(t *testing.T) {
	t.Parallel()
	c, _ := newSimClient(t, []markettest.Option{markettest.WithStreamInterval(5 * time.Millisecond)})
	s, err := c.Stream(context.Background(), itick.AssetCrypto, itick.WithStaleAfter(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(context.Background(), []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	nextOf[itick.QuoteEvent](t, s)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close still blocked after 10 s")
	}
}

// A flood of undecodable frames at a consumer that reads nothing does not
// crowd out the DisconnectEvent and GapEvent that follow: the errors past
// their room are counted in one ErrorEvent, and every frame is accounted
// for.
func TestStream_ErrorFloodLeavesRoomForDisconnects(t *testing.T) {
	t.Parallel()
	const frames = 1100
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, wsAuthOK)
		if n > 1 {
			wsAnswer(ctx, c, nil)
			return
		}
		wsAnswer(ctx, c, func(string) {
			for i := range frames {
				wsSend(ctx, c, fmt.Sprintf(`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":"x%d"}}`, i))
			}
			c.CloseNow()
		})
	})
	c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
	s := streamOf(t, c, itick.WithBuffer(10, itick.DropOldest))
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the renewed connection", func() bool { return s.Stats().Gaps == 1 }) // nothing read meanwhile
	var kinds []string
	counted := 0
	leftOut := regexp.MustCompile(`(\d+) error\(s\) left out`)
	for len(s.Events()) > 0 {
		switch ev := (<-s.Events()).(type) {
		case itick.ErrorEvent:
			counted++
			if m := leftOut.FindStringSubmatch(ev.Err.Error()); m != nil {
				n, _ := strconv.Atoi(m[1])
				counted += n - 1
				kinds = append(kinds, "summary")
			}
		case itick.DisconnectEvent:
			kinds = append(kinds, "disconnect")
		case itick.GapEvent:
			kinds = append(kinds, "gap")
		}
	}
	if got := strings.Join(kinds, " "); got != "summary disconnect gap" || counted != frames {
		t.Errorf("read %q and %d errors, want the summary, the disconnect and the gap, and %d errors", got, counted, frames)
	}
}

// A connection's DisconnectEvent comes before any push of its renewed
// connection, whatever the policy, however full the buffer.
func TestStream_DisconnectComesBeforeTheRenewedPushes(t *testing.T) {
	t.Parallel()
	for _, policy := range []itick.Overflow{itick.DropOldest, itick.DropNewest} {
		t.Run(policy.String(), func(t *testing.T) {
			t.Parallel()
			h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
				wsSend(ctx, c, wsAuthOK)
				wsAnswer(ctx, c, func(string) {
					for i := range 50 {
						wsSend(ctx, c, quotePush(int(n)*1000+i)) // 1000s from the first, 2000s from the renewed
					}
					if n == 1 {
						c.CloseNow()
					}
				})
			})
			c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
			s := streamOf(t, c, itick.WithBuffer(4, policy))
			if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
				t.Fatal(err)
			}
			eventually(t, "both connections' pushes", func() bool { st := s.Stats(); return st.Gaps == 1 && st.Events == 100 })
			var order []string
			for len(s.Events()) > 0 {
				switch ev := (<-s.Events()).(type) {
				case itick.QuoteEvent:
					if ev.Quote.Last >= 2000 {
						order = append(order, "renewed")
					}
				case itick.DisconnectEvent:
					order = append(order, "disconnect")
				case itick.GapEvent:
					order = append(order, "gap")
				}
			}
			if len(order) == 0 || order[0] != "disconnect" || !strings.Contains(strings.Join(order, " "), "gap") {
				t.Errorf("read %v, want the disconnect first, and the gap", order)
			}
		})
	}
}

// WithStaleAfter below the ping interval is refused when the Stream is
// built, whatever the order of the options: the watchdog would replace
// connections that are only between pings.
func TestStream_StaleAfterBelowThePingInterval(t *testing.T) {
	t.Parallel()
	c, _ := newSimClient(t, nil)
	for _, tc := range []struct {
		name string
		opts []itick.StreamOption
		ok   bool
	}{
		{"1ns", []itick.StreamOption{itick.WithStaleAfter(time.Nanosecond)}, false},
		{"below the default ping interval", []itick.StreamOption{itick.WithStaleAfter(itick.DefaultPingInterval - time.Second)}, false},
		{"the default ping interval", []itick.StreamOption{itick.WithStaleAfter(itick.DefaultPingInterval)}, true},
		{"off", []itick.StreamOption{itick.WithStaleAfter(0)}, true},
		{"a shorter heartbeat after", []itick.StreamOption{itick.WithStaleAfter(time.Second), itick.WithHeartbeat(time.Second, time.Second)}, true},
		{"a shorter heartbeat before", []itick.StreamOption{itick.WithHeartbeat(time.Second, time.Second), itick.WithStaleAfter(time.Second)}, true},
		{"a longer heartbeat after", []itick.StreamOption{itick.WithStaleAfter(5 * time.Second), itick.WithHeartbeat(10*time.Second, time.Second)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := c.Stream(context.Background(), itick.AssetCrypto, tc.opts...)
			if err == nil {
				s.Close()
			}
			switch {
			case tc.ok && err != nil:
				t.Errorf("Stream = %v, want it open", err)
			case !tc.ok && !errors.Is(err, itick.ErrInvalidArgument):
				t.Errorf("Stream = %v, want ErrInvalidArgument", err)
			case !tc.ok && (!strings.Contains(err.Error(), "WithStaleAfter") || !strings.Contains(err.Error(), "ping interval")):
				t.Errorf("error %q, want it to name WithStaleAfter and the ping interval", err)
			}
		})
	}
}
