package exampletest

import (
	"time"

	"github.com/d19c4e34/itick/markettest"
)

// The simulator's clocks the programs run at, all fixed: what a program
// prints depends on which markets are open, and a test must get the same
// answer whatever the day and hour it runs. The first four fall in the
// first week of June 2025.
var (
	// Weekend is a Saturday noon: every stock market is closed, so no
	// stock is pushed; crypto trades on.
	Weekend = time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC)
	// Night is a Thursday at 00:30 UTC: New York has closed and Hong Kong
	// has not opened.
	Night = time.Date(2025, 6, 5, 0, 30, 0, 0, time.UTC)
	// NewYorkTrading is a Wednesday at 11:30 in New York: US stocks
	// trade, Hong Kong's market is closed.
	NewYorkTrading = time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)
	// HongKongTrading is a Wednesday at 11:00 in Hong Kong: its stocks
	// trade, US stocks do not.
	HongKongTrading = time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC)

	// USHoliday is Thanksgiving 2025 at 11:00 in New York, a weekday on
	// which the US market stays closed.
	USHoliday = time.Date(2025, 11, 27, 16, 0, 0, 0, time.UTC)
	// USHalfDay is the day after Thanksgiving 2025 at 12:30 in New York,
	// half an hour before the market's early close.
	USHalfDay = time.Date(2025, 11, 28, 17, 30, 0, 0, time.UTC)
	// EarlyUTC is a Thursday at 02:00 UTC: the UTC date is a day ahead
	// of New York's, and Hong Kong trades.
	EarlyUTC = time.Date(2025, 6, 5, 2, 0, 0, 0, time.UTC)
	// DSTChange is the Monday after New York moved to summer time, 9
	// March 2025, at 09:45 there: the market has been open a quarter of
	// an hour, which it would not have been an hour earlier by the
	// winter offset.
	DSTChange = time.Date(2025, 3, 10, 13, 45, 0, 0, time.UTC)
)

// Clocks returns the first four clocks above by the names a test's
// subtests take: "weekend", "night", "New York trading" and "Hong Kong
// trading".
func Clocks() map[string]time.Time {
	return map[string]time.Time{
		"weekend":           Weekend,
		"night":             Night,
		"New York trading":  NewYorkTrading,
		"Hong Kong trading": HongKongTrading,
	}
}

// Moments returns every clock above: Clocks, and the instants that catch
// a program computing dates and hours on its own (a holiday, a half day,
// a UTC date ahead of New York's, the day after a change of offset), by
// name.
func Moments() map[string]time.Time {
	m := Clocks()
	m["US holiday"] = USHoliday
	m["US half day"] = USHalfDay
	m["02:00 UTC"] = EarlyUTC
	m["DST change"] = DSTChange
	return m
}

// At is the simulator's option that stops its clock at t.
func At(t time.Time) markettest.Option { return markettest.WithFixedClock(t) }

// IsWeekend reports whether d is a Saturday or a Sunday.
func IsWeekend(d time.Weekday) bool { return d == time.Saturday || d == time.Sunday }

// IsWeekday reports whether d is Monday to Friday.
func IsWeekday(d time.Weekday) bool { return !IsWeekend(d) }
