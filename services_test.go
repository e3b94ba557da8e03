package itick_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// TestServices_SplitsAllPages reads every split record across both fixture pages.
func TestServices_SplitsAllPages(t *testing.T) {
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

// TestServices_NewsAllPages reads every item across both news fixture pages.
func TestServices_NewsAllPages(t *testing.T) {
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
