package markettest_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

type wrappedTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (w *wrappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w.n.Add(1)
	return w.base.RoundTrip(req)
}

// TestClientWithWrappedDefaultTransport: Server.Client works when the
// program wrapped http.DefaultTransport, and uses the wrapper.
func TestClientWithWrappedDefaultTransport(t *testing.T) { // not parallel: swaps a global
	orig := http.DefaultTransport
	w := &wrappedTransport{base: orig}
	http.DefaultTransport = w
	t.Cleanup(func() { http.DefaultTransport = orig })

	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if n := w.n.Load(); n != 1 {
		t.Errorf("the wrapped default transport saw %d requests, want 1", n)
	}
}
