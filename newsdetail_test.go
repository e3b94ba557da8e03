package itick_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

var newsArticle = itick.NewsArticle{ID: "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42",
	Title: "Tencent shares rise as gaming revenue beats estimates", Published: xsec(1765526400), Lang: "en",
	Link:    "https://example.com/markets/tencent-gaming-revenue",
	Summary: "Tencent reported quarterly gaming revenue above analyst expectations.",
	Body:    "Tencent Holdings said on Wednesday that revenue from its domestic games grew 15% from a year earlier...",
	Tags:    []string{"Tencent", "gaming", "700"}, Markets: []string{"HK", "US"}, Market: "stock"}

func TestNewsDetail_DecodeFixture(t *testing.T) {
	t.Parallel()
	runCases(t, []xCase{
		{"News.Get", "/news/8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "news_detail.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.News.Get(ctx, " 8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42 ", "en")
			},
			xq("lang", "en"), &newsArticle},
		{"News.Get no lang", "/news/8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "news_detail.json",
			func(ctx context.Context, c *itick.Client) (any, error) {
				return c.News.Get(ctx, "8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42", "")
			},
			xq(), &newsArticle},
	})
}

// TestNewsDetail_EscapesID: an id is one path segment whatever it holds,
// also under a base URL with a path prefix.
func TestNewsDetail_EscapesID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, id, wantPath, wantQuery string
	}{
		{xBase, "a/b c?d", "/news/a%2Fb%20c%3Fd", "lang=hk"},
		{xBase + "/v1", "x%y#z", "/v1/news/x%25y%23z", "lang=hk"},
		{xBase, "plain-id", "/news/plain-id", "lang=hk"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			c, mt := xClient(t, itick.WithBaseURL(tc.base))
			var gotPath, gotQuery string
			mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				gotPath, gotQuery = req.URL.EscapedPath(), req.URL.RawQuery
				return httpmock.NewStringResponse(http.StatusOK, xFixture(t, "news_detail.json")), nil
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

func TestNewsDetail_Validate(t *testing.T) {
	t.Parallel()
	runBadCalls(t, []xBadCall{
		{"empty id", "news id is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "  ", "en"))
		}},
		{"control id", `"a\x00b"`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "a\x00b", "en"))
		}},
		{"bad lang", "en&x=1", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "id-1", "en&x=1"))
		}},
	})
}

func TestNewsDetail_RoundTrip(t *testing.T) {
	t.Parallel()
	_, wire := roundTrip[itick.NewsArticle](t, xData(t, "news_detail.json"))
	const want = `{"id":"8f2b6c1e-5a47-4d0b-9b2e-3c1d7e9a0f42","te":"Tencent shares rise as gaming revenue beats estimates","pt":1765526400,"lg":"en","lk":"https://example.com/markets/tencent-gaming-revenue","sd":"Tencent reported quarterly gaming revenue above analyst expectations.","cd":"Tencent Holdings said on Wednesday that revenue from its domestic games grew 15% from a year earlier...","tg":["Tencent","gaming","700"],"mts":["HK","US"],"mt":"stock"}`
	if string(wire) != want {
		t.Errorf("wire form\n got %s\nwant %s", wire, want)
	}
	// pt as a string and null lists decode too.
	roundTrip[itick.NewsArticle](t, []byte(`{"id":"x","pt":"1765526400","tg":null,"mts":[]}`))
}
