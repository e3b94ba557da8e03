package itick_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/wssim"
	"github.com/google/go-cmp/cmp"
)

// streamFixture returns testdata/stream/name, a message as the service's
// documentation shows it, with {{TOKEN}} replaced by token.
func streamFixture(t testing.TB, name, token string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "stream", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(b)), "{{TOKEN}}", token)
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
		if hsend(ctx, c, streamFixture(t, "connected.json", "")) != nil ||
			hsend(ctx, c, streamFixture(t, "auth_ok_echo.json", token)) != nil {
			return
		}
		req, err := hread(ctx, c)
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
			if hsend(ctx, c, m) != nil {
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
	sent := strings.Split(recv(t, subscribed, "the subscribe"), ",")
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
