package itick_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// TestReference_StatusEmptyIsNotFound: a status answer with no entry is
// ErrNotFound, whether data is null or an empty array.
func TestReference_StatusEmptyIsNotFound(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"null", "[]"} {
		t.Run(data, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder(http.MethodGet, mockBase+"/market/status", body(http.StatusOK, `{"code":0,"msg":null,"data":`+data+`}`))
			got, err := c.Market.Status(t.Context(), itick.RegionHK)
			if !errors.Is(err, itick.ErrNotFound) || got != nil {
				t.Fatalf("Status = %v, %v; want nil, ErrNotFound", got, err)
			}
		})
	}
}

// TestReference_HolidayDates covers the shapes the date list may take.
func TestReference_HolidayDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v       string
		want    []time.Time
		wantErr bool
	}{
		{`"[\"2025-01-01\",\"2025-12-25\"]"`, []time.Time{date(2025, 1, 1), date(2025, 12, 25)}, false},
		{`["2025/05/01","20250502"]`, []time.Time{date(2025, 5, 1), date(2025, 5, 2)}, false},
		{`"[]"`, nil, false},
		{`""`, nil, false},
		{`null`, nil, false},
		{`"[\"25 December\"]"`, nil, true},
		{`"2025-01-01"`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.v, func(t *testing.T) {
			t.Parallel()
			var h itick.Holiday
			err := json.Unmarshal([]byte(`{"c":"US","v":`+tc.v+`}`), &h)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, h.Dates); !tc.wantErr && diff != "" {
				t.Errorf("Dates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReference_MarketStatusOpen: o arrives as a boolean or as a string.
func TestReference_MarketStatusOpen(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{`true`: true, `"true"`: true, `false`: false, `"false"`: false, `null`: false} {
		var s itick.MarketStatus
		if err := json.Unmarshal([]byte(`{"c":"HK","o":`+in+`}`), &s); err != nil {
			t.Fatalf("o=%s: %v", in, err)
		}
		if s.Open != want {
			t.Errorf("o=%s: Open = %v, want %v", in, s.Open, want)
		}
	}
}
