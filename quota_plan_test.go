package itick_test

import (
	"context"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/quota"
	"github.com/google/go-cmp/cmp"
)

// TestPlanLimiterWindows pins the default limiter the quota and fan-out
// benchmarks assume: the plan's calls per minute in a window of 61 s.
func TestPlanLimiterWindows(t *testing.T) {
	t.Parallel()
	type limit struct {
		N   int
		Per time.Duration
	}
	for _, p := range []itick.Plan{itick.PlanFree, itick.PlanBase, itick.PlanProfessional, itick.PlanPremium, itick.PlanEnterprise} {
		w, ok := itick.PlanLimiter(p).(*quota.Window)
		if !ok {
			t.Fatalf("%s: limiter is %T, want *quota.Window", p, itick.PlanLimiter(p))
		}
		n, per := w.Limit()
		if diff := cmp.Diff(limit{p.CallsPerMinute(), 61 * time.Second}, limit{n, per}); diff != "" {
			t.Errorf("%s limiter (-want +got):\n%s", p, diff)
		}
	}
}

// TestBasePlanWindowLetsFanOutThrough shows that the 100 requests of a
// 1,000-code fetch on the Base plan never wait on its window (120 calls in
// 61 s), and that the 121st would wait the whole window.
func TestBasePlanWindowLetsFanOutThrough(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC)
	var waits []time.Duration
	n, per := itick.PlanLimiter(itick.PlanBase).(*quota.Window).Limit()
	w := quota.NewWithClock(n, per, func() time.Time { return now }, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	for range 100 {
		if err := w.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if len(waits) != 0 {
		t.Fatalf("the first 100 calls waited %v, want no waits", waits)
	}
	for range 21 {
		if err := w.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]time.Duration{61 * time.Second}, waits); diff != "" {
		t.Errorf("waits of calls 101 to 121 (-want +got):\n%s", diff)
	}
}
