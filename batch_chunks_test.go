package itick_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// Batch calls split into the chunks the plan allows, sent concurrently and
// merged; a failed chunk is a *BatchError naming its codes.

// chunkServer answers quote requests for any codes, recording the chunk
// sizes and the most requests in flight at once. Requests hold until limit
// of them are in flight together and a moment has passed (or a safety
// bound passes), so a client that runs chunks concurrently reaches its
// limit and one that runs more than it shows them.
type chunkServer struct {
	limit    int
	inFlight atomic.Int64
	maxSeen  atomic.Int64
	once     sync.Once
	gate     chan struct{}
	mu       sync.Mutex
	sizes    []int
	sent     []string
}

func (s *chunkServer) responder(skip map[string]bool) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		cs := requestedCodes(req)
		s.mu.Lock()
		s.sizes = append(s.sizes, len(cs))
		s.sent = append(s.sent, cs...)
		s.mu.Unlock()
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxSeen.Load()
			if n <= m || s.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		if n >= int64(s.limit) {
			// Hold the gate a moment longer, so that a client running more
			// chunks than its limit shows them here.
			s.once.Do(func() { time.AfterFunc(30*time.Millisecond, func() { close(s.gate) }) })
		}
		select {
		case <-s.gate:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(5 * time.Second):
		}
		return httpmock.NewStringResponse(200, quotesEnvelope(cs, skip)), nil
	}
}

func newChunkServer(limit int) *chunkServer {
	return &chunkServer{limit: limit, gate: make(chan struct{})}
}

// Behaviour 2: codes go out in chunks of at most the batch size (plan or
// WithBatchSize), at most WithConcurrency at once, and come back merged into
// one map.
func TestChunksByPlanAndConcurrency(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		opts        []itick.Option
		n           int
		wantSizes   []int
		concurrency int
	}{
		{"PlanBase", []itick.Option{itick.WithPlan(itick.PlanBase)}, 25, []int{5, 10, 10}, 3},
		{"default plan and concurrency", nil, 50, []int{10, 10, 10, 10, 10}, 4},
		{"PlanProfessional", []itick.Option{itick.WithPlan(itick.PlanProfessional)}, 45, []int{5, 20, 20}, 3},
		{"PlanPremium", []itick.Option{itick.WithPlan(itick.PlanPremium)}, 120, []int{20, 50, 50}, 3},
		{"WithBatchSize over plan", []itick.Option{itick.WithPlan(itick.PlanPremium), itick.WithBatchSize(7)}, 20, []int{6, 7, 7}, 3},
		{"WithBatchSize before plan", []itick.Option{itick.WithBatchSize(3), itick.WithPlan(itick.PlanProfessional)}, 7, []int{1, 3, 3}, 3},
		{"WithConcurrency 2", []itick.Option{itick.WithBatchSize(1), itick.WithConcurrency(2)}, 10, slices.Repeat([]int{1}, 10), 2},
		{"WithConcurrency 1", []itick.Option{itick.WithBatchSize(2), itick.WithConcurrency(1)}, 6, []int{2, 2, 2}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, tc.opts...)
			itick.ConfirmClient(c) // fans out from the first chunk
			srv := newChunkServer(tc.concurrency)
			mt.RegisterResponder("GET", mockBase+"/stock/quotes", srv.responder(nil))
			in := codes(tc.n)
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, in)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(srv.sizes)
			if diff := cmp.Diff(tc.wantSizes, srv.sizes); diff != "" {
				t.Errorf("chunk sizes (-want +got):\n%s", diff)
			}
			if m := srv.maxSeen.Load(); m != int64(tc.concurrency) {
				t.Errorf("max chunks in flight = %d, want %d", m, tc.concurrency)
			}
			slices.Sort(srv.sent)
			want := slices.Sorted(slices.Values(in))
			if diff := cmp.Diff(want, srv.sent); diff != "" {
				t.Errorf("codes sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, sortedKeys(got)); diff != "" {
				t.Errorf("merged keys (-want +got):\n%s", diff)
			}
			for _, code := range in {
				if got[code].Symbol != code {
					t.Errorf("got[%q].Symbol = %q", code, got[code].Symbol)
				}
			}
		})
	}
}

// Behaviour 3: a call that fits one chunk returns that chunk's *APIError
// itself, not a *BatchError.
func TestSingleChunkErrorAsIs(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(401, string(fixture(t, "error_gateway.json"))))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	if got != nil {
		t.Errorf("map = %v, want nil", got)
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		t.Fatalf("err is a *BatchError: %v", err)
	}
	apiErr, ok := err.(*itick.APIError)
	if !ok {
		t.Fatalf("err is %T (%v), want *itick.APIError as is", err, err)
	}
	want := &itick.APIError{StatusCode: 401, Message: "Invalid API key in request", Path: "/stock/quotes"}
	if diff := cmp.Diff(want, apiErr, ignoreEvidence); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Error("err does not match ErrUnauthorized")
	}
}

// Behaviour 3: with several chunks, the merged results of the chunks that
// succeeded come back with a *BatchError naming exactly the missing codes;
// errors.Is/As see each chunk's error.
func TestPartialResultsAndBatchError(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/stock/klines", func(req *http.Request) (*http.Response, error) {
		cs := requestedCodes(req)
		switch cs[0] {
		case "C2":
			return httpmock.NewStringResponse(200, string(fixture(t, "error_e001.json"))), nil
		case "C6": // not E003 nor a refused token: those end the whole batch (behaviour 11)
			return httpmock.NewStringResponse(500, `{"code":500,"msg":"internal error"}`), nil
		}
		data := map[string]string{}
		for _, code := range cs {
			data[code] = fmt.Sprintf(`[{"t":1765526400000,"o":1,"h":2,"l":0.5,"c":%d,"v":10,"tu":20}]`, len(code))
		}
		parts := make([]string, 0, len(data))
		for k, v := range data {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
		return httpmock.NewStringResponse(200, `{"code":0,"msg":null,"data":{`+strings.Join(parts, ",")+`}}`), nil
	})
	got, err := c.Stock.Klines(t.Context(), itick.RegionHK, codes(8), itick.OneDay, 1)
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C0", "C1", "C4", "C5"}, sortedKeys(got)); diff != "" {
		t.Errorf("partial results (-want +got):\n%s", diff)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"C2", "C3", "C6", "C7"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if len(be.Chunks) != 2 {
		t.Fatalf("%d failed chunks, want 2", len(be.Chunks))
	}
	for _, ch := range be.Chunks {
		if len(ch.Codes) != 2 || ch.Err == nil {
			t.Errorf("chunk %+v: want 2 codes and an error", ch)
		}
	}
	if len(be.Unwrap()) != 2 {
		t.Errorf("Unwrap gives %d errors, want 2", len(be.Unwrap()))
	}
	if !errors.Is(err, itick.ErrNotFound) {
		t.Errorf("errors.Is does not see through the BatchError to ErrNotFound: %v", err)
	}
	if !slices.ContainsFunc(be.Unwrap(), func(e error) bool {
		var ae *itick.APIError
		return errors.As(e, &ae) && ae.StatusCode == 500
	}) {
		t.Errorf("no chunk carries the 500: %v", err)
	}
	if errors.Is(err, itick.ErrUnauthorized) {
		t.Error("err matches ErrUnauthorized, which no chunk had")
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.Path != "/stock/klines" || apiErr.StatusCode != 200 {
		t.Errorf("errors.As(*APIError) = %+v", apiErr)
	}
	if !strings.Contains(err.Error(), "2 chunk") {
		t.Errorf("BatchError text %q does not count the failed chunks", err)
	}
}

// Behaviour 3: every chunk failing still gives a *BatchError with every
// code, and an empty map.
func TestAllChunksFail(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(3), itick.WithRetries(0))
	mt.RegisterResponder("GET", mockBase+"/future/quotes", body(500, "upstream exploded"))
	got, err := c.Future.Quotes(t.Context(), itick.RegionUS, codes(7))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	if len(got) != 0 {
		t.Errorf("map = %v, want empty", got)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff(codes(7), failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Errorf("errors.As(*APIError) = %+v, want status 500", apiErr)
	}
}

// TestTicksChunked: Ticks splits its codes like every batch call and reports
// a failed chunk's codes.
func TestTicksChunked(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	var mu sync.Mutex
	var chunks [][]string
	mt.RegisterResponder(http.MethodGet, mockBase+"/crypto/ticks", func(req *http.Request) (*http.Response, error) {
		codes := strings.Split(req.URL.Query().Get("codes"), ",")
		mu.Lock()
		chunks = append(chunks, codes)
		mu.Unlock()
		if slices.Contains(codes, "BAD") {
			return httpmock.NewStringResponse(http.StatusBadRequest, `{"code":400,"msg":"bad request","data":null}`), nil
		}
		data := map[string]any{}
		for i, code := range codes {
			data[code] = map[string]any{"s": code, "ld": i + 1, "t": 1765526889000, "v": 0.5}
		}
		b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
		return httpmock.NewBytesResponse(http.StatusOK, b), nil
	})

	got, err := c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "C", "A", "D", "E"})
	if err != nil {
		t.Fatalf("Ticks: %v", err)
	}
	if len(chunks) != 3 {
		t.Fatalf("sent %d chunks, want 3: %v", len(chunks), chunks)
	}
	var sent []string
	for _, ch := range chunks {
		if len(ch) > 2 {
			t.Errorf("chunk %v has more than 2 codes", ch)
		}
		sent = append(sent, ch...)
	}
	slices.Sort(sent)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	keys := make([]string, 0, len(got))
	for k, v := range got {
		if v.Symbol != k {
			t.Errorf("got[%q].Symbol = %q", k, v.Symbol)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, keys); diff != "" {
		t.Errorf("merged keys (-want +got):\n%s", diff)
	}

	got, err = c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "BAD", "C"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"BAD", "C"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if _, ok := got["A"]; !ok || len(got) != 2 {
		t.Errorf("partial results = %v, want A and B", got)
	}
}
