package itick_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// hexToken is a token of hex digits, as many services issue: a server that
// upper-cases what it echoes shows it in another case.
const hexToken = "9f86d081884c7d659a2feaa0c55ad015"

// tokenForms are the forms an echo of hexToken takes that must never show.
func tokenForms() []string {
	return []string{hexToken, strings.ToUpper(hexToken),
		base64.StdEncoding.EncodeToString([]byte(hexToken)), base64.URLEncoding.EncodeToString([]byte(hexToken)),
		base64.RawStdEncoding.EncodeToString([]byte(hexToken))[4:20]}
}

func noForm(t *testing.T, what, s string) {
	t.Helper()
	for _, f := range tokenForms() {
		if strings.Contains(strings.ToLower(s), strings.ToLower(f[:12])) {
			t.Errorf("%s shows the token as %q: %q", what, f, s)
		}
	}
}

// Behaviour 8: the token echoed in another case or in base64 shows in no
// error, evidence or log line.
func TestTokenEchoedInAnotherFormIsRedacted(t *testing.T) {
	t.Parallel()
	upper := strings.ToUpper(hexToken)
	b64 := base64.StdEncoding.EncodeToString([]byte(hexToken))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old/stock/quote" {
			http.Redirect(w, r, "/"+upper+"/stock/quote", http.StatusFound)
			return
		}
		w.Header().Set("X-Echo", upper)
		w.Header().Set("X-Echo-B64", base64.URLEncoding.EncodeToString([]byte(hexToken)))
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"code":400,"msg":"token %s refused","data":{"b64":"%s","json":"%s"}}`, upper, b64,
			base64.StdEncoding.EncodeToString([]byte(`{"token":"`+hexToken+`"}`)))
	}))
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newServerClient(t, srv, hexToken, itick.WithBaseURL(srv.URL+"/old"), itick.WithRetries(0), itick.WithLogger(logger))
	_, err := c.Stock.Quote(context.Background(), itick.RegionHK, "700")
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want an *APIError", err)
	}
	noForm(t, "the error", err.Error())
	noForm(t, "Message", apiErr.Message)
	noForm(t, "Body", apiErr.Body)
	noForm(t, "Header", fmt.Sprint(apiErr.Header))
	noForm(t, "the log", logs.String())
	if !strings.Contains(apiErr.Body, "[redacted]") || !strings.Contains(logs.String(), "[redacted]") {
		t.Errorf("nothing was redacted: body %q, log %q", apiErr.Body, logs.String())
	}
}

func wsSend(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// Behaviour 8: a refusal echoing the token in another case shows it in no
// stream error.
func TestStreamTextEchoingTheTokenInAnotherCase(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
		wsSend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed for `+strings.ToUpper(hexToken)+`"}`)
	})
	c := newServerClient(t, httptest.NewServer(h), hexToken)
	_, err := c.Stream(context.Background(), itick.AssetStock, itick.WithDialTimeout(5*time.Second))
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	noForm(t, "the stream error", err.Error())
}

// A push whose symbol matches no subscription carries the server's text
// into the event: redacted and bounded like every other server text.
func TestPushedSymbolIsRedactedAndBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Z", 200<<10)
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
		for _, s := range []string{hexToken, strings.ToUpper(hexToken) + "$US", long} {
			wsSend(ctx, c, `{"code":1,"data":{"s":"`+s+`","r":"US","type":"quote","ld":1,"t":1765526889000}}`)
		}
		c.Read(ctx) // until the client closes
	})
	c := newServerClient(t, httptest.NewServer(h), hexToken)
	s, err := c.Stream(context.Background(), itick.AssetStock, itick.WithDialTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		select {
		case ev := <-s.Events():
			if e, ok := ev.(itick.ErrorEvent); ok && i == 2 {
				// A symbol that long is no symbol: dropped, with a bounded error.
				if n := len(e.Err.Error()); n > 512 {
					t.Errorf("the ErrorEvent's text is %d bytes, want at most 512", n)
				}
				continue
			}
			q, ok := ev.(itick.QuoteEvent)
			if !ok {
				t.Fatalf("event %d: %#v, want a QuoteEvent", i, ev)
			}
			noForm(t, "QuoteEvent.Code", q.Code)
			noForm(t, "Quote.Symbol", q.Quote.Symbol)
			if len(q.Code) > 256 || len(q.Quote.Symbol) > 256 || len(q.Symbol()) > 512 {
				t.Errorf("event %d: Code of %d bytes, want at most 256", i, len(q.Code))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %d", i)
		}
	}
}

// A nil context is ErrInvalidArgument at every entry point of a Stream, as
// it is for the REST calls; it never panics, in the caller's goroutine or
// the SDK's.
func TestStreamRefusesANilContext(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
		c.Read(ctx)
	})
	c := newServerClient(t, httptest.NewServer(h), "pending-token-0123456789")
	//lint:ignore SA1012 a nil context is what this test passes
	if _, err := c.Stream(nil, itick.AssetStock); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Stream(nil) = %v, want ErrInvalidArgument", err)
	}
	s, err := c.Stream(context.Background(), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	//lint:ignore SA1012 a nil context is what this test passes
	if err := s.Subscribe(nil, []string{"700$HK"}, itick.ChannelQuote); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Subscribe(nil) = %v, want ErrInvalidArgument", err)
	}
	//lint:ignore SA1012 a nil context is what this test passes
	if err := s.Unsubscribe(nil, []string{"700$HK"}); !errors.Is(err, itick.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Unsubscribe(nil) = %v, want ErrInvalidArgument", err)
	}
}

// wsAnswer serves a connection's requests until it ends: a pong for a
// ping, an acknowledgement for the rest; then calls after(req), if set.
func wsAnswer(ctx context.Context, c *websocket.Conn, after func(req string)) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req struct{ Ac, Params string }
		if json.Unmarshal(b, &req) != nil {
			return
		}
		if req.Ac == "ping" {
			wsSend(ctx, c, `{"resAc":"pong","data":{"params":"`+req.Params+`"}}`)
			continue
		}
		wsSend(ctx, c, `{"code":1,"resAc":"`+req.Ac+`","msg":"ok"}`)
		if after != nil {
			after(req.Ac)
		}
	}
}

const wsAuthOK = `{"code":1,"resAc":"auth","msg":"authenticated"}`

func quotePush(last int) string {
	return fmt.Sprintf(`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":%d,"t":1765526889000}}`, last)
}

// nextOf waits for the next event of type T, skipping others, and returns
// it with the events skipped.
func nextOf[T itick.Event](t *testing.T, s *itick.Stream) (T, []itick.Event) {
	t.Helper()
	var skipped []itick.Event
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				var zero T
				t.Fatalf("the stream ended (%v) before a %T", s.Err(), zero)
			}
			if v, ok := ev.(T); ok {
				return v, skipped
			}
			skipped = append(skipped, ev)
		case <-deadline:
			var zero T
			t.Fatalf("no %T in time; had %v", zero, skipped)
		}
	}
}

// streamOf opens a stock Stream on c that reconnects at once and lives
// until the test ends.
func streamOf(t *testing.T, c *itick.Client, opts ...itick.StreamOption) *itick.Stream {
	t.Helper()
	s, err := c.Stream(context.Background(), itick.AssetStock,
		append([]itick.StreamOption{itick.WithReconnectBackoff(0, 2*time.Millisecond), itick.WithDialTimeout(10 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Behaviour 18: a lost connection is reported at once, once, by a
// DisconnectEvent and StreamStats.Down, however many reconnections fail;
// by the time the GapEvent arrives, Down no longer counts it.
func TestStreamReportsALostConnectionAtOnce(t *testing.T) {
	t.Parallel()
	drop, release := make(chan struct{}), make(chan struct{})
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		switch {
		case n == 1:
			wsSend(ctx, c, wsAuthOK)
			go wsAnswer(ctx, c, func(string) { wsSend(ctx, c, quotePush(1)) })
			select {
			case <-drop:
			case <-ctx.Done():
			}
		case n < 4: // reconnections that fail
		default:
			select {
			case <-release:
			case <-ctx.Done():
				return
			}
			wsSend(ctx, c, wsAuthOK)
			wsAnswer(ctx, c, nil)
		}
	})
	c := newServerClient(t, httptest.NewServer(h), "stream-token-0123456789")
	s := streamOf(t, c)
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	nextOf[itick.QuoteEvent](t, s)
	close(drop)
	d, _ := nextOf[itick.DisconnectEvent](t, s)
	if d.Conn != 0 || d.Reason == nil || d.At.IsZero() || !slices.Equal(d.Symbols, []string{"700$HK"}) {
		t.Errorf("DisconnectEvent = %+v", d)
	}
	if st := s.Stats(); st.Down != 1 || st.Conns != 0 {
		t.Errorf("Stats while down = %+v, want Down 1, Conns 0", st)
	}
	for h.conns.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	g, skipped := nextOf[itick.GapEvent](t, s)
	if st := s.Stats(); st.Down != 0 {
		t.Errorf("Stats when the gap arrives = %+v, want Down 0", st)
	}
	for _, ev := range skipped {
		if _, ok := ev.(itick.DisconnectEvent); ok {
			t.Errorf("a second DisconnectEvent for one lost connection: %+v", ev)
		}
	}
	if !g.From.Equal(d.At) || !slices.Equal(g.Symbols, d.Symbols) {
		t.Errorf("GapEvent %+v does not match DisconnectEvent %+v", g, d)
	}
}

// Behaviour 18: DisconnectEvent, GapEvent and ErrorEvent are never dropped
// by the overflow policy, however full the buffer is.
func TestStreamControlEventsAreNeverDropped(t *testing.T) {
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

// WithBufferBytes bounds the buffered events by the size of their frames:
// the policy drops at whichever bound comes first.
func TestStreamBufferBoundedInBytes(t *testing.T) {
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

// Behaviour 18: WithStaleAfter replaces a connection that carries
// subscriptions, answers pings and pushes nothing; one with no
// subscriptions is left alone.
func TestStreamReplacesAStaleConnection(t *testing.T) {
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

// Behaviour 18: a token the service accepted on this Stream and refuses
// on a reconnection (a refused handshake or a refused authentication) is
// tried again WithAuthRetries times in a row; the count starts again after
// each acceptance, and the Stream ends with ErrUnauthorized on one refusal
// more.
func TestStreamRetriesARefusedReauthentication(t *testing.T) {
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

// Behaviour 19: with WithPrevClose, every QuoteEvent carries the previous
// close of a REST quote snapshot taken when the product is subscribed, and
// again when its trading day changes; one batch call each time, on the
// client's limiter, counted in Stats. Without it the fields are zero.
func TestStreamPrevCloseFromSnapshots(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	day1 := time.Date(2025, 3, 4, 2, 30, 0, 0, time.UTC) // 10:30 in Hong Kong, a Tuesday
	now.Store(day1.UnixNano())
	c, _ := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return time.Unix(0, now.Load()).UTC() }),
		markettest.WithStreamInterval(5 * time.Millisecond)})
	ctx := context.Background()
	plain, err := c.Stream(ctx, itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	s, err := c.Stream(ctx, itick.AssetStock, itick.WithPrevClose())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, st := range []*itick.Stream{plain, s} {
		if err := st.Subscribe(ctx, []string{"700$HK", "9988$HK"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Requests != 1 {
		t.Errorf("%d requests for the snapshot of two products, want one batch call", st.Requests)
	}
	want, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := nextOf[itick.QuoteEvent](t, s)
	for q.Code != "700" {
		q, _ = nextOf[itick.QuoteEvent](t, s)
	}
	if q.Quote.PrevClose != want["700"].PrevClose || q.Quote.PrevClose == 0 ||
		math.Abs(q.Quote.Change-(q.Quote.Last-q.Quote.PrevClose)) > 1e-9 ||
		math.Abs(q.Quote.ChangePercent-q.Quote.Change/q.Quote.PrevClose*100) > 1e-9 {
		t.Errorf("quote %+v, want the previous close %v of the REST quote and the change from it", q.Quote, want["700"].PrevClose)
	}
	if pq, _ := nextOf[itick.QuoteEvent](t, plain); pq.Quote.PrevClose != 0 || pq.Quote.Change != 0 || pq.Quote.ChangePercent != 0 {
		t.Errorf("without WithPrevClose: %+v, want the fields zero", pq.Quote)
	}

	// The next trading day: its first pushes bring a new snapshot.
	before := c.Stats().Requests
	now.Store(day1.Add(24 * time.Hour).UnixNano())
	want2, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if want2["700"].PrevClose == want["700"].PrevClose {
		t.Fatalf("the simulator's previous close did not change with the day: %v", want2["700"].PrevClose)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		q, _ := nextOf[itick.QuoteEvent](t, s)
		if q.Code == "700" && q.Quote.PrevClose == want2["700"].PrevClose {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no quote with the new day's previous close %v; last %+v", want2["700"].PrevClose, q.Quote)
		}
	}
	if n := c.Stats().Requests - before; n != 2 { // the test's own call, and one renewal for both products
		t.Errorf("%d requests after the day changed, want the test's own and one renewal", n)
	}
}

// A snapshot WithPrevClose cannot take does not fail the subscription: an
// ErrorEvent with no connection says so, and the quotes flow.
func TestStreamPrevCloseSnapshotFailureIsReported(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 2, 30, 0, 0, time.UTC)
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return at }),
		markettest.WithStreamInterval(5 * time.Millisecond)}, itick.WithRetries(0))
	s, err := c.Stream(context.Background(), itick.AssetStock, itick.WithPrevClose())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv.FailNext(1, http.StatusServiceUnavailable)
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe = %v, want the subscription despite the snapshot", err)
	}
	e, _ := nextOf[itick.ErrorEvent](t, s)
	if e.Conn != -1 || !errors.Is(e.Err, itick.ErrNotFound) && !strings.Contains(e.Err.Error(), "previous close") {
		t.Errorf("ErrorEvent = %+v, want one for the snapshot, on no connection", e)
	}
	if q, _ := nextOf[itick.QuoteEvent](t, s); q.Code != "700" {
		t.Errorf("quote %+v", q)
	}
}

// Behaviour 15: a quota is not a timeout. A 429 whose Retry-After would
// pass the deadline, and a client limiter whose next slot would, end the
// call at once with an error matching ErrRateLimited and
// context.DeadlineExceeded; the 429's *APIError keeps RetryAfter, and the
// limiter's error says how long the wait would have been.
func TestSpentQuotaUnderADeadlineEndsAtOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"code":429,"msg":"API rate limit exceeded"}`))
	}))
	c := newServerClient(t, srv, "pending-token-0123456789")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	var apiErr *itick.APIError
	if !errors.Is(err, itick.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) ||
		!errors.As(err, &apiErr) || apiErr.RetryAfter != time.Minute {
		t.Errorf("err = %v, want an *APIError with RetryAfter 1m matching ErrRateLimited and DeadlineExceeded", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the call held its context until the deadline (%v)", time.Since(start))
	}

	// The client's own limiter: one call a minute.
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"code":0,"data":{"700":{"s":"700","ld":1}}}`))
	}))
	lc := newServerClient(t, ok, "pending-token-0123456789", itick.WithRateLimit(rate.Every(time.Minute), 1))
	if _, err := lc.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	_, err = lc.Stock.Quotes(ctx2, itick.RegionHK, []string{"700"})
	if !errors.Is(err, itick.ErrRateLimited) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "next token in") {
		t.Errorf("err = %v, want one matching ErrRateLimited and DeadlineExceeded that says how long the wait was", err)
	}
	if ctx2.Err() != nil {
		t.Error("the limiter held the call until its deadline")
	}
	// Without a deadline the same call waits: it is refused only when the
	// deadline makes the wait pointless. Cancelling it is no quota error.
	ctx3, cancel3 := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel3() }()
	if _, err := lc.Stock.Quotes(ctx3, itick.RegionHK, []string{"700"}); !errors.Is(err, context.Canceled) || errors.Is(err, itick.ErrRateLimited) {
		t.Errorf("cancelled wait: %v, want context.Canceled and no ErrRateLimited", err)
	}
}
