package redisquota_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/redisquota"
)

func ExampleNew() {
	// ContextTimeoutEnabled lets go-redis end its reads and writes by the
	// Limiter's deadlines, which bounds what runs in the background.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	// One key per iTick token; every process of the fleet names the same.
	lim, err := redisquota.New(rdb, "itick:quota:{acct-1}", redisquota.PerMinute(itick.PlanBase))
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := itick.NewClient("your-token", itick.WithPlan(itick.PlanBase), itick.WithLimiter(lim))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = client // every request of every process now waits on the shared quota
}

// A fleet of four processes that would rather go on at a quarter of the
// quota each than stop when Redis fails or hangs.
func ExampleWithFallback() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	lim, err := redisquota.New(rdb, "itick:quota:{acct-1}", redisquota.PerMinute(itick.PlanBase),
		redisquota.WithFallback(1.0/4),
		// Redis answers in a millisecond; one that has not in 300 ms is
		// failing, and the fallback takes the call.
		redisquota.WithRedisTimeout(300*time.Millisecond),
		redisquota.WithLogger(logger))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Through Redis while it answers; under the local limiter, at 30 calls
	// a window, while it does not (the switch and the return are logged).
	if err := lim.Wait(ctx); err != nil {
		fmt.Println(err) // ctx's error, or the quota's slot past ctx's deadline
		return
	}
	// ... make the call
}
