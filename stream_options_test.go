package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Tests of the stream options: buffers, re-authentication, plan caps and
// the stream URL.

// WithBufferBytes bounds the buffered events by the size of their frames:
// the policy drops at whichever bound comes first.
func TestStream_BufferBoundedInBytes(t *testing.T) {
	t.Parallel()
	var levels strings.Builder
	for i := range 100 {
		if i > 0 {
			levels.WriteByte(',')
		}
		fmt.Fprintf(&levels, `{"po":%d,"p":%d.25,"v":1000.5,"o":12}`, i+1, 600+i)
	}
	book := `{"code":1,"data":{"s":"700","r":"HK","type":"depth","a":[` + levels.String() + `],"b":[` + levels.String() + `]}}`
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, wsAuthOK)
		wsAnswer(ctx, c, func(string) {
			for range 48 {
				wsSend(ctx, c, book)
			}
		})
	})
	c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
	s := streamOf(t, c, itick.WithBuffer(1000, itick.DropOldest), itick.WithBufferBytes(int64(3*len(book))))
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelDepth); err != nil {
		t.Fatal(err)
	}
	for s.Stats().Events < 48 {
		time.Sleep(time.Millisecond)
	}
	if n, dropped := len(s.Events()), s.Dropped(); n > 3 || n+int(dropped) != 48 {
		t.Errorf("%d books buffered and %d dropped; want at most 3 of %d-byte frames in %d bytes", n, dropped, len(book), 3*len(book))
	}
	if _, err := c.Stream(context.Background(), itick.AssetStock, itick.WithBufferBytes(0)); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("WithBufferBytes(0): %v, want ErrInvalidArgument", err)
	}
}

// Behaviour 18: a token the service accepted on this Stream and refuses on a
// reconnection (a refused handshake or a refused authentication) is tried
// again WithAuthRetries times in a row; the count starts again after each
// acceptance, and the Stream ends with ErrUnauthorized on one refusal more.
func TestStream_RetriesARefusedReauthentication(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    []itick.StreamOption
		accept  func(n int) bool // which connections are accepted
		conns   int              // connections until the Stream ends, or 0 for one that lives on
		renewed int              // gaps it reports meanwhile
	}{
		{"three refusals then accepted", nil, func(n int) bool { return n == 1 || n >= 5 }, 0, 1},
		{"the count starts again", nil, func(n int) bool { return n == 1 || n == 5 || n >= 9 }, 0, 2},
		{"four refusals end it", nil, func(n int) bool { return n == 1 }, 5, 0},
		{"one retry", []itick.StreamOption{itick.WithAuthRetries(1)}, func(n int) bool { return n == 1 }, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(nil)
			var conns atomic.Int32
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(conns.Add(1))
				if !tc.accept(n) && n%2 == 0 { // every other refusal is the handshake's
					http.Error(w, `{"message":"Invalid API key in request"}`, http.StatusUnauthorized)
					return
				}
				c, err := websocket.Accept(w, r, nil)
				if err != nil {
					return
				}
				defer c.CloseNow()
				ctx := r.Context()
				if !tc.accept(n) {
					wsSend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed"}`)
					return
				}
				wsSend(ctx, c, wsAuthOK)
				if !tc.accept(n + 1) { // the next is refused: this one ends once subscribed
					wsAnswer(ctx, c, func(string) { c.CloseNow() })
					return
				}
				wsAnswer(ctx, c, nil)
			})
			s := streamOf(t, newServerClient(t, srv, "stream-token-0123456789"), tc.opts...)
			if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
				t.Fatal(err)
			}
			if tc.conns > 0 {
				select {
				case <-s.Done():
				case <-time.After(15 * time.Second):
					t.Fatalf("still running after %d connections", conns.Load())
				}
				if !errors.Is(s.Err(), itick.ErrUnauthorized) || int(conns.Load()) != tc.conns {
					t.Errorf("ended with %v after %d connections, want ErrUnauthorized after %d", s.Err(), conns.Load(), tc.conns)
				}
				return
			}
			for range tc.renewed {
				nextOf[itick.GapEvent](t, s)
			}
			if err := s.Err(); err != nil {
				t.Errorf("Err = %v, want the Stream running", err)
			}
		})
	}
}

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
