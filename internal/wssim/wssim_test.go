package wssim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

func start(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s := New(cfg)
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		srv.Close()
	})
	return s, "ws" + strings.TrimPrefix(srv.URL, "http")
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, url, token string) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("token", token)
	}
	c, _, err := websocket.Dial(bounded(t), url, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func readJSON(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	_, b, err := c.Read(bounded(t))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func send(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	if err := c.Write(bounded(t), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// authed dials with the token "tok" and reads the connect and auth
// messages.
func authed(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	return authedAs(t, url, "tok")
}

// authedAs dials with token and reads the connect and auth messages.
func authedAs(t *testing.T, url, token string) *websocket.Conn {
	t.Helper()
	c := dial(t, url, token)
	want := []map[string]any{
		{"code": 1.0, "msg": MsgConnected},
		{"code": 1.0, "resAc": "auth", "msg": MsgAuthOK},
	}
	for _, w := range want {
		if diff := cmp.Diff(w, readJSON(t, c)); diff != "" {
			t.Fatalf("handshake (-want +got):\n%s", diff)
		}
	}
	return c
}

func TestAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		token  string
		refuse bool
	}{
		{"wrong token", "nope", false},
		{"no token", "", false},
		{"refused", "tok", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, url := start(t, Config{Token: "tok"})
			s.SetRefuseAuth(tt.refuse)
			c := dial(t, url+"/stock", tt.token)
			readJSON(t, c) // connected
			if diff := cmp.Diff(map[string]any{"code": 0.0, "resAc": "auth", "msg": MsgAuthFailed}, readJSON(t, c)); diff != "" {
				t.Errorf("auth reply (-want +got):\n%s", diff)
			}
			_, _, err := c.Read(bounded(t))
			if got := websocket.CloseStatus(err); got != websocket.StatusPolicyViolation {
				t.Errorf("after a refusal: %v, want a close with StatusPolicyViolation", err)
			}
		})
	}
}

func TestRequests(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{Token: "tok", PushInterval: time.Hour, MaxSymbols: 3})
	c := authed(t, url+"/forex")
	tests := []struct {
		send string
		want map[string]any
	}{
		{`{"ac":"ping","params":"1765526889000"}`, map[string]any{"resAc": "pong", "data": map[string]any{"params": "1765526889000"}}},
		{`{"ac":"subscribe","params":"EURUSD$GB,GBPUSD$GB","types":"quote,kline@3"}`,
			map[string]any{"code": 1.0, "resAc": "subscribe", "msg": "subscribe Successfully"}},
		{`{"ac":"subscribe","params":"A$GB,B$GB","types":"quote"}`, map[string]any{"code": 0.0, "resAc": "subscribe", "msg": MsgLimit}},
		{`{"ac":"subscribe","params":"A$GB","types":"trades"}`, map[string]any{"code": 0.0, "resAc": "subscribe", "msg": `cannot be resolved type "trades"`}},
		{`{"ac":"subscribe","params":"EURUSD","types":"quote"}`, map[string]any{"code": 0.0, "resAc": "subscribe", "msg": `cannot be resolved symbol "EURUSD"`}},
		{`{"ac":"dance","params":"x"}`, map[string]any{"code": 0.0, "resAc": "dance", "msg": MsgBadAction}},
		{`not json`, map[string]any{"code": 0.0, "resAc": "", "msg": MsgBadAction}},
		{`{"ac":"unsubscribe","params":"GBPUSD$GB"}`, map[string]any{"code": 1.0, "resAc": "unsubscribe", "msg": "unsubscribe Successfully"}},
	}
	for _, tt := range tests {
		send(t, c, tt.send)
		if diff := cmp.Diff(tt.want, readJSON(t, c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.send, diff)
		}
	}
	if got := s.ConnSymbols(); !cmp.Equal(got, []int{1}) {
		t.Errorf("ConnSymbols = %v, want [1]", got)
	}
	if s.Pings() != 1 {
		t.Errorf("Pings = %d, want 1", s.Pings())
	}

	// With pongs off a ping gets no answer: the next reply is the ack.
	s.SetPongs(false)
	send(t, c, `{"ac":"ping","params":"1"}`)
	send(t, c, `{"ac":"unsubscribe","params":"EURUSD$GB","types":"quote"}`)
	if got := readJSON(t, c)["resAc"]; got != "unsubscribe" {
		t.Errorf("with pongs off the next message answers %v, want unsubscribe", got)
	}
}

func TestPushes(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1765526889000).UTC()
	src := constSource{Bar{Time: at, Last: 10.5, Open: 10, High: 11, Low: 9, Volume: 100, Turnover: 1000, TradeVol: 3}}
	// Quote and depth pushes name their product alike: the code, or
	// under RegionInSymbol code$REGION.
	tests := []struct {
		legacy, region bool
		types          string
		want           map[string]any
	}{
		{false, false, "quote", map[string]any{"code": 1.0, "data": map[string]any{"s": "700", "r": "HK", "type": "quote",
			"ld": 10.5, "o": 10.0, "h": 11.0, "l": 9.0, "v": 100.0, "tu": 1000.0, "t": 1765526889000.0}}},
		{false, false, "tick", map[string]any{"code": 1.0, "data": map[string]any{"s": "700", "r": "HK", "type": "tick",
			"ld": 10.5, "v": 3.0, "t": 1765526889000.0}}},
		{false, false, "depth", map[string]any{"code": 1.0, "data": map[string]any{"s": "700", "r": "HK", "type": "depth",
			"a": []any{map[string]any{"po": 1.0, "p": 10.51, "v": 100.0, "o": 1.0}},
			"b": []any{map[string]any{"po": 1.0, "p": 10.49, "v": 100.0, "o": 1.0}}}}},
		{false, true, "quote", map[string]any{"code": 1.0, "data": map[string]any{"s": "700$HK", "r": "HK", "type": "quote",
			"ld": 10.5, "o": 10.0, "h": 11.0, "l": 9.0, "v": 100.0, "tu": 1000.0, "t": 1765526889000.0}}},
		{false, true, "depth", map[string]any{"code": 1.0, "data": map[string]any{"s": "700$HK", "r": "HK", "type": "depth",
			"a": []any{map[string]any{"po": 1.0, "p": 10.51, "v": 100.0, "o": 1.0}},
			"b": []any{map[string]any{"po": 1.0, "p": 10.49, "v": 100.0, "o": 1.0}}}}},
		{false, false, "kline@1", map[string]any{"code": 1.0, "data": map[string]any{"s": "700", "r": "HK", "type": "kline@1",
			"o": 10.0, "h": 11.0, "l": 9.0, "c": 10.5, "v": 100.0, "tu": 1000.0, "t": float64(at.Truncate(time.Minute).UnixMilli())}}},
		{true, false, "kline@8", map[string]any{"code": 0.0, "data": map[string]any{"s": "700", "t": 8.0, "k": map[string]any{
			"o": 10.0, "h": 11.0, "l": 9.0, "c": 10.5, "v": 100.0, "tu": 1000.0, "t": float64(at.Truncate(24 * time.Hour).UnixMilli())}}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s region=%v", tt.types, tt.region), func(t *testing.T) {
			t.Parallel()
			s, url := start(t, Config{Source: src, PushInterval: time.Millisecond, DepthLevels: 1, LegacyKline: tt.legacy,
				RegionInSymbol: tt.region})
			c := authed(t, url+"/stock")
			send(t, c, `{"ac":"subscribe","params":"700$HK","types":"`+tt.types+`"}`)
			if got := readJSON(t, c)["code"]; got != 1.0 {
				t.Fatalf("subscribe ack code %v", got)
			}
			if diff := cmp.Diff(tt.want, readJSON(t, c)); diff != "" {
				t.Errorf("push (-want +got):\n%s", diff)
			}
			if s.Pushes() < 1 {
				t.Errorf("Pushes = %d after a push", s.Pushes())
			}
		})
	}
}

type constSource struct{ b Bar }

func (c constSource) Next(string, string, time.Time) Bar { return c.b }

func TestFaults(t *testing.T) {
	t.Parallel()
	t.Run("DropAll", func(t *testing.T) {
		t.Parallel()
		s, url := start(t, Config{})
		c1, c2 := authed(t, url+"/stock"), authed(t, url+"/crypto")
		if n := s.DropAll(); n != 2 {
			t.Errorf("DropAll = %d, want 2", n)
		}
		for _, c := range []*websocket.Conn{c1, c2} {
			if _, _, err := c.Read(bounded(t)); err == nil || websocket.CloseStatus(err) != -1 {
				t.Errorf("read after a drop: %v, want an error without a close frame", err)
			}
		}
		if s.Accepted() != 2 {
			t.Errorf("Accepted = %d, want 2", s.Accepted())
		}
	})
	t.Run("unknown class", func(t *testing.T) {
		t.Parallel()
		_, url := start(t, Config{})
		_, resp, err := websocket.Dial(bounded(t), url+"/bonds", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("dial /bonds: %v, want HTTP 404", err)
		}
	})
	t.Run("ping timeout", func(t *testing.T) {
		t.Parallel()
		_, url := start(t, Config{PingTimeout: 20 * time.Millisecond})
		c := authed(t, url+"/stock")
		if _, _, err := c.Read(bounded(t)); err == nil {
			t.Error("a silent client kept its connection")
		}
	})
	t.Run("Close refuses new connections", func(t *testing.T) {
		t.Parallel()
		s := New(Config{})
		srv := httptest.NewServer(s)
		defer srv.Close()
		s.Close()
		_, resp, err := websocket.Dial(bounded(t), "ws"+strings.TrimPrefix(srv.URL, "http")+"/stock", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("dial after Close: %v, want HTTP 503", err)
		}
	})
}

func TestRandomWalk(t *testing.T) {
	t.Parallel()
	now := time.Unix(1765526889, 0)
	a, b := NewRandomWalk(7), NewRandomWalk(7)
	var seqA, seqB []Bar
	for range 5 {
		seqA = append(seqA, a.Next("700", "HK", now))
		a.Next("AAPL", "US", now) // interleaving another product changes nothing
	}
	for range 5 {
		seqB = append(seqB, b.Next("700", "HK", now))
	}
	if diff := cmp.Diff(seqA, seqB); diff != "" {
		t.Errorf("same seed, different walks (-a +b):\n%s", diff)
	}
	for i, bar := range seqA {
		if bar.Last <= 0 || bar.Low > bar.Last || bar.High < bar.Last || (i > 0 && bar.Volume <= seqA[i-1].Volume) {
			t.Errorf("bar %d is inconsistent: %+v", i, bar)
		}
	}
	if c := NewRandomWalk(8).Next("700", "HK", now); c == seqA[0] {
		t.Error("another seed gave the same first bar")
	}
}

// TestAckPrecedesPushes subscribes product after product while rounds of
// pushes follow each other closely: the first message about a new product
// must be its acknowledgement, never a push.
func TestAckPrecedesPushes(t *testing.T) {
	t.Parallel()
	_, url := start(t, Config{Token: "tok", PushInterval: 20 * time.Microsecond})
	c := authed(t, url+"/stock")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// until reads up to the acknowledgement of action, failing on a push
	// for code before it.
	until := func(action, code string) {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if m["resAc"] == action {
				if m["code"] != 1.0 {
					t.Fatalf("%s %s refused: %v", action, code, m)
				}
				return
			}
			if d, _ := m["data"].(map[string]any); action == "subscribe" && d["s"] == code {
				t.Fatalf("a push for %s came before its acknowledgement: %v", code, m)
			}
		}
	}
	// A product that stays keeps the rounds going back to back.
	send(t, c, `{"ac":"subscribe","params":"KEEP$HK","types":"tick"}`)
	until("subscribe", "KEEP")
	for i := range 300 {
		code := strconv.Itoa(i)
		send(t, c, `{"ac":"subscribe","params":"`+code+`$HK","types":"quote"}`)
		until("subscribe", code)
		send(t, c, `{"ac":"unsubscribe","params":"`+code+`$HK"}`)
		until("unsubscribe", code)
	}
}

// TestConnSubscriptions lists what each connection subscribes to.
func TestConnSubscriptions(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{Token: "tok", PushInterval: time.Hour})
	c := authed(t, url+"/stock")
	send(t, c, `{"ac":"subscribe","params":"700$HK,AAPL$US","types":"tick,quote"}`)
	readJSON(t, c)
	send(t, c, `{"ac":"unsubscribe","params":"AAPL$US","types":"quote"}`)
	readJSON(t, c)
	want := []map[string][]string{{"700$HK": {"quote", "tick"}, "AAPL$US": {"tick"}}}
	if diff := cmp.Diff(want, s.ConnSubscriptions()); diff != "" {
		t.Errorf("ConnSubscriptions (-want +got):\n%s", diff)
	}
}

// TestExchangeSymbolsAndLooseCase: a code$EXCHANGE$REGION subscription is
// held as written and pushed without its exchange; under LooseCase every
// push names its product in lower case.
func TestExchangeSymbolsAndLooseCase(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{PushInterval: time.Millisecond, LooseCase: true})
	c := authed(t, url+"/stock")
	send(t, c, `{"ac":"subscribe","params":"600519$SHSE$CN,XAUUSD$GB","types":"quote,depth"}`)
	if m := readJSON(t, c); m["code"] != 1.0 {
		t.Fatalf("ack %v", m)
	}
	want := map[string][]string{"600519$SHSE$CN": {"quote", "depth"}, "XAUUSD$GB": {"quote", "depth"}}
	if diff := cmp.Diff([]map[string][]string{want}, s.ConnSubscriptions()); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for len(seen) < 4 {
		m := readJSON(t, c)
		d, _ := m["data"].(map[string]any)
		seen[d["s"].(string)+" "+d["r"].(string)+" "+d["type"].(string)] = true
	}
	wantSeen := map[string]bool{"600519 cn quote": true, "600519 cn depth": true, "xauusd gb quote": true, "xauusd gb depth": true}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Errorf("pushes (-want +got):\n%s", diff)
	}
	send(t, c, `{"ac":"subscribe","params":"1$$HK","types":"quote"}`)
	for {
		if m := readJSON(t, c); m["resAc"] == "subscribe" {
			if m["code"] != 0.0 {
				t.Errorf("1$$HK accepted: %v", m)
			}
			break
		}
	}
}

// TestSubscriptionsIgnoreCase: a product is one product whatever the case
// it is subscribed in. It counts once toward the limit, is pushed once a
// round under the form first subscribed, and is unsubscribed in any case.
func TestSubscriptionsIgnoreCase(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{Token: "tok", PushInterval: time.Millisecond, MaxSymbols: 1})
	c := authed(t, url+"/stock")
	send(t, c, `{"ac":"subscribe","params":"AAPL$US","types":"quote"}`)
	if m := readJSON(t, c); m["code"] != 1.0 {
		t.Fatalf("ack %v", m)
	}
	send(t, c, `{"ac":"subscribe","params":"aapl$us,Aapl$Us","types":"tick"}`)
	for {
		m := readJSON(t, c)
		if m["resAc"] != "subscribe" {
			continue
		}
		if m["code"] != 1.0 {
			t.Fatalf("aapl$us refused with one product allowed: %v", m)
		}
		break
	}
	want := []map[string][]string{{"AAPL$US": {"quote", "tick"}}}
	if diff := cmp.Diff(want, s.ConnSubscriptions()); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	// Two pushes a round, quote then tick, both naming AAPL.
	var types []string
	for len(types) < 4 {
		m := readJSON(t, c)
		d, _ := m["data"].(map[string]any)
		if d["s"] != "AAPL" || d["r"] != "US" {
			t.Fatalf("push %v, want one for AAPL$US", m)
		}
		types = append(types, d["type"].(string))
	}
	if diff := cmp.Diff([]string{"quote", "tick", "quote", "tick"}, types); diff != "" {
		t.Errorf("push types (-want +got):\n%s", diff)
	}
	send(t, c, `{"ac":"unsubscribe","params":"aapl$US"}`)
	for {
		if m := readJSON(t, c); m["resAc"] == "unsubscribe" {
			break
		}
	}
	if n := s.Subscriptions(); n != 0 {
		t.Errorf("%d subscriptions after unsubscribing in another case", n)
	}
}

// TestLive: nothing is pushed for a product while Live says it is not
// live, and pushes resume when it is again; other products flow all along.
func TestLive(t *testing.T) {
	t.Parallel()
	var closed atomic.Bool
	closed.Store(true)
	asked := make(chan string, 100)
	live := func(class, code, region string, now time.Time) bool {
		select {
		case asked <- class + " " + code + "$" + region:
		default:
		}
		return code != "700" || !closed.Load()
	}
	s, url := start(t, Config{Token: "tok", PushInterval: time.Millisecond, Live: live})
	c := authed(t, url+"/stock")
	send(t, c, `{"ac":"subscribe","params":"700$HK,AAPL$US","types":"quote"}`)
	if m := readJSON(t, c); m["code"] != 1.0 {
		t.Fatalf("ack %v", m)
	}
	for range 20 {
		d, _ := readJSON(t, c)["data"].(map[string]any)
		if d["s"] != "AAPL" {
			t.Fatalf("a push for %v while it is not live", d["s"])
		}
	}
	if got := <-asked; got != "stock 700$HK" && got != "stock AAPL$US" {
		t.Errorf("Live asked about %q", got)
	}
	closed.Store(false)
	for {
		d, _ := readJSON(t, c)["data"].(map[string]any)
		if d["s"] == "700" {
			break
		}
	}
	if s.Subscriptions() != 2 {
		t.Errorf("%d subscriptions, want 2", s.Subscriptions())
	}
}
