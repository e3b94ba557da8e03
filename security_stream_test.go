package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/internal/transport"
	"github.com/d19c4e34/itick/internal/wssim"
)

// The stream's side: the origin it dials and follows, and the server text
// and pushed symbols it redacts and bounds.

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

// TestStream_OriginRule: the handshake's redirects are judged by the
// transport's origin rule, with ws as http and wss as https.
func TestStream_OriginRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"ws://h.example/stock", "http://h.example:80/moved", true},
		{"wss://h.example/stock", "https://h.example:443/", true},
		{"wss://H.Example/stock", "https://h.example/", true},
		{"ws://h.example:8080/", "http://h.example:8080/x", true},
		{"ws://[::1]/", "http://[::1]:80/", true},
		{"wss://h.example/", "ws://h.example/", false},
		{"wss://h.example/", "http://h.example:443/", false},
		{"ws://h.example/", "http://h.example:8080/", false},
		{"ws://h.example/", "http://other.example/", false},
		{"ws://h.example/", "http://h.example.evil/", false},
		{"ws://h.example/", "ftp://h.example/", false},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := transport.SameOrigin(a, b); got != tt.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestStream_RedirectStaysInOrigin: the handshake's token goes to the
// stream URL's origin only.
func TestStream_RedirectStaysInOrigin(t *testing.T) {
	t.Parallel()
	var tokens atomic.Int64 // requests elsewhere that carried the token
	elsewhere := newWSHost(func(ctx context.Context, _ int64, r *http.Request, c *websocket.Conn) {
		if r.Header.Get("token") != "" {
			tokens.Add(1)
		}
		if greet(ctx, c) == nil {
			answer(ctx, c, acceptAll)
		}
	})
	elsewhereSrv := httptest.NewServer(elsewhere)
	t.Cleanup(func() {
		elsewhere.Close()
		elsewhereSrv.Close()
	})
	var moved atomic.Int64 // handshakes that reached the moved path with the token
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away/stock":
			http.Redirect(w, r, elsewhereSrv.URL+"/stock", http.StatusTemporaryRedirect)
		case "/near/stock":
			http.Redirect(w, r, "/moved/stock", http.StatusFound)
		case "/moved/stock":
			if r.Header.Get("token") != simToken {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			moved.Add(1)
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			if greet(r.Context(), c) == nil {
				answer(r.Context(), c, acceptAll)
			}
		default:
			http.NotFound(w, r)
		}
	}))

	c := newServerClient(t, origin, simToken)
	if s, err := c.Stream(within(t), itick.AssetStock, itick.WithStreamURL(origin.URL+"/away")); err == nil {
		s.Close()
		t.Error("a handshake redirected to another origin succeeded")
	} else if leak := leaksToken(err.Error(), simToken); leak != "" {
		t.Errorf("error %q shows the token", err)
	}
	if n := tokens.Load(); n != 0 {
		t.Errorf("another origin received the token %d time(s)", n)
	}

	s, err := c.Stream(within(t), itick.AssetStock, itick.WithStreamURL(origin.URL+"/near"))
	if err != nil {
		t.Fatalf("a redirect within the origin: %v", err)
	}
	s.Close()
	if moved.Load() != 1 {
		t.Errorf("the redirect within the origin reached the moved path %d time(s) with the token, want 1", moved.Load())
	}
}

// TestStream_ServerTextIsRedactedAndBounded: whatever a server echoes, in
// whatever form, the token stays out of events, errors and logs, and the
// text stays bounded.
func TestStream_ServerTextIsRedactedAndBounded(t *testing.T) {
	t.Parallel()
	const token = "sk+live/0123456789abcdefXYZ=="
	pad := strings.Repeat("x", 300)
	forms := []string{token, url.QueryEscape(token), url.PathEscape(token)}
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) != nil {
			return
		}
		if n > 1 {
			answer(ctx, c, acceptAll)
			return
		}
		req, err := wsRead(ctx, c)
		if err != nil || wsSend(ctx, c, acceptAll(req)) != nil {
			return
		}
		for _, f := range forms {
			pushes := []string{
				`{"code":1,"data":{"s":"700","r":"HK","type":"` + pad + f + `","t":1}}`,
				`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":"` + f + pad + `","t":1}}`,
				`{"code":1,"data":{"s":"` + pad + f + `","t":99,"k":{}}}`,
			}
			for _, p := range pushes {
				if wsSend(ctx, c, p) != nil {
					return
				}
			}
		}
		// A close reason holds at most 123 bytes.
		c.Close(websocket.StatusPolicyViolation, "bye "+url.QueryEscape(token))
	})
	logs := new(testutil.SyncBuffer)
	s, err := newServerClient(t, httptest.NewServer(h), token, itick.WithLogger(debugLogger(logs))).Stream(within(t), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for errs := 0; errs < 3*len(forms); {
		switch ev := next(t, s, nil).(type) {
		case itick.ErrorEvent:
			errs++
			texts = append(texts, ev.Err.Error())
		case itick.GapEvent:
			t.Fatalf("gap before the bad pushes arrived: %v", ev.Reason)
		}
	}
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	texts = append(texts, gap.Reason.Error())
	s.Close()
	texts = append(texts, logs.String())
	if !strings.Contains(logs.String(), "connection lost") {
		t.Errorf("no WARN line for the lost connection:\n%s", logs.String())
	}
	for i, text := range texts {
		if leak := leaksToken(text, token); leak != "" {
			t.Errorf("text %d shows %q of the token: %s", i, leak, text)
		}
		if i < len(texts)-1 && len(text) > 1024 {
			t.Errorf("text %d is %d bytes: %.100s...", i, len(text), text)
		}
	}

	// A refusal that echoes the token, at length.
	refuser := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
		wsSend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed for `+url.PathEscape(token)+strings.Repeat("é", 1<<16)+`"}`)
		c.Close(websocket.StatusPolicyViolation, "auth failed")
	})
	_, err = newServerClient(t, httptest.NewServer(refuser), token).Stream(within(t), itick.AssetStock)
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("refused token: %v, want ErrUnauthorized", err)
	}
	var se *itick.StreamError
	if !errors.As(err, &se) {
		t.Fatalf("refused token: %T, want a *StreamError", err)
	}
	for _, text := range []string{err.Error(), se.Message} {
		if leak := leaksToken(text, token); leak != "" {
			t.Errorf("refusal shows %q of the token: %.200s", leak, text)
		}
		if len(text) > 1024 || !utf8.ValidString(text) {
			t.Errorf("refusal text is %d bytes or not UTF-8: %.100s...", len(text), text)
		}
	}
}

// TestStream_HandshakeRefusalCarriesEvidence: a gateway that refuses the
// WebSocket handshake with an HTTP status gives an *APIError with the
// body and headers it sent, the token taken out of both, like a REST call's.
func TestStream_HandshakeRefusalCarriesEvidence(t *testing.T) {
	t.Parallel()
	const token = "tk-9f3a7c1e5b2d8f4a6c0e"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("token"))
		w.Header().Set("X-Request-Id", "req-42")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"message":"Invalid API key in request: %s"}`, r.Header.Get("token"))
	}))
	c := newServerClient(t, srv, token)
	_, err := c.Stream(within(t), itick.AssetStock)
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v (%T), want *APIError", err, err)
	}
	if apiErr.StatusCode != http.StatusUnauthorized || !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("status %d, Is(ErrUnauthorized) %v; want 401 and true", apiErr.StatusCode, errors.Is(err, itick.ErrUnauthorized))
	}
	if !strings.Contains(apiErr.Body, "Invalid API key in request") || apiErr.Header.Get("X-Request-Id") != "req-42" {
		t.Errorf("Body %q, X-Request-Id %q: want the refusal's body and headers", apiErr.Body, apiErr.Header.Get("X-Request-Id"))
	}
	for what, text := range map[string]string{
		"Body": apiErr.Body, "X-Echo": apiErr.Header.Get("X-Echo"), "%#v": fmt.Sprintf("%#v", apiErr), "Error": err.Error(),
	} {
		if piece := leaksToken(text, token); piece != "" {
			t.Errorf("%s shows %q of the token: %s", what, piece, text)
		}
	}
}

func TestStream_TokenStaysOutOfLogsAndErrors(t *testing.T) {
	t.Parallel()
	sim := streamSim(wssim.Config{PushInterval: 5 * time.Millisecond})
	var logs testutil.SyncBuffer
	c := newServerClient(t, httptest.NewServer(sim), simToken, itick.WithLogger(debugLogger(&logs)))
	s, err := c.Stream(within(t), "stock")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	sim.DropAll()
	gap := next(t, s, func(ev itick.Event) bool { _, ok := ev.(itick.GapEvent); return ok }).(itick.GapEvent)
	s.Close()

	out := logs.String()
	if !strings.Contains(out, "itick stream connection lost") || !strings.Contains(out, "itick stream connected") {
		t.Errorf("logs lack the connection lines:\n%s", out)
	}
	for _, text := range []string{out, gap.Reason.Error(), fmt.Sprint(s), fmt.Sprintf("%#v", s), fmt.Sprintf("%+v", gap)} {
		if strings.Contains(text, simToken) {
			t.Errorf("the token leaked into %q", text)
		}
	}
}
