package redisquota

import (
	"log/slog"
	"time"
)

// DefaultWindow is the window New counts perMinute calls in unless
// WithWindow sets another: the window of the SDK's own plan limiter, a
// minute plus a second of margin, so requests that reach the service late
// by network jitter cannot put the service's own minute over the quota.
const DefaultWindow = time.Minute + time.Second

// DefaultRedisTimeout is how long a Limiter waits for Redis to answer one
// of its requests unless WithRedisTimeout sets another.
const DefaultRedisTimeout = time.Second

// Option configures a Limiter. A bad one makes New fail with an error
// matching itick.ErrInvalidArgument.
type Option func(*settings) error

type settings struct {
	window  time.Duration
	timeout time.Duration
	share   float64 // 0: no fallback
	log     *slog.Logger
}

// WithWindow sets the window perMinute calls are counted in, exactly: no
// margin is added. The default is DefaultWindow. It must be at least a
// millisecond, the resolution of the key's expiry, and the same in every
// process on the key: Wait refuses a key that counts in another window
// with an error matching ErrWindowConflict.
func WithWindow(d time.Duration) Option {
	return func(s *settings) error {
		if d < time.Millisecond {
			return invalidArg("WithWindow: window %s, want at least 1ms", d)
		}
		s.window = d
		return nil
	}
}

// WithRedisTimeout sets how long the Limiter waits for Redis to answer one
// of its requests (default DefaultRedisTimeout), and so how long its work
// in the background lasts. A Wait whose request is not answered in time
// fails as when Redis fails, with an error matching ErrRedisTimeout, or goes
// on under WithFallback's limiter: choose it well above Redis's slowest
// answers.
func WithRedisTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return invalidArg("WithRedisTimeout: timeout %s, want more than 0", d)
		}
		s.timeout = d
		return nil
	}
}

// WithFallback makes Wait go on when Redis fails instead of returning the
// error: calls are then paced by a limiter in this process alone, at share
// of the quota (in (0, 1]; at least one call per window), and Redis is
// tried again about once a second. Choose share so the processes together
// stay within the quota: 1/n for a fleet of n. The switch is logged at
// Warn with the Redis error, the return at Info.
//
// The local limiter counts only the calls made while it is in use, so
// right after the switch a process may add its share on top of what the
// fleet took through Redis in the same window.
func WithFallback(share float64) Option {
	return func(s *settings) error {
		if !(share > 0 && share <= 1) {
			return invalidArg("WithFallback: share %v, want more than 0 and at most 1", share)
		}
		s.share = share
		return nil
	}
}

// WithLogger sets where the Limiter logs: the fallback's switches at Warn
// and Info, and calls it could not give back to Redis at Debug. The
// default is slog.Default(); nil discards the lines.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		s.log = l
		return nil
	}
}
