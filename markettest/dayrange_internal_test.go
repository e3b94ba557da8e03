package markettest

import (
	"math"
	"math/rand/v2"
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
				days := 400
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
	for range 20000 {
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
// the slack bounds allow for rounding, at instants that step forward and
// back by up to a day, jump far, and cross zero.
func TestSmoothSumIsItsOctaves(t *testing.T) {
	t.Parallel()
	g := NewGenerator(7)
	p := g.product(Crypto, itick.RegionBA, "ETHUSDT")
	s := smoothSum{key: p.key}
	rng := rand.New(rand.NewPCG(5, 6))
	ms := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	worst := 0.0
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
			t.Fatalf("step %d, %d ms: cubic %v, octaves %v", n, ms, got, want)
		}
	}
	t.Logf("largest difference %.3g", worst)
}
