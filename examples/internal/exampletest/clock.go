package exampletest

import (
	"time"

	"github.com/d19c4e34/itick/markettest"
)

// The simulator's clocks the programs run at, in the first week of June
// 2025: what a program prints depends on which markets are open.
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
)

// Clocks returns the four clocks above by the names a test's subtests
// take: "weekend", "night", "New York trading" and "Hong Kong trading".
func Clocks() map[string]time.Time {
	return map[string]time.Time{
		"weekend":           Weekend,
		"night":             Night,
		"New York trading":  NewYorkTrading,
		"Hong Kong trading": HongKongTrading,
	}
}

// At is the simulator's option that stops its clock at t.
func At(t time.Time) markettest.Option {
	return markettest.WithClock(func() time.Time { return t })
}

// Recent is the latest instant before now at hh:mm UTC on a day that day
// accepts. A program that computes its dates from the real clock runs
// with the simulator's clock at such an instant, close to it.
func Recent(day func(time.Weekday) bool, hh, mm int) time.Time {
	now := time.Now().UTC()
	t := time.Date(now.Year(), now.Month(), now.Day(), hh, mm, 0, 0, time.UTC)
	for !t.Before(now) || !day(t.Weekday()) {
		t = t.AddDate(0, 0, -1)
	}
	return t
}

// IsWeekend reports whether d is a Saturday or a Sunday.
func IsWeekend(d time.Weekday) bool { return d == time.Saturday || d == time.Sunday }

// IsWeekday reports whether d is Monday to Friday.
func IsWeekday(d time.Weekday) bool { return !IsWeekend(d) }

// RecentClocks returns the [Recent] counterparts of [Clocks] but Hong
// Kong's, by the same names: the last weekend noon, weekday 00:30 and
// weekday 15:30 UTC (New York trading) before now.
func RecentClocks() map[string]time.Time {
	return map[string]time.Time{
		"weekend":          Recent(IsWeekend, 12, 0),
		"night":            Recent(IsWeekday, 0, 30),
		"New York trading": Recent(IsWeekday, 15, 30),
	}
}
