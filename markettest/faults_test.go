package markettest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/markettest"
)

// rawResult is what a plain HTTP client saw of one request.
type rawResult struct {
	status  int
	retry   string
	body    []byte
	doErr   error // no response at all
	readErr error // the body did not arrive whole
}

// fetch sends one request with a fresh connection and never retries, so
// each fault is seen as it is.
func fetch(t *testing.T, ctx context.Context, srv *markettest.Server, pathAndQuery string) rawResult {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+pathAndQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("token", srv.Token)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return rawResult{doErr: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return rawResult{status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), body: body, readErr: err}
}

const quotesPath = "/stock/quotes?region=US&codes=AAPL"

func isEnvelope(b []byte) bool {
	var env struct {
		Code *int `json:"code"`
	}
	return json.Unmarshal(b, &env) == nil && env.Code != nil && *env.Code == 0
}

func TestFailNextFailsExactlyN(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.FailNext(2, http.StatusBadGateway)
	var got []int
	for range 4 {
		got = append(got, fetch(t, t.Context(), srv, quotesPath).status)
	}
	if diff := cmp.Diff([]int{502, 502, 200, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	var kinds []markettest.FaultKind
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Fault)
	}
	want := []markettest.FaultKind{markettest.FaultStatus, markettest.FaultStatus, 0, 0}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("recorded faults (-want +got):\n%s", diff)
	}
	if got := srv.Stats().Faults; got != 2 {
		t.Errorf("Stats().Faults = %d, want 2", got)
	}
}

func TestStatusFaultSendsRetryAfter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Times: 1, Status: http.StatusTooManyRequests,
		RetryAfter: 1500 * time.Millisecond})
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Times: 1})
	first, second := fetch(t, t.Context(), srv, quotesPath), fetch(t, t.Context(), srv, quotesPath)
	if first.status != 429 || first.retry != "2" {
		t.Errorf("first: status %d Retry-After %q, want 429 \"2\"", first.status, first.retry)
	}
	if second.status != 503 || second.retry != "" {
		t.Errorf("second: status %d Retry-After %q, want 503 without Retry-After", second.status, second.retry)
	}
	if isEnvelope(first.body) {
		t.Errorf("a status fault answered with an envelope: %s", first.body)
	}
}

func TestFaultsCanBeTargeted(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Path: "/crypto/quotes", Times: 1})
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Code: "MSFT", Status: 500})
	tests := []struct {
		pathAndQuery string
		want         int
	}{
		{"/stock/quotes?region=US&codes=AAPL", 200},
		{"/crypto/quotes?region=BA&codes=BTCUSDT", 503},
		{"/crypto/quotes?region=BA&codes=BTCUSDT", 200}, // Times: 1 is spent
		{"/stock/quotes?region=US&codes=AAPL,MSFT", 500},
		{"/stock/depth?region=US&code=MSFT", 500},
		{"/stock/quotes?region=US&codes=MSFTX", 200},
		{"/stock/quotes?region=US&codes=MSFT", 500}, // Times: 0 lasts
	}
	for i, tt := range tests {
		if got := fetch(t, t.Context(), srv, tt.pathAndQuery).status; got != tt.want {
			t.Errorf("request %d %s: status %d, want %d", i, tt.pathAndQuery, got, tt.want)
		}
	}
	srv.ClearFaults()
	if got := fetch(t, t.Context(), srv, "/stock/quotes?region=US&codes=MSFT").status; got != 200 {
		t.Errorf("after ClearFaults: status %d", got)
	}
}

func TestConnectionFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind markettest.FaultKind
		// check says what is wrong with what the client saw, or "".
		check func(r rawResult) string
	}{
		{markettest.FaultDrop, func(r rawResult) string {
			if r.doErr == nil {
				return "got a response, want the connection closed before one"
			}
			return ""
		}},
		{markettest.FaultDropMidBody, func(r rawResult) string {
			if r.doErr != nil || r.status != 200 || !errors.Is(r.readErr, io.ErrUnexpectedEOF) && r.readErr == nil {
				return "want a 200 whose body breaks off"
			}
			if len(r.body) == 0 || isEnvelope(r.body) {
				return "want part of an envelope"
			}
			return ""
		}},
		{markettest.FaultTruncate, func(r rawResult) string {
			if r.doErr != nil || r.status != 200 || !errors.Is(r.readErr, io.ErrUnexpectedEOF) {
				return "want a 200 whose body is shorter than its Content-Length"
			}
			if !isEnvelope(r.body) {
				return "want the whole envelope before the missing bytes"
			}
			return ""
		}},
		{markettest.FaultMalformed, func(r rawResult) string {
			if r.doErr != nil || r.readErr != nil || r.status != 200 {
				return "want a whole 200 response"
			}
			if json.Valid(r.body) {
				return "want a body that is not JSON"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.Inject(markettest.Fault{Kind: tt.kind, Times: 1})
			r := fetch(t, t.Context(), srv, quotesPath)
			if problem := tt.check(r); problem != "" {
				t.Errorf("%s: %s; got status %d, doErr %v, readErr %v, body %q", tt.kind, problem, r.status, r.doErr, r.readErr, r.body)
			}
			if next := fetch(t, t.Context(), srv, quotesPath); next.status != 200 || !isEnvelope(next.body) {
				t.Errorf("the request after the fault: status %d body %q", next.status, next.body)
			}
			if got := srv.Requests()[0].Fault; got != tt.kind {
				t.Errorf("recorded fault %v, want %v", got, tt.kind)
			}
		})
	}
}

func TestHangHoldsTheBodyUntilTheClientGivesUp(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(markettest.Fault{Kind: markettest.FaultHang, Times: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	r := fetch(t, ctx, srv, quotesPath)
	if r.doErr != nil || r.status != 200 {
		t.Fatalf("want the headers to arrive: status %d, err %v", r.status, r.doErr)
	}
	if !errors.Is(r.readErr, context.DeadlineExceeded) {
		t.Errorf("reading the body: %v, want the context's deadline", r.readErr)
	}
}

func TestLatencyDelaysButDoesNotFail(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// A delay far past the client's patience shows it is applied.
	srv.Inject(markettest.Fault{Kind: markettest.FaultLatency, Delay: time.Hour, Times: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if r := fetch(t, ctx, srv, quotesPath); !errors.Is(r.doErr, context.DeadlineExceeded) {
		t.Errorf("with an hour of latency: %v, want the context's deadline", r.doErr)
	}
	// A small delay still gives a whole answer.
	srv.AddLatency(time.Millisecond)
	if r := fetch(t, t.Context(), srv, quotesPath); r.status != 200 || !isEnvelope(r.body) {
		t.Errorf("with 1ms latency: status %d body %q", r.status, r.body)
	}
	if got := srv.Requests()[1].Fault; got != markettest.FaultLatency {
		t.Errorf("recorded fault %v, want latency", got)
	}
}

func TestCloseEndsHangingRequests(t *testing.T) {
	t.Parallel()
	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow))
	srv.Inject(markettest.Fault{Kind: markettest.FaultHang})
	srv.Inject(markettest.Fault{Kind: markettest.FaultLatency, Delay: time.Hour, Path: "/crypto/quotes"})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan rawResult, 2)
	go func() { done <- fetch(t, ctx, srv, quotesPath) }()
	go func() { done <- fetch(t, ctx, srv, "/crypto/quotes?region=BA&codes=BTCUSDT") }()
	// Wait until both requests are held, then close.
	for len(srv.Requests()) < 2 {
		select {
		case <-ctx.Done():
			t.Fatal("requests did not arrive")
		case <-time.After(time.Millisecond):
		}
	}
	srv.Close()
	for range 2 {
		r := <-done
		if r.doErr == nil && r.readErr == nil {
			t.Errorf("a held request completed: status %d", r.status)
		}
	}
	if ctx.Err() != nil {
		t.Error("Close did not end the held requests before the safety timeout")
	}
}

func faultSequence(t *testing.T, seed uint64, n int) []markettest.FaultKind {
	srv := newServer(t)
	srv.SetRandomFaults(markettest.RandomFaults{Probability: 0.3, Seed: seed})
	for range n {
		fetch(t, t.Context(), srv, quotesPath)
	}
	var kinds []markettest.FaultKind
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Fault)
	}
	return kinds
}

func TestRandomFaultsAreReproducible(t *testing.T) {
	t.Parallel()
	const n = 60
	a, b, other := faultSequence(t, 42, n), faultSequence(t, 42, n), faultSequence(t, 43, n)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different faults (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, other) {
		t.Errorf("seeds 42 and 43 gave the same faults")
	}
	counts := map[markettest.FaultKind]int{}
	for _, k := range a {
		counts[k]++
	}
	faulted := n - counts[0]
	// 0.3 of 60 is 18; a fair draw lands well within [6, 30].
	if faulted < 6 || faulted > 30 {
		t.Errorf("%d of %d requests faulted at probability 0.3", faulted, n)
	}
	if counts[markettest.FaultHang] != 0 || counts[markettest.FaultLatency] != 0 {
		t.Errorf("default kinds include hang or latency: %v", counts)
	}
}

func TestRandomFaultsRespectKindsAndPath(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.SetRandomFaults(markettest.RandomFaults{Probability: 1, Seed: 1, Path: "/stock/quotes",
		Kinds: []markettest.FaultKind{markettest.FaultStatus}, Status: http.StatusGatewayTimeout})
	if got := fetch(t, t.Context(), srv, quotesPath).status; got != http.StatusGatewayTimeout {
		t.Errorf("targeted path: status %d, want 504", got)
	}
	if got := fetch(t, t.Context(), srv, "/crypto/quotes?region=BA&codes=BTCUSDT").status; got != 200 {
		t.Errorf("other path: status %d, want 200", got)
	}
	srv.SetRandomFaults(markettest.RandomFaults{})
	if got := fetch(t, t.Context(), srv, quotesPath).status; got != 200 {
		t.Errorf("after switching off: status %d", got)
	}
}
