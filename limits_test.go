package itick_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// storeDownError is what a limiter shared through a store returns when the
// store cannot be reached.
type storeDownError struct{ addr string }

func (e *storeDownError) Error() string { return "quota store " + e.addr + " is unreachable" }

type failingLimiter struct{ err error }

func (l failingLimiter) Wait(context.Context) error { return l.err }

// TestBehaviour13_LimiterErrorKeepsItsCause: a limiter's own failure comes
// back wrapped, and is no timeout although the context has a deadline.
func TestBehaviour13_LimiterErrorKeepsItsCause(t *testing.T) {
	t.Parallel()
	down := &storeDownError{addr: "10.0.0.7:6379"}
	c, mt := newMockClient(t, itick.WithLimiter(failingLimiter{down}))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	var got *storeDownError
	if !errors.As(err, &got) || got != down {
		t.Errorf("err = %v, want one errors.As finds as the limiter's *storeDownError", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("err = %v matches a context error, though the context did not end", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

// wrappedTransport stands for a tracing or metrics wrapper around
// http.DefaultTransport.
type wrappedTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (w *wrappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w.n.Add(1)
	return w.base.RoundTrip(req)
}

// swapDefaultTransport replaces http.DefaultTransport for the test. The
// test must not be parallel: the variable is global.
func swapDefaultTransport(t *testing.T) *wrappedTransport {
	t.Helper()
	orig := http.DefaultTransport
	w := &wrappedTransport{base: orig}
	http.DefaultTransport = w
	t.Cleanup(func() { http.DefaultTransport = orig })
	return w
}

// TestBehaviour12_WrappedDefaultTransport: with http.DefaultTransport
// wrapped, NewClient works and its requests go through the wrapper.
func TestBehaviour12_WrappedDefaultTransport(t *testing.T) { // not parallel: swaps a global
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, okQuotes)
	}))
	defer srv.Close()
	wrapped := swapDefaultTransport(t)
	c, err := itick.NewClient(testToken, itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["700"]; !ok {
		t.Errorf("quotes = %v, want 700", got)
	}
	if n := wrapped.n.Load(); n != 1 {
		t.Errorf("the wrapped default transport saw %d requests, want 1", n)
	}
}
