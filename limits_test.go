package itick_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// TestBehaviour11_RefusalEndsTheBatch: a refused token or a plan limit
// fails every chunk alike, so the first one ends the call: no further
// chunk is sent and the error comes back as it is, with no results.
func TestBehaviour11_RefusalEndsTheBatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		is     error
	}{
		{"401", http.StatusUnauthorized, `{"code":401,"msg":"Invalid API key"}`, itick.ErrUnauthorized},
		{"403", http.StatusForbidden, `{"message":"Forbidden"}`, itick.ErrUnauthorized},
		{"E002", http.StatusOK, `{"code":2,"msg":"E002 auth failed","data":null}`, itick.ErrUnauthorized},
		{"E003", http.StatusOK, `{"code":3,"msg":"E003 exceeding the maximum subscription limit","data":null}`, itick.ErrPlanLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n.Add(1)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			c := newServerClient(t, srv, testToken, itick.WithPlan(itick.PlanBase), itick.WithConcurrency(1))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
			if _, ok := err.(*itick.APIError); !ok {
				t.Fatalf("err = %v (%T), want the chunk's *APIError as it is", err, err)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if got != nil {
				t.Errorf("results = %v, want none", got)
			}
			if m := n.Load(); m != 1 {
				t.Errorf("%d requests for 30 chunks, want 1", m)
			}
		})
	}
}

// TestBehaviour11_RefusalCancelsChunksInFlight: with several chunks in
// flight, the first refusal cancels the others and sends no more.
func TestBehaviour11_RefusalCancelsChunksInFlight(t *testing.T) {
	t.Parallel()
	const conc = 4
	var n, cancelled atomic.Int64
	arrived := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if requestedCodes(r)[0] == "C0" {
			// Refuse only once the other chunks are in flight.
			for range conc - 1 {
				select {
				case <-arrived:
				case <-r.Context().Done():
					return
				}
			}
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":401,"msg":"Invalid API key"}`)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // held until the client gives up on it
		cancelled.Add(1)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(10), itick.WithConcurrency(conc))
	done := make(chan error, 1)
	go func() {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
		done <- err
	}()
	err := waitOrFail(t, done, "the batch to end")
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		t.Errorf("err is a *BatchError: %v", err)
	}
	if m := n.Load(); m != conc {
		t.Errorf("%d requests, want the %d in flight and no more", m, conc)
	}
	// The held chunks' requests end because the client cancelled them.
	deadline := time.Now().Add(10 * time.Second)
	for cancelled.Load() != conc-1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if m := cancelled.Load(); m != conc-1 {
		t.Errorf("%d chunks in flight were cancelled, want %d", m, conc-1)
	}
}

// TestBehaviour11_LongRetryAfterSendsNoMoreChunks: a 429 asking for more
// than a minute stops the batch: the results that arrived come back with
// a *BatchError whose unsent chunks carry that 429.
func TestBehaviour11_LongRetryAfterSendsNoMoreChunks(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		cs := requestedCodes(r)
		if cs[0] == "C2" {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			return
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(1), itick.WithRetries(3))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C0", "C1"}, sortedKeys(got)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if m := n.Load(); m != 2 {
		t.Errorf("%d requests, want 2: none after the long 429", m)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 2*time.Minute {
			t.Errorf("chunk %v: err = %v, want the 429 with RetryAfter 2m", ch.Codes, ch.Err)
		}
	}
	if !errors.Is(err, itick.ErrRateLimited) {
		t.Errorf("err = %v, want one matching ErrRateLimited", err)
	}
}

// TestBehaviour11_LongRetryAfterKeepsChunksInFlight: a chunk already in
// flight when the long 429 arrives finishes, and its results are kept.
// (How many chunks a second worker starts before the 429 is seen depends
// on scheduling, so only TestBehaviour11_LongRetryAfterSendsNoMoreChunks
// counts requests.)
func TestBehaviour11_LongRetryAfterKeepsChunksInFlight(t *testing.T) {
	t.Parallel()
	// The 429 is answered only once the second chunk is in flight, and
	// that chunk is answered only after the 429, so the second chunk is in
	// flight when the call learns of the 429 however the workers are
	// scheduled.
	refused, inFlight := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs := requestedCodes(r)
		switch cs[0] {
		case "C0":
			select {
			case <-inFlight:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			close(refused)
			return
		case "C2":
			close(inFlight)
			select {
			case <-refused:
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(2))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if _, ok := got["C2"]; !ok {
		t.Errorf("results = %v, want the chunk in flight (C2, C3) kept", sortedKeys(got))
	}
	all := append(sortedKeys(got), be.FailedCodes()...)
	slices.Sort(all)
	if diff := cmp.Diff(codes(10), all); diff != "" {
		t.Errorf("results and FailedCodes together (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Hour {
			t.Errorf("chunk %v: err = %v, want the 429", ch.Codes, ch.Err)
		}
	}
	if !slices.Contains(be.FailedCodes(), "C0") {
		t.Errorf("FailedCodes = %v, want the 429's chunk among them", be.FailedCodes())
	}
}

// pageCycler answers page p with pages[p % len(pages)], counting requests:
// a server that cycles through a few pages whatever page is asked for.
func pageCycler(t *testing.T, path string, pages ...func(p int) string) (http.Handler, *atomic.Int64) {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		p, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil {
			t.Errorf("page %q: %v", r.URL.Query().Get("page"), err)
		}
		io.WriteString(w, pages[p%len(pages)](p))
	}), &n
}

// TestBehaviour10_PagingStopsAtAnyRepeatedPage: pages alternating A, B, A,
// B end the iteration at the second A, for splits and IPOs alike.
func TestBehaviour10_PagingStopsAtAnyRepeatedPage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		path  string
		pages []func(p int) string
		iter  func(c *itick.Client, ctx context.Context) func(yield func(string, error) bool)
	}{
		{"Splits", "/stock/split",
			[]func(int) string{func(int) string { return splitPage(0, 2, 0, false) }, func(int) string { return splitPage(1, 2, 0, false) }},
			func(c *itick.Client, ctx context.Context) func(yield func(string, error) bool) {
				return func(yield func(string, error) bool) {
					for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
						if !yield(r.Code, err) {
							return
						}
					}
				}
			}},
		{"IPOs", "/stock/ipo",
			[]func(int) string{func(int) string { return ipoPageBody(0, 0, 2, 0, false) }, func(int) string { return ipoPageBody(1, 2, 2, 0, false) }},
			func(c *itick.Client, ctx context.Context) func(yield func(string, error) bool) {
				return func(yield func(string, error) bool) {
					for r, err := range c.Stock.IPOs(ctx, itick.IPOUpcoming, itick.RegionUS) {
						if !yield(r.Code, err) {
							return
						}
					}
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, n := pageCycler(t, tc.path, tc.pages...)
			c := newServerClient(t, httptest.NewServer(h), testToken)
			var got []string
			for code, err := range tc.iter(c, t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, code)
				if len(got) > 100 {
					t.Fatalf("the iteration does not stop: %d requests so far", n.Load())
				}
			}
			if len(got) != 4 {
				t.Errorf("%d records (%v), want the 4 of pages A and B", len(got), got)
			}
			if m := n.Load(); m != 3 {
				t.Errorf("%d requests, want 3: A, B, then A again", m)
			}
		})
	}
}

// TestNewsGetRejectsDotSegments: an id that is a dot segment, also
// percent-encoded, would put another path on the wire; it is
// ErrInvalidArgument and nothing is sent.
func TestNewsGetRejectsDotSegments(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		http.NotFound(w, nil)
	}))
	c := newServerClient(t, srv, testToken)
	for _, id := range []string{".", "..", " .. ", "%2e", "%2E", "%2e%2E", ".%2e", "%2e."} {
		_, err := c.News.Get(t.Context(), id, "en")
		if !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("Get(%q): err = %v, want ErrInvalidArgument", id, err)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(strings.TrimSpace(id))) {
			t.Errorf("Get(%q): error %q does not name the id", id, err)
		}
	}
	if m := n.Load(); m != 0 {
		t.Errorf("%d requests sent, want 0", m)
	}
}

// TestNewsGetIDStaysOneSegment: whatever an id holds, the request goes to
// /news/<id> as one segment with the query the SDK built.
func TestNewsGetIDStaysOneSegment(t *testing.T) {
	t.Parallel()
	type seenReq struct{ path, rawPath, query string }
	got := make(chan seenReq, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seenReq{r.URL.Path, r.URL.EscapedPath(), r.URL.RawQuery}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":404,"msg":"not found"}`)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBaseURL(srv.URL+"/v1"), itick.WithRetries(0))
	for _, tc := range []struct{ id, path, escaped string }{
		{"../stock/quote", "/v1/news/../stock/quote", "/v1/news/..%2Fstock%2Fquote"},
		{"a?lang=zh", "/v1/news/a?lang=zh", "/v1/news/a%3Flang=zh"},
		{"..a", "/v1/news/..a", "/v1/news/..a"},
		{"%2e%2e%2fx", "/v1/news/%2e%2e%2fx", "/v1/news/%252e%252e%252fx"},
	} {
		if _, err := c.News.Get(t.Context(), tc.id, "en"); !errors.Is(err, itick.ErrNotFound) {
			t.Errorf("Get(%q): err = %v, want the server's 404", tc.id, err)
		}
		r := <-got
		if r.path != tc.path || r.rawPath != tc.escaped || r.query != "lang=en" {
			t.Errorf("Get(%q) reached %s (%s) ?%s, want %s (%s) ?lang=en", tc.id, r.path, r.rawPath, r.query, tc.path, tc.escaped)
		}
	}
}
