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
