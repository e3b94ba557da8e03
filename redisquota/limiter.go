package redisquota

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/redisquota/internal/wait"
)

// ErrRedisTimeout is matched by the error of a Wait whose request Redis did
// not answer within the Limiter's timeout (WithRedisTimeout). The Limiter
// counts it as Redis failing: WithFallback takes over.
var ErrRedisTimeout = errors.New("redisquota: Redis did not answer within the Limiter's timeout")

// ErrWindowConflict is matched by the error of a Wait on a key that counts
// calls in another window than the Limiter's: a Limiter with another
// WithWindow wrote it, and it has not expired since. Nothing is taken.
var ErrWindowConflict = errors.New("redisquota: window conflict")

// minFallbackTry is the least time a Limiter with a fallback gives Redis
// before it counts Redis as failing. It keeps a caller whose deadline is
// very near from sending the whole process to its fallback.
const minFallbackTry = 50 * time.Millisecond

// maxPending bounds the calls a Limiter keeps to give back with its next
// request to Redis.
const maxPending = 256

// Limiter paces calls to a quota shared, through one Redis key, by every
// process that uses the key. It is safe for concurrent use and satisfies
// itick.Limiter.
type Limiter struct {
	rdb       redis.UniversalClient
	key       string
	perMinute int
	window    time.Duration
	timeout   time.Duration
	log       *slog.Logger
	fb        *fallback // nil: fail closed

	now    func() time.Time // the local clock; only the fallback reads it
	prefix string           // this Limiter's part of every member
	seq    atomic.Uint64

	mu      sync.Mutex
	pending []string // calls to give back with the next request to Redis

	dials atomic.Pointer[dialOutcome] // the client's latest dial (dialWatch)
}

// New returns a Limiter that lets at most perMinute calls start in any
// window (DefaultWindow unless WithWindow), counted in the Redis key key
// across every process that uses it. New sends nothing to Redis; it adds
// a hook to rdb that notes how each of its dials ends, so that a Wait that
// Redis leaves unanswered can say why (a refused connection).
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
	s := settings{window: DefaultWindow, timeout: DefaultRedisTimeout, log: slog.Default()}
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
		timeout:   s.timeout,
		log:       s.log,
		now:       time.Now,
		prefix:    hex.EncodeToString(id[:]) + ":",
	}
	if s.share > 0 {
		l.fb = newFallback(l, s.share)
	}
	rdb.AddHook(dialWatch{&l.dials})
	return l, nil
}

// Limit returns the quota as calls per window and the window.
func (l *Limiter) Limit() (int, time.Duration) { return l.perMinute, l.window }

// Wait blocks until this process may make one call without putting any
// window over the quota, counted across every process on the key. It
// returns within moments of ctx ending, whatever Redis does, with ctx's
// error, and at once with one wrapping context.DeadlineExceeded when the
// next slot lies past ctx's deadline. Unless WithFallback was given, Redis
// failing or not answering in time (ErrRedisTimeout) is an error too.
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
// from ctx or the key.
func (l *Limiter) waitRedis(ctx context.Context) (redisFailed bool, err error) {
	member := l.prefix + strconv.FormatUint(l.seq.Add(1), 36)
	for {
		r, err := l.try(ctx, member)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, fmt.Errorf("redisquota: waiting on key %q: %w", l.key, ctxErr)
		}
		if err != nil {
			return true, err
		}
		switch r.code {
		case granted:
			return false, nil
		case otherWindow:
			return false, fmt.Errorf("%w: key %q counts calls in a %s window, this Limiter's is %s; give each window its own key",
				ErrWindowConflict, l.key, time.Duration(r.value)*time.Microsecond, l.window)
		case full:
		default: // givenBack: this call's member is given back only once its Wait has ended
			return false, fmt.Errorf("redisquota: key %q: unexpected answer %d from the quota script", l.key, r.code)
		}
		delay := time.Duration(min(r.value, math.MaxInt64/1000)) * time.Microsecond
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			return false, &wait.TooLong{What: fmt.Sprintf("redisquota: next slot on key %q", l.key), Wait: delay}
		}
		if !wait.Sleep(ctx, delay) {
			return false, fmt.Errorf("redisquota: waiting on key %q: %w", l.key, ctx.Err())
		}
	}
}

// try runs the script once to take member's call. It returns when the
// answer comes, when ctx ends, or when the Limiter's timeout (with a
// fallback, half of ctx's time) passes, whichever is first, and never waits
// on Redis past that: the request goes on in the background, bounded by
// the timeout, and gives the call back if it was recorded for a caller that
// has gone. err is a Redis failure, ErrRedisTimeout included; when ctx has
// ended, the caller looks at ctx.
func (l *Limiter) try(ctx context.Context, member string) (reply, error) {
	back := l.takePending()
	// The request keeps ctx's values (for tracing hooks) but not its end:
	// go-redis reads a context's deadline, not its cancellation, and the
	// request must end by the timeout in any case.
	start := time.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	answer := make(chan reply) // unbuffered: the answer has one owner
	gone := make(chan struct{})
	go func() {
		defer cancel()
		r := l.run(rctx, member, back)
		if r.err != nil {
			l.addPending(back...)
		}
		select {
		case answer <- r:
		case <-gone:
			l.settleLate(ctx, member, r)
		}
	}()
	// With a fallback, the caller waits for Redis at most half of its
	// time, so that the fallback has the other half; the request itself
	// goes on for the whole timeout, to learn whether it recorded the call.
	bound := l.timeout
	var cut <-chan time.Time
	if deadline, ok := ctx.Deadline(); ok && l.fb != nil {
		if b := max(time.Until(deadline)/2, minFallbackTry); b < bound {
			bound = b
			timer := time.NewTimer(b)
			defer timer.Stop()
			cut = timer.C
		}
	}
	select {
	case r := <-answer:
		if ctx.Err() != nil {
			// The answer came as ctx ended: the caller will not use it.
			if r.err == nil && r.code == granted {
				go l.giveBack(ctx, member)
			} else {
				l.settleLate(ctx, member, r)
			}
			return r, nil
		}
		if r.err != nil {
			if !unsent(r.err) {
				l.addPending(member)
			}
			// go-redis may see the deadline pass on its connection before
			// rctx's own timer marks it.
			requestDeadline, _ := rctx.Deadline()
			return r, l.redisError(l.cause(r.err, start), !time.Now().Before(requestDeadline), bound)
		}
		return r, nil
	case <-ctx.Done():
	case <-rctx.Done():
	case <-cut:
	}
	close(gone)
	if ctx.Err() != nil {
		return reply{}, ctx.Err()
	}
	return reply{}, l.timeoutError(bound, l.dialFailure(start))
}

// settleLate handles the answer to a request whose caller has gone: a call
// the script recorded is given back now, and one whose fate is unknown
// with the next request.
func (l *Limiter) settleLate(ctx context.Context, member string, r reply) {
	switch {
	case r.err == nil && r.code == granted:
		l.giveBack(ctx, member)
	case r.err != nil && !unsent(r.err):
		l.addPending(member)
	}
}

// giveBack removes a recorded call whose caller has gone, within the
// Limiter's timeout, together with the calls pending. What fails stays
// pending for the next request.
func (l *Limiter) giveBack(ctx context.Context, member string) {
	back := append(l.takePending(), member)
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	defer cancel()
	if r := l.run(gctx, "", back); r.err != nil {
		l.addPending(back...)
		l.log.Debug("redisquota: could not give back a call whose wait ended; the next request to Redis gives it back",
			"key", l.key, "err", r.err)
	}
}

// takePending returns the calls waiting to be given back and forgets them.
func (l *Limiter) takePending() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) == 0 {
		return nil
	}
	back := l.pending
	l.pending = nil
	return back
}

// addPending keeps calls to give back with the next request, up to
// maxPending, forgetting the oldest: a call given back late counts only
// until it leaves the window anyway.
func (l *Limiter) addPending(members ...string) {
	if len(members) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, members...)
	if n := len(l.pending) - maxPending; n > 0 {
		l.pending = append(l.pending[:0:0], l.pending[n:]...)
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
