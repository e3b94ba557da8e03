package itick

import (
	"strconv"
	"time"
)

// TradingStatus is a product's trading state, the ts field of quotes and ticks.
type TradingStatus int

// The trading states the service documents.
const (
	StatusNormal         TradingStatus = 0
	StatusHalted         TradingStatus = 1
	StatusDelisted       TradingStatus = 2
	StatusCircuitBreaker TradingStatus = 3
)

// String returns the state's name, such as "halted".
func (s TradingStatus) String() string {
	switch s {
	case StatusNormal:
		return "normal"
	case StatusHalted:
		return "halted"
	case StatusDelisted:
		return "delisted"
	case StatusCircuitBreaker:
		return "circuit breaker"
	}
	return "TradingStatus(" + strconv.Itoa(int(s)) + ")"
}

// TradingStatus returns Status as a TradingStatus.
func (q Quote) TradingStatus() TradingStatus { return TradingStatus(q.Status) }

// TickSession is the session a stock trade happened in, the te field of ticks.
type TickSession int

// The sessions the service documents.
const (
	SessionRegular    TickSession = 0
	SessionPreMarket  TickSession = 1
	SessionAfterHours TickSession = 2
)

// String returns the session's name, such as "pre-market".
func (s TickSession) String() string {
	switch s {
	case SessionRegular:
		return "regular"
	case SessionPreMarket:
		return "pre-market"
	case SessionAfterHours:
		return "after-hours"
	}
	return "TickSession(" + strconv.Itoa(int(s)) + ")"
}

// TradeDirection is which side of the book a stock trade took, the d field
// of ticks, as the official SDK's types define it.
type TradeDirection int

// The trade directions the service sends.
const (
	DirectionNeutral TradeDirection = 0
	DirectionSell    TradeDirection = 1
	DirectionBuy     TradeDirection = 2
)

// String returns the direction's name, such as "buy".
func (d TradeDirection) String() string {
	switch d {
	case DirectionNeutral:
		return "neutral"
	case DirectionSell:
		return "sell"
	case DirectionBuy:
		return "buy"
	}
	return "TradeDirection(" + strconv.Itoa(int(d)) + ")"
}

// Tick is the latest trade of one product.
type Tick struct {
	Symbol    string         // s
	Last      float64        // ld: trade price
	Time      time.Time      // t, Unix ms, UTC
	Volume    float64        // v: the trade's volume
	Session   TickSession    // te (stocks only)
	Turnover  float64        // tu (crypto only)
	Status    TradingStatus  // ts (crypto only)
	Direction TradeDirection // d (stocks only): neutral, sell or buy
}

var tickModel = newModel(func(st *fastState) *Tick { return &st.tick },
	strField("s", func(t *Tick) *string { return &t.Symbol }),
	numField("ld", func(t *Tick) *float64 { return &t.Last }),
	millisField("t", func(t *Tick) *time.Time { return &t.Time }),
	numField("v", func(t *Tick) *float64 { return &t.Volume }),
	intField("te", func(t *Tick) *TickSession { return &t.Session }),
	numField("tu", func(t *Tick) *float64 { return &t.Turnover }),
	intField("ts", func(t *Tick) *TradingStatus { return &t.Status }),
	intField("d", func(t *Tick) *TradeDirection { return &t.Direction }),
)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (t *Tick) UnmarshalJSON(b []byte) error { return tickModel.unmarshal(b, t) }

// MarshalJSON encodes the service's wire form.
func (t Tick) MarshalJSON() ([]byte, error) { return tickModel.marshal(&t) }
