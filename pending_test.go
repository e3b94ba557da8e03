package itick_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// pendingClient is a client of srv with no pacing and quick retries.
func pendingClient(t *testing.T, srv *httptest.Server, opts ...itick.Option) *itick.Client {
	t.Helper()
	c, err := itick.NewClient("pending-token-0123456789", append([]itick.Option{itick.WithBaseURL(srv.URL),
		itick.WithRateLimit(rate.Inf, 0), itick.WithBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An answer with nothing in it is the call's error, and Stats counts it as
// one; a redirect's hop is not a retry.
func TestStatsCountEmptyAnswersAndNotRedirects(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old/stock/quote":
			http.Redirect(w, r, "/stock/quote?"+r.URL.RawQuery, http.StatusFound)
		case "/stock/quote":
			w.Write([]byte(`{"code":0,"msg":null,"data":{"s":"700","ld":616}}`))
		default:
			w.Write([]byte(`{"code":0,"msg":null,"data":{}}`))
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	c := pendingClient(t, srv)
	for _, call := range []func() error{
		func() error { _, err := c.Stock.Depth(ctx, itick.RegionHK, "700"); return err },
		func() error { _, err := c.Stock.Kline(ctx, itick.RegionHK, "700", itick.OneDay, 5); return err },
		func() error { _, err := c.Market.Status(ctx, itick.RegionHK); return err },
		func() error { _, err := c.News.Get(ctx, "n-1", "en"); return err },
	} {
		if err := call(); !errors.Is(err, itick.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	}
	if st := c.Stats(); st.Requests != 4 || st.Errors != 4 {
		t.Errorf("Stats = %+v, want 4 requests and 4 errors", st)
	}

	r := pendingClient(t, srv, itick.WithBaseURL(srv.URL+"/old"))
	if _, err := r.Stock.Quote(ctx, itick.RegionHK, "700"); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Requests != 1 || st.Retries != 0 || st.Errors != 0 {
		t.Errorf("Stats after a redirected call = %+v, want 1 request, no retry, no error", st)
	}
}

// Behaviour (Client.Get): segments that proxies reinterpret are refused as
// an encoded '/' is: "..;" (Tomcat and Spring read it as ".."), and an
// encoded '?' or '#' (a decoding proxy moves the rest into the query or the
// fragment).
func TestGetRefusesSegmentsProxiesReinterpret(t *testing.T) {
	t.Parallel()
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Write([]byte(`{"code":0,"data":null}`))
	}))
	defer srv.Close()
	c := pendingClient(t, srv)
	for _, path := range []string{
		"/..;/admin", "/stock/..;/admin", "/.;x/admin", "/stock/%2e%2e;/admin", "/stock/..%3B/admin",
		"/stock/quote%3Fcode=1", "/stock/quote%23frag", "/stock/%253F/x", "/stock/%2523",
	} {
		if err := c.Get(context.Background(), path, nil, nil); !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Get(%q) = %v, want ErrInvalidArgument", path, err)
		}
	}
	if hits != 0 {
		t.Errorf("%d requests sent, want none", hits)
	}
	if err := c.Get(context.Background(), "/stock/quote;v=1", nil, nil); err != nil {
		t.Errorf("a segment with a parameter that is not a dot segment: %v", err)
	}
}

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
	defer srv.Close()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := itick.NewClient(hexToken, itick.WithBaseURL(srv.URL+"/old"), itick.WithRateLimit(rate.Inf, 0),
		itick.WithRetries(0), itick.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stock.Quote(context.Background(), itick.RegionHK, "700")
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

// wsServer accepts stream connections and runs serve on each.
func wsServer(t *testing.T, serve func(ctx context.Context, c *websocket.Conn)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		serve(r.Context(), c)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func wsSend(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// Behaviour 8: a refusal echoing the token in another case shows it in no
// stream error.
func TestStreamTextEchoingTheTokenInAnotherCase(t *testing.T) {
	t.Parallel()
	srv := wsServer(t, func(ctx context.Context, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
		wsSend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed for `+strings.ToUpper(hexToken)+`"}`)
	})
	c, err := itick.NewClient(hexToken, itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), itick.AssetStock, itick.WithDialTimeout(5*time.Second))
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
	srv := wsServer(t, func(ctx context.Context, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
		for _, s := range []string{hexToken, strings.ToUpper(hexToken) + "$US", long} {
			wsSend(ctx, c, `{"code":1,"data":{"s":"`+s+`","r":"US","type":"quote","ld":1,"t":1765526889000}}`)
		}
		c.Read(ctx) // until the client closes
	})
	c, err := itick.NewClient(hexToken, itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
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
	srv := wsServer(t, func(ctx context.Context, c *websocket.Conn) {
		wsSend(ctx, c, `{"code":1,"resAc":"auth","msg":"authenticated"}`)
		c.Read(ctx)
	})
	c, err := itick.NewClient("pending-token-0123456789", itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
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
