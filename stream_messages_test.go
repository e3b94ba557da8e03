package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/wssim"
)

// The stream's messages: each event type, and every message the service
// documents routed to its event.

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
