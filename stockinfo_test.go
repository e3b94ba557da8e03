package itick_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

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

// TestStockInfo_IPOsPaging: IPOs asks for page 0, 1, ... and stops after the
// last page, at an empty page, at a page that repeats, after totalPages, on
// an error, and when the loop breaks.
func TestStockInfo_IPOsPaging(t *testing.T) {
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

// TestStockInfo_SplitsStillPage: Splits runs on the shared page iterator.
func TestStockInfo_SplitsStillPage(t *testing.T) {
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
