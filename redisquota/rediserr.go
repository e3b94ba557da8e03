package redisquota

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisFailure is why a request to Redis failed: Redis's own error, which
// errors.Is and errors.As find (a *net.OpError, a redis.Error,
// redis.ErrClosed...), and ErrRedisTimeout when Redis did not answer in
// time. A context error inside Redis's, such as a dial's i/o timeout, is
// not matched: the caller's context was not the reason.
type redisFailure struct {
	msg     string
	timeout bool  // matches ErrRedisTimeout
	err     error // Redis's; nil when none is known (a hung server says nothing)
}

func (e *redisFailure) Error() string { return e.msg }

// Unwrap gives ErrRedisTimeout when Redis did not answer in time; Is and
// As reach Redis's error.
func (e *redisFailure) Unwrap() error {
	if e.timeout {
		return ErrRedisTimeout
	}
	return nil
}

// Is matches what Redis's error matches, except a context's end.
func (e *redisFailure) Is(target error) bool {
	if e.err == nil || target == context.DeadlineExceeded || target == context.Canceled {
		return false
	}
	return errors.Is(e.err, target)
}

// As finds what is in Redis's error.
func (e *redisFailure) As(target any) bool {
	return e.err != nil && errors.As(e.err, target)
}

// redisError wraps err, from a request that failed; timedOut says the
// request's own deadline had passed, bound is how long the caller waited.
// An error go-redis took from that deadline must not match
// context.DeadlineExceeded: the caller's context was not the reason.
func (l *Limiter) redisError(err error, timedOut bool, bound time.Duration) error {
	if onlyContext(err) {
		// go-redis gave up on the request's deadline: Redis said nothing.
		return &redisFailure{msg: fmt.Sprintf("%v (%s, key %q): %v", ErrRedisTimeout, bound, l.key, err), timeout: true}
	}
	if timedOut || errors.Is(err, context.DeadlineExceeded) {
		return &redisFailure{msg: fmt.Sprintf("%v (%s, key %q): %v", ErrRedisTimeout, bound, l.key, err), timeout: true, err: err}
	}
	return &redisFailure{msg: fmt.Sprintf("redisquota: key %q: %v", l.key, err), err: err}
}

// timeoutError is the error of a request Redis did not answer within
// bound; last is the latest dial of it that failed, if one did.
func (l *Limiter) timeoutError(bound time.Duration, last error) error {
	msg := fmt.Sprintf("%v (%s, key %q)", ErrRedisTimeout, bound, l.key)
	if last != nil {
		msg += ": " + last.Error()
	}
	return &redisFailure{msg: msg, timeout: true, err: last}
}

// onlyContext reports an error that is a context's end and nothing from
// the network or the server.
func onlyContext(err error) bool {
	var netErr net.Error
	return (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) && !errors.As(err, &netErr)
}

// dialWatch is a go-redis hook that keeps the outcome of the client's
// latest dial. go-redis dials a down server again and again within one
// request, on a context of its own, and gives up on the request's
// deadline with the context's error alone: the watch keeps why Redis
// could not be reached.
type dialWatch struct{ last *atomic.Pointer[dialOutcome] }

// dialOutcome is how one dial ended, and when.
type dialOutcome struct {
	err error
	at  time.Time
}

func (w dialWatch) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		w.last.Store(&dialOutcome{err: err, at: time.Now()})
		return conn, err
	}
}

func (w dialWatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (w dialWatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// dialFailure is the error of the client's latest dial when it failed at
// or after start, nil otherwise.
func (l *Limiter) dialFailure(start time.Time) error {
	if d := l.dials.Load(); d != nil && !d.at.Before(start) {
		return d.err
	}
	return nil
}

// cause is Redis's error for a request started at start that failed with
// err: err, unless it is only the request's deadline, when a dial that
// failed since says why.
func (l *Limiter) cause(err error, start time.Time) error {
	if onlyContext(err) {
		if d := l.dialFailure(start); d != nil {
			return d
		}
	}
	return err
}
