package itick_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/d19c4e34/itick"
)

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
