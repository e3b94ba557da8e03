package itick_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
)

// Tests that the token stays where it belongs: in the requests to the
// base URL's origin, never in an error, a log line, a printed value or an
// event, nor across a redirect to another origin or to cleartext
// (security_redirect_test.go), nor out of a stream (security_stream_test.go).

// Behaviour 8: every request, retries and every chunk included, carries
// token, Accept and a User-Agent naming the SDK.
func TestRequestHeaders(t *testing.T) {
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

// Behaviour 8: no fmt verb prints the token.
func TestTokenNotInPrintedClient(t *testing.T) {
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

// Behaviour 8: errors never carry the token, even when the server echoes it
// back in its body or the transport puts it in its text.
func TestTokenNotInErrors(t *testing.T) {
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

// Behaviour 8: WithLogger at debug level writes one line per attempt, naming
// the path, and never the token.
func TestLogsOneLinePerAttemptWithoutToken(t *testing.T) {
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

// Behaviour 8: an info-level logger gets nothing.
func TestLogsSilentAboveDebug(t *testing.T) {
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

// tokenFragment returns the first run of 8 or more bytes of testToken that
// s shows, in any of the forms a server may echo it in.
func tokenFragment(s string) string {
	for _, form := range []string{testToken, url.QueryEscape(testToken), url.PathEscape(testToken)} {
		for i := 0; i+8 <= len(form); i++ {
			if frag := form[i : i+8]; strings.Contains(s, frag) {
				return frag
			}
		}
	}
	return ""
}

// Behaviour 8: a server echoing the token, in an envelope's msg, a gateway's
// message, a body that does not parse or a field's bad value, at every
// offset around the bound on error text, shows no part of it (8 bytes or
// more) in the error, any printed form of it or the log; and an 8 MiB
// message does not make an 8 MiB error.
func TestNoTokenFragmentInErrors(t *testing.T) {
	t.Parallel()
	var offsets []int
	for off := 0; off <= 300; off += 1 {
		offsets = append(offsets, off)
	}
	bodies := map[string]func(pad string) (int, string){
		"msg": func(pad string) (int, string) {
			return 200, `{"code":1,"msg":"` + pad + testToken + ` refused","data":null}`
		},
		"gateway message": func(pad string) (int, string) {
			return 502, `{"message":"` + pad + testToken + `"}`
		},
		"not json": func(pad string) (int, string) {
			return 200, "<html>" + pad + testToken + "</html>"
		},
		"plain text error": func(pad string) (int, string) {
			return 400, pad + url.QueryEscape(testToken)
		},
		"bad field value": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + pad + testToken + `"}}}`
		},
		"bad field short": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + pad[:min(len(pad), 10)] + testToken + `"}}}`
		},
		"bad bool": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ts":` + `"x` + testToken + `"}}}`
		},
		"json escaped": func(pad string) (int, string) {
			esc := ""
			for _, c := range testToken {
				esc += fmt.Sprintf(`\u%04x`, c)
			}
			return 200, `{"code":1,"msg":"` + pad + esc + `"}`
		},
	}
	type reply struct {
		status int
		body   string
	}
	var cur atomic.Pointer[reply]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := cur.Load()
		w.WriteHeader(rep.status)
		_, _ = w.Write([]byte(rep.body))
	}))
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newServerClient(t, srv, testToken, itick.WithRetries(0), itick.WithLogger(logger))
	for name, body := range bodies {
		for _, off := range offsets {
			status, b := body(strings.Repeat("é", off/2) + strings.Repeat("x", off%2))
			cur.Store(&reply{status, b})
			_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if err == nil {
				t.Fatalf("%s, offset %d: no error", name, off)
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				if frag := tokenFragment(fmt.Sprintf(verb, err)); frag != "" {
					t.Fatalf("%s, offset %d: %s of the error shows %q: %s", name, off, verb, frag, fmt.Sprintf(verb, err))
				}
			}
			if off == 20 {
				t.Logf("%s: %v", name, err)
			}
			var apiErr *itick.APIError
			if errors.As(err, &apiErr) {
				if frag := tokenFragment(fmt.Sprintf("%#v", *apiErr)); frag != "" {
					t.Fatalf("%s, offset %d: the APIError shows %q", name, off, frag)
				}
			}
		}
	}
	if frag := tokenFragment(logs.String()); frag != "" {
		t.Errorf("the log shows %q", frag)
	}

	// An 8 MiB message is bounded, and still classified by what it says.
	cur.Store(&reply{200, `{"code":0,"msg":"` + strings.Repeat("a", 8<<20) + ` auth failed","data":{}}`})
	_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB msg gave an error of %d bytes", len(fmt.Sprint(err)))
	}
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized from the end of the message", err)
	}
	cur.Store(&reply{502, `{"message":"` + strings.Repeat("b", 8<<20) + `"}`})
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB gateway message gave an error of %d bytes", len(fmt.Sprint(err)))
	}
	cur.Store(&reply{200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + strings.Repeat("9", 8<<20) + `x"}}}`})
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB bad value gave an error of %d bytes", len(fmt.Sprint(err)))
	}
}

// printVerbs are the verbs a user might print an SDK value with.
var printVerbs = []string{"%v", "%+v", "%#v", "%s", "%q"}

// assertNoToken fails the test if any printed form of v shows the token.
func assertNoToken(t *testing.T, what string, v any) {
	t.Helper()
	for _, verb := range printVerbs {
		if s := fmt.Sprintf(verb, v); strings.Contains(s, faultToken) {
			t.Errorf("%s printed with %s shows the token: %s", what, verb, s)
		}
	}
}

// TestSecretNeverShown provokes failures whose bodies, headers and
// redirects echo the token, with a debug logger on, and checks that the
// token is in no error, no printed value and no log line.
func TestSecretNeverShown(t *testing.T) {
	checkGoroutines(t)
	other := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
		// Echo whatever arrived, as a careless proxy might.
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, `{"message":"got %s %v"}`, r.URL, r.Header)
	})
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	echo := func(w http.ResponseWriter, r *http.Request) string { return r.Header.Get("token") }
	routes := map[string]func(w http.ResponseWriter, r *http.Request){
		"/stock/quotes": func(w http.ResponseWriter, r *http.Request) { // gateway refusal
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"message":"Invalid API key %s"}`, echo(w, r))
		},
		"/stock/depths": func(w http.ResponseWriter, r *http.Request) { // envelope error
			fmt.Fprintf(w, `{"code":2,"msg":"token %s expired","data":null}`, echo(w, r))
		},
		"/stock/klines": func(w http.ResponseWriter, r *http.Request) { // not JSON
			fmt.Fprintf(w, `<html>token=%s</html>`, echo(w, r))
		},
		"/crypto/quotes": func(w http.ResponseWriter, r *http.Request) { // retried 5xx
			w.Header().Set("X-Echo", echo(w, r))
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"code":503,"msg":"busy %s"}`, echo(w, r))
		},
		"/crypto/depths": func(w http.ResponseWriter, r *http.Request) { // redirect carrying the token
			http.Redirect(w, r, otherSrv.URL+"/x?token="+echo(w, r), http.StatusFound)
		},
		"/crypto/klines": func(w http.ResponseWriter, r *http.Request) { // redirect loop carrying the token
			http.Redirect(w, r, "/crypto/klines?token="+echo(w, r), http.StatusFound)
		},
		"/forex/quotes": func(w http.ResponseWriter, r *http.Request) { // cross-host redirect, echoed headers
			http.Redirect(w, r, otherSrv.URL+"/echo", http.StatusTemporaryRedirect)
		},
		"/forex/depths": func(w http.ResponseWriter, r *http.Request) { // over the size bound
			fmt.Fprintf(w, `{"code":0,"msg":"%s","data":{"pad":"%s"}}`, echo(w, r), strings.Repeat("x", 8<<10))
		},
		"/stock/split": func(w http.ResponseWriter, r *http.Request) { // bad data
			fmt.Fprintf(w, `{"code":0,"msg":"ok","data":{"content":"%s"}}`, echo(w, r))
		},
		"/news": func(w http.ResponseWriter, r *http.Request) { // 404 with the token
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, echo(w, r))
		},
	}
	var sawToken sync.Map
	origin := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
		if r.Header.Get("token") == faultToken {
			sawToken.Store(r.URL.Path, true)
		}
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		// Batch chunks: the first fails with an echo, the second succeeds.
		// (A refused token would end the whole batch: behaviour 11.)
		if strings.Contains(r.URL.Query().Get("codes"), "A") {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"code":400,"msg":"bad codes for %s"}`, echo(w, r))
			return
		}
		io.WriteString(w, `{"code":0,"msg":null,"data":{}}`)
	})

	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newServerClient(t, httptest.NewServer(origin), faultToken, ownTransport(t, &http.Client{}), itick.WithLogger(logger), itick.WithRetries(1),
		itick.WithMaxResponseBytes(4<<10), itick.WithBatchSize(1))

	ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
	defer cancel()
	codes := []string{"700"}
	var errs []error
	add := func(name string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, codes)
	add("Stock.Quotes", err)
	_, err = c.Stock.Depths(ctx, itick.RegionHK, codes)
	add("Stock.Depths", err)
	_, err = c.Stock.Klines(ctx, itick.RegionHK, codes, itick.OneDay, 5)
	add("Stock.Klines", err)
	_, err = c.Crypto.Quotes(ctx, itick.RegionBA, codes)
	add("Crypto.Quotes", err)
	_, err = c.Crypto.Depths(ctx, itick.RegionBA, codes)
	add("Crypto.Depths", err)
	_, err = c.Crypto.Klines(ctx, itick.RegionBA, codes, itick.OneDay, 5)
	add("Crypto.Klines", err)
	_, err = c.Forex.Quotes(ctx, itick.RegionGB, codes)
	add("Forex.Quotes", err)
	_, err = c.Forex.Depths(ctx, itick.RegionGB, codes)
	add("Forex.Depths", err)
	_, err = c.Stock.SplitPage(ctx, itick.RegionUS, 0)
	add("Stock.SplitPage", err)
	for _, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en"}) {
		add("News.All", err)
	}
	got, err := c.Future.Quotes(ctx, itick.RegionUS, []string{"A", "B"})
	add("Future.Quotes batch", err)
	if got == nil {
		t.Error("the batch lost the chunk that succeeded")
	}
	// A deadline that ends a call in flight.
	short, cancelShort := context.WithTimeout(ctx, time.Nanosecond)
	_, err = c.Indices.Quotes(short, itick.RegionGB, codes)
	cancelShort()
	add("Indices.Quotes past its deadline", err)
	// Nothing listens here: a dial error.
	dead, _ := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), ownTransport(t, &http.Client{}),
		itick.WithLogger(logger), itick.WithRetries(0))
	_, err = dead.Fund.Depths(ctx, itick.RegionUS, codes)
	add("Fund.Depths to a closed port", err)

	for _, err := range errs {
		if strings.Contains(err.Error(), faultToken) {
			t.Errorf("error shows the token: %v", err)
		}
		assertNoToken(t, "error", err)
	}
	for _, path := range []string{"/stock/quotes", "/crypto/depths", "/forex/quotes"} {
		if _, ok := sawToken.Load(path); !ok {
			t.Errorf("%s never got the token, so nothing could echo it", path)
		}
	}
	log := logs.String()
	if n := strings.Count(log, "itick request"); n < len(routes) {
		t.Errorf("%d log lines, want at least one per request:\n%s", n, log)
	}
	if strings.Contains(log, faultToken) {
		t.Errorf("the log shows the token:\n%s", log)
	}

	assertNoToken(t, "*Client", c)
	assertNoToken(t, "Client", *c)
	for name, svc := range map[string]any{"Stock": c.Stock, "Crypto": c.Crypto, "Forex": c.Forex,
		"Future": c.Future, "Fund": c.Fund, "Indices": c.Indices, "News": c.News} {
		assertNoToken(t, name, svc)
	}
	assertNoToken(t, "Stock value", *c.Stock)
	assertNoToken(t, "News value", *c.News)
}

// TestSecretOptionsNotShown checks the printed Client for every option that
// could carry it further: a custom transport, logger and limiter.
func TestSecretOptionsNotShown(t *testing.T) {
	t.Parallel()
	c, err := itick.NewClient(faultToken,
		itick.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}),
		itick.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		itick.WithUserAgent("bot/1"),
	)
	if err != nil {
		t.Fatal(err)
	}
	assertNoToken(t, "*Client", c)
	assertNoToken(t, "Client", *c)
	if s := fmt.Sprint(c); !strings.Contains(s, itick.DefaultBaseURL) {
		t.Errorf("the printed client %q does not even show its base URL", s)
	}
}
