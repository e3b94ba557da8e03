package itick

import (
	"sync/atomic"
	"time"
)

// Stats counts what a Client has done since it was made, for a service to
// export to its metrics (see examples/expvar). Every field only grows, so a
// rate is the difference of two snapshots over the time between them.
type Stats struct {
	// Requests is how many requests the client has made: one per call of a
	// single-chunk method or Get, one per chunk of a batch call, one per
	// page of an iterator. Calls refused before sending (bad input) are not
	// counted.
	Requests int64 `json:"requests"`
	// Errors is how many of those Requests ended in an error, whatever the
	// cause: transport, service, decoding or the caller's context.
	Errors int64 `json:"errors"`
	// Attempts is how many HTTP requests went out, retries and the hops of
	// redirects included. One counts once its rate-limiter wait is over.
	Attempts int64 `json:"attempts"`
	// Retries is how many of those Attempts repeated an earlier one of the
	// same request; a redirect's hop is not a retry. It is added when the
	// request ends.
	Retries int64 `json:"retries"`
	// RateLimited is how many responses had HTTP status 429, whether or
	// not a retry then succeeded.
	RateLimited int64 `json:"rate_limited"`
	// BytesRead is the size of every response body read, over all attempts.
	BytesRead int64 `json:"bytes_read"`
	// LimiterWait is the time attempts spent waiting on the client-side rate
	// limiter, summed over attempts (so concurrent waits add up); in JSON,
	// nanoseconds.
	LimiterWait time.Duration `json:"limiter_wait_ns"`
}

// Stats returns the client's counters. It is cheap and safe to call from any
// goroutine at any time; each field is read atomically, but the fields are
// not one snapshot, so a request in flight may show in one and not yet in
// another.
func (c *Client) Stats() Stats {
	t := c.attempt.Counters()
	return Stats{
		Requests:    c.stats.requests.Load(),
		Errors:      c.stats.errors.Load(),
		Attempts:    t.Attempts,
		Retries:     c.stats.retries.Load(),
		RateLimited: t.RateLimited,
		BytesRead:   t.BytesRead,
		LimiterWait: t.LimiterWait,
	}
}

// clientStats are the counters the client keeps itself; the transport
// keeps those it sees per attempt.
type clientStats struct {
	requests atomic.Int64
	errors   atomic.Int64
	retries  atomic.Int64
}

// end counts a request's outcome.
func (s *clientStats) end(err error) {
	if err != nil {
		s.errors.Add(1)
	}
}
