package wssim

import (
	"strconv"
	"strings"
	"time"
)

// kTypeDuration is the length of each kType, 1 to 10.
var kTypeDuration = [...]time.Duration{0, time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 4 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// appendPush appends the push message of type typ for bar, in the
// service's documented shapes.
func (s *Server) appendPush(b []byte, sym symbol, typ string, bar Bar) []byte {
	if k := klineType(typ); k > 0 && s.cfg.LegacyKline {
		b = append(b, `{"code":0,"data":{"s":`...)
		b = strconv.AppendQuote(b, s.pushed(sym).code)
		b = append(b, `,"t":`...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, `,"k":{`...)
		b = appendCandle(b, bar, kTypeDuration[k])
		return append(b, "}}}"...)
	}
	b = s.appendPushHead(b, s.pushed(sym), typ)
	switch typ {
	case "quote":
		b = appendQuote(b, bar)
	case "tick":
		b = appendTick(b, bar)
	case "depth":
		b = append(b, `"a":`...)
		b = s.appendLevels(b, bar.Last, +1)
		b = append(b, `,"b":`...)
		b = s.appendLevels(b, bar.Last, -1)
	default:
		b = appendCandle(b, bar, kTypeDuration[klineType(typ)])
	}
	return append(b, "}}"...)
}

// pushed is sym as a push names it: without the exchange of a
// code$EXCHANGE$REGION subscription (what the service sends for one is
// not documented; this is the harder case for a client to match), and in
// lower case under Config.LooseCase.
func (s *Server) pushed(sym symbol) symbol {
	sym.exchange = ""
	if s.cfg.LooseCase {
		sym.code, sym.region = strings.ToLower(sym.code), strings.ToLower(sym.region)
	}
	return sym
}

// appendPushHead opens a push: its code, data and the s, r and type
// fields, followed by a comma. s is the code alike in every push, or under
// Config.RegionInSymbol code$REGION alike in every push.
func (s *Server) appendPushHead(b []byte, sym symbol, typ string) []byte {
	b = append(b, `{"code":1,"data":{"s":`...)
	if s.cfg.RegionInSymbol {
		b = strconv.AppendQuote(b, sym.code+"$"+sym.region)
	} else {
		b = strconv.AppendQuote(b, sym.code)
	}
	b = append(b, `,"r":`...)
	b = strconv.AppendQuote(b, sym.region)
	b = append(b, `,"type":`...)
	b = strconv.AppendQuote(b, typ)
	return append(b, ',')
}

func appendQuote(b []byte, bar Bar) []byte {
	b = appendField(b, "ld", bar.Last, true)
	b = appendField(b, "o", bar.Open, true)
	b = appendField(b, "h", bar.High, true)
	b = appendField(b, "l", bar.Low, true)
	b = appendField(b, "v", bar.Volume, true)
	b = appendField(b, "tu", bar.Turnover, true)
	b = append(b, `"t":`...)
	return strconv.AppendInt(b, bar.Time.UnixMilli(), 10)
}

func appendTick(b []byte, bar Bar) []byte {
	b = appendField(b, "ld", bar.Last, true)
	b = appendField(b, "v", bar.TradeVol, true)
	b = append(b, `"t":`...)
	return strconv.AppendInt(b, bar.Time.UnixMilli(), 10)
}

// appendCandle appends the current candle's fields: the session so far,
// stamped with the start of the interval.
func appendCandle(b []byte, bar Bar, d time.Duration) []byte {
	return appendCandleValues(b, Candle{Time: bar.Time.Truncate(d), Open: bar.Open, High: bar.High,
		Low: bar.Low, Close: bar.Last, Volume: bar.Volume, Turnover: bar.Turnover})
}

func appendCandleValues(b []byte, c Candle) []byte {
	b = appendField(b, "o", c.Open, true)
	b = appendField(b, "h", c.High, true)
	b = appendField(b, "l", c.Low, true)
	b = appendField(b, "c", c.Close, true)
	b = appendField(b, "v", c.Volume, true)
	b = appendField(b, "tu", c.Turnover, true)
	b = append(b, `"t":`...)
	return strconv.AppendInt(b, c.Time.UnixMilli(), 10)
}

func (s *Server) appendLevels(b []byte, last float64, side float64) []byte {
	b = append(b, '[')
	for i := 1; i <= s.cfg.DepthLevels; i++ {
		if i > 1 {
			b = append(b, ',')
		}
		b = append(b, `{"po":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = appendField(b, "p", float64(int64((last+side*0.01*float64(i))*100+0.5))/100, true)
		b = appendField(b, "v", float64(100*i), true)
		b = appendField(b, "o", float64(i), false)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendField(b []byte, name string, v float64, comma bool) []byte {
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `":`...)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	if comma {
		b = append(b, ',')
	}
	return b
}
