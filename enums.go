package itick

import (
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
)

// Region is a market code. The set is open-ended: Region("XX") is valid.
type Region string

// Regions seen in the service's documentation.
const (
	RegionHK Region = "HK"
	RegionSH Region = "SH"
	RegionSZ Region = "SZ"
	RegionUS Region = "US"
	RegionSG Region = "SG"
	RegionJP Region = "JP"
	RegionTW Region = "TW"
	RegionIN Region = "IN"
	RegionTH Region = "TH"
	RegionDE Region = "DE"
	RegionMX Region = "MX"
	RegionMY Region = "MY"
	RegionTR Region = "TR"
	RegionES Region = "ES"
	RegionNL Region = "NL"
	RegionGB Region = "GB"
	RegionCN Region = "CN"
	RegionBA Region = "BA"
	RegionBT Region = "BT"
	RegionPB Region = "PB"
)

func (r Region) validate() error {
	if err := batch.Region(string(r)); err != nil {
		return invalidArg("%v", err)
	}
	return nil
}

// Interval is a K-line period, sent as the service's kType.
type Interval int

// The intervals the service serves.
const (
	OneMinute   Interval = 1
	FiveMinutes Interval = 2
	// FifteenMinutes is kType 3, 15 minutes in the service's current
	// documentation; older official docs and demos call kType 3
	// "10 minutes". The SDK follows the current documentation.
	FifteenMinutes Interval = 3
	ThirtyMinutes  Interval = 4
	OneHour        Interval = 5
	// TwoHours and FourHours are crypto only by the newest official SDK's
	// types. The SDK does not refuse them for other classes: nothing
	// confirms the restriction for REST, so the service decides.
	TwoHours  Interval = 6
	FourHours Interval = 7
	OneDay    Interval = 8
	OneWeek   Interval = 9
	OneMonth  Interval = 10
)

var intervalNames = [...]string{"", "1m", "5m", "15m", "30m", "1h", "2h", "4h", "1d", "1w", "1M"}

// String returns a short name such as "5m" or "1d".
func (i Interval) String() string {
	if i.valid() {
		return intervalNames[i]
	}
	return "Interval(" + strconv.Itoa(int(i)) + ")"
}

// Duration is the interval's length; a month counts as 30 days.
func (i Interval) Duration() time.Duration {
	switch i {
	case OneMinute:
		return time.Minute
	case FiveMinutes:
		return 5 * time.Minute
	case FifteenMinutes:
		return 15 * time.Minute
	case ThirtyMinutes:
		return 30 * time.Minute
	case OneHour:
		return time.Hour
	case TwoHours:
		return 2 * time.Hour
	case FourHours:
		return 4 * time.Hour
	case OneDay:
		return 24 * time.Hour
	case OneWeek:
		return 7 * 24 * time.Hour
	case OneMonth:
		return 30 * 24 * time.Hour
	}
	return 0
}

func (i Interval) valid() bool { return i >= OneMinute && i <= OneMonth }

// intervalConsts are the constants' names, for ParseInterval.
var intervalConsts = [...]string{"", "OneMinute", "FiveMinutes", "FifteenMinutes", "ThirtyMinutes", "OneHour",
	"TwoHours", "FourHours", "OneDay", "OneWeek", "OneMonth"}

// ParseInterval reads an interval as text: its short form ("1m", "5m",
// "15m", "30m", "1h", "2h", "4h", "1d", "1w", "1M", where only the month's
// M is upper case), its constant's name in any case ("OneDay", "oneday"),
// or its kType number ("8"). Anything else is ErrInvalidArgument.
func ParseInterval(s string) (Interval, error) {
	t := strings.TrimSpace(s)
	for i := OneMinute; i <= OneMonth; i++ {
		if t == intervalNames[i] || strings.EqualFold(t, intervalConsts[i]) {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(t); err == nil && Interval(n).valid() {
		return Interval(n), nil
	}
	return 0, invalidArg("unknown interval %q (want 1m, 5m, 15m, 30m, 1h, 2h, 4h, 1d, 1w or 1M, a constant's name, or a kType from 1 to 10)", s)
}

// MarshalText writes the short form ("1d"); an interval with none, such as
// the zero Interval, writes its kType number, so that a struct holding one
// still marshals.
func (i Interval) MarshalText() ([]byte, error) {
	if i.valid() {
		return []byte(intervalNames[i]), nil
	}
	return strconv.AppendInt(nil, int64(i), 10), nil
}

// UnmarshalText reads what ParseInterval accepts, so "1d" in a JSON or
// YAML config, or a query string, decodes, and every text MarshalText
// writes: the kType number of a value with no short form, such as the "0"
// of an unset field, reads back as that value (a kline call refuses it, as
// ParseInterval does). An error leaves i as it was.
func (i *Interval) UnmarshalText(b []byte) error {
	v, err := ParseInterval(string(b))
	if err != nil {
		n, nerr := strconv.Atoi(strings.TrimSpace(string(b)))
		if nerr != nil {
			return err
		}
		v = Interval(n)
	}
	*i = v
	return nil
}

// AssetType is a class of product: the type parameter of the symbol list,
// and the channel a Stream connects to.
type AssetType string

// The asset types the service serves.
const (
	AssetStock   AssetType = "stock"
	AssetForex   AssetType = "forex"
	AssetIndices AssetType = "indices"
	AssetCrypto  AssetType = "crypto"
	AssetFuture  AssetType = "future"
	AssetFund    AssetType = "fund"
)

// String returns the wire name, such as "stock".
func (a AssetType) String() string { return string(a) }

func (a AssetType) validate() error {
	switch a {
	case AssetStock, AssetForex, AssetIndices, AssetCrypto, AssetFuture, AssetFund:
		return nil
	}
	return invalidArg("unknown asset type %q (want stock, forex, indices, crypto, future or fund)", string(a))
}

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
