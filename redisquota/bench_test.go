package redisquota

import (
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// BenchmarkWait measures what a Wait costs when the quota does not hold it
// back: one round trip to a Redis on loopback for the shared limiter, next
// to the in-process rate.Limiter a single process would use.
func BenchmarkWait(b *testing.B) {
	b.Run("redis", func(b *testing.B) {
		srv := startRedis(b)
		rdb := srv.client(b)
		// A quota far above what the benchmark calls, over a window short
		// enough that the key holds about as many calls (10,000 a second
		// for 100 ms) as the largest plan's, 1,200, would.
		l, err := New(rdb, "bench", 1<<30, WithWindow(100*time.Millisecond))
		if err != nil {
			b.Fatal(err)
		}
		ctx := b.Context()
		if err := l.Wait(ctx); err != nil { // loads the script
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := l.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(calls(b, rdb, "bench")), "calls-in-key")
	})
	// ping is one plain round trip to the same Redis: the floor of redis.
	b.Run("ping", func(b *testing.B) {
		srv := startRedis(b)
		rdb := srv.client(b)
		ctx := b.Context()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rate", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1<<30), 1<<30)
		ctx := b.Context()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := l.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
