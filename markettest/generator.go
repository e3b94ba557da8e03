package markettest

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// Class is an asset class, the first segment of the service's paths.
type Class string

// The asset classes the service serves.
const (
	Stock   Class = "stock"
	Crypto  Class = "crypto"
	Forex   Class = "forex"
	Future  Class = "future"
	Fund    Class = "fund"
	Indices Class = "indices"
)

// Generator makes synthetic but believable market data. Every value is a
// pure function of the seed, the product (class, region, code) and the time
// asked about, so the same question always gets the same answer and
// different endpoints agree: a quote's Last is the close of the latest
// candle, and the book sits around it.
//
// Prices follow a random walk in time, built from value noise at octaves
// from seconds to a year, so any instant can be evaluated without replaying
// history. A Generator is safe for concurrent use.
type Generator struct {
	seed uint64
}

// NewGenerator returns a Generator for seed.
func NewGenerator(seed uint64) *Generator { return &Generator{seed: seed} }

// Seed returns the generator's seed.
func (g *Generator) Seed() uint64 { return g.seed }

// product is what the generator knows about one code.
type product struct {
	class  Class
	code   string
	key    uint64  // hash of class, region and code
	base   float64 // price level around which the walk moves
	sigma  float64 // volatility per square root of a minute, in log price
	tick   float64 // price increment; 0: round to decimals
	dec    int     // decimals when tick is 0
	lot    float64 // volume unit of the book and of trades
	perMin float64 // typical volume traded per minute
}

// Known price levels, so familiar codes look familiar.
var knownBase = map[string]float64{
	"stock/HK/700": 380, "stock/HK/9988": 80, "stock/HK/5": 65, "stock/HK/1810": 18,
	"stock/US/AAPL": 190, "stock/US/MSFT": 420, "stock/US/TSLA": 240, "stock/US/NVDA": 120,
	"stock/US/AMZN": 180, "stock/US/GOOGL": 165, "stock/US/META": 500,
	"crypto/BTCUSDT": 65000, "crypto/ETHUSDT": 3200, "crypto/SOLUSDT": 150, "crypto/BNBUSDT": 580,
	"crypto/XRPUSDT": 0.6, "crypto/DOGEUSDT": 0.15, "crypto/ADAUSDT": 0.45,
	"forex/EURUSD": 1.085, "forex/GBPUSD": 1.27, "forex/AUDUSD": 0.66, "forex/USDJPY": 151.5,
	"forex/USDCHF": 0.9, "forex/USDCAD": 1.36, "forex/NZDUSD": 0.61, "forex/EURGBP": 0.855,
	"indices/HSI": 18000, "indices/SPX": 5200, "indices/DJI": 39000, "indices/IXIC": 16300,
	"indices/UKX": 8100, "indices/N225": 38500, "indices/DAX": 18200,
	"future/GC": 2350, "future/CL": 78, "future/ES": 5200, "future/NQ": 18200, "future/SI": 28,
}

// hash64 mixes the seed with the given parts.
func (g *Generator) hash(parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], g.seed)
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return mix(h.Sum64())
}

// mix is SplitMix64's finaliser: a cheap, well-spread integer hash.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// signed maps a hash to [-1, 1).
func signed(h uint64) float64 { return 2*unit(h) - 1 }

func (g *Generator) product(class Class, region itick.Region, code string) product {
	p := product{class: class, code: code, key: g.hash(string(class), string(region), code)}
	r := unit(mix(p.key ^ 0x1234))
	known := func(keys ...string) (float64, bool) {
		for _, k := range keys {
			if v, ok := knownBase[k]; ok {
				return v, true
			}
		}
		return 0, false
	}
	upper := strings.ToUpper(code)
	switch class {
	case Stock:
		p.base = math.Exp(math.Log(8) + r*(math.Log(600)-math.Log(8)))
		if v, ok := known("stock/" + string(region) + "/" + code); ok {
			p.base = v
		}
		p.sigma = 0.30 / math.Sqrt(525600)
		p.lot = 100
		p.perMin = 2000 + 30000*unit(mix(p.key^0x77))
	case Crypto:
		p.base = math.Exp(math.Log(0.05) + r*(math.Log(2000)-math.Log(0.05)))
		if v, ok := known("crypto/" + upper); ok {
			p.base = v
		}
		p.sigma = 0.60 / math.Sqrt(525600)
		p.lot = 0
		p.perMin = 500000 / p.base
	case Forex:
		p.base = 1 + r*0.9
		if v, ok := known("forex/" + upper); ok {
			p.base = v
		}
		p.sigma = 0.08 / math.Sqrt(525600)
		p.lot = 100000
		p.perMin = 1e6
	case Future:
		p.base = math.Exp(math.Log(20) + r*(math.Log(6000)-math.Log(20)))
		if v, ok := known("future/" + upper); ok {
			p.base = v
		}
		p.sigma = 0.25 / math.Sqrt(525600)
		p.lot = 1
		p.perMin = 300
	case Fund:
		p.base = math.Exp(math.Log(10) + r*(math.Log(500)-math.Log(10)))
		p.sigma = 0.18 / math.Sqrt(525600)
		p.lot = 100
		p.perMin = 5000
	case Indices:
		p.base = 1000 + r*39000
		if v, ok := known("indices/" + upper); ok {
			p.base = v
		}
		p.sigma = 0.18 / math.Sqrt(525600)
		p.lot = 0
		p.perMin = 1e6
	default:
		p.base = 10 + r*90
		p.sigma = 0.3 / math.Sqrt(525600)
		p.lot = 1
		p.perMin = 1000
	}
	p.tick, p.dec = priceStep(class, region, p.base)
	return p
}

// priceStep gives a product's price increment (or decimals) from its class
// and price level, so whole prices come out as whole numbers.
func priceStep(class Class, region itick.Region, base float64) (tick float64, dec int) {
	switch class {
	case Stock:
		if region == itick.RegionHK {
			switch {
			case base >= 200:
				return 0.2, 0
			case base >= 100:
				return 0.1, 0
			case base >= 20:
				return 0.05, 0
			}
		}
		return 0.01, 0
	case Forex:
		if base >= 20 {
			return 0, 3
		}
		return 0, 5
	case Crypto:
		// About six significant digits, like the exchanges quote.
		d := 5 - int(math.Floor(math.Log10(base)))
		return 0, max(0, min(d, 8))
	case Future:
		if base >= 1000 {
			return 0.25, 0
		}
		return 0.01, 0
	}
	return 0.01, 0
}

// round puts a price on the product's grid.
func (p product) round(x float64) float64 {
	if p.tick > 0 {
		steps := math.Round(x / p.tick)
		// Recompute from the decimal form of the tick so 0.2*1901 prints as 380.2.
		return roundDec(steps*p.tick, 4)
	}
	return roundDec(x, p.dec)
}

func (p product) step() float64 {
	if p.tick > 0 {
		return p.tick
	}
	return math.Pow(10, -float64(p.dec))
}

func roundDec(x float64, dec int) float64 {
	s := math.Pow(10, float64(dec))
	return math.Round(x*s) / s
}

// Octaves of the walk: the finest lasts 4 seconds, each next one twice as
// long, the coarsest about a year.
const (
	octaves     = 24
	finestOctMs = 4000
)

// octaveAmp[k] scales octave k so the sum behaves like a random walk: its
// spread over a span grows with the square root of the span.
var octaveAmp = func() [octaves]float64 {
	var a [octaves]float64
	for k := range a {
		minutes := float64(int64(finestOctMs)<<k) / 60000
		a[k] = math.Sqrt(minutes)
	}
	return a
}()

// price is the unrounded price of p at ms (Unix milliseconds).
func (g *Generator) price(p product, ms int64) float64 {
	var x float64
	for k := 0; k < octaves; k++ {
		span := int64(finestOctMs) << k
		i := floorDiv(ms, span)
		f := float64(ms-i*span) / float64(span)
		f = f * f * (3 - 2*f) // smoothstep between knots
		k0 := signed(mix(p.key ^ uint64(k)<<56 ^ uint64(i)))
		k1 := signed(mix(p.key ^ uint64(k)<<56 ^ uint64(i+1)))
		x += octaveAmp[k] * (k0 + (k1-k0)*f)
	}
	// Keep the walk from wandering off the product's level: the coarse
	// octaves are bounded, so this stays within a few sigma-years.
	return p.base * math.Exp(p.sigma*x*0.7)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Price returns the price of a product at the instant at.
func (g *Generator) Price(class Class, region itick.Region, code string, at time.Time) float64 {
	p := g.product(class, region, code)
	return p.round(g.price(p, at.UnixMilli()))
}

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

// roundVolume gives whole volumes for lot-traded products and fractional
// ones for crypto.
func (p product) roundVolume(v float64) float64 {
	switch {
	case v <= 0:
		return 0
	case p.class == Crypto:
		return roundDec(v, 4)
	case p.lot >= 1:
		return math.Round(v)
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
// price, time and size, the session for stocks (regular), turnover and
// status for crypto.
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
	return t
}
