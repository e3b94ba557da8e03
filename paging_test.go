package itick_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

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

// TestBehaviour10_SplitsPaging: Splits asks for page 0, 1, ... until the
// page marked last, an empty page, or a page that repeats.
func TestBehaviour10_SplitsPaging(t *testing.T) {
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

// TestBehaviour10_SplitsBreakStopsFetching: leaving the loop early fetches
// no further page.
func TestBehaviour10_SplitsBreakStopsFetching(t *testing.T) {
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

// TestBehaviour10_SplitsErrorEndsSequence: an error is yielded once after
// the records already read, and ends the sequence.
func TestBehaviour10_SplitsErrorEndsSequence(t *testing.T) {
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

// TestBehaviour10_NewsAllCursor: News.All passes nextCursor back as cursor
// until hasMore is false, a page is empty or the cursor repeats.
func TestBehaviour10_NewsAllCursor(t *testing.T) {
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

// TestBehaviour10_NewsAllBreakStopsFetching: leaving the loop early fetches
// no further page.
func TestBehaviour10_NewsAllBreakStopsFetching(t *testing.T) {
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

// TestBehaviour10_NewsAllErrorEndsSequence: an error is yielded once and
// ends the sequence.
func TestBehaviour10_NewsAllErrorEndsSequence(t *testing.T) {
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
