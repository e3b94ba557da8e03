package itick_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// Tests of WithSplitAdjusted: candles adjusted for the region's splits.

// splitListing is a one-page /stock/split answer holding records, each
// {"d":ms,"r":region,"n":name,"c":code,"v":ratio}.
func splitListing(records ...string) string {
	return `{"code":0,"msg":"ok","data":{"content":[` + strings.Join(records, ",") +
		`],"page":0,"size":20,"totalElements":` + fmt.Sprint(len(records)) + `,"totalPages":1,"last":true}}`
}

func splitRecord(exDate time.Time, code, ratio string) string {
	return fmt.Sprintf(`{"d":%d,"r":"US","n":"%s Inc","c":"%s","v":"%s"}`, exDate.UnixMilli(), code, code, ratio)
}

// candleJSON is one candle of the wire form.
func candleJSON(t time.Time, o, h, l, c, v, tu float64) string {
	return fmt.Sprintf(`{"t":%d,"o":%v,"h":%v,"l":%v,"c":%v,"v":%v,"tu":%v}`, t.UnixMilli(), o, h, l, c, v, tu)
}

// adjustNow is the clock of the mock tests: after every split they serve
// but the one listed ahead of its ex-date.
var adjustNow = time.Date(2025, 6, 20, 15, 0, 0, 0, time.UTC)

// TestSplitAdjusted_Rules: prices divided and volume multiplied by the
// ratios of the splits after each candle's time; a reverse split
// multiplies prices; a candle starting on the ex-date is after the split;
// a split listed ahead of its ex-date (after the client's now) applies to
// every candle before it; turnover stays; the code matches its splits in
// any case.
func TestSplitAdjusted_Rules(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithClock(func() time.Time { return adjustNow }))
	d1, d2, d3, d4 := date(2025, 6, 2), date(2025, 6, 3), date(2025, 6, 4), date(2025, 6, 5)
	mt.RegisterResponder("GET", mockBase+"/stock/split", body(200, splitListing(
		splitRecord(date(2025, 6, 3), "aapl", "4:1"),  // before d2 only
		splitRecord(date(2025, 6, 5), "AAPL", "1:10"), // before d4: d1 to d3
		splitRecord(date(2025, 7, 1), "AAPL", "2:1"),  // listed ahead: before every candle
		splitRecord(date(2025, 6, 4), "MSFT", "3:1"),  // another code
	)))
	candles := "[" + strings.Join([]string{
		candleJSON(d1, 400, 420, 396, 408, 1000, 408000),
		candleJSON(d2, 102, 104, 100, 103, 4100, 422300),
		candleJSON(d3, 103, 105, 101, 104, 3900, 405600),
		candleJSON(d4, 1040, 1050, 1030, 1045, 390, 407550),
	}, ",") + "]"
	mt.RegisterResponder("GET", mockBase+"/stock/kline", body(200, `{"code":0,"msg":null,"data":`+candles+`}`))
	got, err := c.Stock.Kline(t.Context(), itick.RegionUS, "AAPL", itick.OneDay, 4, itick.WithSplitAdjusted())
	if err != nil {
		t.Fatal(err)
	}
	four, tenth, two := 4.0, 0.1, 2.0 // the ratios, multiplied at run time as the SDK does
	f1, f2, f4 := four*tenth*two, tenth*two, two
	want := []itick.Kline{
		// Before the 4:1, the 1:10 and the 2:1.
		{Time: d1, Open: 400 / f1, High: 420 / f1, Low: 396 / f1, Close: 408 / f1, Volume: 1000 * f1, Turnover: 408000},
		// Before the 1:10 and the 2:1; the 4:1 is on its day.
		{Time: d2, Open: 102 / f2, High: 104 / f2, Low: 100 / f2, Close: 103 / f2, Volume: 4100 * f2, Turnover: 422300},
		{Time: d3, Open: 103 / f2, High: 105 / f2, Low: 101 / f2, Close: 104 / f2, Volume: 3900 * f2, Turnover: 405600},
		// After both, before the 2:1.
		{Time: d4, Open: 1040 / f4, High: 1050 / f4, Low: 1030 / f4, Close: 1045 / f4, Volume: 390 * f4, Turnover: 407550},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("adjusted candles (-want +got):\n%s", diff)
	}
	raw, err := c.Stock.Kline(t.Context(), itick.RegionUS, "AAPL", itick.OneDay, 4)
	if err != nil || raw[0].Open != 400 {
		t.Errorf("without the option: %v, %v; want the candles as sent", raw, err)
	}
}

// TestSplitAdjusted_BadRatio: a split record whose ratio cannot be read is
// an error naming it for its code, never skipped; other codes are adjusted
// as usual.
func TestSplitAdjusted_BadRatio(t *testing.T) {
	t.Parallel()
	for _, ratio := range []string{"4-1", "4:", ":1", "0:1", "1:0", "-2:1", "a:b", "", "NaN:1", "Inf:1", "1e400:1"} {
		t.Run(ratio, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken, itick.WithClock(func() time.Time { return adjustNow }))
			mt.RegisterResponder("GET", mockBase+"/stock/split", body(200, splitListing(
				splitRecord(date(2025, 6, 3), "AAPL", ratio), splitRecord(date(2025, 6, 4), "MSFT", "2:1"))))
			d1 := date(2025, 6, 2)
			mt.RegisterResponder("GET", mockBase+"/stock/kline", body(200, `{"code":0,"msg":null,"data":[`+candleJSON(d1, 10, 10, 10, 10, 5, 50)+`]}`))
			mt.RegisterResponder("GET", mockBase+"/stock/klines", body(200, `{"code":0,"msg":null,"data":{"AAPL":[`+
				candleJSON(d1, 10, 10, 10, 10, 5, 50)+`],"MSFT":[`+candleJSON(d1, 10, 10, 10, 10, 5, 50)+`]}}`))

			_, err := c.Stock.Kline(t.Context(), itick.RegionUS, "AAPL", itick.OneDay, 1, itick.WithSplitAdjusted())
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) || !strings.Contains(err.Error(), fmt.Sprintf("ratio %q", ratio)) ||
				!strings.Contains(err.Error(), "AAPL") || !strings.Contains(err.Error(), "2025-06-03") {
				t.Errorf("Kline: %v; want an *APIError naming AAPL's split of 2025-06-03 and its ratio", err)
			}

			got, err := c.Stock.Klines(t.Context(), itick.RegionUS, []string{"AAPL", "MSFT"}, itick.OneDay, 1, itick.WithSplitAdjusted())
			var be *itick.BatchError
			if !errors.As(err, &be) || !cmp.Equal(be.FailedCodes(), []string{"AAPL"}) {
				t.Fatalf("Klines: %v; want a *BatchError naming AAPL", err)
			}
			if _, ok := got["AAPL"]; ok || len(got["MSFT"]) != 1 || got["MSFT"][0].Close != 5 {
				t.Errorf("Klines: %v; want MSFT alone, adjusted (close 5)", got)
			}
		})
	}
}

// TestSplitAdjusted_OtherClasses: on every class but stocks the option is
// ErrInvalidArgument, and nothing is sent.
func TestSplitAdjusted_OtherClasses(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	var sent recorder
	mt.RegisterNoResponder(record(&sent, body(500, "")))
	ctx := t.Context()
	from, to := date(2025, 1, 1), date(2025, 2, 1)
	adj := itick.WithSplitAdjusted()
	calls := map[string]func() error{
		"Crypto.Klines": func() error {
			_, err := c.Crypto.Klines(ctx, itick.RegionBA, []string{"BTCUSDT"}, itick.OneDay, 5, adj)
			return err
		},
		"Crypto.Kline": func() error {
			_, err := c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneDay, 5, adj)
			return err
		},
		"Forex.KlinesRange": func() error {
			_, err := c.Forex.KlinesRange(ctx, itick.RegionGB, []string{"EURUSD"}, itick.OneDay, from, to, adj)
			return err
		},
		"Indices.KlineRange": func() error {
			_, err := c.Indices.KlineRange(ctx, itick.RegionGB, "SPX", itick.OneDay, from, to, adj)
			return err
		},
		"Future.Klines": func() error {
			_, err := c.Future.Klines(ctx, itick.RegionUS, []string{"GC"}, itick.OneDay, 5, adj)
			return err
		},
		"Fund.KlinesRange": func() error {
			_, err := c.Fund.KlinesRange(ctx, itick.RegionUS, []string{"QQQ"}, itick.OneDay, from, to, adj)
			return err
		},
		// Bad arguments of a stock call are refused before the splits are asked for.
		"Stock.Klines no codes": func() error {
			_, err := c.Stock.Klines(ctx, itick.RegionUS, nil, itick.OneDay, 5, adj)
			return err
		},
		"Stock.Kline bad code": func() error {
			_, err := c.Stock.Kline(ctx, itick.RegionUS, "A,B", itick.OneDay, 5, adj)
			return err
		},
		"Stock.KlinesRange empty region": func() error {
			_, err := c.Stock.KlinesRange(ctx, "", []string{"AAPL"}, itick.OneDay, from, to, adj)
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, itick.ErrInvalidArgument) {
			t.Errorf("%s: %v; want ErrInvalidArgument", name, err)
		}
	}
	if n := sent.len(); n != 0 {
		t.Errorf("%d requests sent: %v", n, sent.all())
	}
}

// TestSplitAdjusted_Simulator: against markettest, whose raw candles jump
// at each listed split, the adjusted candles are the raw ones divided by
// the ratio before the ex-date and the same after it, and they run on
// across the ex-date without the jump. Single, batch and range calls agree.
func TestSplitAdjusted_Simulator(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)
	c, srv := newSimClient(t, []markettest.Option{markettest.WithFixedClock(now)})
	ctx := t.Context()
	var records []itick.SplitRecord
	for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if len(records) < 10 {
		t.Fatalf("%d split records", len(records))
	}
	checked := 0
	for _, r := range records {
		if !r.ExDate.Before(now.AddDate(0, 0, -20)) {
			continue // a few days of candles after it, as of now
		}
		var a, b float64
		if _, err := fmt.Sscanf(r.Ratio, "%g:%g", &a, &b); err != nil {
			t.Fatal(err)
		}
		ratio := a / b
		from, to := r.ExDate.AddDate(0, 0, -14), r.ExDate.AddDate(0, 0, 14)
		raw, err := c.Stock.KlineRange(ctx, itick.RegionUS, r.Code, itick.OneDay, from, to)
		if err != nil {
			t.Fatal(err)
		}
		adj, err := c.Stock.KlineRange(ctx, itick.RegionUS, r.Code, itick.OneDay, from, to, itick.WithSplitAdjusted())
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != len(adj) || len(raw) < 10 {
			t.Fatalf("%s: %d raw, %d adjusted candles", r.Code, len(raw), len(adj))
		}
		var lastBefore, firstOn int = -1, -1
		for i := range raw {
			f := 1.0
			if raw[i].Time.Before(r.ExDate) {
				f, lastBefore = ratio, i
			} else if firstOn < 0 {
				firstOn = i
			}
			// Later splits of the same code would adjust it more; the
			// timeline rarely has two within weeks, so none is assumed.
			want := itick.Kline{Time: raw[i].Time, Open: raw[i].Open / f, High: raw[i].High / f, Low: raw[i].Low / f,
				Close: raw[i].Close / f, Volume: raw[i].Volume * f, Turnover: raw[i].Turnover}
			if diff := cmp.Diff(want, adj[i]); diff != "" {
				t.Errorf("%s %s, candle of %s (-want +got):\n%s", r.Code, r.Ratio, raw[i].Time.Format(time.DateOnly), diff)
			}
		}
		if lastBefore < 0 || firstOn < 0 {
			t.Fatalf("%s: candles do not straddle %s", r.Code, r.ExDate)
		}
		rawJump := math.Abs(math.Log(raw[lastBefore].Close / raw[firstOn].Open))
		adjJump := math.Abs(math.Log(adj[lastBefore].Close / adj[firstOn].Open))
		if adjJump > 0.08 || rawJump < math.Abs(math.Log(ratio))-0.08 {
			t.Errorf("%s %s: raw jump %.3f, adjusted %.3f across the ex-date; want the ratio's %.3f and about none",
				r.Code, r.Ratio, rawJump, adjJump, math.Abs(math.Log(ratio)))
		}
		single, err := c.Stock.Kline(ctx, itick.RegionUS, r.Code, itick.OneDay, len(adj), itick.WithEnd(to.Add(-time.Millisecond)), itick.WithSplitAdjusted())
		if err != nil {
			t.Fatal(err)
		}
		batch, err := c.Stock.KlinesRange(ctx, itick.RegionUS, []string{r.Code, "AAPL"}, itick.OneDay, from, to, itick.WithSplitAdjusted())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(adj, single[len(single)-len(adj):]); diff != "" {
			t.Errorf("%s: Kline and KlineRange adjusted differ (-range +single):\n%s", r.Code, diff)
		}
		if diff := cmp.Diff(adj, batch[r.Code]); diff != "" {
			t.Errorf("%s: KlinesRange and KlineRange adjusted differ (-single +batch):\n%s", r.Code, diff)
		}
		if checked++; checked == 3 {
			break
		}
	}
	if checked == 0 {
		t.Fatal("no split to check")
	}
	// The splits were fetched once, whatever the number of calls.
	if n, pages := splitRequests(srv), (len(records)+markettest.SplitPageSize-1)/markettest.SplitPageSize; n != 2*pages {
		t.Errorf("%d split requests; want %d: the test's own listing, then one for the calls", n, 2*pages)
	}
}

// TestSplitAdjusted_Resume: a range resumed with WithSplitAdjusted keeps
// the candles given back as they are and adjusts only the new ones.
func TestSplitAdjusted_Resume(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)
	c, _ := newSimClient(t, []markettest.Option{markettest.WithFixedClock(now)})
	ctx := t.Context()
	var split itick.SplitRecord
	for r, err := range c.Stock.Splits(ctx, itick.RegionUS) {
		if err != nil {
			t.Fatal(err)
		}
		if r.ExDate.Before(now.AddDate(0, 0, -30)) {
			split = r
			break
		}
	}
	from, to := split.ExDate.AddDate(0, 0, -20), split.ExDate.AddDate(0, 0, 20)
	whole, err := c.Stock.KlineRange(ctx, itick.RegionUS, split.Code, itick.OneDay, from, to, itick.WithSplitAdjusted())
	if err != nil {
		t.Fatal(err)
	}
	half := len(whole) / 2
	have := map[string][]itick.Kline{split.Code: append([]itick.Kline(nil), whole[half:]...)}
	resumed, err := c.Stock.KlinesRange(ctx, itick.RegionUS, []string{split.Code}, itick.OneDay, from, to,
		itick.WithSplitAdjusted(), itick.WithResume(have))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, resumed[split.Code]); diff != "" {
		t.Errorf("resumed range differs from the whole one (-whole +resumed):\n%s", diff)
	}
}
