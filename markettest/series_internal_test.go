package markettest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// plainCandle is the candle built the plain way, with nothing cached: a
// candle longer than an hour takes its high and low straight from the
// hourly candles it holds, each computed from the calendar again, a
// finished day included; an hourly candle's range is bounded by the
// range of its whole day's hourly opens and closes.
func (g *Generator) plainCandle(p product, cal calendar, start, span, now int64) (itick.Kline, bool) {
	ws := cal.windows(start, min(start+span, now+1))
	if len(ws) == 0 {
		return itick.Kline{}, false
	}
	open := p.round(g.price(p, ws[0].from))
	cl := p.round(g.price(p, ws[len(ws)-1].to-1))
	hi, lo := max(open, cl), min(open, cl)
	var traded int64
	for _, w := range ws {
		traded += w.to - w.from
	}
	if span > hourMs {
		next := int64(math.MinInt64)
		for _, w := range ws {
			for h := max(floorDiv(w.from, hourMs)*hourMs, next); h < w.to; h += hourMs {
				if sub, ok := g.plainCandle(p, cal, h, hourMs, now); ok {
					hi, lo = max(hi, sub.High), min(lo, sub.Low)
				}
				next = h + hourMs
			}
		}
	} else {
		for i := 1; i <= candleSamples; i++ {
			x := p.round(g.plainPrice(p, at(ws, traded*int64(i)/int64(candleSamples+1))))
			hi, lo = max(hi, x), min(lo, x)
		}
	}
	if span == hourMs {
		dayHi, dayLo := g.plainDayBounds(p, cal, floorDiv(start, dayMs)*dayMs)
		hi = min(hi, max(dayHi, open, cl))
		lo = max(lo, min(dayLo, open, cl))
	}
	minutes := float64(traded) / 60000
	vol := p.perMin * minutes * (0.4 + 1.2*unit(mix(p.key^0xabc^uint64(start)^uint64(span)<<20)))
	vol = p.roundVolume(vol)
	turnover := roundDec(vol*(open+hi+lo+cl)/4, 2)
	return itick.Kline{Time: time.UnixMilli(start).UTC(), Open: open, High: hi, Low: lo, Close: cl,
		Volume: vol, Turnover: turnover}, true
}

// plainDayBounds is the range of the opens and closes of the hours that
// trade in the UTC day starting at day, now or later.
func (g *Generator) plainDayBounds(p product, cal calendar, day int64) (hi, lo float64) {
	hi, lo = math.Inf(-1), math.Inf(1)
	for h := day; h < day+dayMs; h += hourMs {
		ws := cal.windows(h, h+hourMs)
		if len(ws) == 0 {
			continue
		}
		o := p.round(g.plainPrice(p, ws[0].from))
		c := p.round(g.plainPrice(p, ws[len(ws)-1].to-1))
		hi, lo = max(hi, o, c), min(lo, o, c)
	}
	return hi, lo
}

// plainPrice is price with a division per octave for its knots, as the
// walk is defined.
func (g *Generator) plainPrice(p product, ms int64) float64 {
	var x float64
	for k := 0; k < octaves; k++ {
		span := int64(finestOctMs) << k
		i := floorDiv(ms, span)
		f := float64(ms-i*span) * (1 / float64(span))
		f = f * f * (3 - 2*f)
		k0 := signed(mix(p.key ^ uint64(k)<<56 ^ uint64(i)))
		k1 := signed(mix(p.key ^ uint64(k)<<56 ^ uint64(i+1)))
		x += octaveAmp[k] * (k0 + (k1-k0)*f)
	}
	return p.base * math.Exp(p.sigma*x*0.7)
}

// plainKlines is klines over plainCandle.
func (g *Generator) plainKlines(class Class, region itick.Region, code string, interval itick.Interval,
	limit int, now time.Time) []itick.Kline {
	span := interval.Duration().Milliseconds()
	p := g.product(class, region, code)
	cal := calendarOf(class, region, code)
	nowMs := now.UnixMilli()
	var out []itick.Kline
	for slot := floorDiv(nowMs, span) * span; len(out) < limit; {
		if k, ok := g.plainCandle(p, cal, slot, span, nowMs); ok {
			out = append(out, k)
			slot -= span
			continue
		}
		last, ok := cal.lastMoment(slot - 1)
		if !ok || last >= slot {
			break
		}
		slot = floorDiv(last, span) * span
	}
	slices.Reverse(out)
	return out
}

// TestCachedCandlesEqualPlainOnes checks that the candles served, built
// from cached daily and hourly candles and asked for more than once, are
// exactly the ones built straight from the hours with nothing cached, for
// every calendar and interval, at instants inside and outside trading, on
// a holiday, and with a clock that moves on so candles that were open
// when cached have closed.
func TestCachedCandlesEqualPlainOnes(t *testing.T) {
	t.Parallel()
	products := []struct {
		class  Class
		region itick.Region
		code   string
	}{
		{Crypto, itick.RegionBA, "BTCUSDT"},
		{Forex, itick.RegionGB, "EURUSD"},
		{Future, itick.RegionUS, "GC"},
		{Fund, itick.RegionUS, "QQQ"},
		{Indices, itick.RegionGB, "N225"},
		{Indices, itick.RegionGB, "FOO"},
	}
	for _, m := range exchangeMarkets {
		products = append(products, struct {
			class  Class
			region itick.Region
			code   string
		}{Stock, itick.Region(m.code), "X1"})
	}
	products = append(products, struct {
		class  Class
		region itick.Region
		code   string
	}{Stock, "ZZ", "UNKNOWNMARKET"})
	instants := []time.Time{
		time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC), // US and GB trading, Asia closed
		time.Date(2025, 3, 14, 15, 9, 27, 0, time.UTC),           // a moment later
		time.Date(2025, 3, 17, 3, 0, 0, 0, time.UTC),             // Asia trading after a weekend
		time.Date(2025, 7, 4, 15, 0, 0, 0, time.UTC),             // a US holiday
		time.Date(2025, 12, 24, 18, 59, 59, 999_000_000, time.UTC),
		time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC), // a new year's first hour
	}
	limits := map[itick.Interval]int{itick.OneWeek: 3, itick.OneMonth: 2}
	g := NewGenerator(9)
	for _, now := range instants {
		for _, pr := range products {
			for iv := itick.OneMinute; iv <= itick.OneMonth; iv++ {
				limit := 6
				if l, ok := limits[iv]; ok {
					limit = l
				}
				want := g.plainKlines(pr.class, pr.region, pr.code, iv, limit, now)
				for pass := range 2 {
					got := g.Klines(pr.class, pr.region, pr.code, iv, limit, time.Time{}, now)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("%s %s/%s %v at %v, pass %d (-plain +served):\n%s",
							pr.class, pr.region, pr.code, iv, now, pass, diff)
					}
				}
			}
		}
	}
}

// TestPow10IsMathPow checks that the table roundDec rounds with holds
// exactly what math.Pow gives, so prices round as they did with it.
func TestPow10IsMathPow(t *testing.T) {
	t.Parallel()
	for n, v := range pow10 {
		if want := math.Pow(10, float64(n)); v != want {
			t.Errorf("pow10[%d] = %v, math.Pow gives %v", n, v, want)
		}
	}
}

// TestWalkerEqualsPlainPrice checks that a walker, which keeps knots from
// one instant to the next, gives exactly the price computed afresh, for
// instants that step forward, step back, jump far and cross zero.
func TestWalkerEqualsPlainPrice(t *testing.T) {
	t.Parallel()
	g := NewGenerator(3)
	p := g.product(Crypto, itick.RegionBA, "BTCUSDT")
	w := walker{p: p}
	rng := rand.New(rand.NewPCG(1, 2))
	ms := int64(-3 * finestOctMs)
	for n := range 20000 {
		switch r := rng.IntN(10); {
		case r < 6:
			ms += rng.Int64N(10 * finestOctMs)
		case r < 8:
			ms -= rng.Int64N(3 * finestOctMs)
		case r < 9:
			ms = rng.Int64N(1<<42) - 1<<41
		default:
			ms = -ms
		}
		if got, want := w.price(ms), g.plainPrice(p, ms); got != want {
			t.Fatalf("step %d, %d ms: walker %v, afresh %v", n, ms, got, want)
		}
	}
}
