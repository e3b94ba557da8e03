package markettest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// streamServer starts a server whose clock stays at fixedNow, when the US
// and London markets trade and Asian ones are closed, and whose streams
// push every few milliseconds.
func streamServer(t *testing.T, opts ...markettest.Option) *markettest.Server {
	t.Helper()
	return streamServerAt(t, fixedNow, opts...)
}

// hkOpen is an instant when Hong Kong trades: 11:09 on a Friday there.
var hkOpen = time.Date(2025, 3, 14, 3, 9, 26, 535_000_000, time.UTC)

// streamServerAt is streamServer with its clock at now.
func streamServerAt(t *testing.T, now time.Time, opts ...markettest.Option) *markettest.Server {
	t.Helper()
	clock := markettest.NewManualClock(now)
	base := []markettest.Option{markettest.WithClock(clock.Now), markettest.WithStreamInterval(2 * time.Millisecond)}
	return newServer(t, append(base, opts...)...)
}

// bounded is a safety net for a test's waits.
func bounded(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// openStream connects an SDK Stream to srv with a client from srv.Client.
func openStream(t *testing.T, srv *markettest.Server, class string, opts ...itick.StreamOption) *itick.Stream {
	t.Helper()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]itick.StreamOption{itick.WithDialTimeout(5 * time.Second)}, opts...)
	s, err := client.Stream(bounded(t), itick.AssetType(class), opts...)
	if err != nil {
		t.Fatalf("Stream(%q): %v", class, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// nextEvent returns the next event keep accepts.
func nextEvent(t *testing.T, s *itick.Stream, keep func(itick.Event) bool) itick.Event {
	t.Helper()
	ctx := bounded(t)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("stream ended: %v", s.Err())
			}
			if keep(ev) {
				return ev
			}
		case <-ctx.Done():
			t.Fatal("no matching event in time")
		}
	}
}

func isGap(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }

func isQuote(ev itick.Event) bool { _, ok := ev.(itick.QuoteEvent); return ok }

// eventKey names an event by its type and, for candles, its interval.
func eventKey(ev itick.Event) string {
	switch ev := ev.(type) {
	case itick.QuoteEvent:
		return "quote"
	case itick.TickEvent:
		return "tick"
	case itick.DepthEvent:
		return "depth"
	case itick.KlineEvent:
		return string(itick.ChannelKline(ev.Interval))
	}
	return ""
}

// collect waits for one event of each channel.
func collect(t *testing.T, s *itick.Stream, chans []itick.Channel) map[string]itick.Event {
	t.Helper()
	got := make(map[string]itick.Event)
	for len(got) < len(chans) {
		ev := nextEvent(t, s, func(ev itick.Event) bool {
			if e, ok := ev.(itick.ErrorEvent); ok {
				t.Errorf("error event: %v", e.Err)
			}
			return eventKey(ev) != ""
		})
		got[eventKey(ev)] = ev
	}
	return got
}

var allChannels = []itick.Channel{itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth,
	itick.ChannelKline(itick.OneMinute), itick.ChannelKline(itick.OneHour), itick.ChannelKline(itick.OneDay)}

// TestStreamPushesMatchGenerator checks every push type of every class
// against the generator at the server's pinned time, a time when the
// product's market trades, field by field for the fields a push carries.
func TestStreamPushesMatchGenerator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		class  markettest.Class
		region itick.Region
		code   string
		now    time.Time
	}{
		{markettest.Stock, itick.RegionHK, "700", hkOpen},
		{markettest.Stock, itick.RegionUS, "AAPL", fixedNow},
		{markettest.Crypto, itick.RegionBA, "BTCUSDT", fixedNow},
		{markettest.Forex, itick.RegionGB, "EURUSD", fixedNow},
		{markettest.Future, itick.RegionUS, "GC", fixedNow},
		{markettest.Indices, itick.RegionGB, "SPX", fixedNow},
		{markettest.Fund, itick.RegionUS, "SPY", fixedNow},
	}
	for _, tt := range tests {
		t.Run(string(tt.class)+"/"+tt.code, func(t *testing.T) {
			t.Parallel()
			srv := streamServerAt(t, tt.now)
			s := openStream(t, srv, string(tt.class))
			sym := tt.code + "$" + string(tt.region)
			if err := s.Subscribe(bounded(t), []string{sym}, allChannels...); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
			got := collect(t, s, allChannels)

			gen, now := srv.Generator(), srv.Now()
			q := gen.Quote(tt.class, tt.region, tt.code, now)
			tk := gen.Tick(tt.class, tt.region, tt.code, now)
			want := map[string]itick.Event{
				"quote": itick.QuoteEvent{Code: tt.code, Region: tt.region, Quote: itick.Quote{Symbol: tt.code,
					Last: q.Last, Open: q.Open, High: q.High, Low: q.Low, Time: q.Time, Volume: q.Volume,
					Turnover: q.Turnover}},
				"tick": itick.TickEvent{Code: tt.code, Region: tt.region, Tick: itick.Tick{Symbol: tt.code,
					Last: tk.Last, Time: tk.Time, Volume: tk.Volume}},
				"depth": itick.DepthEvent{Code: tt.code, Region: tt.region,
					Depth: gen.Depth(tt.class, tt.region, tt.code, now)},
			}
			for _, iv := range []itick.Interval{itick.OneMinute, itick.OneHour, itick.OneDay} {
				k := gen.Klines(tt.class, tt.region, tt.code, iv, 1, time.Time{}, now)[0]
				want[string(itick.ChannelKline(iv))] = itick.KlineEvent{Code: tt.code, Region: tt.region,
					Interval: iv, Kline: k}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pushes (-generator +stream):\n%s", diff)
			}
		})
	}
}

// TestStreamPushesMatchREST checks pushes against what the SDK's REST
// calls return for the same products at the same instant.
func TestStreamPushesMatchREST(t *testing.T) {
	t.Parallel()
	srv := streamServerAt(t, hkOpen)
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	s := openStream(t, srv, "stock")
	chans := []itick.Channel{itick.ChannelQuote, itick.ChannelDepth, itick.ChannelKline(itick.FiveMinutes)}
	if err := s.Subscribe(ctx, []string{"700$HK"}, chans...); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	got := collect(t, s, chans)

	quotes, err := client.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	q := quotes["700"]
	// A push carries ld o h l t v tu: the rest of the REST quote is not sent.
	q.PrevClose, q.Change, q.ChangePercent, q.Status = 0, 0, 0, 0
	depths, err := client.Stock.Depths(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	klines, err := client.Stock.Klines(ctx, itick.RegionHK, []string{"700"}, itick.FiveMinutes, 3)
	if err != nil {
		t.Fatal(err)
	}
	ks := klines["700"]
	if len(ks) != 3 {
		t.Fatalf("REST klines: %d candles, want 3", len(ks))
	}
	want := map[string]itick.Event{
		"quote":   itick.QuoteEvent{Code: "700", Region: itick.RegionHK, Quote: q},
		"depth":   itick.DepthEvent{Code: "700", Region: itick.RegionHK, Depth: depths["700"]},
		"kline@2": itick.KlineEvent{Code: "700", Region: itick.RegionHK, Interval: itick.FiveMinutes, Kline: ks[2]},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pushes (-REST +stream):\n%s", diff)
	}
}

func TestStreamAuth(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithToken("right-token"))
	tests := []struct {
		name   string
		token  string
		refuse bool
		ok     bool
	}{
		{"right token", "right-token", false, true},
		{"wrong token", "wrong-token", false, false},
		{"refused", "right-token", true, false},
	}
	for _, tt := range tests {
		// Not parallel: the refusal is server-wide.
		t.Run(tt.name, func(t *testing.T) {
			srv.SetStreamRefuseAuth(tt.refuse)
			defer srv.SetStreamRefuseAuth(false)
			client, err := itick.NewClient(tt.token, itick.WithBaseURL(srv.URL),
				itick.WithBackoff(time.Millisecond, 5*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.Stream(bounded(t), "crypto", itick.WithDialTimeout(5*time.Second))
			if tt.ok {
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("Stream succeeded, want ErrUnauthorized")
			}
			if !errors.Is(err, itick.ErrUnauthorized) {
				t.Errorf("Stream error = %v, want ErrUnauthorized", err)
			}
			if strings.Contains(err.Error(), "right-token") {
				t.Errorf("error %q shows the token", err)
			}
		})
	}
	if st := srv.StreamStats(); st.Accepted != 3 {
		t.Errorf("Accepted = %d, want 3 (each attempt upgraded, then authenticated or refused)", st.Accepted)
	}
}

// rawConn dials the stream of class with token and reads the connect
// message and the authentication verdict.
func rawConn(t *testing.T, srv *markettest.Server, class, token string) (*websocket.Conn, []map[string]any) {
	t.Helper()
	c, _, err := websocket.Dial(bounded(t), srv.StreamURL()+"/"+class,
		&websocket.DialOptions{HTTPHeader: http.Header{"token": {token}}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c, []map[string]any{readMsg(t, c), readMsg(t, c)}
}

func readMsg(t *testing.T, c *websocket.Conn) map[string]any {
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

// TestStreamProtocol talks to the stream side directly: the handshake,
// acknowledgements and refusals, and pongs.
func TestStreamProtocol(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithStreamMaxSymbols(2), markettest.WithStreamInterval(time.Hour))

	c, hello := rawConn(t, srv, "forex", "wrong")
	wantRefused := []map[string]any{
		{"code": 1.0, "msg": "Connected Successfully"},
		{"code": 0.0, "resAc": "auth", "msg": "auth failed"},
	}
	if diff := cmp.Diff(wantRefused, hello); diff != "" {
		t.Errorf("wrong token (-want +got):\n%s", diff)
	}
	if _, _, err := c.Read(bounded(t)); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("after a refusal: %v, want a policy-violation close", err)
	}

	c, hello = rawConn(t, srv, "forex", srv.Token)
	wantOK := []map[string]any{
		{"code": 1.0, "msg": "Connected Successfully"},
		{"code": 1.0, "resAc": "auth", "msg": "authenticated"},
	}
	if diff := cmp.Diff(wantOK, hello); diff != "" {
		t.Errorf("right token (-want +got):\n%s", diff)
	}
	steps := []struct {
		send string
		want map[string]any
	}{
		{`{"ac":"subscribe","params":"EURUSD$GB","types":"quote,kline@1"}`,
			map[string]any{"code": 1.0, "resAc": "subscribe", "msg": "subscribe Successfully"}},
		{`{"ac":"subscribe","params":"GBPUSD$GB,AUDUSD$GB","types":"quote"}`,
			map[string]any{"code": 0.0, "resAc": "subscribe", "msg": "exceeding the maximum subscription limit"}},
		{`{"ac":"subscribe","params":"GBPUSD$GB","types":"candles"}`,
			map[string]any{"code": 0.0, "resAc": "subscribe", "msg": `cannot be resolved type "candles"`}},
		{`{"ac":"subscribe","params":"GBPUSD","types":"quote"}`,
			map[string]any{"code": 0.0, "resAc": "subscribe", "msg": `cannot be resolved symbol "GBPUSD"`}},
		{`{"ac":"dance"}`,
			map[string]any{"code": 0.0, "resAc": "dance", "msg": "cannot be resolved action"}},
		{`{"ac":"ping","params":"1710428966535"}`,
			map[string]any{"resAc": "pong", "data": map[string]any{"params": "1710428966535"}}},
		{`{"ac":"unsubscribe","params":"EURUSD$GB"}`,
			map[string]any{"code": 1.0, "resAc": "unsubscribe", "msg": "unsubscribe Successfully"}},
	}
	for _, st := range steps {
		if err := c.Write(bounded(t), websocket.MessageText, []byte(st.send)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, readMsg(t, c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.send, diff)
		}
	}
	// The refused connection is closed by now on the client's side, but
	// the server may still be finishing with it: wait for it to go.
	waitFor(t, func() bool { return srv.StreamStats().Conns == 1 })
	st := srv.StreamStats()
	if st.Conns != 1 || st.Subscriptions != 0 || st.Pings != 1 || st.Pushes != 0 {
		t.Errorf("StreamStats = %+v, want 1 conn, 0 subscriptions, 1 ping, 0 pushes", st)
	}
}

// TestStreamSubscribeLimit shows the SDK getting the service's limit
// refusal as ErrPlanLimit.
func TestStreamSubscribeLimit(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithStreamMaxSymbols(1))
	s := openStream(t, srv, "stock", itick.WithSymbolsPerConn(5))
	err := s.Subscribe(bounded(t), []string{"TSLA$US", "AAPL$US"}, itick.ChannelQuote)
	var se *itick.StreamError
	if !errors.As(err, &se) || !errors.Is(err, itick.ErrPlanLimit) {
		t.Fatalf("Subscribe over the limit: %v, want a *StreamError matching ErrPlanLimit", err)
	}
	if err := s.Subscribe(bounded(t), []string{"TSLA$US"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe within the limit: %v", err)
	}
	ev := nextEvent(t, s, isQuote).(itick.QuoteEvent)
	if ev.Code != "TSLA" || ev.Region != itick.RegionUS {
		t.Errorf("quote for %s$%s, want TSLA$US", ev.Code, ev.Region)
	}
}

// TestStreamOutsideREST checks that streams leave the REST side's
// records and quota alone, and that a plain GET of a stream path is a
// REST request like any other.
func TestStreamOutsideREST(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithQuota(1))
	s := openStream(t, srv, "stock")
	if err := s.Subscribe(bounded(t), []string{"AAPL$US"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, s, isQuote)
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Requests holds %d records after streaming, want 0", n)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Stock.Quotes(bounded(t), itick.RegionHK, []string{"700"}); err != nil {
		t.Errorf("the one REST request the quota allows: %v", err)
	}
	if r := get(t, srv, "/stock", srv.Token); r.status != http.StatusNotFound {
		t.Errorf("GET /stock without an upgrade: HTTP %d, want 404", r.status)
	}
}

func TestStreamFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []itick.StreamOption
		fault      func(*markettest.Server)
		wantReason string // in the GapEvent's Reason
	}{
		{"drop", nil, func(s *markettest.Server) {
			if n := s.DropStreams(); n != 1 {
				t.Errorf("DropStreams = %d, want 1", n)
			}
		}, "stream read"},
		{"no pongs", []itick.StreamOption{itick.WithHeartbeat(5*time.Millisecond, 50*time.Millisecond)},
			func(s *markettest.Server) { s.SetStreamPongs(false) }, "ping unanswered"},
		{"silent", []itick.StreamOption{itick.WithHeartbeat(5*time.Millisecond, 50*time.Millisecond),
			itick.WithDialTimeout(200 * time.Millisecond)},
			func(s *markettest.Server) {
				s.SetStreamSilent(true)
				// A silent server authenticates nobody either: speak
				// again once the client has given the connection up.
				waitFor(t, func() bool { return s.StreamStats().Accepted >= 2 })
				s.SetStreamSilent(false)
			}, "ping unanswered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := streamServer(t)
			s := openStream(t, srv, "stock", tt.opts...)
			if err := s.Subscribe(bounded(t), []string{"700$HK", "AAPL$US"}, itick.ChannelQuote); err != nil {
				t.Fatal(err)
			}
			nextEvent(t, s, isQuote)
			tt.fault(srv)
			gap := nextEvent(t, s, isGap).(itick.GapEvent)
			if gap.Reason == nil || !strings.Contains(gap.Reason.Error(), tt.wantReason) {
				t.Errorf("gap reason = %v, want one mentioning %q", gap.Reason, tt.wantReason)
			}
			if diff := cmp.Diff([]string{"700$HK", "AAPL$US"}, gap.Symbols, cmpSorted); diff != "" {
				t.Errorf("gap symbols (-want +got):\n%s", diff)
			}
			// Subscriptions are renewed: quotes flow on the new connection.
			nextEvent(t, s, isQuote)
			if st := srv.StreamStats(); st.Accepted < 2 {
				t.Errorf("Accepted = %d, want a reconnection", st.Accepted)
			}
			if st := s.Stats(); st.Reconnects < 1 || st.Gaps < 1 {
				t.Errorf("client stats = %+v, want a reconnect and a gap", st)
			}
		})
	}
}

// waitFor polls cond until it holds, failing the test if it never does.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx := bounded(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition not met in time")
		case <-time.After(time.Millisecond):
		}
	}
}

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
})

// TestStreamRefusedOnReconnect revokes the token while a stream runs: the
// reconnection is refused and the stream ends with ErrUnauthorized.
func TestStreamRefusedOnReconnect(t *testing.T) {
	t.Parallel()
	srv := streamServer(t)
	s := openStream(t, srv, "crypto")
	if err := s.Subscribe(bounded(t), []string{"BTCUSDT$BA"}, itick.ChannelTick); err != nil {
		t.Fatal(err)
	}
	srv.SetStreamRefuseAuth(true)
	srv.DropStreams()
	select {
	case <-s.Done():
	case <-bounded(t).Done():
		t.Fatal("stream still running after the token was refused")
	}
	if err := s.Err(); !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("Err = %v, want ErrUnauthorized", err)
	}
}

// TestStreamPings checks that the SDK's heartbeat reaches the server and
// is answered.
func TestStreamPings(t *testing.T) {
	t.Parallel()
	srv := streamServer(t)
	s := openStream(t, srv, "indices", itick.WithHeartbeat(2*time.Millisecond, 5*time.Second))
	waitFor(t, func() bool { return srv.StreamStats().Pings >= 5 })
	if st := s.Stats(); st.Reconnects != 0 || st.Conns != 1 {
		t.Errorf("client stats = %+v, want one connection never replaced", st)
	}
}

// TestStreamClose checks that closing the server ends open stream
// connections instead of waiting for them.
func TestStreamClose(t *testing.T) {
	t.Parallel()
	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow), markettest.WithStreamInterval(time.Millisecond))
	c, _ := rawConn(t, srv, "stock", srv.Token)
	done := make(chan struct{})
	go func() {
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-bounded(t).Done():
		t.Fatal("Close did not return with a stream open")
	}
	if _, _, err := c.Read(bounded(t)); err == nil {
		t.Error("stream connection still readable after Close")
	}
	if st := srv.StreamStats(); st.Conns != 0 {
		t.Errorf("Conns = %d after Close", st.Conns)
	}
}

// TestStream_LooseCaseAndExchange: against pushes in the service's loose
// case, the SDK's events name products as they were subscribed, a
// code$EXCHANGE$REGION product included.
func TestStream_LooseCaseAndExchange(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithStreamLooseCase())
	s := openStream(t, srv, "stock")
	syms := []string{"AAPL$US", "VOD$LSE$GB"}
	if err := s.Subscribe(bounded(t), syms, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < len(syms) {
		q, ok := nextEvent(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.QuoteEvent); return ok }).(itick.QuoteEvent)
		if !ok {
			continue
		}
		if !slices.Contains(syms, q.Symbol()) {
			t.Fatalf("quote for %q (code %q, region %q), not a subscribed form", q.Symbol(), q.Code, q.Region)
		}
		seen[q.Symbol()] = true
		if q.Symbol() == "VOD$LSE$GB" && q.Exchange != "LSE" {
			t.Errorf("exchange %q, want LSE", q.Exchange)
		}
	}
}

// TestStream_RegionInSymbol: pushes of either form, s the code alone or
// code$REGION in every push, quote, tick and depth alike, reach the SDK's
// events under the products as they were subscribed.
func TestStream_RegionInSymbol(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]markettest.Option{nil, {markettest.WithStreamRegionInSymbol()},
		{markettest.WithStreamRegionInSymbol(), markettest.WithStreamLooseCase()}} {
		srv := streamServer(t, opts...)
		s := openStream(t, srv, "stock")
		syms := []string{"AAPL$US", "MSFT$US"}
		if err := s.Subscribe(bounded(t), syms, itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for len(seen) < 3*len(syms) {
			ev := nextEvent(t, s, func(ev itick.Event) bool { return eventKey(ev) != "" })
			sym := eventSymbol(ev)
			if !slices.Contains(syms, sym) {
				t.Fatalf("%d options: %T for %q, not a subscribed form", len(opts), ev, sym)
			}
			seen[fmt.Sprintf("%T %s", ev, sym)] = true
		}
		s.Close()
	}
}

// TestStreamPushesOnlyWhileMarketTrades: a stock is pushed while its
// market trades and not at all while it is closed; the subscription
// stands, so pushes resume when the market opens.
func TestStreamPushesOnlyWhileMarketTrades(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(fixedNow) // New York trades, Hong Kong is closed
	srv := newServer(t, markettest.WithClock(clock.Now), markettest.WithStreamInterval(time.Millisecond))
	s := openStream(t, srv, "stock")
	if err := s.Subscribe(bounded(t), []string{"AAPL$US", "700$HK"}, itick.ChannelQuote, itick.ChannelTick); err != nil {
		t.Fatal(err)
	}
	// Each round pushes every live product: 30 events, none for 700.
	for range 30 {
		ev := nextEvent(t, s, func(ev itick.Event) bool { return eventKey(ev) != "" })
		if sym := eventSymbol(ev); sym != "AAPL$US" {
			t.Fatalf("a push for %s while Hong Kong is closed", sym)
		}
	}
	clock.Set(hkOpen) // Hong Kong trades, New York is closed
	nextEvent(t, s, func(ev itick.Event) bool { return eventSymbol(ev) == "700$HK" })
	// AAPL's pushes in the round that saw the new time come before 700's:
	// none comes after.
	for range 30 {
		ev := nextEvent(t, s, func(ev itick.Event) bool { return eventKey(ev) != "" })
		if sym := eventSymbol(ev); sym != "700$HK" {
			t.Fatalf("a push for %s while New York is closed", sym)
		}
	}
	if st := srv.StreamStats(); st.Subscriptions != 2 {
		t.Errorf("%d subscriptions, want both still standing", st.Subscriptions)
	}
}

// eventSymbol names the product of a quote, tick, depth or candle event.
func eventSymbol(ev itick.Event) string {
	switch ev := ev.(type) {
	case itick.QuoteEvent:
		return ev.Symbol()
	case itick.TickEvent:
		return ev.Code + "$" + string(ev.Region)
	case itick.DepthEvent:
		return ev.Code + "$" + string(ev.Region)
	case itick.KlineEvent:
		return ev.Code + "$" + string(ev.Region)
	}
	return ""
}

// TestStreamCryptoPushesAtAnyHour: crypto trades on weekends and at night.
func TestStreamCryptoPushesAtAnyHour(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		time.Date(2025, 3, 15, 3, 0, 0, 0, time.UTC),   // Saturday night
		time.Date(2025, 12, 25, 12, 0, 0, 0, time.UTC), // a holiday nearly everywhere
	} {
		srv := streamServerAt(t, at)
		s := openStream(t, srv, "crypto")
		if err := s.Subscribe(bounded(t), []string{"BTCUSDT$BA"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		q := nextEvent(t, s, isQuote).(itick.QuoteEvent)
		if want := srv.Generator().Quote(markettest.Crypto, itick.RegionBA, "BTCUSDT", at); q.Quote.Last != want.Last || !q.Quote.Time.Equal(at) {
			t.Errorf("at %s: pushed %v at %s, want %v at that instant", at, q.Quote.Last, q.Quote.Time, want.Last)
		}
	}
}

// TestStreamRegionsOutsidePlan: with WithRegions, a subscription to a
// product of a region outside the plan is acknowledged, and then nothing
// is pushed for it, as the REST side answers with success and no data.
func TestStreamRegionsOutsidePlan(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithRegions(itick.RegionBA))
	s := openStream(t, srv, "crypto")
	if err := s.Subscribe(bounded(t), []string{"ETHUSDT$BT", "ETHUSDT$BA"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe to a product outside the plan: %v, want it acknowledged", err)
	}
	for range 30 {
		if sym := nextEvent(t, s, isQuote).(itick.QuoteEvent).Symbol(); sym != "ETHUSDT$BA" {
			t.Fatalf("a push for %s, a region outside the plan", sym)
		}
	}
	if st := srv.StreamStats(); st.Subscriptions != 2 {
		t.Errorf("%d subscriptions, want the silent one counted too", st.Subscriptions)
	}
}

// TestCodesAreOneProductWhateverTheirCase: AAPL, aapl and the stream's
// lower-case aapl$us have one price at one instant, over REST and stream.
func TestCodesAreOneProductWhateverTheirCase(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, markettest.WithStreamLooseCase())
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t)
	upper, err := client.Stock.Quote(ctx, itick.RegionUS, "AAPL")
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []struct {
		region itick.Region
		code   string
	}{{"us", "aapl"}, {"US", "Aapl"}, {"Us", "AAPL"}} {
		q, err := client.Stock.Quote(ctx, form.region, form.code)
		if err != nil {
			t.Fatal(err)
		}
		q.Symbol = upper.Symbol
		if diff := cmp.Diff(*upper, *q); diff != "" {
			t.Errorf("quote of %s$%s (-AAPL$US +%[2]s$%[1]s):\n%s", form.region, form.code, diff)
		}
	}
	lowerK, err := client.Stock.Kline(ctx, "us", "aapl", itick.OneHour, 5)
	if err != nil {
		t.Fatal(err)
	}
	upperK, err := client.Stock.Kline(ctx, itick.RegionUS, "AAPL", itick.OneHour, 5)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(upperK, lowerK); diff != "" {
		t.Errorf("candles of aapl$us (-AAPL$US +aapl$us):\n%s", diff)
	}

	s := openStream(t, srv, "stock")
	if err := s.Subscribe(ctx, []string{"aapl$us"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	pushed := nextEvent(t, s, isQuote).(itick.QuoteEvent)
	if pushed.Quote.Last != upper.Last || pushed.Quote.High != upper.High || pushed.Quote.Volume != upper.Volume {
		t.Errorf("pushed aapl$us %+v, REST AAPL$US %+v: want one price", pushed.Quote, *upper)
	}
}
