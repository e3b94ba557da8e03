package itick_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
)

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
