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
