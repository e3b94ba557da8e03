package itick_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

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
