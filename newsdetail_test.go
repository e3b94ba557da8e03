package itick_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// TestNewsDetail_EscapesID: an id is one path segment whatever it holds,
// also under a base URL with a path prefix.
func TestNewsDetail_EscapesID(t *testing.T) {
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
