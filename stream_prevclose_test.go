package itick_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of WithPrevClose: a snapshot only of what the service acknowledged,
// taken in the Stream's own goroutine; what it reports; what it renews.

// prevDay is a trading day in Hong Kong at 10:30 (a Tuesday, n = 0).
func prevDay(n int) time.Time { return time.Date(2025, 3, 4+n, 2, 30, 0, 0, time.UTC) }

// prevService is a fake service for WithPrevClose: REST quotes from a
// table, and a stream that acknowledges every request but those naming
// BAD, and pushes a quote of each subscribed product every 5 ms, dated by
// the clock.
type prevService struct {
	clk *markettest.ManualClock
	ws  *wsHost

	mu       sync.Mutex
	quotes   map[string]string         // REST quote of each code; absent: left out
	fail     func(n int) (int, string) // status and Retry-After of request n (from 1); 0: answered
	hold     chan struct{}             // when set, REST answers once it is closed
	requests [][]string                // the codes of each REST request
	at       []time.Time               // when each came
	order    []string                  // "ack 700$HK" and "rest 700", as they happened
}

func newPrevService() *prevService {
	ps := &prevService{clk: markettest.NewManualClock(prevDay(0)), quotes: make(map[string]string)}
	ps.ws = newWSHost(ps.serveStream)
	return ps
}

// quote sets code's REST quote: its previous close (0: none) and its time.
func (ps *prevService) quote(code string, prev float64, at time.Time) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ""
	if prev != 0 {
		p = fmt.Sprintf(`,"p":%v`, prev)
	}
	ps.quotes[code] = fmt.Sprintf(`{"s":%q,"ld":120%s,"t":%d}`, code, p, at.UnixMilli())
}

func (ps *prevService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/stock/quotes" {
		ps.ws.ServeHTTP(w, r)
		return
	}
	codes := strings.Split(r.URL.Query().Get("codes"), ",")
	ps.mu.Lock()
	ps.requests = append(ps.requests, codes)
	ps.at = append(ps.at, time.Now())
	ps.order = append(ps.order, "rest "+strings.Join(codes, ","))
	n, fail, hold := len(ps.requests), ps.fail, ps.hold
	ps.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if fail != nil {
		if status, retryAfter := fail(n); status != 0 {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"code":%d,"msg":"failed"}`, status)
			return
		}
	}
	ps.mu.Lock()
	var parts []string
	for _, code := range codes {
		if q, ok := ps.quotes[code]; ok {
			parts = append(parts, fmt.Sprintf("%q:%s", code, q))
		}
	}
	ps.mu.Unlock()
	fmt.Fprintf(w, `{"code":0,"msg":"ok","data":{%s}}`, strings.Join(parts, ","))
}

func (ps *prevService) Close() { ps.ws.Close() }

func (ps *prevService) serveStream(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
	wsSend(ctx, c, wsAuthOK)
	var mu sync.Mutex
	subs := map[string]bool{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the pushes
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			mu.Lock()
			syms := make([]string, 0, len(subs))
			for s := range subs {
				syms = append(syms, s)
			}
			mu.Unlock()
			slices.Sort(syms)
			for _, s := range syms {
				code, region, _ := strings.Cut(s, "$")
				wsSend(ctx, c, fmt.Sprintf(`{"code":1,"data":{"s":%q,"r":%q,"type":"quote","ld":120,"t":%d}}`,
					code, region, ps.clk.Now().UnixMilli()))
			}
		}
	}()
	defer wg.Wait()
	defer close(done)
	answer(ctx, c, func(req streamRequest) string {
		syms := strings.Split(req.Params, ",")
		if req.Ac == "subscribe" && strings.Contains(req.Params, "BAD") {
			return `{"code":0,"resAc":"subscribe","msg":"subscribe failed: invalid symbol"}`
		}
		mu.Lock()
		for _, s := range syms {
			subs[s] = req.Ac == "subscribe"
			if req.Ac != "subscribe" {
				delete(subs, s)
			}
		}
		mu.Unlock()
		if req.Ac == "subscribe" {
			ps.mu.Lock()
			ps.order = append(ps.order, "ack "+req.Params)
			ps.mu.Unlock()
		}
		return acceptAll(req)
	})
}

// client is a client of the service on its clock, with no retries.
func (ps *prevService) client(t *testing.T) *itick.Client {
	return newServerClient(t, httptest.NewServer(ps), testToken, itick.WithClock(ps.clk.Now), itick.WithRetries(0))
}

// stream opens a stock Stream with WithPrevClose, retrying snapshots after
// 5 to 20 ms unless opts say otherwise.
func (ps *prevService) stream(t *testing.T, c *itick.Client, opts ...itick.StreamOption) *itick.Stream {
	return streamOf(t, c, append([]itick.StreamOption{itick.WithPrevClose(),
		itick.PrevCloseRetry(5*time.Millisecond, 20*time.Millisecond)}, opts...)...)
}

func (ps *prevService) requested() [][]string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return slices.Clone(ps.requests)
}

// quoteWith waits for a QuoteEvent of symbol whose PrevClose is prev.
func quoteWith(t *testing.T, s *itick.Stream, symbol string, prev float64) itick.QuoteEvent {
	t.Helper()
	for {
		q, _ := nextOf[itick.QuoteEvent](t, s)
		if q.Symbol() == symbol && q.Quote.PrevClose == prev {
			return q
		}
	}
}

// Behaviour 19: with WithPrevClose, every QuoteEvent carries the previous
// close of a REST quote snapshot taken once the product is subscribed, and
// again when its trading day changes; one batch call each time, on the
// client's limiter, counted in Stats. Without it the fields are zero.
func TestStream_PrevCloseFromSnapshots(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	day1 := time.Date(2025, 3, 4, 2, 30, 0, 0, time.UTC) // 10:30 in Hong Kong, a Tuesday
	now.Store(day1.UnixNano())
	c, _ := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return time.Unix(0, now.Load()).UTC() }),
		markettest.WithStreamInterval(5 * time.Millisecond)})
	ctx := context.Background()
	plain, err := c.Stream(ctx, itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	s, err := c.Stream(ctx, itick.AssetStock, itick.WithPrevClose())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, st := range []*itick.Stream{plain, s} {
		if err := st.Subscribe(ctx, []string{"700$HK", "9988$HK"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := nextOf[itick.QuoteEvent](t, s)
	for q.Code != "700" || q.Quote.PrevClose == 0 {
		q, _ = nextOf[itick.QuoteEvent](t, s)
	}
	if st := c.Stats(); st.Requests != 1 {
		t.Errorf("%d requests for the snapshot of two products, want one batch call", st.Requests)
	}
	want, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Quote.PrevClose != want["700"].PrevClose || q.Quote.PrevClose == 0 ||
		math.Abs(q.Quote.Change-(q.Quote.Last-q.Quote.PrevClose)) > 1e-9 ||
		math.Abs(q.Quote.ChangePercent-q.Quote.Change/q.Quote.PrevClose*100) > 1e-9 {
		t.Errorf("quote %+v, want the previous close %v of the REST quote and the change from it", q.Quote, want["700"].PrevClose)
	}
	if pq, _ := nextOf[itick.QuoteEvent](t, plain); pq.Quote.PrevClose != 0 || pq.Quote.Change != 0 || pq.Quote.ChangePercent != 0 {
		t.Errorf("without WithPrevClose: %+v, want the fields zero", pq.Quote)
	}

	// The next trading day: its first pushes bring a new snapshot.
	before := c.Stats().Requests
	now.Store(day1.Add(24 * time.Hour).UnixNano())
	want2, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if want2["700"].PrevClose == want["700"].PrevClose {
		t.Fatalf("the simulator's previous close did not change with the day: %v", want2["700"].PrevClose)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		q, _ := nextOf[itick.QuoteEvent](t, s)
		if q.Code == "700" && q.Quote.PrevClose == want2["700"].PrevClose {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no quote with the new day's previous close %v; last %+v", want2["700"].PrevClose, q.Quote)
		}
	}
	if n := c.Stats().Requests - before; n != 2 { // the test's own call, and one renewal for both products
		t.Errorf("%d requests after the day changed, want the test's own and one renewal", n)
	}
}

// A snapshot WithPrevClose cannot take does not fail the subscription: an
// ErrorEvent with no connection says so, and the quotes flow.
func TestStream_PrevCloseSnapshotFailureIsReported(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 2, 30, 0, 0, time.UTC)
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(func() time.Time { return at }),
		markettest.WithStreamInterval(5 * time.Millisecond)}, itick.WithRetries(0))
	s, err := c.Stream(context.Background(), itick.AssetStock, itick.WithPrevClose())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv.FailNext(1, http.StatusServiceUnavailable)
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe = %v, want the subscription despite the snapshot", err)
	}
	e, _ := nextOf[itick.ErrorEvent](t, s)
	if e.Conn != -1 || !strings.Contains(e.Err.Error(), "previous close of 700$HK") {
		t.Errorf("ErrorEvent = %+v, want one for the snapshot, on no connection", e)
	}
	if q, _ := nextOf[itick.QuoteEvent](t, s); q.Code != "700" {
		t.Errorf("quote %+v", q)
	}
}

// Subscribe returns once the service has acknowledged, without waiting for
// the snapshot, which is asked for after the acknowledgement; quotes carry
// no previous close until it has come.
func TestStream_PrevCloseSubscribeDoesNotWait(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 100, prevDay(0))
	ps.hold = make(chan struct{})
	s := ps.stream(t, ps.client(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Subscribe(ctx, []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe = %v while the snapshot hangs, want it acknowledged", err)
	}
	for range 3 {
		if q, _ := nextOf[itick.QuoteEvent](t, s); q.Quote.PrevClose != 0 || q.Quote.Change != 0 {
			t.Fatalf("quote %+v before the snapshot came, want no previous close", q.Quote)
		}
	}
	close(ps.hold)
	q := quoteWith(t, s, "700$HK", 100)
	if q.Quote.Change != 20 || math.Abs(q.Quote.ChangePercent-20) > 1e-9 {
		t.Errorf("quote %+v, want a change of 20 (20%%) from 100", q.Quote)
	}
	ps.mu.Lock()
	order := slices.Clone(ps.order)
	ps.mu.Unlock()
	if diff := cmp.Diff([]string{"ack 700$HK", "rest 700"}, order); diff != "" {
		t.Errorf("what the service saw (-want +got):\n%s", diff)
	}
}

// A Subscribe refused (by the service, the plan's cap, a bad symbol or a
// closed Stream) costs no snapshot.
func TestStream_PrevCloseSpendsNothingOnARefusal(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 100, prevDay(0))
	c := ps.client(t)
	s := ps.stream(t, c, itick.WithMaxSymbols(2))
	ctx := context.Background()
	var se *itick.StreamError
	if err := s.Subscribe(ctx, []string{"BAD$HK"}, itick.ChannelQuote); !errors.As(err, &se) {
		t.Errorf("a refused product: %v, want a *StreamError", err)
	}
	if err := s.Subscribe(ctx, []string{"9988$HK", "no-region"}, itick.ChannelQuote); !errors.Is(err, itick.ErrInvalidArgument) {
		t.Errorf("a bad symbol: %v, want ErrInvalidArgument", err)
	}
	if err := s.Subscribe(ctx, []string{"1$HK", "2$HK", "3$HK"}, itick.ChannelQuote); !errors.Is(err, itick.ErrPlanLimit) {
		t.Errorf("past the cap: %v, want ErrPlanLimit", err)
	}
	if err := s.Subscribe(ctx, []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	quoteWith(t, s, "700$HK", 100)
	closed := ps.stream(t, c)
	closed.Close()
	if err := closed.Subscribe(ctx, []string{"5$HK"}, itick.ChannelQuote); !errors.Is(err, itick.ErrStreamClosed) {
		t.Errorf("a closed Stream: %v, want ErrStreamClosed", err)
	}
	if diff := cmp.Diff([][]string{{"700"}}, ps.requested()); diff != "" {
		t.Errorf("REST requests (-want +got):\n%s", diff)
	}
}

// A product unsubscribed from quotes is never renewed: the next day, only
// the one still subscribed is asked for.
func TestStream_PrevCloseForgetsUnsubscribed(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 100, prevDay(0))
	ps.quote("9988", 80, prevDay(0))
	s := ps.stream(t, ps.client(t))
	ctx := context.Background()
	if err := s.Subscribe(ctx, []string{"700$HK", "9988$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	quoteWith(t, s, "9988$HK", 80)
	if err := s.Unsubscribe(ctx, []string{"9988$HK"}); err != nil {
		t.Fatal(err)
	}
	ps.quote("700", 101, prevDay(1))
	ps.quote("9988", 81, prevDay(1))
	ps.clk.Set(prevDay(1))
	quoteWith(t, s, "700$HK", 101)
	if diff := cmp.Diff([][]string{{"700", "9988"}, {"700"}}, ps.requested()); diff != "" {
		t.Errorf("REST requests (-want +got):\n%s", diff)
	}
}
