package markettest

import (
	"math"
	"time"

	"github.com/d19c4e34/itick"
)

// candleSamples is how many points inside a candle are looked at for its
// high and low, besides the open and the close.
const candleSamples = 6

// candle builds the candle of p that starts at start (ms) and lasts span
// ms, seen at now (ms): a candle still open at now closes at now's price.
func (g *Generator) candle(p product, start, span, now int64) itick.Kline {
	end := start + span
	if end > now {
		end = now
	}
	if end < start {
		end = start
	}
	open := p.round(g.price(p, start))
	cl := p.round(g.price(p, end))
	hi, lo := max(open, cl), min(open, cl)
	for i := 1; i <= candleSamples; i++ {
		t := start + (end-start)*int64(i)/int64(candleSamples+1)
		x := p.round(g.price(p, t))
		hi, lo = max(hi, x), min(lo, x)
	}
	// Volume: a typical rate for the candle's length, varied per candle.
	minutes := float64(end-start) / 60000
	vol := p.perMin * minutes * (0.4 + 1.2*unit(mix(p.key^0xabc^uint64(start)^uint64(span)<<20)))
	vol = p.roundVolume(vol)
	turnover := roundDec(vol*(open+hi+lo+cl)/4, 2)
	return itick.Kline{Time: time.UnixMilli(start).UTC(), Open: open, High: hi, Low: lo, Close: cl,
		Volume: vol, Turnover: turnover}
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
// first, the last one being the candle that holds end. Each Time is a
// multiple of the interval's Duration (a month counts as 30 days). A
// candle still open at now closes at the price at now, so end is capped
// at now. A zero end means now.
func (g *Generator) Klines(class Class, region itick.Region, code string, interval itick.Interval,
	limit int, end, now time.Time) []itick.Kline {
	span := interval.Duration().Milliseconds()
	if span <= 0 || limit < 1 {
		return nil
	}
	p := g.product(class, region, code)
	nowMs := now.UnixMilli()
	endMs := nowMs
	if !end.IsZero() && end.UnixMilli() < nowMs {
		endMs = end.UnixMilli()
	}
	last := floorDiv(endMs, span) * span
	out := make([]itick.Kline, 0, limit)
	for i := limit - 1; i >= 0; i-- {
		out = append(out, g.candle(p, last-int64(i)*span, span, nowMs))
	}
	return out
}

// Quote returns the quote of a product at the instant at: Last is the
// price at at, Open the price at the start of at's UTC day, High and Low
// the day's range so far, PrevClose the previous day's close. PrevClose,
// Change and ChangePercent are set for every class; the server leaves
// them out of crypto, forex and index quotes as the service does.
func (g *Generator) Quote(class Class, region itick.Region, code string, at time.Time) itick.Quote {
	p := g.product(class, region, code)
	ms := at.UnixMilli()
	day := itick.OneDay.Duration().Milliseconds()
	dayStart := floorDiv(ms, day) * day
	c := g.candle(p, dayStart, day, ms)
	prev := g.candle(p, dayStart-day, day, ms)
	q := itick.Quote{
		Symbol:    code,
		Last:      c.Close,
		Open:      c.Open,
		PrevClose: prev.Close,
		High:      c.High,
		Low:       c.Low,
		Time:      time.UnixMilli(ms).UTC(),
		Volume:    c.Volume,
		Turnover:  c.Turnover,
		Status:    int(itick.StatusNormal),
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
	ms := at.UnixMilli()
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
// price, time and size, the session for stocks (pre-market or after-hours
// when the market's hours say so, regular otherwise), turnover and status
// for crypto.
func (g *Generator) Tick(class Class, region itick.Region, code string, at time.Time) itick.Tick {
	p := g.product(class, region, code)
	ms := at.UnixMilli()
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
