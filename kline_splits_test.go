package itick_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of the split lists WithSplitAdjusted uses: fetched once per region
// and trading day, by one call for all, and never kept when they fail.

// splitRequests counts the requests for split pages srv has answered.
func splitRequests(srv *markettest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == "/stock/split" {
			n++
		}
	}
	return n
}

// TestSplitAdjusted_OncePerTradingDay: concurrent calls fetch a region's
// splits once between them; the next trading day of the region's market,
// on the client's clock, fetches them again; another region has its own.
func TestSplitAdjusted_OncePerTradingDay(t *testing.T) {
	t.Parallel()
	clock := markettest.NewManualClock(time.Date(2025, 6, 4, 14, 0, 0, 0, time.UTC)) // 10:00 in New York
	c, srv := newSimClient(t, []markettest.Option{markettest.WithClock(clock.Now)})
	pages := (len(srv.Generator().Splits(itick.RegionUS, clock.Now())) + markettest.SplitPageSize - 1) / markettest.SplitPageSize
	call := func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"AAPL", "MSFT"}, itick.OneDay, 5, itick.WithSplitAdjusted()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	call()
	if n := splitRequests(srv); n != pages {
		t.Fatalf("8 concurrent calls sent %d split requests; want %d, one listing", n, pages)
	}
	clock.Advance(9 * time.Hour) // 23:00 UTC: 19:00 in New York, the same trading day
	call()
	if n := splitRequests(srv); n != pages {
		t.Errorf("later the same New York day: %d split requests; want still %d", n, pages)
	}
	clock.Advance(2 * time.Hour) // 01:00 UTC on the 5th: 21:00 on the 4th in New York
	call()
	if n := splitRequests(srv); n != pages {
		t.Errorf("past UTC midnight, the 4th still in New York: %d split requests; want still %d", n, pages)
	}
	clock.Advance(4 * time.Hour) // 05:00 UTC: the 5th in New York
	call()
	if n := splitRequests(srv); n != 2*pages {
		t.Errorf("the next New York day: %d split requests; want %d", n, 2*pages)
	}
	if _, err := c.Stock.Klines(t.Context(), itick.RegionHK, []string{"700"}, itick.OneDay, 5, itick.WithSplitAdjusted()); err != nil {
		t.Fatal(err)
	}
	hk := 0
	for _, r := range srv.Requests() {
		if r.Path == "/stock/split" && r.Query.Get("region") == "HK" {
			hk++
		}
	}
	if hk == 0 {
		t.Error("HK's splits were not asked for")
	}
}

// TestSplitAdjusted_FetchFailure: a failed fetch of the splits is the
// call's error and is not kept: the next call asks again. A call whose
// context ends while another fetches gives its own context's error; one
// whose fetch was cut short by the fetching call's context fetches itself.
func TestSplitAdjusted_FetchFailure(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithRetries(0), itick.WithClock(func() time.Time { return adjustNow }))
	var splitCalls recorder
	mt.RegisterResponder("GET", mockBase+"/stock/split", record(&splitCalls, sequence(
		body(401, `{"code":401,"msg":"auth failed"}`),
		body(200, splitListing(splitRecord(date(2025, 6, 3), "AAPL", "2:1"))),
	)))
	mt.RegisterResponder("GET", mockBase+"/stock/klines", body(200, `{"code":0,"msg":null,"data":{"AAPL":[`+
		candleJSON(date(2025, 6, 2), 10, 10, 10, 10, 5, 50)+`]}}`))
	_, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"AAPL"}, itick.OneDay, 1, itick.WithSplitAdjusted())
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("first call: %v; want the splits' ErrUnauthorized", err)
	}
	if n := mt.GetCallCountInfo()["GET "+mockBase+"/stock/klines"]; n != 0 {
		t.Errorf("%d kline requests after the splits failed; want none", n)
	}
	got, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"AAPL"}, itick.OneDay, 1, itick.WithSplitAdjusted())
	if err != nil || got["AAPL"][0].Close != 5 {
		t.Fatalf("second call: %v, %v; want AAPL adjusted by 2:1 (close 5)", got, err)
	}
	if n := splitCalls.len(); n != 2 {
		t.Errorf("%d split requests; want 2", n)
	}
}

// TestSplitAdjusted_Waiters: a call that waits for another's fetch of the
// splits gives up with its own context, and fetches them itself when the
// fetching call's context ended the fetch.
func TestSplitAdjusted_Waiters(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithClock(func() time.Time { return adjustNow }))
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var splitCalls recorder
	mt.RegisterResponder("GET", mockBase+"/stock/split", record(&splitCalls, func(req *http.Request) (*http.Response, error) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(held)
			select {
			case <-release:
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
		}
		return httpmock.NewStringResponse(200, splitListing(splitRecord(date(2025, 6, 3), "AAPL", "2:1"))), nil
	}))
	mt.RegisterResponder("GET", mockBase+"/stock/kline", body(200, `{"code":0,"msg":null,"data":[`+
		candleJSON(date(2025, 6, 2), 10, 10, 10, 10, 5, 50)+`]}`))

	fetcherCtx, cancelFetcher := context.WithCancel(t.Context())
	fetcherDone := make(chan error, 1)
	go func() {
		_, err := c.Stock.Kline(fetcherCtx, itick.RegionUS, "AAPL", itick.OneDay, 1, itick.WithSplitAdjusted())
		fetcherDone <- err
	}()
	<-held
	// A waiter whose own context ends gives up with its error.
	short, cancelShort := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancelShort()
	if _, err := c.Stock.Kline(short, itick.RegionUS, "AAPL", itick.OneDay, 1, itick.WithSplitAdjusted()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiter with a short deadline: %v; want context.DeadlineExceeded", err)
	}
	// A waiter whose fetcher is cancelled fetches on its own.
	waiterDone := make(chan []itick.Kline, 1)
	go func() {
		ks, err := c.Stock.Kline(t.Context(), itick.RegionUS, "AAPL", itick.OneDay, 1, itick.WithSplitAdjusted())
		if err != nil {
			t.Error(err)
		}
		waiterDone <- ks
	}()
	// Whether the waiter is waiting yet or starts after the failure, it
	// ends with the candle: a fetch cut short by its caller is no answer.
	cancelFetcher()
	if err := <-fetcherDone; !errors.Is(err, context.Canceled) {
		t.Errorf("the fetching call: %v; want context.Canceled", err)
	}
	ks := <-waiterDone
	if len(ks) != 1 || ks[0].Close != 5 {
		t.Errorf("the waiter got %v; want the candle adjusted by 2:1", ks)
	}
	close(release)
	if n := splitCalls.len(); n != 2 {
		t.Errorf("%d split requests; want 2: the cancelled one and the waiter's own", n)
	}
}
