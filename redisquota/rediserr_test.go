package redisquota

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisDownErrorWrapsRedis has Redis down in every way a client meets
// it, with go-redis's default options (which dial a down server again and
// again, past the Limiter's timeout, and then report only the deadline)
// and others: the error of Wait wraps Redis's, so that errors.As and
// errors.Is find it (the refused dial's *net.OpError, the read's timeout),
// and never matches a context error.
func TestRedisDownErrorWrapsRedis(t *testing.T) {
	t.Parallel()
	clients := []struct {
		name string
		opts redis.Options
	}{
		{"default options", redis.Options{}},
		{"no retries", redis.Options{MaxRetries: -1}},
		{"context timeouts", redis.Options{ContextTimeoutEnabled: true}},
	}
	refused := func(err error) (string, bool) {
		var opErr *net.OpError
		ok := errors.As(err, &opErr) && errors.Is(err, syscall.ECONNREFUSED)
		if !ok {
			return "", false
		}
		return opErr.Error(), true
	}
	downs := []struct {
		name string
		down func(t *testing.T) (addr string, stop func())
		// redis sets the client's options; found says whether err wraps
		// the error Redis's failure gives, and its text.
		redis func(*redis.Options)
		found func(err error) (string, bool)
	}{
		{"killed", func(t *testing.T) (string, func()) {
			srv := startRedis(t)
			return srv.Addr(), srv.kill
		}, func(*redis.Options) {}, refused},
		{"closed port", func(t *testing.T) (string, func()) {
			return "127.0.0.1:" + strconv.Itoa(freePort(t)), nil
		}, func(*redis.Options) {}, refused},
		// A server that stops answering, read by a client whose read
		// timeout is shorter than the Limiter's: go-redis's i/o timeout.
		{"paused, short read timeout", func(t *testing.T) (string, func()) {
			srv := startRedis(t)
			return srv.Addr(), srv.pause
		}, func(o *redis.Options) { o.ReadTimeout = 100 * time.Millisecond }, func(err error) (string, bool) {
			var netErr net.Error
			if !errors.As(err, &netErr) || !netErr.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
				return "", false
			}
			return netErr.Error(), true
		}},
	}
	for _, c := range clients {
		for _, d := range downs {
			t.Run(c.name+"/"+d.name, func(t *testing.T) {
				t.Parallel()
				addr, stop := d.down(t)
				opts := c.opts
				opts.Addr = addr
				d.redis(&opts)
				rdb := redis.NewClient(&opts)
				t.Cleanup(func() { rdb.Close() })
				l, err := New(rdb, "quota", 10, WithWindow(time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				if stop != nil {
					if err := l.Wait(t.Context()); err != nil {
						t.Fatal(err)
					}
					stop()
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				for i := range 2 {
					err := l.Wait(ctx)
					t.Logf("Wait %d: %v", i, err)
					text, ok := d.found(err)
					if !ok {
						t.Fatalf("Wait %d with Redis down = %v; want Redis's error wrapped", i, err)
					}
					if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
						t.Errorf("Wait %d = %v matches a context error; the context was not the reason", i, err)
					}
					if !strings.Contains(err.Error(), `key "quota"`) || !strings.Contains(err.Error(), text) {
						t.Errorf("error %q does not name the key and Redis's error", err)
					}
				}
			})
		}
	}
}

// The wrapper finds what is in Redis's error, ErrRedisTimeout when Redis
// did not answer in time, and never a context's end.
func TestRedisFailureMatches(t *testing.T) {
	t.Parallel()
	l := &Limiter{key: "quota"}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	read := &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}
	rerr := redis.ErrClosed
	tests := []struct {
		name          string
		err           error
		want, notWant []error
	}{
		{"a refused dial", l.redisError(dial, false, time.Second), []error{syscall.ECONNREFUSED, dial}, []error{ErrRedisTimeout, context.DeadlineExceeded}},
		{"a read timeout", l.redisError(read, false, time.Second), []error{ErrRedisTimeout, read}, []error{context.DeadlineExceeded}},
		{"go-redis's deadline", l.redisError(context.DeadlineExceeded, true, time.Second), []error{ErrRedisTimeout}, []error{context.DeadlineExceeded}},
		{"a closed client", l.redisError(rerr, false, time.Second), []error{redis.ErrClosed}, []error{ErrRedisTimeout}},
		{"no answer, a dial failed", l.timeoutError(time.Second, dial), []error{ErrRedisTimeout, syscall.ECONNREFUSED}, []error{context.DeadlineExceeded}},
		{"no answer", l.timeoutError(time.Second, nil), []error{ErrRedisTimeout}, []error{context.DeadlineExceeded, syscall.ECONNREFUSED}},
	}
	for _, tt := range tests {
		for _, w := range tt.want {
			if !errors.Is(tt.err, w) {
				t.Errorf("%s: %v does not match %v", tt.name, tt.err, w)
			}
		}
		for _, w := range tt.notWant {
			if errors.Is(tt.err, w) {
				t.Errorf("%s: %v matches %v", tt.name, tt.err, w)
			}
		}
	}
}

// timeoutErr is a network timeout, which matches context.DeadlineExceeded
// as the net package's does.
type timeoutErr struct{}

func (timeoutErr) Error() string        { return "i/o timeout" }
func (timeoutErr) Timeout() bool        { return true }
func (timeoutErr) Temporary() bool      { return true }
func (timeoutErr) Is(target error) bool { return target == context.DeadlineExceeded }
