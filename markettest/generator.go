package markettest

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
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
	seed   uint64
	hours  candleCache // hourly candles
	longer candleCache // candles longer than an hour
}

// NewGenerator returns a Generator for seed.
func NewGenerator(seed uint64) *Generator { return &Generator{seed: seed} }

// Seed returns the generator's seed.
func (g *Generator) Seed() uint64 { return g.seed }

// product is what the generator knows about one code.
type product struct {
	class  Class
	key    uint64      // hash of class, region and code
	base   float64     // price level around which the walk moves
	sigma  float64     // volatility per square root of a minute, in log price
	tick   float64     // price increment; 0: round to decimals
	dec    int         // decimals when tick is 0
	lot    float64     // volume unit of the book and of trades
	perMin float64     // typical volume traded per minute
	splits *codeSplits // a stock's splits; nil: none
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

// hash mixes the seed with the given parts.
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

// canonical is a product's region and code as the generator keys them. A
// code is one product whatever its case, as it is to the service, whose
// stream pushes name products in lower case ("aapl" for AAPL): AAPL, aapl
// and Aapl in region US, us or Us have one price at one instant.
func canonical(region itick.Region, code string) (itick.Region, string) {
	return itick.Region(strings.ToUpper(strings.TrimSpace(string(region)))), strings.ToUpper(strings.TrimSpace(code))
}

func (g *Generator) product(class Class, region itick.Region, code string) product {
	region, code = canonical(region, code)
	p := product{class: class, key: g.hash(string(class), string(region), code)}
	r := unit(mix(p.key ^ 0x1234))
	known := func(keys ...string) (float64, bool) {
		for _, k := range keys {
			if v, ok := knownBase[k]; ok {
				return v, true
			}
		}
		return 0, false
	}
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
		if v, ok := known("crypto/" + code); ok {
			p.base = v
		}
		p.sigma = 0.60 / math.Sqrt(525600)
		p.lot = 0
		p.perMin = 500000 / p.base
	case Forex:
		p.base = 1 + r*0.9
		if v, ok := known("forex/" + code); ok {
			p.base = v
		}
		p.sigma = 0.08 / math.Sqrt(525600)
		p.lot = 100000
		p.perMin = 1e6
	case Future:
		p.base = math.Exp(math.Log(20) + r*(math.Log(6000)-math.Log(20)))
		if v, ok := known("future/" + code); ok {
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
		if v, ok := known("indices/" + code); ok {
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
	if class == Stock {
		p.splits = g.splitsOf(region, code)
	}
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
	var s float64
	if dec >= 0 && dec < len(pow10) {
		s = pow10[dec]
	} else {
		s = math.Pow(10, float64(dec))
	}
	return math.Round(x*s) / s
}

// pow10 holds the powers of ten prices are rounded to, which math.Pow
// gives exactly but slowly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

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

// octaveInvSpan[k] is the inverse of octave k's span in ms: how far an
// instant lies between two knots is a product, not a division, in every
// octave.
var octaveInvSpan = func() [octaves]float64 {
	var a [octaves]float64
	for k := range a {
		a[k] = 1 / float64(int64(finestOctMs)<<k)
	}
	return a
}()

// price is the unrounded price of p at ms (Unix milliseconds), its
// splits in force then included.
func (g *Generator) price(p product, ms int64) float64 {
	w := walker{p: p}
	return w.price(ms) * p.splits.factorAt(ms)
}

// A walker evaluates one product's price at instant after instant. It
// keeps each octave's two knots around the last instant: an instant close
// to it lies between the same two in every octave but the finest few,
// whose knots are all it hashes again. A candle's prices are looked at in
// time order, so most of their knots are reused.
type walker struct {
	p      product
	q      int64 // the finest octave's knot index at the last instant
	held   bool  // whether k0 and k1 hold the knots around q
	k0, k1 [octaves]float64
}

// price is the unrounded price of w.p's walk at ms (Unix milliseconds),
// before its splits (see codeSplits.factorAt).
func (w *walker) price(ms int64) float64 { return w.level(w.noise(ms)) }

// level turns the walk's noise into a price. It rises with the noise, so
// the highest of some prices is the level of the highest noise: a range
// costs one exponential, not one a price.
func (w *walker) level(x float64) float64 {
	// Keep the walk from wandering off the product's level: the coarse
	// octaves are bounded, so this stays within a few sigma-years.
	return w.p.base * math.Exp(w.p.sigma*x*0.7)
}

// noise is the sum of the walk's octaves at ms (Unix milliseconds).
func (w *walker) noise(ms int64) float64 {
	// Each octave's span is the finest one's times a power of two, so its
	// knot index is the finest one's shifted: one division, not 24.
	q := floorDiv(ms, finestOctMs)
	// Octave k's index, q>>k, is the last instant's as long as q and w.q
	// agree above bit k.
	stale := octaves
	if d := q ^ w.q; w.held && d >= 0 {
		stale = min(bits.Len64(uint64(d)), octaves)
	}
	for k := range stale {
		i := q >> k
		if w.held && i == w.q>>k+1 {
			w.k0[k] = w.k1[k]
		} else {
			w.k0[k] = signed(mix(w.p.key ^ uint64(k)<<56 ^ uint64(i)))
		}
		w.k1[k] = signed(mix(w.p.key ^ uint64(k)<<56 ^ uint64(i+1)))
	}
	w.q, w.held = q, true
	var x float64
	for k := 0; k < octaves; k++ {
		span := int64(finestOctMs) << k
		i := q >> k
		f := float64(ms-i*span) * octaveInvSpan[k]
		f = f * f * (3 - 2*f) // smoothstep between knots
		k0, k1 := w.k0[k], w.k1[k]
		x += octaveAmp[k] * (k0 + (k1-k0)*f)
	}
	return x
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Price returns the price of a product at the instant at, which stands
// still while its market is closed.
func (g *Generator) Price(class Class, region itick.Region, code string, at time.Time) float64 {
	p := g.product(class, region, code)
	return p.round(g.price(p, calendarOf(class, region, code).effective(at.UnixMilli())))
}
