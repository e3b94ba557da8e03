package itick_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
)

// TestBehaviour8_RequestHeaders: every request, retries and every chunk
// included, carries token, Accept and a User-Agent naming the SDK.
func TestBehaviour8_RequestHeaders(t *testing.T) {
	t.Parallel()
	sdkUA := "itick-go/" + itick.Version
	cases := []struct {
		name   string
		opts   []itick.Option
		wantUA string
	}{
		{"default", nil, sdkUA},
		{"WithUserAgent", []itick.Option{itick.WithUserAgent("quantbot/2.1")}, "quantbot/2.1 " + sdkUA},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, append(tc.opts, itick.WithBatchSize(2))...)
			var rec recorder
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, sequence(body(503, ""), echoQuotes())))
			mt.RegisterResponder("GET", mockBase+"/news", record(&rec, body(200, string(fixture(t, "news_page2.json")))))
			if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(5)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.News.List(t.Context(), itick.NewsQuery{Market: "stock", Lang: "en"}); err != nil {
				t.Fatal(err)
			}
			reqs := rec.all()
			if len(reqs) != 5 {
				t.Fatalf("%d requests, want 5 (1 retry + 3 chunks + news)", len(reqs))
			}
			for i, r := range reqs {
				got := map[string]string{
					"token":      r.Header.Get("token"),
					"Accept":     r.Header.Get("Accept"),
					"User-Agent": r.Header.Get("User-Agent"),
				}
				want := map[string]string{"token": testToken, "Accept": "application/json", "User-Agent": tc.wantUA}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("request %d (%s) headers (-want +got):\n%s", i, r.Path, diff)
				}
			}
		})
	}
}

// TestBehaviour8_TokenNotInPrintedClient: no fmt verb prints the token.
func TestBehaviour8_TokenNotInPrintedClient(t *testing.T) {
	t.Parallel()
	c, _ := newMockClient(t, testToken)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		for _, v := range []any{c, *c, c.Stock, c.News} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, testToken) {
				t.Errorf("fmt %s of %T prints the token: %s", verb, v, out)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(c), mockBase) {
		t.Errorf("%v of the client = %q, want it to show the base URL", c, fmt.Sprint(c))
	}
}

// TestBehaviour8_TokenNotInErrors: errors never carry the token, even when
// the server echoes it back in its body or the transport puts it in its text.
func TestBehaviour8_TokenNotInErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		responder httpmock.Responder
	}{
		{"gateway echo", body(401, `{"message":"Invalid API key in request: `+testToken+`"}`)},
		{"envelope echo", body(200, `{"code":0,"msg":"auth failed for token `+testToken+`","data":null}`)},
		{"plain text echo", body(500, "upstream said token="+testToken)},
		{"undecodable data echo", body(200, `{"code":0,"msg":null,"data":{"700":"`+testToken+`"}}`)},
		{"transport error echo", httpmock.NewErrorResponder(errors.New("proxy refused token " + testToken))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithRetries(1))
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", tc.responder)
			for _, n := range []int{1, 25} { // one chunk, and a *BatchError
				_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(n))
				if err == nil {
					t.Fatal("err = nil")
				}
				for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
					if out := fmt.Sprintf(verb, err); strings.Contains(out, testToken) {
						t.Errorf("fmt %s of the error prints the token: %s", verb, out)
					}
				}
				var apiErr *itick.APIError
				if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, testToken) {
					t.Errorf("APIError.Message carries the token: %q", apiErr.Message)
				}
			}
		})
	}
}

// TestBehaviour8_LogsOneLinePerAttemptWithoutToken: WithLogger at debug level
// writes one line per attempt, naming the path, and never the token.
func TestBehaviour8_LogsOneLinePerAttemptWithoutToken(t *testing.T) {
	t.Parallel()
	var buf testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mt := newMockClient(t, testToken, itick.WithLogger(logger), itick.WithRetries(3))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes",
		sequence(body(500, "token "+testToken), httpmock.NewErrorResponder(errors.New("dial: "+testToken)), body(200, okQuotes)))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 3 (one per attempt):\n%s", len(lines), out)
	}
	for i, l := range lines {
		if !strings.Contains(l, "/stock/quotes") {
			t.Errorf("line %d does not name the path: %s", i, l)
		}
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("line %d is not at debug level: %s", i, l)
		}
	}
	if strings.Contains(out, testToken) {
		t.Errorf("the log carries the token:\n%s", out)
	}
}

// TestBehaviour8_LogsSilentAboveDebug: an info-level logger gets nothing.
func TestBehaviour8_LogsSilentAboveDebug(t *testing.T) {
	t.Parallel()
	var buf testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, mt := newMockClient(t, testToken, itick.WithLogger(logger))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); out != "" {
		t.Errorf("info-level log got output:\n%s", out)
	}
}

// TestBehaviour8_RedirectToOtherHostDropsToken: a redirect to another host
// does not carry the token; one to the same host does.
func TestBehaviour8_RedirectToOtherHostDropsToken(t *testing.T) {
	t.Parallel()
	var otherToken, otherHits atomic.Value
	otherHits.Store(0)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherToken.Store(r.Header.Get("token"))
		otherHits.Store(otherHits.Load().(int) + 1)
		fmt.Fprint(w, okQuotes)
	}))
	defer other.Close()
	var sameHostToken atomic.Value
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stock/quotes":
			http.Redirect(w, r, other.URL+"/stock/quotes?"+r.URL.RawQuery, http.StatusFound)
		case "/stock/depths":
			http.Redirect(w, r, "/moved/depths?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		case "/moved/depths":
			sameHostToken.Store(r.Header.Get("token"))
			fmt.Fprint(w, `{"code":0,"msg":null,"data":{}}`)
		}
	}))
	c := newServerClient(t, home, testToken)
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if got["700"].Last != 616 || otherHits.Load().(int) != 1 {
		t.Fatalf("the redirect was not followed: %v", got)
	}
	if tok := otherToken.Load().(string); tok != "" {
		t.Errorf("the other host received token %q", tok)
	}
	if _, err := c.Stock.Depths(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if tok, _ := sameHostToken.Load().(string); tok != testToken {
		t.Errorf("same-host redirect carried token %q, want the client's", tok)
	}
}

// TestBehaviour9_BodyOverLimit: a body over WithMaxResponseBytes is an error
// matching ErrResponseTooLarge, is not retried, and is caught with or
// without a Content-Length, over a real socket.
func TestBehaviour9_BodyOverLimit(t *testing.T) {
	t.Parallel()
	const limit = 1024
	big := `{"code":0,"msg":null,"data":{"700":{"s":"` + strings.Repeat("x", 4*limit) + `"}}}`
	cases := []struct {
		name    string
		status  int
		chunked bool
	}{
		{"Content-Length", 200, false},
		{"chunked", 200, true},
		{"retryable status", 503, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if !tc.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				w.WriteHeader(tc.status)
				for i := 0; i < len(big); i += 256 {
					_, _ = w.Write([]byte(big[i:min(i+256, len(big))]))
					if tc.chunked {
						w.(http.Flusher).Flush()
					}
				}
			}))
			c := newServerClient(t, srv, testToken, itick.WithMaxResponseBytes(limit), itick.WithRetries(3))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if !errors.Is(err, itick.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
			if got != nil {
				t.Errorf("map = %v, want nil", got)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("%d attempts, want 1 (not retried)", n)
			}
		})
	}
}

// TestBehaviour9_BodyAtLimitAccepted: a body of exactly the bound is fine.
func TestBehaviour9_BodyAtLimitAccepted(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithMaxResponseBytes(int64(len(okQuotes))))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatalf("err = %v for a body of exactly the bound", err)
	}
	c2, mt2 := newMockClient(t, testToken, itick.WithMaxResponseBytes(int64(len(okQuotes))-1))
	mt2.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	if _, err := c2.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); !errors.Is(err, itick.ErrResponseTooLarge) {
		t.Fatalf("err = %v for a body one byte over, want ErrResponseTooLarge", err)
	}
}
