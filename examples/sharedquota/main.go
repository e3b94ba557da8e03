// Command sharedquota runs a small fleet of workers, each with its own
// client and its own redisquota.Limiter, against one quota that they share
// through Redis, the way separate processes or machines would. The offline
// simulator enforces the quota and counts what it refuses: nothing.
//
// It uses the Redis at REDIS_URL when that is set (redis://host:6379/0),
// and otherwise starts redis-server from PATH on a free loopback port for
// the length of the run. Without either it says how to get one.
//
//	go run ./examples/sharedquota
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
	"github.com/d19c4e34/itick/markettest"
	"github.com/d19c4e34/itick/redisquota"
)

// The demo's quota is 10 calls in any 2 seconds, so the run takes seconds;
// a real fleet passes redisquota.PerMinute(plan) and keeps the default
// window.
const (
	workers        = 4
	callsPerWorker = 6
	quota          = 10
	window         = 2 * time.Second
	// margin covers the time from a grant in Redis to the request's
	// arrival at the service, as the SDK's default window does with a
	// second on a minute; on a busy machine that time reaches tens of
	// milliseconds.
	margin = 200 * time.Millisecond
)

func main() { exampleenv.Main("sharedquota", run) }

func run(ctx context.Context, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	rdb, stop, err := openRedis(ctx, w)
	if errors.Is(err, errNoRedis) {
		fmt.Fprintln(w, "This example needs Redis. Set REDIS_URL (redis://host:6379/0) to use one you run,")
		fmt.Fprintln(w, "or install redis-server so it can start its own: apt-get install redis-server")
		fmt.Fprintln(w, "(Debian/Ubuntu), brew install redis (macOS).")
		return nil
	}
	if err != nil {
		return err
	}
	defer stop()

	sim := markettest.NewServer(markettest.WithQuota(quota), markettest.WithQuotaWindow(window))
	defer sim.Close()
	fmt.Fprintf(w, "Simulator at %s enforces %d calls in any %s.\n", sim.URL, quota, window)

	// One key per iTick token; a fresh one here so that runs against a
	// shared Redis do not meet. The braces are a Redis Cluster hash tag.
	var id [4]byte
	_, _ = rand.Read(id[:])
	key := "itick:example:quota:{" + hex.EncodeToString(id[:]) + "}"

	type result struct {
		calls int
		err   error
	}
	results := make([]result, workers)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range workers {
		// Each worker builds what a process of its own would.
		lim, err := redisquota.New(rdb, key, quota, redisquota.WithWindow(window+margin))
		if err != nil {
			return err
		}
		client, err := sim.Client(itick.WithLimiter(lim))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range callsPerWorker {
				if _, err := client.Stock.Quote(ctx, itick.RegionUS, "AAPL"); err != nil {
					results[i].err = err
					return
				}
				results[i].calls++
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	total := 0
	for i, r := range results {
		fmt.Fprintf(w, "Worker %d made %d calls.\n", i+1, r.calls)
		if r.err != nil {
			return fmt.Errorf("worker %d: %w", i+1, r.err)
		}
		total += r.calls
	}
	ideal := time.Duration((total+quota-1)/quota-1) * window
	fmt.Fprintf(w, "%d calls in %s; the quota allows them in no less than %s.\n",
		total, elapsed.Round(10*time.Millisecond), ideal)
	fmt.Fprintf(w, "The simulator refused %d calls with 429.\n", sim.Stats().RateLimited)
	return nil
}

// errNoRedis says there is neither REDIS_URL nor redis-server.
var errNoRedis = errors.New("no Redis: REDIS_URL is not set and redis-server is not on PATH")

// openRedis connects to REDIS_URL, or starts redis-server on a free
// loopback port. stop closes the client and stops a server it started.
func openRedis(ctx context.Context, w io.Writer) (rdb *redis.Client, stop func(), err error) {
	if url := os.Getenv("REDIS_URL"); url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return nil, nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		opts.ContextTimeoutEnabled = true
		rdb := redis.NewClient(opts)
		if err := rdb.Ping(ctx).Err(); err != nil {
			rdb.Close()
			return nil, nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		fmt.Fprintf(w, "Using Redis at %s (REDIS_URL).\n", opts.Addr)
		return rdb, func() { rdb.Close() }, nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, nil, errNoRedis
	}
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", os.TempDir())
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting redis-server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	kill := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	rdb = redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	stop = func() {
		rdb.Close()
		kill()
	}
	// Wait until it answers.
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := rdb.Ping(pctx).Err()
		cancel()
		if err == nil {
			break
		}
		select {
		case exitErr := <-exited:
			rdb.Close()
			return nil, nil, fmt.Errorf("redis-server exited before answering (%v): %w", exitErr, err)
		case <-ctx.Done():
			stop()
			return nil, nil, fmt.Errorf("redis-server did not answer: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	fmt.Fprintf(w, "Started redis-server at %s for this run (set REDIS_URL to use your own).\n", addr)
	return rdb, stop, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
