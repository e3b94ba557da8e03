package itick_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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

// TestBehaviour1_InvalidInputSendsNothing: bad input is ErrInvalidArgument,
// names the bad value, and no request leaves the client.
func TestBehaviour1_InvalidInputSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name    string
		call    func(c *itick.Client) error
		wantMsg string // part of the error text naming the bad value
	}{
		{"nil codes", func(c *itick.Client) error { _, err := c.Stock.Quotes(ctx, itick.RegionHK, nil); return err }, "codes"},
		{"empty codes", func(c *itick.Client) error { _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{}); return err }, "codes"},
		{"empty code", func(c *itick.Client) error {
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", ""})
			return err
		}, `codes[1]`},
		{"blank code", func(c *itick.Client) error {
			_, err := c.Crypto.Depths(ctx, itick.RegionBA, []string{"BTCUSDT", "   "})
			return err
		}, `"   "`},
		{"code with comma", func(c *itick.Client) error {
			_, err := c.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD,GBPUSD"})
			return err
		}, `"EURUSD,GBPUSD"`},
		{"single depth empty code", func(c *itick.Client) error { _, err := c.Stock.Depth(ctx, itick.RegionHK, " "); return err }, "empty"},
		{"single depth code with comma", func(c *itick.Client) error {
			_, err := c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT,ETHUSDT")
			return err
		}, `"BTCUSDT,ETHUSDT"`},
		{"kline limit 0", func(c *itick.Client) error {
			_, err := c.Stock.Klines(ctx, itick.RegionHK, []string{"700"}, itick.OneDay, 0)
			return err
		}, "0"},
		{"kline limit negative", func(c *itick.Client) error {
			_, err := c.Indices.Klines(ctx, itick.RegionGB, []string{"SPX"}, itick.OneDay, -5)
			return err
		}, "-5"},
		{"interval 0", func(c *itick.Client) error {
			_, err := c.Future.Klines(ctx, itick.RegionUS, []string{"NQ"}, itick.Interval(0), 10)
			return err
		}, "interval 0"},
		{"interval 11", func(c *itick.Client) error {
			_, err := c.Forex.Klines(ctx, itick.RegionGB, []string{"EURUSD"}, itick.Interval(11), 10)
			return err
		}, "interval 11"},
		{"empty region batch", func(c *itick.Client) error { _, err := c.Fund.Depths(ctx, "", []string{"SPY"}); return err }, "region"},
		{"empty region depth", func(c *itick.Client) error { _, err := c.Stock.Depth(ctx, "", "700"); return err }, "region"},
		{"empty region klines", func(c *itick.Client) error {
			_, err := c.Crypto.Klines(ctx, "", []string{"BTCUSDT"}, itick.OneMinute, 1)
			return err
		}, "region"},
		{"empty region split", func(c *itick.Client) error { _, err := c.Stock.SplitPage(ctx, "", 0); return err }, "region"},
		{"negative split page", func(c *itick.Client) error { _, err := c.Stock.SplitPage(ctx, itick.RegionUS, -1); return err }, "-1"},
		{"negative news limit", func(c *itick.Client) error {
			_, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: -3})
			return err
		}, "-3"},
		{"news without market", func(c *itick.Client) error {
			_, err := c.News.List(ctx, itick.NewsQuery{Lang: "en"})
			return err
		}, "Market"},
		{"splits iterator empty region", func(c *itick.Client) error {
			for _, err := range c.Stock.Splits(ctx, "") {
				return err
			}
			return nil
		}, "region"},
		{"news iterator negative limit", func(c *itick.Client) error {
			for _, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: -1}) {
				return err
			}
			return nil
		}, "-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterNoResponder(echoQuotes())
			err := tc.call(c)
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q, want it to name %q", err, tc.wantMsg)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent, want 0", n)
			}
		})
	}
}

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

// TestBehaviour1_CodesTrimmedDedupedCaseKept: codes are trimmed and
// de-duplicated, first occurrence first, and case is kept.
func TestBehaviour1_CodesTrimmedDedupedCaseKept(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var rec recorder
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", record(&rec, echoQuotes()))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionUS, []string{" aapl", "AAPL ", "aapl", "\tMSFT\n", "AAPL", "Msft"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff("aapl,AAPL,MSFT,Msft", reqs[0].Query.Get("codes")); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"AAPL", "MSFT", "Msft", "aapl"}, sortedKeys(got)); diff != "" {
		t.Errorf("map keys (-want +got):\n%s", diff)
	}
}

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

func newChunkServer(limit int) *chunkServer {
	return &chunkServer{limit: limit, gate: make(chan struct{})}
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

// TestBehaviour2_ChunksByPlanAndConcurrency: codes go out in chunks of at
// most the batch size (plan or WithBatchSize), at most WithConcurrency at
// once, and come back merged into one map.
func TestBehaviour2_ChunksByPlanAndConcurrency(t *testing.T) {
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

// TestBehaviour2_MissingCodeIsAbsent: a code the service leaves out is not
// in the map and is not an error, in one chunk or several.
func TestBehaviour2_MissingCodeIsAbsent(t *testing.T) {
	t.Parallel()
	for _, batchSize := range []int{10, 2} {
		t.Run(fmt.Sprintf("batch%d", batchSize), func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithBatchSize(batchSize))
			mt.RegisterResponder("GET", mockBase+"/crypto/quotes", func(req *http.Request) (*http.Response, error) {
				return httpmock.NewStringResponse(200, quotesEnvelope(requestedCodes(req), map[string]bool{"C3": true})), nil
			})
			got, err := c.Crypto.Quotes(t.Context(), itick.RegionBA, codes(5))
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if diff := cmp.Diff([]string{"C0", "C1", "C2", "C4"}, sortedKeys(got)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if _, ok := got["C3"]; ok {
				t.Error("C3 is in the map")
			}
		})
	}
}

// TestBehaviour3_SingleChunkErrorAsIs: a call that fits one chunk returns
// that chunk's *APIError itself, not a *BatchError.
func TestBehaviour3_SingleChunkErrorAsIs(t *testing.T) {
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

// TestBehaviour3_PartialResultsAndBatchError: with several chunks, the
// merged results of the chunks that succeeded come back with a *BatchError
// naming exactly the missing codes; errors.Is/As see each chunk's error.
func TestBehaviour3_PartialResultsAndBatchError(t *testing.T) {
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

// TestBehaviour3_AllChunksFail: every chunk failing still gives a
// *BatchError with every code, and an empty map.
func TestBehaviour3_AllChunksFail(t *testing.T) {
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

// TestBehaviour4_KlinesSortedOldestFirst: every service's klines come back
// oldest first whatever order the service used.
func TestBehaviour4_KlinesSortedOldestFirst(t *testing.T) {
	t.Parallel()
	type klinesFn func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
	services := []struct {
		name string
		path string
		fn   func(c *itick.Client) klinesFn
	}{
		{"Stock", "/stock/klines", func(c *itick.Client) klinesFn { return c.Stock.Klines }},
		{"Crypto", "/crypto/klines", func(c *itick.Client) klinesFn { return c.Crypto.Klines }},
		{"Forex", "/forex/klines", func(c *itick.Client) klinesFn { return c.Forex.Klines }},
		{"Future", "/future/klines", func(c *itick.Client) klinesFn { return c.Future.Klines }},
		{"Indices", "/indices/klines", func(c *itick.Client) klinesFn { return c.Indices.Klines }},
	}
	const n = 60
	base := int64(1765000000000)
	var want []itick.Kline
	var wire []string
	for i := range n {
		want = append(want, itick.Kline{Time: ms(base + int64(i)*60000), Open: float64(i), Close: float64(i) + 0.5})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(n) {
		wire = append(wire, fmt.Sprintf(`{"t":%d,"o":%d,"c":%v}`, base+int64(i)*60000, i, float64(i)+0.5))
	}
	envelope := `{"code":0,"msg":null,"data":{"A":[` + strings.Join(wire, ",") + `],"B":[` +
		fmt.Sprintf(`{"t":%d,"o":2},{"t":%d,"o":1}`, base+60000, base) + `]}}`
	for _, svc := range services {
		t.Run(svc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder("GET", mockBase+svc.path, body(200, envelope))
			got, err := svc.fn(c)(t.Context(), "XX", []string{"A", "B"}, itick.OneMinute, n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got["A"]); diff != "" {
				t.Errorf("A (-want +got):\n%s", diff)
			}
			wantB := []itick.Kline{{Time: ms(base), Open: 1}, {Time: ms(base + 60000), Open: 2}}
			if diff := cmp.Diff(wantB, got["B"]); diff != "" {
				t.Errorf("B (-want +got):\n%s", diff)
			}
		})
	}
}
