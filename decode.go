package itick

import (
	"math"
	"time"
)

// Timestamps beyond year 9999 are refused rather than wrapped.
const (
	maxUnixSeconds = 253402300799
	maxUnixMillis  = maxUnixSeconds*1000 + 999
)

// intFromFloat is the integer rule: a whole number within ±2^53.
func intFromFloat(f float64) (int, bool) {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// timeFromMillis is the millisecond timestamps' rule: 0 is the zero Time,
// anything beyond year 9999 is refused, fractions of a millisecond are
// dropped.
func timeFromMillis(f float64) (time.Time, bool) {
	if math.Abs(f) > maxUnixMillis {
		return time.Time{}, false
	}
	// A time under one unit past the epoch floors to 0, which encodes as
	// the zero Time; decoding it as the epoch would not round-trip.
	f = math.Floor(f)
	if f == 0 {
		return time.Time{}, true
	}
	return time.UnixMilli(int64(f)).UTC(), true
}
