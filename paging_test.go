package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// Tests of the page iterators: Splits, IPOs and News.All.

// splitPage builds a split page envelope with n records named after page.
func splitPage(page, n, totalPages int, last bool) string {
	content := make([]map[string]any, n)
	for i := range content {
		content[i] = map[string]any{"d": 1765152000000 - int64(page*100+i)*86400000, "r": "US",
			"n": fmt.Sprintf("Company %d-%d", page, i), "c": fmt.Sprintf("P%dI%d", page, i), "v": "2:1"}
	}
	b, _ := json.Marshal(map[string]any{"code": 0, "msg": "ok", "data": map[string]any{
		"content": content, "page": page, "size": 2, "totalPages": totalPages, "totalElements": 99, "last": last}})
	return string(b)
}

// splitServer answers /stock/split by the page query parameter with pages[page],
// or an empty last page past the end.
func splitServer(t *testing.T, rec *recorder, pages ...string) httpmock.Responder {
	return record(rec, func(req *http.Request) (*http.Response, error) {
		p, err := strconv.Atoi(req.URL.Query().Get("page"))
		if err != nil {
			t.Errorf("page parameter %q: %v", req.URL.Query().Get("page"), err)
			return httpmock.NewStringResponse(400, "bad page"), nil
		}
		if p >= len(pages) {
			return httpmock.NewStringResponse(200, splitPage(p, 0, 0, true)), nil
		}
		return httpmock.NewStringResponse(200, pages[p]), nil
	})
}

func pagesAsked(rec *recorder) []string {
	var out []string
	for _, r := range rec.all() {
		out = append(out, r.Query.Get("page"))
	}
	return out
}

// Behaviour 10: Splits asks for page 0, 1, ... until the page marked last,
// an empty page, or a page that repeats.
func TestSplitsPaging(t *testing.T) {
	t.Parallel()
	repeated := splitPage(0, 2, 0, false)
	cases := []struct {
		name      string
		pages     []string
		fixed     string // when set, every request gets this body whatever its page
		wantPages []string
		wantN     int
	}{
		{"until last", []string{splitPage(0, 2, 0, false), splitPage(1, 2, 0, false), splitPage(2, 1, 0, true)}, "", []string{"0", "1", "2"}, 5},
		{"until empty page", []string{splitPage(0, 2, 9, false), splitPage(1, 2, 9, false), splitPage(2, 0, 9, false)}, "", []string{"0", "1", "2"}, 4},
		{"first page empty", []string{splitPage(0, 0, 0, false)}, "", []string{"0"}, 0},
		{"until a page repeats", nil, repeated, []string{"0", "1"}, 2},
		{"single last page", []string{splitPage(0, 2, 1, true)}, "", []string{"0"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			var rec recorder
			if tc.fixed != "" {
				mt.RegisterResponder("GET", mockBase+"/stock/split", record(&rec, body(200, tc.fixed)))
			} else {
				mt.RegisterResponder("GET", mockBase+"/stock/split", splitServer(t, &rec, tc.pages...))
			}
			var got []string
			for r, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.Code)
				if len(got) > 100 {
					t.Fatal("Splits does not stop")
				}
			}
			if len(got) != tc.wantN {
				t.Errorf("%d records (%v), want %d", len(got), got, tc.wantN)
			}
			if diff := cmp.Diff(tc.wantPages, pagesAsked(&rec)); diff != "" {
				t.Errorf("pages asked (-want +got):\n%s", diff)
			}
			for _, r := range rec.all() {
				if r.Query.Get("region") != "US" {
					t.Errorf("region = %q", r.Query.Get("region"))
				}
			}
		})
	}
}

// Behaviour 10: leaving the loop early fetches no further page.
func TestSplitsBreakStopsFetching(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/split",
		splitServer(t, &rec, splitPage(0, 2, 0, false), splitPage(1, 2, 0, false), splitPage(2, 2, 0, true)))
	n := 0
	for _, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 3 { // the first record of page 1
			break
		}
	}
	if diff := cmp.Diff([]string{"0", "1"}, pagesAsked(&rec)); diff != "" {
		t.Errorf("pages asked (-want +got):\n%s", diff)
	}
}

// Behaviour 10: an error is yielded once after the records already read, and
// ends the sequence.
func TestSplitsErrorEndsSequence(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/stock/split",
		sequence(body(200, splitPage(0, 2, 0, false)), body(200, string(fixture(t, "error_e002.json")))))
	var recs, errs int
	for _, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			errs++
			if !errors.Is(err, itick.ErrUnauthorized) {
				t.Errorf("err = %v, want ErrUnauthorized", err)
			}
			continue
		}
		recs++
	}
	if recs != 2 || errs != 1 {
		t.Errorf("%d records and %d errors, want 2 and 1", recs, errs)
	}
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// newsPage builds a news page envelope.
func newsPage(ids []string, next string, hasMore bool) string {
	items := make([]map[string]any, len(ids))
	for i, id := range ids {
		items[i] = map[string]any{"id": id, "te": "title " + id, "pt": 1765526400 - i, "mt": "stock", "lg": "en",
			"lk": "https://news.example.com/" + id, "pv": "Wire"}
	}
	b, _ := json.Marshal(map[string]any{"code": 0, "msg": "ok", "data": map[string]any{
		"data": items, "pagination": map[string]any{"nextCursor": next, "hasMore": hasMore, "count": len(ids)}}})
	return string(b)
}

func cursorsSent(rec *recorder) []string {
	var out []string
	for _, r := range rec.all() {
		out = append(out, r.Query.Get("cursor"))
	}
	return out
}

// Behaviour 10: News.All passes nextCursor back as cursor until hasMore is
// false, a page is empty or the cursor repeats.
func TestNewsAllCursor(t *testing.T) {
	t.Parallel()
	const c1, c2 = "2025-12-12T07:00:00.123456789Z", "2025-12-12T05:59:59.000000001Z"
	cases := []struct {
		name        string
		query       itick.NewsQuery
		pages       []string
		wantIDs     []string
		wantCursors []string
	}{
		{"until hasMore false", itick.NewsQuery{Market: "stock", Lang: "en"},
			[]string{newsPage([]string{"a", "b"}, c1, true), newsPage([]string{"c"}, c2, false)},
			[]string{"a", "b", "c"}, []string{"", c1}},
		{"until empty page", itick.NewsQuery{Market: "stock", Lang: "en"},
			[]string{newsPage([]string{"a"}, c1, true), newsPage(nil, c2, true)},
			[]string{"a"}, []string{"", c1}},
		{"until the cursor repeats", itick.NewsQuery{Market: "stock", Lang: "en"},
			[]string{newsPage([]string{"a"}, c1, true), newsPage([]string{"b"}, c1, true), newsPage([]string{"x"}, c2, true)},
			[]string{"a", "b"}, []string{"", c1}},
		{"from a given cursor", itick.NewsQuery{Market: "stock", Lang: "en", Cursor: c1, Limit: 1},
			[]string{newsPage([]string{"b"}, c2, true), newsPage([]string{"c"}, c1, true), newsPage([]string{"x"}, "z", false)},
			[]string{"b", "c"}, []string{c1, c2}},
		{"no next cursor", itick.NewsQuery{Market: "stock", Lang: "en"},
			[]string{newsPage([]string{"a"}, "", true), newsPage([]string{"x"}, "", true)},
			[]string{"a"}, []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			var rec recorder
			rs := make([]httpmock.Responder, len(tc.pages))
			for i, p := range tc.pages {
				rs[i] = body(200, p)
			}
			mt.RegisterResponder("GET", mockBase+"/news", record(&rec, sequence(rs...)))
			var got []string
			for it, err := range c.News.All(t.Context(), tc.query) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, it.ID)
				if len(got) > 100 {
					t.Fatal("News.All does not stop")
				}
			}
			if diff := cmp.Diff(tc.wantIDs, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCursors, cursorsSent(&rec)); diff != "" {
				t.Errorf("cursors sent (-want +got):\n%s", diff)
			}
			for _, r := range rec.all() {
				if r.Query.Get("market") != "stock" || r.Query.Get("lang") != "en" {
					t.Errorf("query %v lost market or lang", r.Query)
				}
				if wantLimit := tc.query.Limit; wantLimit > 0 && r.Query.Get("limit") != strconv.Itoa(wantLimit) {
					t.Errorf("limit = %q, want %d", r.Query.Get("limit"), wantLimit)
				}
			}
		})
	}
}

// Behaviour 10: leaving the loop early fetches no further page.
func TestNewsAllBreakStopsFetching(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder("GET", mockBase+"/news", sequence(
		body(200, newsPage([]string{"a", "b"}, "c1", true)),
		body(200, newsPage([]string{"c", "d"}, "c2", true)),
		body(200, newsPage([]string{"e"}, "c3", false))))
	for _, err := range c.News.All(t.Context(), itick.NewsQuery{Market: "stock", Lang: "en"}) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// Behaviour 10: an error is yielded once and ends the sequence.
func TestNewsAllErrorEndsSequence(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/news", sequence(
		body(200, newsPage([]string{"a"}, "c1", true)), body(401, string(fixture(t, "error_gateway.json")))))
	var items, errs int
	for _, err := range c.News.All(t.Context(), itick.NewsQuery{Market: "stock", Lang: "en"}) {
		if err != nil {
			errs++
			if !errors.Is(err, itick.ErrUnauthorized) {
				t.Errorf("err = %v, want ErrUnauthorized", err)
			}
			continue
		}
		items++
	}
	if items != 1 || errs != 1 {
		t.Errorf("%d items and %d errors, want 1 and 1", items, errs)
	}
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Errorf("%d requests, want 2", n)
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

// Behaviour 10: pages alternating A, B, A, B end the iteration at the second
// A, for splits and IPOs alike.
func TestPagingStopsAtAnyRepeatedPage(t *testing.T) {
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

// TestSplitsAllPages reads every split record across both fixture pages.
func TestSplitsAllPages(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponderWithQuery("GET", mockBase+"/stock/split", "region=US&page=0", body(200, string(fixture(t, "stock_split_page0.json"))))
	mt.RegisterResponderWithQuery("GET", mockBase+"/stock/split", "region=US&page=1", body(200, string(fixture(t, "stock_split_page1.json"))))
	var got []itick.SplitRecord
	for r, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if diff := cmp.Diff(splitRecords, got); diff != "" {
		t.Errorf("Splits (-want +got):\n%s", diff)
	}
}

// TestNewsAllPages reads every item across both news fixture pages.
func TestNewsAllPages(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponderWithQuery("GET", mockBase+"/news", "market=stock&lang=hk&limit=20", body(200, string(fixture(t, "news_page1.json"))))
	mt.RegisterResponderWithQuery("GET", mockBase+"/news", "market=stock&lang=hk&limit=20&cursor=2025-12-12T07:00:00.123456789Z",
		body(200, string(fixture(t, "news_page2.json"))))
	var got []itick.NewsItem
	for it, err := range c.News.All(t.Context(), itick.NewsQuery{Market: "stock", Lang: "hk"}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	want := append(append([]itick.NewsItem(nil), newsPage1Items...), newsPage2Items...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("News.All (-want +got):\n%s", diff)
	}
}

// ipoPageBody is a page of n IPOs whose codes start at first.
func ipoPageBody(page, first, n, totalPages int, last bool) string {
	var items []string
	for i := range n {
		items = append(items, fmt.Sprintf(`{"dt":%d,"cn":"Company %d","sc":"C%d","ex":"NYSE","ct":"US","bs":1765497600}`,
			1766016000000+int64(first+i)*86400000, first+i, first+i))
	}
	return fmt.Sprintf(`{"code":0,"msg":"ok","data":{"content":[%s],"page":%d,"size":%d,"totalPages":%d,"totalElements":%d,"last":%t}}`,
		strings.Join(items, ","), page, n, totalPages, totalPages*n, last)
}

// TestIPOsPaging: IPOs asks for page 0, 1, ... and stops after the last
// page, at an empty page, at a page that repeats, after totalPages, on an
// error, and when the loop breaks.
func TestIPOsPaging(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		pages     func(page int) string // the body for a requested page
		breakAt   int                   // stop the loop after this many items; 0: never
		wantCodes []string
		wantPages []int
		wantErr   bool
	}{
		{
			name: "last",
			pages: func(p int) string {
				return ipoPageBody(p, p*2, 2, 0, p == 1)
			},
			wantCodes: []string{"C0", "C1", "C2", "C3"},
			wantPages: []int{0, 1},
		},
		{
			name: "empty page",
			pages: func(p int) string {
				if p == 2 {
					return ipoPageBody(p, 0, 0, 0, false)
				}
				return ipoPageBody(p, p*2, 2, 0, false)
			},
			wantCodes: []string{"C0", "C1", "C2", "C3"},
			wantPages: []int{0, 1, 2},
		},
		{
			name:      "repeat",
			pages:     func(p int) string { return ipoPageBody(0, 0, 2, 0, false) },
			wantCodes: []string{"C0", "C1"},
			wantPages: []int{0, 1},
		},
		{
			name:      "total pages",
			pages:     func(p int) string { return ipoPageBody(p, p*2, 2, 3, false) },
			wantCodes: []string{"C0", "C1", "C2", "C3", "C4", "C5"},
			wantPages: []int{0, 1, 2},
		},
		{
			name: "error",
			pages: func(p int) string {
				if p == 1 {
					return `{"code":0,"msg":"E002 auth failed","data":null}`
				}
				return ipoPageBody(p, p*2, 2, 0, false)
			},
			wantCodes: []string{"C0", "C1"},
			wantPages: []int{0, 1},
			wantErr:   true,
		},
		{
			name:      "break",
			pages:     func(p int) string { return ipoPageBody(p, p*2, 2, 0, false) },
			breakAt:   3,
			wantCodes: []string{"C0", "C1", "C2"},
			wantPages: []int{0, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			var pagesAsked []int
			var calls atomic.Int32
			mt.RegisterResponder(http.MethodGet, mockBase+"/stock/ipo", func(req *http.Request) (*http.Response, error) {
				if calls.Add(1) > 10 {
					t.Error("more than 10 pages requested")
					return httpmock.NewStringResponse(http.StatusOK, ipoPageBody(0, 0, 0, 0, true)), nil
				}
				q := req.URL.Query()
				if q.Get("type") != "recent" || q.Get("region") != "US" {
					t.Errorf("query = %v", q)
				}
				p, _ := strconv.Atoi(q.Get("page"))
				pagesAsked = append(pagesAsked, p)
				return httpmock.NewStringResponse(http.StatusOK, tc.pages(p)), nil
			})
			var codes []string
			var errs []error
			for ipo, err := range c.Stock.IPOs(t.Context(), itick.IPORecent, itick.RegionUS) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				codes = append(codes, ipo.Code)
				if ipo.SubscriptionStart != sec(1765497600) {
					t.Errorf("%s: SubscriptionStart = %v", ipo.Code, ipo.SubscriptionStart)
				}
				if tc.breakAt > 0 && len(codes) == tc.breakAt {
					break
				}
			}
			if diff := cmp.Diff(tc.wantCodes, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPages, pagesAsked); diff != "" {
				t.Errorf("pages requested (-want +got):\n%s", diff)
			}
			if tc.wantErr {
				if len(errs) != 1 || !errors.Is(errs[0], itick.ErrUnauthorized) {
					t.Errorf("errors = %v, want one ErrUnauthorized", errs)
				}
			} else if len(errs) != 0 {
				t.Errorf("errors = %v", errs)
			}
		})
	}
}

// TestSplitsShareThePageIterator: Splits runs on the shared page iterator.
func TestSplitsShareThePageIterator(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var asked []string
	mt.RegisterResponder(http.MethodGet, mockBase+"/stock/split", func(req *http.Request) (*http.Response, error) {
		p := req.URL.Query().Get("page")
		asked = append(asked, p)
		body := fmt.Sprintf(`{"code":0,"msg":"ok","data":{"content":[{"d":1765497600000,"r":"US","n":"N%s","c":"C%s","v":"1:10"}],"page":%s,"size":1,"totalPages":2,"last":false}}`, p, p, p)
		return httpmock.NewStringResponse(http.StatusOK, body), nil
	})
	var codes []string
	for r, err := range c.Stock.Splits(t.Context(), itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, r.Code)
	}
	if diff := cmp.Diff([]string{"C0", "C1"}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"0", "1"}, asked); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}
