package itick

import "time"

// WithClock sets the client's clock: its "now" for everything that depends
// on the date or the hour. A range's end is capped at it (a resumed one's
// too), WithClosedOnly keeps the candles closed by it, and WithPrevClose
// dates by it a quote that carries no time, or one far past it. Pacing,
// retries, timeouts, WithPrevClose's waits between snapshots and a
// Stream's heartbeat and stale watchdog measure real elapsed time and do
// not read it. The default is time.Now; a nil func is ErrInvalidArgument.
// now is called from the goroutines of calls and Streams, so it must be
// safe for concurrent use, as a markettest.ManualClock's Now is.
//
// A test that pins a simulator's clock pins the client's to the same one
// (markettest's Server.Client does), so that both agree on which candles
// have closed and which markets trade, whatever the date and hour it runs.
func WithClock(now func() time.Time) Option {
	return func(s *settings) error {
		if now == nil {
			return invalidArg("WithClock: nil clock")
		}
		s.clock = &clock{now}
		return nil
	}
}

// clock holds the client's now: whatever in the package depends on the
// date or the hour reads it through Client.Now, never time.Now. Client and
// the options' settings hold it by pointer: a func field would make them
// incomparable.
type clock struct{ now func() time.Time }

var realClock = &clock{time.Now}

// Now returns the time on the client's clock (see WithClock): what a
// program that works out dates, such as "the last two years", should read
// instead of time.Now, so that its test can pin them.
func (c *Client) Now() time.Time { return c.clock.now() }
