package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/markettest"
)

// 1,000 quotes fanned out over the Base plan's chunks: the SDK against the
// fewest requests and a fan-out written by hand.

const (
	fanOutCodes   = 1000
	fanOutLatency = 5 * time.Millisecond
)

func fanOutCodeList() []string { return codeList("C", fanOutCodes) }

// idealFanOut is the baseline: the fewest requests that carry the codes
// (chunks of the plan's batch size), run by a fixed number of workers,
// with net/http and encoding/json and nothing else.
func idealFanOut(ctx context.Context, hc *http.Client, srv *markettest.Server, codes []string, size, workers int) (map[string]plainQuote, error) {
	var chunks [][]string
	for c := range slices.Chunk(codes, size) {
		chunks = append(chunks, c)
	}
	results := make([]map[string]plainQuote, len(chunks))
	// The same worker pool as the SDK's, so only the request and its
	// decoding differ.
	errs := batch.Run(ctx, len(chunks), workers, func(ctx context.Context, i int) error {
		var err error
		results[i], err = fanOutRequest(ctx, hc, srv, chunks[i])
		return err
	})
	merged := make(map[string]plainQuote, len(codes))
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for k, v := range r {
			merged[k] = v
		}
	}
	return merged, nil
}

func fanOutRequest(ctx context.Context, hc *http.Client, srv *markettest.Server, codes []string) (map[string]plainQuote, error) {
	q := url.Values{"region": {"US"}, "codes": {strings.Join(codes, ",")}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stock/quotes?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("token", srv.Token)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env struct {
		Code int                   `json:"code"`
		Data map[string]plainQuote `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if env.Code != 0 {
		return nil, fmt.Errorf("envelope code %d", env.Code)
	}
	return env.Data, nil
}

// BenchmarkFanOut fetches 1,000 quotes on the Base plan (batch size 10,
// concurrency 4) from the simulator, which delays every request by 5 ms.
// The sdk case builds a client per operation, so each operation starts
// with the plan's default limiter fresh, as a process fetching once
// would; its transport lives across operations, like the baseline's.
func BenchmarkFanOut(b *testing.B) {
	_, srv := newSimClient(b, []markettest.Option{markettest.WithPlan(itick.PlanBase),
		markettest.WithRecordLimit(1)})
	srv.AddLatency(fanOutLatency)
	codes := fanOutCodeList()

	report := func(b *testing.B, before markettest.Stats) {
		after := srv.Stats()
		b.ReportMetric(float64(after.Requests-before.Requests)/float64(b.N), "reqs/op")
		b.ReportMetric(float64(after.RateLimited-before.RateLimited)/float64(b.N), "429s/op")
	}
	b.Run("sdk", func(b *testing.B) {
		rt := newTransport()
		defer rt.CloseIdleConnections()
		before := srv.Stats()
		for b.Loop() {
			// The plan's own default limiter, batch size and concurrency.
			c, err := itick.NewClient(srv.Token, itick.WithBaseURL(srv.URL), itick.WithPlan(itick.PlanBase),
				itick.WithHTTPClient(&http.Client{Transport: rt, Timeout: 30 * time.Second}))
			if err != nil {
				b.Fatal(err)
			}
			got, err := c.Stock.Quotes(b.Context(), itick.RegionUS, codes)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(codes))
			}
		}
		report(b, before)
	})
	b.Run("baseline", func(b *testing.B) {
		rt := newTransport()
		defer rt.CloseIdleConnections()
		hc := &http.Client{Transport: rt, Timeout: 30 * time.Second}
		before := srv.Stats()
		for b.Loop() {
			got, err := idealFanOut(b.Context(), hc, srv, codes, itick.PlanBase.BatchSize(), itick.DefaultConcurrency)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(codes))
			}
		}
		report(b, before)
	})
}

// TestFanOutSendsMinimumRequests checks BenchmarkFanOut's premises: with
// the Base plan's defaults the SDK sends exactly ceil(1000/10) requests of
// 10 distinct codes each, draws no 429, and answers like the baseline.
func TestFanOutSendsMinimumRequests(t *testing.T) {
	t.Parallel()
	clock := func() time.Time { return time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC) }
	_, srv := newSimClient(t, []markettest.Option{markettest.WithPlan(itick.PlanBase), markettest.WithClock(clock),
		markettest.WithQuota(itick.PlanBase.CallsPerMinute())})
	codes := fanOutCodeList()
	rt := newTransport()
	t.Cleanup(rt.CloseIdleConnections)

	// The plan's own default limiter, batch size and concurrency.
	c, err := itick.NewClient(srv.Token, itick.WithBaseURL(srv.URL), itick.WithPlan(itick.PlanBase),
		itick.WithHTTPClient(&http.Client{Transport: rt, Timeout: 30 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, codes)
	if err != nil {
		t.Fatal(err)
	}
	want := (fanOutCodes + itick.PlanBase.BatchSize() - 1) / itick.PlanBase.BatchSize()
	if diff := cmp.Diff(markettest.Stats{Requests: want, Succeeded: want}, srv.Stats()); diff != "" {
		t.Errorf("server stats (-want +got):\n%s", diff)
	}
	var sent []string
	for _, r := range srv.Requests() {
		if n := len(r.Codes()); n != itick.PlanBase.BatchSize() {
			t.Errorf("a request carried %d codes, want %d", n, itick.PlanBase.BatchSize())
		}
		sent = append(sent, r.Codes()...)
	}
	slices.Sort(sent)
	wantCodes := slices.Sorted(slices.Values(codes))
	if diff := cmp.Diff(wantCodes, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}

	srv.Reset()
	srv.SetQuota(itick.PlanBase.CallsPerMinute()) // an empty window for the baseline
	base, err := idealFanOut(t.Context(), &http.Client{Transport: newTransport()}, srv, codes,
		itick.PlanBase.BatchSize(), itick.DefaultConcurrency)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().Requests; n != want {
		t.Errorf("baseline sent %d requests, want %d", n, want)
	}
	if len(got) != len(base) || len(got) != fanOutCodes {
		t.Fatalf("SDK got %d quotes, baseline %d, want %d", len(got), len(base), fanOutCodes)
	}
	for code, q := range base {
		if g := got[code]; g.Symbol != q.S || g.Last != q.Ld || !g.Time.Equal(time.UnixMilli(q.T)) {
			t.Errorf("%s: SDK %+v, baseline %+v", code, g, q)
		}
	}
}
