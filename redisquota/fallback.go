package redisquota

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/d19c4e34/itick/redisquota/internal/quota"
	"github.com/d19c4e34/itick/redisquota/internal/wait"
)

// probeInterval is how often a Limiter on its fallback tries Redis again.
const probeInterval = time.Second

// fallback paces calls locally while Redis fails.
type fallback struct {
	l     *Limiter
	share float64
	local *quota.Window

	mu        sync.Mutex
	down      bool      // Redis failed; calls go to local
	probing   bool      // one caller is trying Redis
	nextProbe time.Time // on l.now's clock
}

func newFallback(l *Limiter, share float64) *fallback {
	n := max(1, int(math.Floor(float64(l.perMinute)*share)))
	sleep := func(ctx context.Context, d time.Duration) error {
		if !wait.Sleep(ctx, d) {
			return ctx.Err()
		}
		return nil
	}
	return &fallback{l: l, share: share, local: quota.NewWithClock(n, l.window, func() time.Time { return l.now() }, sleep)}
}

// wait takes a slot through Redis while it works, and from the local
// limiter while it does not.
func (f *fallback) wait(ctx context.Context) error {
	probe, useRedis := f.route()
	if !useRedis {
		return f.local.Wait(ctx)
	}
	redisFailed, err := f.l.waitRedis(ctx)
	f.settle(probe, redisFailed, err)
	if redisFailed {
		return f.local.Wait(ctx)
	}
	return err
}

// route says whether this call asks Redis: always while it works, and
// while it does not, one caller at a time once probeInterval has passed.
func (f *fallback) route() (probe, useRedis bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.down {
		return false, true
	}
	if f.probing || f.l.now().Before(f.nextProbe) {
		return false, false
	}
	f.probing = true
	return true, true
}

// settle records what a call through Redis found, and logs a switch.
func (f *fallback) settle(probe, redisFailed bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if probe {
		f.probing = false
	}
	switch {
	case redisFailed:
		f.nextProbe = f.l.now().Add(probeInterval)
		if !f.down {
			f.down = true
			n, per := f.local.Limit()
			f.l.log.Warn("redisquota: Redis failed; pacing this process alone at its share of the quota",
				"key", f.l.key, "share", f.share, "calls", n, "window", per, "err", err)
		}
	case err == nil && f.down:
		f.down = false
		f.l.log.Info("redisquota: Redis is back; the shared quota applies again", "key", f.l.key)
	}
}
