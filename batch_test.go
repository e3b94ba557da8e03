package itick_test

import (
	"testing"

	"github.com/d19c4e34/itick"
)

// TestBehaviour1_NewsLimitZeroSendsDefault: limit 0 is valid and sends the
// SDK's documented default, since the service requires limit.
func TestBehaviour1_NewsLimitZeroSendsDefault(t *testing.T) {
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
