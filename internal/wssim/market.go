package wssim

import (
	"strconv"
	"time"
)

// Market produces every push itself, from the connection's asset class:
// a data source with its own books and candles, such as the REST
// simulator's generator, implements it so the pushes agree with what it
// serves over REST. Its methods must be safe for concurrent use.
type Market interface {
	// Quote returns the product's quote at now; Last, Open, High, Low,
	// Volume, Turnover and Time are pushed.
	Quote(class, code, region string, now time.Time) Bar
	// Tick returns the product's latest trade at now; Last, TradeVol
	// and Time are pushed.
	Tick(class, code, region string, now time.Time) Bar
	// Depth returns the product's book at now, best level first.
	Depth(class, code, region string, now time.Time) (asks, bids []Level)
	// Candle returns the product's candle of kType (1 to 10) in progress
	// at now.
	Candle(class, code, region string, kType int, now time.Time) Candle
}

// Candle is one pushed candle; Time is its start.
type Candle struct {
	Time                                     time.Time
	Open, High, Low, Close, Volume, Turnover float64
}

// Level is one level of a pushed book. NoPrice leaves p out, as the
// service does for an empty futures level.
type Level struct {
	Po      int
	Price   float64
	NoPrice bool
	Volume  float64
	Orders  float64
}

// appendMarketPush appends the push of type typ for sym at now, with the
// values m gives.
func (s *Server) appendMarketPush(b []byte, m Market, class string, sym symbol, typ string, now time.Time) []byte {
	if k := klineType(typ); k > 0 {
		c := m.Candle(class, sym.code, sym.region, k, now)
		if s.cfg.LegacyKline {
			b = append(b, `{"code":0,"data":{"s":`...)
			b = strconv.AppendQuote(b, s.pushed(sym).code)
			b = append(b, `,"t":`...)
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, `,"k":{`...)
			b = appendCandleValues(b, c)
			return append(b, "}}}"...)
		}
		b = s.appendPushHead(b, s.pushed(sym), typ)
		b = appendCandleValues(b, c)
		return append(b, "}}"...)
	}
	b = s.appendPushHead(b, s.pushed(sym), typ)
	switch typ {
	case "quote":
		b = appendQuote(b, m.Quote(class, sym.code, sym.region, now))
	case "tick":
		b = appendTick(b, m.Tick(class, sym.code, sym.region, now))
	case "depth":
		asks, bids := m.Depth(class, sym.code, sym.region, now)
		b = append(b, `"a":`...)
		b = appendLevelList(b, asks)
		b = append(b, `,"b":`...)
		b = appendLevelList(b, bids)
	}
	return append(b, "}}"...)
}

func appendLevelList(b []byte, ls []Level) []byte {
	b = append(b, '[')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"po":`...)
		b = strconv.AppendInt(b, int64(l.Po), 10)
		b = append(b, ',')
		if !l.NoPrice {
			b = appendField(b, "p", l.Price, true)
		}
		b = appendField(b, "v", l.Volume, true)
		b = appendField(b, "o", l.Orders, false)
		b = append(b, '}')
	}
	return append(b, ']')
}
