package redisquota

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wait"
)

// DefaultWindow is the window New counts perMinute calls in unless
// WithWindow sets another: the window of the SDK's own plan limiter, a
// minute plus a second of margin, so requests that reach the service late
// by network jitter cannot put the service's own minute over the quota.
const DefaultWindow = time.Minute + time.Second

// releaseTimeout bounds the clean-up that gives back a call recorded for a
// context that ended while the script ran. It runs past that context, or
// the call would stay counted for a whole window.
const releaseTimeout = time.Second

// takeScript records a call in the sorted set KEYS[1] when the window has
// room, and otherwise answers how long until it has. Scores and the window
// are microseconds on the Redis server's clock, which stay exact in Lua's
// doubles (2^53 µs is 285 years). ARGV: window (µs), calls per window,
// this call's member. It returns 0 when the call was recorded, and the
// wait in µs (at least 1, at most the window) when it was not.
var takeScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
if wait > window then wait = window end
return wait
`)

// Limiter paces calls to a quota shared, through one Redis key, by every
// process that uses the key. It is safe for concurrent use and satisfies
// itick.Limiter.
type Limiter struct {
	rdb       redis.UniversalClient
	key       string
	perMinute int
	window    time.Duration
	log       *slog.Logger
	fb        *fallback // nil: fail closed

	now    func() time.Time // the local clock; only the fallback reads it
	prefix string           // this Limiter's part of every member
	seq    atomic.Uint64
}

// Option configures a Limiter. A bad one makes New fail with an error
// matching itick.ErrInvalidArgument.
type Option func(*settings) error

type settings struct {
	window time.Duration
	share  float64 // 0: no fallback
	log    *slog.Logger
}

// WithWindow sets the window perMinute calls are counted in, exactly: no
// margin is added. The default is DefaultWindow. It must be at least a
// millisecond, the resolution of the key's expiry.
func WithWindow(d time.Duration) Option {
	return func(s *settings) error {
		if d < time.Millisecond {
			return invalidArg("WithWindow: window %s, want at least 1ms", d)
		}
		s.window = d
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

// WithLogger sets where the Limiter logs: the fallback's switches, and a
// call it could not give back to Redis after its context ended. The
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

// New returns a Limiter that lets at most perMinute calls start in any
// window (DefaultWindow unless WithWindow), counted in the Redis key key
// across every process that uses it. New sends nothing to Redis.
//
// A nil client, an empty key or a perMinute below 1 is an error matching
// itick.ErrInvalidArgument.
func New(rdb redis.UniversalClient, key string, perMinute int, opts ...Option) (*Limiter, error) {
	if rdb == nil || isNilPointer(rdb) {
		return nil, invalidArg("New: nil redis client")
	}
	if key == "" {
		return nil, invalidArg("New: empty key")
	}
	if perMinute < 1 {
		return nil, invalidArg("New: perMinute %d, want at least 1 (PerMinute gives 0 for PlanEnterprise, whose quota is the contract's)", perMinute)
	}
	s := settings{window: DefaultWindow, log: slog.Default()}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	var id [8]byte
	_, _ = rand.Read(id[:]) // never fails, per crypto/rand
	l := &Limiter{
		rdb:       rdb,
		key:       key,
		perMinute: perMinute,
		window:    s.window,
		log:       s.log,
		now:       time.Now,
		prefix:    hex.EncodeToString(id[:]) + ":",
	}
	if s.share > 0 {
		l.fb = newFallback(l, s.share)
	}
	return l, nil
}

// Limit returns the quota as calls per window and the window.
func (l *Limiter) Limit() (int, time.Duration) { return l.perMinute, l.window }

// Wait blocks until this process may make one call without putting any
// window over the quota, counted across every process on the key. It
// returns ctx's error, taking nothing, when ctx ends first, and at once an
// error wrapping context.DeadlineExceeded when the next slot lies past
// ctx's deadline. When Redis fails it returns an error wrapping Redis's,
// unless WithFallback was given.
func (l *Limiter) Wait(ctx context.Context) error {
	if ctx == nil {
		return invalidArg("Wait: nil context")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.fb == nil {
		_, err := l.waitRedis(ctx)
		return err
	}
	return l.fb.wait(ctx)
}

// waitRedis takes a slot through Redis, sleeping between tries as the
// script says. redisFailed reports that err came from Redis rather than
// from ctx.
func (l *Limiter) waitRedis(ctx context.Context) (redisFailed bool, err error) {
	member := l.prefix + strconv.FormatUint(l.seq.Add(1), 36)
	windowMicros := l.window.Microseconds()
	for {
		d, err := takeScript.Run(ctx, l.rdb, []string{l.key}, windowMicros, l.perMinute, member).Int64()
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The script may have recorded the call before ctx ended, on
			// the server or while the answer was on its way.
			if err != nil || d == 0 {
				l.release(ctx, member)
			}
			return false, fmt.Errorf("redisquota: waiting on key %q: %w", l.key, ctxErr)
		}
		if err != nil {
			return true, fmt.Errorf("redisquota: key %q: %w", l.key, err)
		}
		if d == 0 {
			return false, nil
		}
		delay := time.Duration(min(d, math.MaxInt64/1000)) * time.Microsecond
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			return false, fmt.Errorf("redisquota: next slot on key %q in %s is past the deadline: %w",
				l.key, delay.Round(time.Millisecond), context.DeadlineExceeded)
		}
		if !wait.Sleep(ctx, delay) {
			return false, fmt.Errorf("redisquota: waiting on key %q: %w", l.key, ctx.Err())
		}
	}
}

// release removes a call the script recorded for a context that ended.
func (l *Limiter) release(ctx context.Context, member string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := l.rdb.ZRem(rctx, l.key, member).Err(); err != nil {
		l.log.Warn("redisquota: could not give back a call whose context ended; it counts until it leaves the window",
			"key", l.key, "err", err)
	}
}

// isNilPointer reports a nil *redis.Client (or other pointer) in a
// non-nil interface, which would panic on the first Wait.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// invalidArg wraps itick.ErrInvalidArgument with what was wrong.
func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: redisquota.%s", itick.ErrInvalidArgument, fmt.Sprintf(format, args...))
}
