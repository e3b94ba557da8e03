package markettest

import "github.com/d19c4e34/itick/internal/wssim"

// The plan's cap on stream connections. The service caps the connections
// one token holds at once, over every asset class, by its plan (Free 1,
// Base 3, Professional 6, Premium 12), and when another connection
// arrives past the cap it drops the current one instead of refusing the
// newcomer (SERVICE-EXTRA.md). A second process with the same token thus
// evicts the first, which reconnects and evicts the second, in a loop:
// the simulator does the same, so the loop shows in tests, and counts
// each drop in StreamStats.Evictions.

// MsgStreamConnLimit is the close reason of a stream connection dropped
// for a newer one of its token past the cap; the close status is 1008,
// policy violation, as for a refused token.
const MsgStreamConnLimit = wssim.MsgConnLimit

// WithStreamMaxConns sets how many stream connections the token may hold
// at once, over every asset class, instead of the plan's
// (itick.Plan.StreamConns); 0 or less lifts the cap. A connection past
// the cap is accepted and the token's oldest one is closed with status
// 1008 and MsgStreamConnLimit, as the service does.
func WithStreamMaxConns(n int) Option {
	return func(c *config) {
		c.streamMaxConns = max(n, 0)
		c.ownMaxConns = true
	}
}

// streamMaxConns is the cap the stream side enforces; 0: none.
func (s *Server) streamMaxConns() int {
	if s.cfg.ownMaxConns {
		return s.cfg.streamMaxConns
	}
	return s.cfg.plan.StreamConns()
}
