package itick_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Behaviour 21: everything listed under WithClock reads the client's
// clock, so a test that pins it gets the same answers on any day at any
// hour. Each test below would see today's date on the real clock.

// clockNow is the pinned clock of these tests: a Tuesday, 22:30 in Hong
// Kong and 10:30 in New York, long before any day the tests run on.
var clockNow = time.Date(2025, 6, 3, 14, 30, 0, 0, time.UTC)

func pinnedClock() itick.Option { return itick.WithClock(func() time.Time { return clockNow }) }

func TestWithClock(t *testing.T) {
	t.Parallel()
	if _, err := itick.NewClient("token", itick.WithClock(nil)); !errors.Is(err, itick.ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "WithClock") {
		t.Errorf("WithClock(nil): %v, want ErrInvalidArgument naming WithClock", err)
	}
	c, err := itick.NewClient("token", pinnedClock())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Now(); !got.Equal(clockNow) {
		t.Errorf("Now = %s, want the pinned %s", got, clockNow)
	}
	def, err := itick.NewClient("token")
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if got := def.Now(); got.Before(before) || got.After(time.Now()) {
		t.Errorf("Now without WithClock = %s, want time.Now's", got)
	}
}

// clockService is an hourly history of code "A" from two days before
// clockNow to two days after it: candles the service would not have yet,
// which only a client that trusts another clock than its own asks for.
func clockService(ignoreEt bool) *histService {
	return &histService{series: map[string][]int64{"A": histTimes(clockNow.Truncate(time.Hour).Add(48*time.Hour), 97, time.Hour)},
		ignoreEt: ignoreEt}
}

// TestClockEndsRanges: a range whose to is after the client's now ends at
// now, on both range calls; its first page asks for candles before now.
func TestClockEndsRanges(t *testing.T) {
	t.Parallel()
	from, to := clockNow.Add(-24*time.Hour), clockNow.Add(24*time.Hour)
	for name, call := range map[string]func(c *itick.Client) ([]itick.Kline, error){
		"KlineRange": func(c *itick.Client) ([]itick.Kline, error) {
			return c.Crypto.KlineRange(t.Context(), itick.RegionBA, "A", itick.OneHour, from, to)
		},
		"KlinesRange": func(c *itick.Client) ([]itick.Kline, error) {
			m, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, []string{"A"}, itick.OneHour, from, to)
			return m["A"], err
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := clockService(false)
			got, err := call(newServerClient(t, httptest.NewServer(s), testToken, pinnedClock()))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.want("A", from, clockNow), got); diff != "" {
				t.Errorf("candles (-up to the client's now +got):\n%s", diff)
			}
			if r := s.requests(); len(r) == 0 || r[0].et != clockNow.UnixMilli()-1 {
				t.Errorf("requests %+v, want the first to end just before the client's now", r)
			}
		})
	}
}

// TestClockClosesCandles: WithClosedOnly keeps the candles closed by the
// client's now, and asks for no later ones, on single, batch and range
// calls, also from a service that ignores et and sends later candles.
func TestClockClosesCandles(t *testing.T) {
	t.Parallel()
	closed := clockNow.Add(-time.Hour) // the newest hourly candle that has closed is 13:00's
	from := clockNow.Add(-24 * time.Hour)
	for name, call := range map[string]func(c *itick.Client) ([]itick.Kline, error){
		"Kline": func(c *itick.Client) ([]itick.Kline, error) {
			return c.Crypto.Kline(t.Context(), itick.RegionBA, "A", itick.OneHour, 24, itick.WithClosedOnly())
		},
		"Klines": func(c *itick.Client) ([]itick.Kline, error) {
			m, err := c.Forex.Klines(t.Context(), itick.RegionGB, []string{"A"}, itick.OneHour, 24, itick.WithClosedOnly())
			return m["A"], err
		},
		"KlineRange": func(c *itick.Client) ([]itick.Kline, error) {
			return c.Stock.KlineRange(t.Context(), itick.RegionUS, "A", itick.OneHour, from, clockNow.Add(24*time.Hour), itick.WithClosedOnly())
		},
	} {
		for _, ignoreEt := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignoring et %v", name, ignoreEt), func(t *testing.T) {
				t.Parallel()
				s := clockService(ignoreEt)
				got, err := call(newServerClient(t, httptest.NewServer(s), testToken, pinnedClock()))
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range got {
					if k.Time.After(closed) {
						t.Errorf("candle of %s returned: its hour had not ended at %s", k.Time, clockNow)
					}
				}
				if !ignoreEt {
					want := s.want("A", closed.Truncate(time.Hour).Add(-23*time.Hour), clockNow.Truncate(time.Hour))
					if name == "KlineRange" {
						want = s.want("A", from, clockNow.Truncate(time.Hour))
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("candles (-the newest closed by the client's now +got):\n%s", diff)
					}
				}
				for _, r := range s.requests() {
					if r.et == 0 || r.et > closed.UnixMilli() {
						t.Errorf("a request asked for candles up to %s, want none after %s", time.UnixMilli(r.et).UTC(), closed)
					}
				}
			})
		}
	}
}

// TestClockEndsResumedRanges: WithResume completes a range that ends at
// the client's now: candles held from after it are not part of the range,
// and the top-up asks for nothing after it.
func TestClockEndsResumedRanges(t *testing.T) {
	t.Parallel()
	s := clockService(false)
	c := newServerClient(t, httptest.NewServer(s), testToken, pinnedClock())
	from, to := clockNow.Add(-24*time.Hour), clockNow.Add(24*time.Hour)
	have := map[string][]itick.Kline{"A": s.want("A", from, to)} // as fetched on a clock a day ahead
	got, err := c.Stock.KlinesRange(t.Context(), itick.RegionUS, []string{"A"}, itick.OneHour, from, to, itick.WithResume(have))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.want("A", from, clockNow), got["A"]); diff != "" {
		t.Errorf("candles (-up to the client's now +got):\n%s", diff)
	}
	// One request tops up the newest candle held, which may have been
	// forming when it was stored; none asks past the client's now.
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests for a range WithResume already holds, want 1 to top up its newest candle", n)
	}
	for _, r := range s.requests() {
		if r.et == 0 || r.et >= clockNow.UnixMilli() {
			t.Errorf("a request asked for candles up to %s, want none from the client's now on", time.UnixMilli(r.et).UTC())
		}
	}
}

// TestClockDatesTimelessQuotes: WithPrevClose dates a quote that carries
// no time, pushed or from REST, by the client's clock: a push of the
// snapshot's day on that clock asks for no renewal, one of a later day
// does.
func TestClockDatesTimelessQuotes(t *testing.T) {
	t.Parallel()
	day := clockNow.Add(-4 * time.Hour) // 18:30 in Hong Kong
	nextDay := day.Add(24 * time.Hour)  // the next day there
	for _, tt := range []struct {
		name        string
		rest, push  time.Time // the quotes' times; zero: none
		pushClock   bool      // the pushes are dated by the clock
		clock, then time.Time // the client's clock, and where it moves once the snapshot is in
		wantRenewal bool
	}{
		{"a timeless push on the snapshot's day", day, time.Time{}, false, day, time.Time{}, false},
		{"a timeless push on the next day", day, time.Time{}, false, nextDay, time.Time{}, true},
		{"a push on the day after a timeless snapshot", time.Time{}, time.Time{}, true, day, nextDay, true},
		{"a push on the day after a timeless snapshot, the clock behind", time.Time{}, nextDay, false, day, time.Time{}, true},
		{"a push on the day of a timeless snapshot", time.Time{}, day, false, day, time.Time{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := markettest.NewManualClock(tt.clock)
			pushAt := func() time.Time {
				if tt.pushClock {
					return clk.Now()
				}
				return tt.push
			}
			c := prevCloseService(t, tt.rest, pushAt, itick.WithClock(clk.Now))
			s := streamOf(t, c, itick.WithPrevClose())
			if err := s.Subscribe(context.Background(), []string{"700$HK"}, itick.ChannelQuote); err != nil {
				t.Fatal(err)
			}
			if !tt.then.IsZero() {
				quoteWith(t, s, "700$HK", 600) // the snapshot is in
				clk.Set(tt.then)
			}
			if tt.wantRenewal {
				eventually(t, "a renewal of the previous close", func() bool { return c.Stats().Requests >= 2 })
				return
			}
			quoteWith(t, s, "700$HK", 600)
			for range 20 {
				if q, _ := nextOf[itick.QuoteEvent](t, s); q.Quote.PrevClose != 600 {
					t.Fatalf("quote %+v, want the snapshot's previous close 600", q.Quote)
				}
			}
			if n := c.Stats().Requests; n != 1 {
				t.Errorf("%d requests, want the snapshot alone", n)
			}
		})
	}
}

// prevCloseService serves REST quotes of 700 (HK) with a previous close of
// 600, at rest, and a stream that pushes its quotes, at push(), every few
// milliseconds; a zero time leaves the quotes' t out.
func prevCloseService(t *testing.T, rest time.Time, push func() time.Time, opts ...itick.Option) *itick.Client {
	t.Helper()
	stamp := func(at time.Time) string {
		if at.IsZero() {
			return ""
		}
		return fmt.Sprintf(`,"t":%d`, at.UnixMilli())
	}
	ws := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		wsSend(ctx, c, wsAuthOK)
		go wsAnswer(ctx, c, nil)
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Millisecond):
			}
			if wsSend(ctx, c, fmt.Sprintf(`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":%d%s}}`, 610+i%5, stamp(push()))) != nil {
				return
			}
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/stock", ws)
	mux.HandleFunc("/stock/quotes", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"code":0,"msg":null,"data":{"700":{"s":"700","ld":612,"o":601,"p":600,"h":615,"l":599%s}}}`, stamp(rest))
	})
	c := newServerClient(t, httptest.NewServer(mux), "prevclose-token-4d2a", opts...)
	t.Cleanup(ws.Close) // before the server closes: ends the pushes
	return c
}
