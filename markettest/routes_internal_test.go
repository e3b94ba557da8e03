package markettest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindRoute(t *testing.T) {
	t.Parallel()
	table := []route{
		{path: "/news"},
		{path: "/news/{id}"},
		{path: "/stock/quotes"},
		{path: "/{class}/tick"},
	}
	tests := []struct {
		path     string
		want     string
		wantVars map[string]string
	}{
		{"/news", "/news", nil},
		{"/news/", "/news", nil},
		{"/news/abc-123", "/news/{id}", map[string]string{"id": "abc-123"}},
		{"/stock/quotes", "/stock/quotes", nil},
		{"/crypto/tick", "/{class}/tick", map[string]string{"class": "crypto"}},
		{"/news/a/b", "", nil},
		{"/stock/nothing", "", nil},
		{"//tick", "", nil},
	}
	for _, tt := range tests {
		rt, vars := findRoute(table, tt.path)
		got := ""
		if rt != nil {
			got = rt.path
		}
		if got != tt.want {
			t.Errorf("findRoute(%q) = %q, want %q", tt.path, got, tt.want)
		}
		if diff := cmp.Diff(tt.wantVars, vars); diff != "" {
			t.Errorf("findRoute(%q) vars (-want +got):\n%s", tt.path, diff)
		}
		if rt != nil {
			c := &call{vars: vars}
			for k, v := range tt.wantVars {
				if c.pathValue(k) != v {
					t.Errorf("pathValue(%q) = %q, want %q", k, c.pathValue(k), v)
				}
			}
		}
	}
}
