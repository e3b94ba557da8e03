package itick_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of NewsService: the limit the service requires, and the article
// id of News.Get.

// TestNewsLimitRequired: the simulator refuses a news request without limit,
// as the service does, and News.List and News.All with Limit 0 send
// DefaultNewsLimit, so they work against it.
func TestNewsLimitRequired(t *testing.T) {
	t.Parallel()
	c, srv := newSimClient(t, nil)
	ctx := t.Context()
	p, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en"})
	if err != nil {
		t.Fatalf("List with Limit 0: %v", err)
	}
	if len(p.Items) != itick.DefaultNewsLimit {
		t.Errorf("List gave %d items, want DefaultNewsLimit (%d)", len(p.Items), itick.DefaultNewsLimit)
	}
	n := 0
	for _, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en"}) {
		if err != nil {
			t.Fatalf("All with Limit 0: %v", err)
		}
		if n++; n == 2*itick.DefaultNewsLimit+1 {
			break
		}
	}
	if n != 2*itick.DefaultNewsLimit+1 {
		t.Errorf("All gave %d items, want at least %d", n, 2*itick.DefaultNewsLimit+1)
	}
	for _, r := range srv.Requests() {
		if r.Path == "/news" && r.Query.Get("limit") != "20" {
			t.Errorf("request %s?%s, want limit=20", r.Path, r.Query.Encode())
		}
	}
	// What the simulator answers without limit: the envelope error of a
	// missing required parameter.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/news?market=stock&lang=en", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("token", srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if env.Code != markettest.CodeBadRequest || !strings.Contains(env.Msg, "limit") {
		t.Errorf("news without limit: %+v, want code %d naming limit", env, markettest.CodeBadRequest)
	}
}

// Behaviour 1: limit 0 is valid and sends the SDK's documented default,
// since the service requires limit.
func TestNewsLimitZeroSendsDefault(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/news", record(&rec, body(200, string(fixture(t, "news_page2.json")))))
	if _, err := c.News.List(t.Context(), itick.NewsQuery{Market: "stock", Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.all()[0].Query; got.Get("limit") != "20" || itick.DefaultNewsLimit != 20 {
		t.Errorf("query %v, want limit=20 (DefaultNewsLimit %d)", got, itick.DefaultNewsLimit)
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

// TestNewsGetEscapesID: an id is one path segment whatever it holds, also
// under a base URL with a path prefix.
func TestNewsGetEscapesID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, id, wantPath, wantQuery string
	}{
		{mockBase, "a/b c?d", "/news/a%2Fb%20c%3Fd", "lang=hk"},
		{mockBase + "/v1", "x%y#z", "/v1/news/x%25y%23z", "lang=hk"},
		{mockBase, "plain-id", "/news/plain-id", "lang=hk"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithBaseURL(tc.base))
			var gotPath, gotQuery string
			mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				gotPath, gotQuery = req.URL.EscapedPath(), req.URL.RawQuery
				return httpmock.NewStringResponse(http.StatusOK, string(fixture(t, "news_detail.json"))), nil
			})
			if _, err := c.News.Get(t.Context(), tc.id, "hk"); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if gotPath != tc.wantPath || gotQuery != tc.wantQuery {
				t.Errorf("sent %s?%s, want %s?%s", gotPath, gotQuery, tc.wantPath, tc.wantQuery)
			}
		})
	}
}
