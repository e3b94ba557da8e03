package itick_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/quota"
)

// Tests of Plan: batch sizes, quotas, names, stream caps and the default
// limiter.

// TestPlan_BatchSize: the published batch sizes, and PlanBase for an
// unknown plan.
func TestPlan_BatchSize(t *testing.T) {
	t.Parallel()
	got := map[itick.Plan]int{}
	for _, p := range []itick.Plan{itick.PlanFree, itick.PlanBase, itick.PlanProfessional, itick.PlanPremium, itick.PlanEnterprise, itick.Plan(9)} {
		got[p] = p.BatchSize()
	}
	want := map[itick.Plan]int{itick.PlanFree: 10, itick.PlanBase: 10, itick.PlanProfessional: 20,
		itick.PlanPremium: 50, itick.PlanEnterprise: 50, itick.Plan(9): 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BatchSize (-want +got):\n%s", diff)
	}
	if itick.PlanBase != 1 || itick.PlanFree != 0 || itick.PlanEnterprise != 4 {
		t.Error("plan constants moved")
	}
}

// TestPlan_ClientBatchSize: WithPlan sets the client's batch size and
// WithBatchSize overrides it in either order.
func TestPlan_ClientBatchSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts []itick.Option
		want int
	}{
		{nil, 10},
		{[]itick.Option{itick.WithPlan(itick.PlanProfessional)}, 20},
		{[]itick.Option{itick.WithPlan(itick.PlanPremium)}, 50},
		{[]itick.Option{itick.WithPlan(itick.PlanEnterprise), itick.WithBatchSize(200)}, 200},
		{[]itick.Option{itick.WithBatchSize(3), itick.WithPlan(itick.PlanPremium)}, 3},
	}
	for _, tc := range cases {
		c, err := itick.NewClient(testToken, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.BatchSize() != tc.want {
			t.Errorf("BatchSize = %d, want %d", c.BatchSize(), tc.want)
		}
	}
}

func TestPlan_NamesAndQuotas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p      itick.Plan
		name   string
		perMin int
	}{
		{itick.PlanFree, "Free", 5},
		{itick.PlanBase, "Base", 120},
		{itick.PlanProfessional, "Professional", 600},
		{itick.PlanPremium, "Premium", 1200},
		{itick.PlanEnterprise, "Enterprise", 1200},
	}
	for _, tc := range cases {
		if tc.p.String() != tc.name || tc.p.CallsPerMinute() != tc.perMin {
			t.Errorf("%d: %q %d, want %q %d", int(tc.p), tc.p.String(), tc.p.CallsPerMinute(), tc.name, tc.perMin)
		}
		for _, s := range []string{tc.name, " " + strings.ToLower(tc.name) + " ", strings.ToUpper(tc.name),
			"Plan" + tc.name, strconv.Itoa(int(tc.p))} {
			if p, err := itick.ParsePlan(s); err != nil || p != tc.p {
				t.Errorf("ParsePlan(%q) = %v, %v", s, p, err)
			}
		}
	}
	for _, bad := range []string{"gold", "", "plan", "9", "-1"} {
		if _, err := itick.ParsePlan(bad); !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParsePlan(%q) err = %v, want ErrInvalidArgument naming it", bad, err)
		}
	}
	if s := itick.Plan(9).String(); s != "Plan(9)" {
		t.Errorf("Plan(9).String() = %q", s)
	}
}

func TestPlan_StreamQuota(t *testing.T) {
	t.Parallel()
	tests := []struct {
		plan           itick.Plan
		symbols, conns int
	}{
		{itick.PlanFree, 3, 1},
		{itick.PlanBase, 200, 3},
		{itick.PlanProfessional, 500, 6},
		{itick.PlanPremium, 2000, 12},
		{itick.PlanEnterprise, 2000, 12},
		{itick.Plan(42), 200, 3},
	}
	for _, tt := range tests {
		if got := tt.plan.StreamSymbols(); got != tt.symbols {
			t.Errorf("%v.StreamSymbols() = %d, want %d", tt.plan, got, tt.symbols)
		}
		if got := tt.plan.StreamConns(); got != tt.conns {
			t.Errorf("%v.StreamConns() = %d, want %d", tt.plan, got, tt.conns)
		}
	}
}

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
