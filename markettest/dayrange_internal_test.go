package markettest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// dayNoise is a day's noise as a candle reads it: at its open and close,
// and its highest and lowest.
type dayNoise struct{ Open, Close, High, Low float64 }

// plainDayNoise is dayNoise the plain way: the walk's noise at the open
// and the close of every hour of the windows ws that trades, each worked
// out.
func plainDayNoise(p product, ws []tradingSpan) dayNoise {
	w := walker{p: p}
	out := dayNoise{High: math.Inf(-1), Low: math.Inf(1)}
	var buf [4]tradingSpan
	for t := floorDiv(ws[0].from, hourMs) * hourMs; t < ws[len(ws)-1].to; t += hourMs {
		sub := clip(buf[:0], ws, t, t+hourMs)
		if len(sub) == 0 {
			continue
		}
		o, c := w.noise(sub[0].from), w.noise(sub[len(sub)-1].to-1)
		if t <= ws[0].from {
			out.Open = o
		}
		out.Close = c
		out.High, out.Low = max(out.High, o, c), min(out.Low, o, c)
	}
	return out
}

// dayTimes are the hours' opens and closes of the windows ws, hour by
// hour.
func dayTimes(ws []tradingSpan) []int64 {
	var ts []int64
	var buf [4]tradingSpan
	for t := floorDiv(ws[0].from, hourMs) * hourMs; t < ws[len(ws)-1].to; t += hourMs {
		if sub := clip(buf[:0], ws, t, t+hourMs); len(sub) > 0 {
			ts = append(ts, sub[0].from, sub[len(sub)-1].to-1)
		}
	}
	return ts
}

// randomWindows returns one or two trading windows of the UTC day starting
// at day, with edges often on an hour, a ms either side of one, or on the
// day's own edges.
func randomWindows(rng *rand.Rand, day int64) []tradingSpan {
	edge := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Int64N(dayMs + 1)
		case 1:
			return rng.Int64N(25) * hourMs
		default:
			return rng.Int64N(24)*hourMs + rng.Int64N(3) - 1
		}
	}
	var cuts []int64
	for range 2 + 2*rng.IntN(2) {
		cuts = append(cuts, min(max(edge(), 0), dayMs))
	}
	for i := range cuts {
		for j := i + 1; j < len(cuts); j++ {
			if cuts[j] < cuts[i] {
				cuts[i], cuts[j] = cuts[j], cuts[i]
			}
		}
	}
	var ws []tradingSpan
	for i := 0; i+1 < len(cuts); i += 2 {
		if cuts[i] < cuts[i+1] {
			ws = append(ws, tradingSpan{day + cuts[i], day + cuts[i+1]})
		}
	}
	if len(ws) == 0 {
		ws = append(ws, tradingSpan{day + cuts[0], day + cuts[0] + 1})
	}
	return ws
}

// TestDayRangeIsItsPricesRange checks that a day's range worked out from
// bounds is, to the last bit, the noise at the open and the close and the
// highest and lowest noise of every hour's open and close, each worked out:
// for each asset class's calendar and for random windows (one ms long,
// ending at midnight, two in one hour), with a view's days asked for in
// time order, backwards (as a history is built) and at random, so that
// what one day keeps for the next is used and skipped.
func TestDayRangeIsItsPricesRange(t *testing.T) {
	t.Parallel()
	g := NewGenerator(5)
	start := time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC).UnixMilli()
	type product struct {
		class  Class
		region itick.Region
		code   string
	}
	products := []product{
		{Crypto, itick.RegionBA, "BTCUSDT"},
		{Crypto, itick.RegionBA, "PEPEUSDT"},
		{Forex, itick.RegionGB, "EURUSD"},
		{Stock, itick.RegionUS, "AAPL"},
		{Stock, itick.RegionHK, "700"},
		{Stock, "CN", "600519"},
		{Indices, itick.RegionGB, "N225"},
	}
	orders := []struct {
		name  string
		order func(rng *rand.Rand, n int) []int
	}{
		{"forward", func(_ *rand.Rand, n int) []int {
			out := make([]int, n)
			for i := range out {
				out[i] = i
			}
			return out
		}},
		{"backward", func(_ *rand.Rand, n int) []int {
			out := make([]int, n)
			for i := range out {
				out[i] = n - 1 - i
			}
			return out
		}},
		{"random", func(rng *rand.Rand, n int) []int { return rng.Perm(n) }},
	}
	for _, pr := range products {
		for _, o := range orders {
			t.Run(string(pr.class)+"/"+string(pr.region)+"/"+pr.code+"/"+o.name, func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(len(pr.code)), uint64(len(o.name))))
				p := g.product(pr.class, pr.region, pr.code)
				cal := calendarOf(pr.class, pr.region, pr.code)
				v := &view{w: walker{p: p}, cal: cal}
				days := 200
				for _, i := range o.order(rng, days) {
					day := start + int64(i)*dayMs
					for _, ws := range [][]tradingSpan{cal.windows(day, day+dayMs), randomWindows(rng, day)} {
						if len(ws) == 0 {
							continue
						}
						want := plainDayNoise(p, ws)
						if v.days == nil {
							v.days = newDayRange(p.key)
						}
						var got dayNoise
						var buf [maxDayPrices]int64
						got.Open, got.Close, got.High, got.Low = v.days.extremes(hourEdges(&buf, ws))
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("day %v, windows %v (-every price +bounded):\n%s",
								time.UnixMilli(day).UTC().Format(time.DateOnly), ws, diff)
						}
					}
				}
			})
		}
	}
}

// TestHourEdgesAreEachHoursOpenAndClose checks that the instants a day's
// range looks at are each trading hour's first and last, as clipping the
// windows to the hour gives them, for random windows.
func TestHourEdgesAreEachHoursOpenAndClose(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	day := time.Date(2025, 5, 5, 0, 0, 0, 0, time.UTC).UnixMilli()
	for range 4000 {
		ws := randomWindows(rng, day)
		var buf [maxDayPrices]int64
		if diff := cmp.Diff(dayTimes(ws), hourEdges(&buf, ws)); diff != "" {
			t.Fatalf("windows %v (-clipped +hourEdges):\n%s", ws, diff)
		}
	}
}

// TestDayRangeBoundsHoldTheNoise checks what the range's answer rests on:
// every bound a group of prices has, from the first down to the last
// octave, holds the noise noise gives at each of the group's instants.
func TestDayRangeBoundsHoldTheNoise(t *testing.T) {
	t.Parallel()
	g := NewGenerator(11)
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, class := range []Class{Crypto, Forex, Stock} {
		p := g.product(class, itick.RegionUS, "BOUND")
		w := walker{p: p}
		d := newDayRange(p.key)
		for range 300 {
			day := start + rng.Int64N(3*365)*dayMs
			ts := dayTimes(randomWindows(rng, day))
			d.extremes(ts)
			n := 0
			for i := 0; i < len(ts); i++ {
				if i+1 < len(ts) && ts[i+1]-ts[i] <= 1 {
					i++
				}
				n++
			}
			for i := range n {
				x, y := w.noise(d.t[i]), w.noise(d.t2[i])
				for {
					if lo, hi := min(x, y), max(x, y); lo < d.lb[i] || hi > d.ub[i] {
						t.Fatalf("%s, instants %d and %d at level %d: noise %v and %v outside [%v, %v]",
							class, d.t[i], d.t2[i], d.level[i], x, y, d.lb[i], d.ub[i])
					}
					if d.level[i] == settled {
						if d.ub[i] != max(x, y) || d.lb[i] != min(x, y) {
							t.Fatalf("%s, instants %d and %d settled at [%v, %v], noise %v and %v",
								class, d.t[i], d.t2[i], d.lb[i], d.ub[i], x, y)
						}
						break
					}
					d.refine(i)
				}
			}
		}
	}
}

// TestSmoothSumIsItsOctaves checks that the smooth sum's cubic is the sum
// of its octaves, each worked out as noise does, to within a hundredth of
// the slack bounds allow for rounding: at instants that step forward and
// back by up to a day, jump far, and cross zero; and at instants that go
// back and forth within one day, as the hours of a day whose candle fell
// out of the cache ask for it again and again, so that the cubic is
// corrected far more often than maxSmoothMoves.
func TestSmoothSumIsItsOctaves(t *testing.T) {
	t.Parallel()
	g := NewGenerator(7)
	p := g.product(Crypto, itick.RegionBA, "ETHUSDT")
	s := smoothSum{key: p.key}
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	check := func(step int, ms int64) {
		t.Helper()
		var want float64
		q := floorDiv(ms, finestOctMs)
		for k := smoothOctave; k < octaves; k++ {
			j := q >> k
			k0, k1 := knot(p.key, k, j), knot(p.key, k, j+1)
			f := float64(ms-j*(int64(finestOctMs)<<k)) * octaveInvSpan[k]
			f = f * f * (3 - 2*f)
			want += octaveAmp[k] * (k0 + (k1-k0)*f)
		}
		got := s.at(ms)
		worst = max(worst, math.Abs(got-want))
		if math.Abs(got-want) > boundSlack/100 {
			t.Fatalf("step %d, %d ms: cubic %v, octaves %v", step, ms, got, want)
		}
	}
	ms := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for n := range 50000 {
		switch r := rng.IntN(20); {
		case r < 12:
			ms += rng.Int64N(dayMs)
		case r < 18:
			ms -= rng.Int64N(dayMs)
		case r < 19:
			ms = rng.Int64N(1<<42) - 1<<41
		default:
			ms = -ms
		}
		check(n, ms)
	}
	day := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	moves := 0
	for n := range 50000 {
		before := s.moves
		check(n, day+rng.Int64N(dayMs))
		if s.moves != before {
			moves++
		}
	}
	if moves < 10*maxSmoothMoves {
		t.Fatalf("the cubic moved %d times in a day's back and forth, want many more than %d", moves, maxSmoothMoves)
	}
	t.Logf("largest difference %.3g", worst)
}

// exactDailyCandles is the reference for the daily candles of a product
// from the UTC midnight from up to to, every day finished: each range
// worked out from the noise at every hour's open and close, one instant at
// a time, as the candles were built before dayRange bounded them.
func exactDailyCandles(g *Generator, class Class, region itick.Region, code string, from, to int64) []itick.Kline {
	p := g.product(class, region, code)
	cal := calendarOf(class, region, code)
	w := walker{p: p}
	var out []itick.Kline
	for day := from; day < to; day += dayMs {
		ws := cal.windows(day, day+dayMs)
		if len(ws) == 0 {
			continue
		}
		var traded int64
		for _, s := range ws {
			traded += s.to - s.from
		}
		x := plainDayNoise(p, ws)
		out = append(out, g.kline(p, day, dayMs, traded, ohlc{p.round(w.level(x.Open)), p.round(w.level(x.High)),
			p.round(w.level(x.Low)), p.round(w.level(x.Close))}))
	}
	return out
}

// dailyProducts are products of every class and of markets with a lunch
// break, half days and summer time.
var dailyProducts = []struct {
	class  Class
	region itick.Region
	code   string
}{
	{Stock, itick.RegionUS, "AAPL"},
	{Stock, itick.RegionUS, "Q17"},
	{Stock, itick.RegionHK, "700"},
	{Stock, "SH", "600519"},
	{Stock, "JP", "7203"},
	{Crypto, itick.RegionBA, "BTCUSDT"},
	{Crypto, itick.RegionBA, "C5USDT"},
	{Forex, itick.RegionGB, "EURUSD"},
	{Forex, itick.RegionGB, "FX3"},
	{Future, itick.RegionUS, "GC"},
	{Fund, itick.RegionUS, "U2"},
	{Indices, itick.RegionGB, "HSI"},
	{Indices, itick.RegionGB, "UKX"},
	{Indices, itick.RegionGB, "DAX"},
}

// TestDailyCandlesAreTheExactOnes checks that a history of daily candles,
// built as a backfill asks for it (newest day first, each day's range
// bounded), is to the bit the one the exact computation gives, for several
// seeds, every class and two and a half years.
func TestDailyCandlesAreTheExactOnes(t *testing.T) {
	t.Parallel()
	from := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	for _, seed := range []uint64{1, 99, 20260101} {
		for _, pr := range dailyProducts {
			t.Run(fmt.Sprintf("%d/%s/%s/%s", seed, pr.class, pr.region, pr.code), func(t *testing.T) {
				t.Parallel()
				g := NewGenerator(seed)
				got := g.Series(pr.class, pr.region, pr.code, itick.OneDay, from, to, to)
				want := exactDailyCandles(NewGenerator(seed), pr.class, pr.region, pr.code, from.UnixMilli(), to.UnixMilli())
				if len(want) < 550 {
					t.Fatalf("%d days trade, want a long history", len(want))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-exact +bounded):\n%s", diff)
				}
			})
		}
	}
}

// TestDailyCandlesOnSpecialDays checks days whose trading is out of the
// ordinary against the exact computation, asked for alone and within a
// history: first that the calendar gives the day the windows the case is
// about (UTC), so the case tests what it says.
func TestDailyCandlesOnSpecialDays(t *testing.T) {
	t.Parallel()
	hm := func(day time.Time, h, m int) int64 {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute).UnixMilli()
	}
	tests := []struct {
		name   string
		class  Class
		region itick.Region
		code   string
		day    time.Time
		want   func(day time.Time) []tradingSpan
	}{
		{"US half day after Thanksgiving", Stock, itick.RegionUS, "AAPL", time.Date(2024, 11, 29, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 14, 30), hm(d, 18, 0)}} }},
		{"US half day on Christmas Eve", Stock, itick.RegionUS, "MSFT", time.Date(2024, 12, 24, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 14, 30), hm(d, 18, 0)}} }},
		{"US last day of winter time", Stock, itick.RegionUS, "AAPL", time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 14, 30), hm(d, 21, 0)}} }},
		{"US first day of summer time", Stock, itick.RegionUS, "AAPL", time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 13, 30), hm(d, 20, 0)}} }},
		{"US first day of winter time", Stock, itick.RegionUS, "TSLA", time.Date(2024, 11, 4, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 14, 30), hm(d, 21, 0)}} }},
		{"HK lunch break", Stock, itick.RegionHK, "700", time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan {
				return []tradingSpan{{hm(d, 1, 30), hm(d, 4, 0)}, {hm(d, 5, 0), hm(d, 8, 0)}}
			}},
		{"Shanghai lunch break on the half hour", Stock, "SH", "600519", time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan {
				return []tradingSpan{{hm(d, 1, 30), hm(d, 3, 30)}, {hm(d, 5, 0), hm(d, 7, 0)}}
			}},
		{"index in summer time in London", Indices, itick.RegionGB, "UKX", time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 7, 0), hm(d, 15, 30)}} }},
		{"forex on a Monday after the weekend", Forex, itick.RegionGB, "EURUSD", time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 0, 0), hm(d, 24, 0)}} }},
		{"crypto on a leap day", Crypto, itick.RegionBA, "ETHUSDT", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
			func(d time.Time) []tradingSpan { return []tradingSpan{{hm(d, 0, 0), hm(d, 24, 0)}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			day := tt.day.UnixMilli()
			ws := calendarOf(tt.class, tt.region, tt.code).windows(day, day+dayMs)
			if diff := cmp.Diff(tt.want(tt.day), ws, cmp.AllowUnexported(tradingSpan{})); diff != "" {
				t.Fatalf("the calendar's windows (-case +calendar):\n%s", diff)
			}
			for _, seed := range []uint64{1, 3, 77} {
				want := exactDailyCandles(NewGenerator(seed), tt.class, tt.region, tt.code, day, day+dayMs)
				g := NewGenerator(seed)
				alone := g.Series(tt.class, tt.region, tt.code, itick.OneDay, tt.day, tt.day.AddDate(0, 0, 1), tt.day.AddDate(0, 0, 1))
				if diff := cmp.Diff(want, alone); diff != "" {
					t.Errorf("seed %d, the day alone (-exact +bounded):\n%s", seed, diff)
				}
				// Within a history the day's neighbours were built first and
				// handed it what they worked out at midnight.
				end := tt.day.AddDate(0, 0, 5)
				history := NewGenerator(seed).Series(tt.class, tt.region, tt.code, itick.OneDay, tt.day.AddDate(0, 0, -5), end, end)
				i := slices.IndexFunc(history, func(k itick.Kline) bool { return k.Time.Equal(tt.day) })
				if i < 0 {
					t.Fatalf("seed %d: no candle on the day in a history", seed)
				}
				if diff := cmp.Diff(want, history[i:i+1]); diff != "" {
					t.Errorf("seed %d, the day in a history (-exact +bounded):\n%s", seed, diff)
				}
			}
		})
	}
}

// TestDayExtremesAtAdjacentInstants checks days whose highest or lowest
// price is one of two instants a ms apart (an hour's close and the next
// hour's open), which share one bound and are told apart only by their
// exact values; the test first makes sure it sees many such days.
func TestDayExtremesAtAdjacentInstants(t *testing.T) {
	t.Parallel()
	g := NewGenerator(8)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	adjacent := 0
	for _, code := range []string{"BTCUSDT", "A1USDT", "A2USDT"} {
		p := g.product(Crypto, itick.RegionBA, code)
		w := walker{p: p}
		d := newDayRange(p.key)
		for i := range 300 {
			day := start + int64(i)*dayMs
			ws := []tradingSpan{{day, day + dayMs}}
			ts := dayTimes(ws)
			xs := make([]float64, len(ts))
			hiAt, loAt := 0, 0
			for j, ms := range ts {
				xs[j] = w.noise(ms)
				if xs[j] > xs[hiAt] {
					hiAt = j
				}
				if xs[j] < xs[loAt] {
					loAt = j
				}
			}
			for _, j := range []int{hiAt, loAt} {
				if j > 0 && ts[j]-ts[j-1] == 1 || j+1 < len(ts) && ts[j+1]-ts[j] == 1 {
					adjacent++
				}
			}
			var buf [maxDayPrices]int64
			var got dayNoise
			got.Open, got.Close, got.High, got.Low = d.extremes(hourEdges(&buf, ws))
			want := dayNoise{Open: xs[0], Close: xs[len(xs)-1], High: xs[hiAt], Low: xs[loAt]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s on day %d (-every price +bounded):\n%s", code, i, diff)
			}
		}
	}
	if adjacent < 500 {
		t.Fatalf("%d extremes at one of two adjacent instants, want many", adjacent)
	}
}

// TestDayRangeTooNarrowIsCaught checks that the comparisons above would
// catch a bound that does not hold: a dayRange whose bounds leave out
// three quarters of the finer octaves' reach and all of the slack for
// rounding gets some day's range wrong.
func TestDayRangeTooNarrowIsCaught(t *testing.T) {
	t.Parallel()
	var narrow [octaves + 1]float64
	for k := range narrow {
		narrow[k] = belowOctave[k] / 4
	}
	g := NewGenerator(4)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	wrong := 0
	for _, code := range []string{"BTCUSDT", "B1USDT"} {
		p := g.product(Crypto, itick.RegionBA, code)
		d := newDayRange(p.key)
		d.width = &narrow
		for i := range 300 {
			day := start + int64(i)*dayMs
			ws := []tradingSpan{{day, day + dayMs}}
			var buf [maxDayPrices]int64
			var got dayNoise
			got.Open, got.Close, got.High, got.Low = d.extremes(hourEdges(&buf, ws))
			if !cmp.Equal(plainDayNoise(p, ws), got) {
				wrong++
			}
		}
	}
	if wrong == 0 {
		t.Fatal("bounds a quarter as wide gave every day's range right; the comparisons could not catch a wrong bound")
	}
	t.Logf("%d of 600 days wrong with bounds a quarter as wide", wrong)
}
