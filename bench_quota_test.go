package itick_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/quota"
	"github.com/d19c4e34/itick/markettest"
)

// 1,000 quotes on the Free plan's quota: never rate limited, in about the
// time the quota allows.

// The quota comparison fetches 1,000 quotes on the Free plan: batch size
// 10, so 100 requests, against a service allowing 5 calls in any 60 s.
// The quota lets the last of them start no earlier than
// floor((100-1)/5) * 60 s = 19 min after the first; that is the time the
// quota allows. The client's default limiter for the plan is a window of 5
// calls per 61 s (the plan's quota plus a second of margin).
const (
	quotaCodes  = 1000
	quotaWindow = time.Minute // the service's (and the simulator's) window
	// quotaClientWindow is the window of the client's default limiter;
	// TestPlanLimiterWindows ties it to the plan's.
	quotaClientWindow = time.Minute + time.Second
)

func quotaRequests(p itick.Plan) int { return (quotaCodes + p.BatchSize() - 1) / p.BatchSize() }

// quotaAllowed is the earliest the last request may start under the
// service's quota, counted from the first.
func quotaAllowed(p itick.Plan) time.Duration {
	return time.Duration((quotaRequests(p)-1)/p.CallsPerMinute()) * quotaWindow
}

// virtualClock is a markettest.ManualClock whose waits move it instead of
// sleeping.
type virtualClock struct{ *markettest.ManualClock }

func (c virtualClock) sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// TestQuotaFreePlanNeverRateLimited runs the Free-plan fetch on a virtual
// clock shared by the client's limiter and the simulator's quota, so the
// 19 minutes the quota allows pass at once. Requests go one at a time so
// each reaches the simulator at the instant its slot was granted. The
// client's window must draw no 429 and finish within 1.05x of what the
// quota allows; a window shorter than the service's must draw one, which
// shows the check can fail.
func TestQuotaFreePlanNeverRateLimited(t *testing.T) {
	t.Parallel()
	plan := itick.PlanFree
	tests := []struct {
		name    string
		per     time.Duration
		want429 bool
	}{
		{"client window", quotaClientWindow, false},
		{"window as long as the service's", quotaWindow, false},
		{"window shorter than the service's", quotaWindow - time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC)
			clock := virtualClock{markettest.NewManualClock(start)}
			lim := quota.NewWithClock(plan.CallsPerMinute(), tt.per, clock.Now, clock.sleep)
			c, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(plan), markettest.WithClock(clock.Now),
				markettest.WithQuota(plan.CallsPerMinute())}, itick.WithLimiter(lim), itick.WithConcurrency(1), itick.WithRetries(0))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, codeList("Q", quotaCodes))
			st := srv.Stats()
			if tt.want429 {
				if st.RateLimited == 0 || !errors.Is(err, itick.ErrRateLimited) {
					t.Fatalf("got %d 429s and error %v, want a 429 matching ErrRateLimited", st.RateLimited, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.RateLimited != 0 || st.Succeeded != quotaRequests(plan) || len(got) != quotaCodes {
				t.Fatalf("got %d 429s, %d answered requests, %d quotes; want 0, %d, %d",
					st.RateLimited, st.Succeeded, len(got), quotaRequests(plan), quotaCodes)
			}
			reqs := srv.Requests()
			took := reqs[len(reqs)-1].Time.Sub(reqs[0].Time)
			wantTook := time.Duration((quotaRequests(plan)-1)/plan.CallsPerMinute()) * tt.per
			if took != wantTook {
				t.Errorf("last request started %s after the first, want %s", took, wantTook)
			}
			if ratio := float64(took) / float64(quotaAllowed(plan)); ratio > 1.05 {
				t.Errorf("took %s, %.4fx the %s the quota allows, want at most 1.05x", took, ratio, quotaAllowed(plan))
			}
		})
	}
}

// scaledClock runs scale times faster than real time from its start.
type scaledClock struct {
	start, real time.Time
	scale       time.Duration
}

func (c scaledClock) Now() time.Time { return c.start.Add(time.Since(c.real) * c.scale) }

// BenchmarkQuota fetches 1,000 quotes on the Free plan with the SDK's
// defaults (concurrency 4, retries on) from a simulator enforcing 5 calls
// in any 60 s. ratio is the time from the first request to the end of the
// call over the time the quota allows (19 min); 429s/op counts refusals.
//
// By default time runs 100 times faster on both sides: the simulator's
// clock is scaled and the client's limiter is the plan's window divided by
// 100, so one operation takes about 12 s. ITICK_QUOTA_TEST=1 runs it in
// real time with the plan's default limiter instead, which takes about
// 19.5 minutes.
func BenchmarkQuota(b *testing.B) {
	plan := itick.PlanFree
	scale := time.Duration(100)
	if os.Getenv("ITICK_QUOTA_TEST") == "1" {
		scale = 1
	}
	var rateLimited, requests int
	var ratios float64
	for b.Loop() {
		clock := scaledClock{start: time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC), real: time.Now(), scale: scale}
		srv := markettest.NewServer(markettest.WithPlan(plan), markettest.WithClock(clock.Now),
			markettest.WithQuota(plan.CallsPerMinute()))
		opts := []itick.Option{itick.WithBaseURL(srv.URL), itick.WithPlan(plan)}
		if scale != 1 {
			opts = append(opts, itick.WithLimiter(quota.New(plan.CallsPerMinute(), quotaClientWindow/scale)))
		}
		c, err := itick.NewClient(srv.Token, opts...)
		if err != nil {
			b.Fatal(err)
		}
		got, err := c.Stock.Quotes(b.Context(), itick.RegionUS, codeList("Q", quotaCodes))
		end := clock.Now()
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != quotaCodes {
			b.Fatalf("got %d quotes, want %d", len(got), quotaCodes)
		}
		st := srv.Stats()
		rateLimited += st.RateLimited
		requests += st.Requests
		first := srv.Requests()[0].Time
		ratios += float64(end.Sub(first)) / float64(quotaAllowed(plan))
		srv.Close()
	}
	b.ReportMetric(float64(rateLimited)/float64(b.N), "429s/op")
	b.ReportMetric(float64(requests)/float64(b.N), "reqs/op")
	b.ReportMetric(ratios/float64(b.N), "ratio")
}
