package itick_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Tests of WithPrevClose's tries: a 429 waited out, failures reported once,
// and renewals per product and trading day.

// A 429 is waited out by the schedule: an ErrorEvent says the snapshot
// failed, and the next try comes no sooner than its Retry-After.
func TestStream_PrevCloseWaitsOutRetryAfter(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 100, prevDay(0))
	ps.fail = func(n int) (int, string) {
		if n == 1 {
			return http.StatusTooManyRequests, "2"
		}
		return 0, ""
	}
	s := ps.stream(t, ps.client(t))
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	e, _ := nextOf[itick.ErrorEvent](t, s)
	if e.Conn != -1 || !errors.Is(e.Err, itick.ErrRateLimited) || !strings.Contains(e.Err.Error(), "700$HK") {
		t.Errorf("ErrorEvent %+v, want the spent quota, for 700$HK, on no connection", e)
	}
	quoteWith(t, s, "700$HK", 100)
	ps.mu.Lock()
	at := slices.Clone(ps.at)
	ps.mu.Unlock()
	if len(at) != 2 || at[1].Sub(at[0]) < 2*time.Second-10*time.Millisecond {
		t.Errorf("REST asked at %v, want twice, 2 s apart at least", at)
	}
}

// A product the REST answer leaves out, and one whose REST quote has no
// previous close, are reported once each, however often the first is
// asked again; their quotes carry no previous close and no change.
func TestStream_PrevCloseReportsWhatItCannotFill(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 0, prevDay(0))
	s := ps.stream(t, ps.client(t))
	if err := s.Subscribe(context.Background(), []string{"700$HK", "9988$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	var errs []itick.ErrorEvent
	quotes := 0
	ctx := within(t)
	for len(ps.requested()) < 6 || quotes < 10 {
		select {
		case ev := <-s.Events():
			switch ev := ev.(type) {
			case itick.ErrorEvent:
				errs = append(errs, ev)
			case itick.QuoteEvent:
				if q := ev.Quote; q.PrevClose != 0 || q.Change != 0 || q.ChangePercent != 0 {
					t.Fatalf("quote %+v, want no previous close and no change", q)
				}
				if len(ps.requested()) >= 6 {
					quotes++
				}
			}
		case <-ctx.Done():
			t.Fatalf("%d requests, %d errors", len(ps.requested()), len(errs))
		}
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Err.Error())
		if e.Conn != -1 {
			t.Errorf("ErrorEvent on connection %d, want -1", e.Conn)
		}
	}
	slices.Sort(got)
	want := []string{
		"itick: stream: previous close of 700$HK: its REST quote carries no previous close",
		"itick: stream: previous close of 9988$HK: no REST quote came for it: itick: not found",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ErrorEvents (-want +got):\n%s", diff)
	}
	for i, codes := range ps.requested()[1:] {
		if !slices.Equal(codes, []string{"9988"}) {
			t.Errorf("request %d asked for %v, want only the product left out", i+2, codes)
		}
	}
}

// A failure repeated at every try is reported once; after a success, a new
// failure is reported again.
func TestStream_PrevCloseReportsARepeatedFailureOnce(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	ps.quote("700", 100, prevDay(0))
	var failing atomic.Bool
	failing.Store(true)
	ps.fail = func(int) (int, string) {
		if failing.Load() {
			return http.StatusServiceUnavailable, ""
		}
		return 0, ""
	}
	s := ps.stream(t, ps.client(t))
	if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	eventually(t, "five tries", func() bool { return len(ps.requested()) >= 5 })
	failing.Store(false)
	n := 0
	for {
		ev := next(t, s, nil)
		if q, ok := ev.(itick.QuoteEvent); ok && q.Quote.PrevClose == 100 {
			break
		}
		if e, ok := ev.(itick.ErrorEvent); ok {
			n++
			var apiErr *itick.APIError
			if !errors.As(e.Err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("ErrorEvent %v, want the 503", e.Err)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d ErrorEvents for %d failed tries, want 1", n, len(ps.requested())-1)
	}
}

// Renewals are per product and per trading day: a push of a later day
// renews its product's snapshot, with those of its market whose snapshot
// is older, in one request; a push dated far past the client's clock
// counts for the clock's day, so a garbage time stops nothing; a REST quote still
// of the day before is asked again, with a growing wait, not once per
// push; a product that does not push (halted) rides along once and is not
// asked again; quotes of a day whose close is not known carry none, and a
// push without a last price carries no change.
func TestPrevCloseRenewals(t *testing.T) {
	t.Parallel()
	ps := newPrevService()
	c := ps.client(t)
	ps.quote("700", 100, prevDay(0))
	ps.quote("9988", 80, prevDay(0))
	var reports atomic.Int32
	p := itick.NewPrevCloses(c, func(err error) {
		reports.Add(1)
		t.Errorf("snapshot failed: %v", err)
	}, 20*time.Millisecond, 100*time.Millisecond)
	defer p.Close()
	p.Add("700$HK", "9988$HK")
	push := func(symbol string, at time.Time, last float64) itick.Quote {
		q := itick.Quote{Last: last, Time: at}
		p.Fill(symbol, &q)
		return q
	}
	prevOf := func(symbol string, at time.Time) float64 { return push(symbol, at, 120).PrevClose }
	settle := func(what, symbol string, at time.Time, want float64) {
		t.Helper()
		eventually(t, what, func() bool { return prevOf(symbol, at) == want })
	}
	settle("the first snapshot", "700$HK", prevDay(0), 100)
	if q := push("700$HK", prevDay(0), 120); q.Change != 20 || math.Abs(q.ChangePercent-20) > 1e-9 {
		t.Errorf("quote %+v, want a change of 20 (20%%)", q)
	}
	if q := push("700$HK", prevDay(0), 0); q.PrevClose != 100 || q.Change != 0 || q.ChangePercent != 0 {
		t.Errorf("a push without a last price: %+v, want the previous close and no change", q)
	}

	// A garbage time: no previous close for it, and no renewal, as the
	// clock's day is the snapshot's.
	if got := prevOf("700$HK", time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("a push of 2999 got the previous close %v, want none", got)
	}
	prevOf("9988$HK", prevDay(3)) // further past the clock than a day and a half
	if p.Needs("700$HK") || p.Needs("9988$HK") {
		t.Error("a push of 2999, or of three days past the clock, asked for a renewal")
	}

	// The next day: 9988's push renews it, and 700 rides along.
	ps.quote("700", 101, prevDay(1))
	ps.quote("9988", 81, prevDay(1))
	ps.clk.Set(prevDay(1))
	if got := prevOf("9988$HK", prevDay(1)); got != 0 {
		t.Errorf("a push of the new day got %v before its renewal, want none", got)
	}
	settle("the second day", "9988$HK", prevDay(1), 81)
	if got, n := prevOf("700$HK", prevDay(1)), len(ps.requested()); got != 101 || n != 2 {
		t.Errorf("700 of the second day: %v after %d requests, want 101 from the same renewal", got, n)
	}

	// The third day: 9988 is halted (no push, REST stays), and REST lags
	// behind 700's pushes for a while.
	ps.clk.Set(prevDay(2))
	for range 50 {
		if got := prevOf("700$HK", prevDay(2)); got != 0 {
			t.Fatalf("a push of the third day got %v while REST lags, want none", got)
		}
	}
	if n := len(ps.requested()); n > 4 {
		t.Errorf("%d requests after 50 pushes while REST lags, want a few, not one per push", n)
	}
	eventually(t, "REST asked again", func() bool { return len(ps.requested()) >= 4 })
	ps.quote("700", 102, prevDay(2))
	settle("the third day", "700$HK", prevDay(2), 102)
	if got := prevOf("700$HK", prevDay(1)); got != 101 {
		t.Errorf("a late push of the second day got %v, want its own previous close 101", got)
	}
	if p.Needs("9988$HK") {
		t.Error("the halted product is still asked for after riding along once")
	}
	n := len(ps.requested())
	for _, r := range ps.requested()[2:] {
		if !slices.Contains(r, "700") {
			t.Errorf("request %v does not ask for 700, whose pushes are of the third day", r)
		}
	}
	// Once it pushes on the third day, it is renewed until REST catches up.
	ps.quote("9988", 82, prevDay(2))
	settle("9988's third day", "9988$HK", prevDay(2), 82)
	if got := len(ps.requested()); got != n+1 {
		t.Errorf("%d requests for 9988's renewal, want 1", got-n)
	}
	if reports.Load() != 0 {
		t.Errorf("%d snapshots failed", reports.Load())
	}
}
