package markettest

import (
	"math"
	"slices"
	"time"

	"github.com/d19c4e34/itick"
)

// candleSamples is how many points inside a candle of an hour or less
// are looked at for its high and low, besides the open and the close.
const candleSamples = 6

const hourMs = 60 * 60 * 1000

// candle builds the candle of p that starts at start (ms) and lasts span
// ms from the trading windows ws the calendar puts in it up to now: it
// opens at the first trading instant and closes at the last one (now's,
// while it is still open). A candle longer than a day takes its high and
// low from the daily candles it holds, one longer than an hour from the
// hourly ones, so a daily candle's range contains its hours' and a weekly
// or monthly one's its days'. ok is false when nothing traded in it by now.
//
// A candle of an hour or more is kept in a cache: it is the same for every
// request that sees the same trading in it, which its start and the end of
// its last window pin down, and building a monthly one takes 720 hourly
// ones.
func (g *Generator) candle(w *walker, start, span int64, ws []tradingSpan) (itick.Kline, bool) {
	if len(ws) == 0 {
		return itick.Kline{}, false
	}
	if span < hourMs {
		return g.build(w, start, span, ws), true
	}
	c := &g.longer
	if span == hourMs {
		c = &g.hours
	}
	end := ws[len(ws)-1].to
	if k, hit := c.get(w.p.key, start, span, end); hit {
		return k, true
	}
	k := g.build(w, start, span, ws)
	c.put(w.p.key, start, span, end, k)
	return k, true
}

// build computes the candle of w.p in [start, start+span) from its
// trading windows ws, which are not empty. It asks w for prices in time
// order, open first and close last, so w reuses most knots.
func (g *Generator) build(w *walker, start, span int64, ws []tradingSpan) itick.Kline {
	p := w.p
	open := p.round(w.price(ws[0].from))
	hi, lo := open, open
	var traded int64
	for _, s := range ws {
		traded += s.to - s.from
	}
	if span > hourMs {
		// The parts (days, or hours) that hold trading each have a candle,
		// which opens and closes where the candle's trading in them does,
		// so their ranges with this one's open and close make its range.
		part := int64(hourMs)
		if span > dayMs {
			part = dayMs
		}
		var buf [4]tradingSpan
		for t := floorDiv(ws[0].from, part) * part; t < ws[len(ws)-1].to; t += part {
			if sub, ok := g.candle(w, t, part, clip(buf[:0], ws, t, t+part)); ok {
				hi, lo = max(hi, sub.High), min(lo, sub.Low)
			}
		}
	} else {
		for i := 1; i <= candleSamples; i++ {
			x := p.round(w.price(at(ws, traded*int64(i)/int64(candleSamples+1))))
			hi, lo = max(hi, x), min(lo, x)
		}
	}
	cl := p.round(w.price(ws[len(ws)-1].to - 1))
	hi, lo = max(hi, cl), min(lo, cl)
	// Volume: a typical rate for the time traded, varied per candle.
	minutes := float64(traded) / 60000
	vol := p.perMin * minutes * (0.4 + 1.2*unit(mix(p.key^0xabc^uint64(start)^uint64(span)<<20)))
	vol = p.roundVolume(vol)
	turnover := roundDec(vol*(open+hi+lo+cl)/4, 2)
	return itick.Kline{Time: time.UnixMilli(start).UTC(), Open: open, High: hi, Low: lo, Close: cl,
		Volume: vol, Turnover: turnover}
}

// clip appends to buf the parts of the windows ws (in order, disjoint)
// that fall in [from, to): the windows the calendar gives for that
// stretch, since every window lies inside one UTC day.
func clip(buf, ws []tradingSpan, from, to int64) []tradingSpan {
	for _, w := range ws {
		if w.to <= from {
			continue
		}
		if w.from >= to {
			break
		}
		buf = append(buf, tradingSpan{max(w.from, from), min(w.to, to)})
	}
	return buf
}

// at is the instant offset ms of trading into ws.
func at(ws []tradingSpan, offset int64) int64 {
	for _, w := range ws {
		if offset < w.to-w.from {
			return w.from + offset
		}
		offset -= w.to - w.from
	}
	return ws[len(ws)-1].to - 1
}

// roundVolume gives fractional volumes for crypto and whole ones otherwise.
func (p product) roundVolume(v float64) float64 {
	switch {
	case v <= 0:
		return 0
	case p.class == Crypto:
		return roundDec(v, 4)
	}
	return math.Round(v)
}

// Klines returns up to limit candles of interval for one product, oldest
// first, the last one being the latest that holds trading at or before
// end. Each Time is a multiple of the interval's Duration (a month counts
// as 30 days). Candles exist only where the product's calendar trades
// (stocks, funds and indices on their market's trading days, forex and
// futures on weekdays, crypto always), so a candle follows the previous
// one by one Duration or more. A candle still open at now closes at the
// price at now, so end is capped at now. A zero end means now.
func (g *Generator) Klines(class Class, region itick.Region, code string, interval itick.Interval,
	limit int, end, now time.Time) []itick.Kline {
	return g.klines(class, region, code, interval, limit, end, now, time.Time{})
}

// Series returns every candle of interval with from <= Time < to, as the
// generator has them at now, oldest first: what a client paging through
// the range should put together.
func (g *Generator) Series(class Class, region itick.Region, code string, interval itick.Interval,
	from, to, now time.Time) []itick.Kline {
	if !from.Before(to) {
		return nil
	}
	return g.klines(class, region, code, interval, math.MaxInt, to.Add(-time.Millisecond), now, from)
}

// klines is Klines with no candle before first (zero: no bound).
func (g *Generator) klines(class Class, region itick.Region, code string, interval itick.Interval,
	limit int, end, now, first time.Time) []itick.Kline {
	span := interval.Duration().Milliseconds()
	if span <= 0 || limit < 1 {
		return nil
	}
	p := g.product(class, region, code)
	cal := calendarOf(class, region, code)
	nowMs := now.UnixMilli()
	endMs := nowMs
	if !end.IsZero() && end.UnixMilli() < nowMs {
		endMs = end.UnixMilli()
	}
	firstMs := int64(math.MinInt64)
	if !first.IsZero() {
		firstMs = first.UnixMilli()
	}
	out := make([]itick.Kline, 0, min(limit, 1024))
	// A candle of a day or less takes its windows from its day's, which
	// the calendar works out once for all the day's candles.
	w := &walker{p: p}
	day := int64(math.MinInt64)
	var dayWs []tradingSpan
	var buf [4]tradingSpan
	for slot := floorDiv(endMs, span) * span; len(out) < limit && slot >= firstMs; {
		var ws []tradingSpan
		if span <= dayMs {
			if d := floorDiv(slot, dayMs) * dayMs; d != day {
				day, dayWs = d, cal.windows(d, min(d+dayMs, nowMs+1))
			}
			ws = clip(buf[:0], dayWs, slot, min(slot+span, nowMs+1))
		} else {
			ws = cal.windows(slot, min(slot+span, nowMs+1))
		}
		if k, ok := g.candle(w, slot, span, ws); ok {
			out = append(out, k)
			slot -= span
			continue
		}
		// Skip the closed stretch at once rather than slot by slot.
		last, ok := cal.lastMoment(slot - 1)
		if !ok || last >= slot {
			break
		}
		slot = floorDiv(last, span) * span
	}
	slices.Reverse(out)
	return out
}

// Quote returns the quote of a product at the instant at: Last is the
// price at the latest trading instant (at itself while the market
// trades), Open, High, Low, Volume and Turnover those of the latest daily
// candle, PrevClose the close of the one before. Time is the latest
// trading instant, so a quote does not move while the market is closed.
// PrevClose, Change and ChangePercent are set for every class; the server
// leaves them out of crypto, forex and index quotes as the service does.
func (g *Generator) Quote(class Class, region itick.Region, code string, at time.Time) itick.Quote {
	p := g.product(class, region, code)
	ms := calendarOf(class, region, code).effective(at.UnixMilli())
	q := itick.Quote{
		Symbol: code,
		Last:   p.round(g.price(p, ms)),
		Time:   time.UnixMilli(ms).UTC(),
		Status: int(itick.StatusNormal),
	}
	days := g.Klines(class, region, code, itick.OneDay, 2, at, at)
	if n := len(days); n > 0 {
		c := days[n-1]
		q.Open, q.High, q.Low, q.Volume, q.Turnover = c.Open, c.High, c.Low, c.Volume, c.Turnover
		if n > 1 {
			q.PrevClose = days[n-2].Close
		}
	}
	q.Change = p.round(q.Last - q.PrevClose)
	if q.PrevClose != 0 {
		q.ChangePercent = roundDec((q.Last-q.PrevClose)/q.PrevClose*100, 2)
	}
	return q
}

// Levels returns how many depth levels a side of the book has for class:
// 10 for stocks, 5 for crypto, 1 for the others.
func Levels(class Class) int {
	switch class {
	case Stock:
		return 10
	case Crypto:
		return 5
	}
	return 1
}

// Depth returns the order book of a product at the instant at, best level
// first: asks rise from just above the price, bids fall from just below
// it. Fund and index books hold one placeholder level a side (price and
// volume 0); futures books sometimes carry a bid level with no price and
// no volume, which the server sends without p.
func (g *Generator) Depth(class Class, region itick.Region, code string, at time.Time) itick.DepthBook {
	p := g.product(class, region, code)
	book := itick.DepthBook{Symbol: code}
	n := Levels(class)
	if class == Fund || class == Indices {
		book.Asks = []itick.DepthLevel{{Level: 1}}
		book.Bids = []itick.DepthLevel{{Level: 1}}
		return book
	}
	ms := calendarOf(class, region, code).effective(at.UnixMilli())
	step := p.step()
	mid := g.price(p, ms)
	bid := math.Floor(mid/step) * step
	if bid <= 0 {
		bid = step
	}
	sec := uint64(floorDiv(ms, 1000))
	for i := 0; i < n; i++ {
		ask := p.round(bid + float64(i+1)*step)
		b := p.round(bid - float64(i)*step)
		book.Asks = append(book.Asks, g.level(p, i+1, ask, mix(p.key^sec^uint64(i)<<40^1)))
		if b > 0 {
			book.Bids = append(book.Bids, g.level(p, i+1, b, mix(p.key^sec^uint64(i)<<40^2)))
		}
	}
	if class == Future && mix(p.key^sec^0xf00)%4 == 0 {
		book.Bids[0] = itick.DepthLevel{Level: 1}
	}
	return book
}

// level makes one book level with a volume and an order count drawn from h.
func (g *Generator) level(p product, po int, price float64, h uint64) itick.DepthLevel {
	u := unit(h)
	l := itick.DepthLevel{Level: po, Price: price}
	switch p.class {
	case Crypto:
		// Crypto books give fractional sizes, with the order count equal to the volume.
		l.Volume = roundDec(p.perMin/20*(0.05+2*u), 5)
		l.Orders = l.Volume
	case Forex:
		// The forex book is a single level without size.
	default:
		lots := 1 + math.Floor(u*80)
		l.Volume = lots * p.lot
		l.Orders = 1 + math.Floor(unit(mix(h))*min(lots, 40))
	}
	return l
}

// Tick returns the latest trade of a product at the instant at: its
// price, time and size (the last trading instant's while the market is
// closed, so a tick does not move then), the session for stocks (pre-market or after-hours
// when the market's hours say so, regular otherwise), turnover and status
// for crypto.
func (g *Generator) Tick(class Class, region itick.Region, code string, at time.Time) itick.Tick {
	p := g.product(class, region, code)
	ms := calendarOf(class, region, code).effective(at.UnixMilli())
	h := mix(p.key ^ uint64(ms) ^ 0x71c)
	t := itick.Tick{Symbol: code, Last: p.round(g.price(p, ms)), Time: time.UnixMilli(ms).UTC()}
	switch class {
	case Crypto:
		t.Volume = roundDec(p.perMin/50*(0.01+unit(h)), 5)
		t.Turnover = roundDec(t.Volume*t.Last, 4)
	default:
		lots := 1 + math.Floor(unit(h)*20)
		if p.lot > 0 {
			t.Volume = lots * p.lot
		} else {
			t.Volume = lots
		}
	}
	if class == Stock {
		t.Session = itick.TickSession(tradeSession(string(region), at))
		t.Direction = tradeDirection(t.Last, p.round(g.price(p, ms-1000)))
	}
	return t
}

// tradeDirection calls a trade a buy when it ticked up from the price a
// second before, a sell when it ticked down, and neutral otherwise.
func tradeDirection(last, before float64) itick.TradeDirection {
	switch {
	case last > before:
		return itick.DirectionBuy
	case last < before:
		return itick.DirectionSell
	}
	return itick.DirectionNeutral
}
