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

// A view is one product's candles as they stand at now: its walk, its
// calendar and the time, which say what has traded so far.
type view struct {
	w    walker
	cal  calendar
	now  int64     // ms
	days *dayRange // made for the first finished day built
}

// candle builds the candle of the view's product that starts at start
// (ms) and lasts span ms from the trading windows ws its calendar puts in
// it up to now: it opens at the first trading instant and closes at the
// last one (now's, while it is still open). ok is false when nothing
// traded in it by now.
//
// Its high and low nest, so a longer candle's range holds the ranges of
// the shorter ones it is made of:
//
//   - A candle shorter than an hour samples prices inside it.
//   - An hourly candle samples prices inside it too, but its range stays
//     within its whole day's range (see dayRange), widened only to its own
//     open and close, which a day still trading has not all seen.
//   - A candle longer than an hour and up to a day takes its range from
//     its hours; one longer than a day takes it from its days.
//
// A finished trading day's range is therefore the range of its hours'
// opens and closes: each hour's range stays within it, and the hour whose
// open or close sets it reaches it. Those are prices of the walk alone,
// most of which a bound shows to be neither the highest nor the lowest
// (see dayRange), so a long history of daily candles is cheap, for a
// market trading all day as for one trading a few hours. A day still
// trading at now is built from its hours so far instead.
//
// A candle of an hour or more is kept in a cache: it is the same for every
// request that sees the same trading in it, which its start and the end of
// its last window pin down.
func (g *Generator) candle(v *view, start, span int64, ws []tradingSpan) (itick.Kline, bool) {
	if len(ws) == 0 {
		return itick.Kline{}, false
	}
	if span < hourMs {
		return g.build(v, start, span, ws), true
	}
	c := &g.longer
	if span == hourMs {
		c = &g.hours
	}
	key, end := v.w.p.key, ws[len(ws)-1].to
	if k, hit := c.get(key, start, span, end); hit {
		return k, true
	}
	k := g.build(v, start, span, ws)
	c.put(key, start, span, end, k)
	return k, true
}

// build computes the candle of the view's product in [start, start+span)
// from its trading windows ws, which are not empty, as candle describes.
// It asks for prices in time order as far as it can, so the walk reuses
// most knots.
func (g *Generator) build(v *view, start, span int64, ws []tradingSpan) itick.Kline {
	w := &v.w
	p := w.p
	var traded int64
	for _, s := range ws {
		traded += s.to - s.from
	}
	// Splits fall on UTC midnights, so a candle of a day or less has one
	// factor; a longer one opens and closes at its own (see codeSplits).
	f := p.splits.factorAt(start)
	if span == dayMs && v.wholeDay(start, ws) {
		return g.kline(p, start, span, traded, v.dayPrices(ws, f))
	}
	first, last := ws[0].from, ws[len(ws)-1].to-1
	open := p.round(w.price(first) * p.splits.factorAt(first))
	cl := p.round(w.price(last) * p.splits.factorAt(last))
	hi, lo := max(open, cl), min(open, cl)
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
			if sub, ok := g.candle(v, t, part, clip(buf[:0], ws, t, t+part)); ok {
				hi, lo = max(hi, sub.High), min(lo, sub.Low)
			}
		}
		return g.kline(p, start, span, traded, ohlc{open, hi, lo, cl})
	}
	xhi, xlo := math.Inf(-1), math.Inf(1)
	for i := 1; i <= candleSamples; i++ {
		x := w.noise(at(ws, traded*int64(i)/int64(candleSamples+1)))
		xhi, xlo = max(xhi, x), min(xlo, x)
	}
	hi, lo = max(hi, p.round(w.level(xhi)*f)), min(lo, p.round(w.level(xlo)*f))
	if span == hourMs {
		day := g.wholeDayCandle(v, floorDiv(start, dayMs)*dayMs)
		hi = min(hi, max(day.High, open, cl))
		lo = max(lo, min(day.Low, open, cl))
	}
	return g.kline(p, start, span, traded, ohlc{open, hi, lo, cl})
}

// ohlc are a candle's prices.
type ohlc struct{ open, high, low, close float64 }

// kline completes a candle of p from its prices and the ms it traded.
func (g *Generator) kline(p product, start, span, traded int64, c ohlc) itick.Kline {
	// Volume: a typical rate for the time traded, varied per candle, in
	// the shares of the time (a split multiplies them).
	minutes := float64(traded) / 60000
	vol := p.perMin * minutes * (0.4 + 1.2*unit(mix(p.key^0xabc^uint64(start)^uint64(span)<<20)))
	vol = p.roundVolume(vol / p.splits.factorAt(start))
	turnover := roundDec(vol*(c.open+c.high+c.low+c.close)/4, 2)
	return itick.Kline{Time: time.UnixMilli(start).UTC(), Open: c.open, High: c.high, Low: c.low, Close: c.close,
		Volume: vol, Turnover: turnover}
}

// wholeDay reports whether ws, the trading of the UTC day starting at day
// up to now, is all of that day's trading: whether the day's trading is
// over.
func (v *view) wholeDay(day int64, ws []tradingSpan) bool {
	if v.now >= day+dayMs-1 {
		return true // nothing of the day was cut off
	}
	var buf [maxSessions]tradingSpan
	full := v.cal.appendWindows(buf[:0], day, day+dayMs)
	return len(full) > 0 && full[len(full)-1].to == ws[len(ws)-1].to
}

// wholeDayCandle is the candle of the UTC day starting at day with all its
// trading, which bounds the range of each of its hours. For a day still
// trading, that takes prices after now into account; they bound the
// hours' ranges but are never shown.
func (g *Generator) wholeDayCandle(v *view, day int64) itick.Kline {
	var buf [maxSessions]tradingSpan
	k, _ := g.candle(v, day, dayMs, v.cal.appendWindows(buf[:0], day, day+dayMs))
	return k
}

// dayPrices are the prices of a whole trading day with windows ws: its
// open and close, and as its range the highest and lowest of the opens and
// closes of the hours that trade, times f, the day's split factor. The
// view keeps a dayRange for them, which carries what one day's range works
// out over to the next.
func (v *view) dayPrices(ws []tradingSpan, f float64) ohlc {
	var buf [maxDayPrices]int64
	ts := hourEdges(&buf, ws)
	if v.days == nil {
		v.days = newDayRange(v.w.p.key)
	}
	xo, xc, xhi, xlo := v.days.extremes(ts)
	w := &v.w
	p := w.p
	return ohlc{p.round(w.level(xo) * f), p.round(w.level(xhi) * f), p.round(w.level(xlo) * f), p.round(w.level(xc) * f)}
}

// hourEdges returns, in buf, the first and the last trading instant of
// each hour the windows ws (in order, apart, within a UTC day) trade in,
// in time order: a window that starts in an hour an earlier one traded in
// moves that hour's last instant.
func hourEdges(buf *[maxDayPrices]int64, ws []tradingSpan) []int64 {
	n := 0
	last := int64(math.MinInt64) // the hour the last window ended in
	for _, w := range ws {
		t, h := w.from, floorDiv(w.from, hourMs)*hourMs
		if h == last {
			end := min(w.to, h+hourMs)
			buf[n-1] = end - 1
			t, h = end, h+hourMs
		}
		for ; t < w.to; h += hourMs {
			end := min(w.to, h+hourMs)
			buf[n], buf[n+1] = t, end-1
			n += 2
			t = end
		}
		last = h - hourMs
	}
	return buf[:n]
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
// first, the last one being the latest that starts at or before end and
// holds trading; it is served whole, trading after end included, as the
// service serves the candle et falls in. Each Time is a multiple of the
// interval's Duration (a month counts as 30 days). Candles exist only
// where the product's calendar trades (stocks, funds and indices on their
// market's trading days, forex and futures on weekdays, crypto always),
// so a candle follows the previous one by one Duration or more. A candle
// still open at now closes at the price at now, so end is capped at now.
// A zero end means now.
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
	v := &view{w: walker{p: p}, cal: cal, now: nowMs}
	day := int64(math.MinInt64)
	var dayWs []tradingSpan
	var dayBuf [maxSessions]tradingSpan
	var buf [4]tradingSpan
	for slot := floorDiv(endMs, span) * span; len(out) < limit && slot >= firstMs; {
		var ws []tradingSpan
		if span <= dayMs {
			if d := floorDiv(slot, dayMs) * dayMs; d != day {
				day, dayWs = d, cal.appendWindows(dayBuf[:0], d, min(d+dayMs, nowMs+1))
			}
			ws = clip(buf[:0], dayWs, slot, min(slot+span, nowMs+1))
		} else {
			ws = cal.windows(slot, min(slot+span, nowMs+1))
		}
		if k, ok := g.candle(v, slot, span, ws); ok {
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
// candle, PrevClose the close of the one before (at the new shares on a
// split's ex-date, as exchanges publish it). Time is the latest
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
			// On an ex-date the previous close is given at the new
			// shares, as exchanges publish it, so the change is the
			// day's and not the split's.
			prev := days[n-2]
			q.PrevClose = p.round(prev.Close * p.splits.factorAt(c.Time.UnixMilli()) / p.splits.factorAt(prev.Time.UnixMilli()))
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
