package itick_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
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
