package markettest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// TestReadmeBotSurvivesOutage is the README's example of testing a bot.
func TestReadmeBotSurvivesOutage(t *testing.T) {
	clock := markettest.NewManualClock(time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC))
	srv := markettest.NewServer(markettest.WithSeed(42), markettest.WithClock(clock.Now),
		markettest.WithPlan(itick.PlanBase))
	defer srv.Close()
	client, err := srv.Client() // already pointed at srv, with its token
	if err != nil {
		t.Fatal(err)
	}

	srv.FailNext(2, http.StatusServiceUnavailable) // the SDK retries through these
	srv.Inject(markettest.Fault{Kind: markettest.FaultTruncate, Times: 1, Path: "/stock/quotes"})

	quotes, err := client.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700", "9988"})
	if err != nil {
		t.Fatal(err)
	}
	want := srv.Generator().Quote(markettest.Stock, itick.RegionHK, "700", clock.Now())
	if quotes["700"].Last != want.Last {
		t.Errorf("last = %v, want %v", quotes["700"].Last, want.Last)
	}
	if st := srv.Stats(); st.Faults != 3 || st.Requests != 4 {
		t.Errorf("stats = %+v, want 3 faults in 4 requests", st)
	}
}

// TestReadmeBotTradesInNewYorkHours is the README's example of pinning the
// clock.
func TestReadmeBotTradesInNewYorkHours(t *testing.T) {
	at := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC) // 11:30 on a Wednesday in New York
	srv := markettest.NewServer(markettest.WithFixedClock(at))
	defer srv.Close()
	client, err := srv.Client() // itick.WithClock(srv.Now): the SDK's now is the simulator's
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Stream(t.Context(), itick.AssetStock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(t.Context(), []string{"AAPL$US"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	for ev := range s.Events() { // pushed: New York trades at 11:30 on a Wednesday
		if q, ok := ev.(itick.QuoteEvent); ok {
			if !q.Quote.Time.Equal(at) || !client.Now().Equal(at) {
				t.Errorf("a quote of %s on a client at %s, want both at %s", q.Quote.Time, client.Now(), at)
			}
			return
		}
	}
}
