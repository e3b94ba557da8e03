// Command sharedquota runs a small fleet of workers, each with its own
// client and its own redisquota.Limiter, against one quota that they share
// through Redis, the way separate processes or machines would.
//
// Without ITICK_TOKEN it talks to the offline simulator from markettest,
// which enforces a demo quota of 10 calls in any 2 seconds and counts what
// it refuses: nothing. With ITICK_TOKEN set it talks to the iTick service
// (ITICK_BASE_URL and ITICK_PLAN apply too) under the plan's quota.
//
// It uses the Redis at REDIS_URL when that is set (redis://host:6379/0),
// and otherwise starts redis-server from PATH on a free loopback port for
// the length of the run. Without either it says how to get one.
//
// This program is its own module, so that the SDK's module stays free of
// Redis. From this directory:
//
//	go run .
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
	"github.com/d19c4e34/itick/redisquota"
)

// The demo's quota is 10 calls in any 2 seconds, so the run takes seconds;
// a real fleet passes redisquota.PerMinute(plan) and keeps the default
// window, as this program does against the service.
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

const usage = `Usage: sharedquota

Runs %d workers, each with its own iTick client and redisquota.Limiter, making
%d quote calls each against one quota shared through Redis.

Environment:
  REDIS_URL     the Redis to use (redis://host:6379/0); unset, it starts
                redis-server from PATH for the run
  ITICK_TOKEN   set, it talks to the iTick service under the plan's quota;
                unset, to an offline simulator enforcing %d calls in any %s
  ITICK_PLAN    the plan whose quota applies with ITICK_TOKEN (default Base)
`

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

// cli runs the program with args and returns its exit status: 0 on success
// and for -h, 1 when the run fails, 2 for a bad command line.
func cli(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sharedquota", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the errors and the usage are printed below
	printUsage := func(w io.Writer) { fmt.Fprintf(w, usage, workers, callsPerWorker, quota, window) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "sharedquota: %v\n", err)
		printUsage(stderr)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sharedquota: unexpected argument %q\n", fs.Arg(0))
		printUsage(stderr)
		return 2
	}
	// An interrupt cancels the run, and with it every worker's Wait.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, stdout); err != nil {
		fmt.Fprintf(stderr, "sharedquota: %v\n", err)
		return 1
	}
	return 0
}

// run is the demo, printing to w; sim are the simulator's options when it
// runs offline.
func run(ctx context.Context, w io.Writer, sim ...markettest.Option) error {
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

	// The real service when ITICK_TOKEN is set, and otherwise a simulator
	// that enforces the demo's quota.
	env, err := markettest.OpenEnv(append([]markettest.Option{markettest.WithQuota(quota), markettest.WithQuotaWindow(window)}, sim...))
	if err != nil {
		return err
	}
	defer env.Close()
	// The quota the service counts, and the window the limiters count it
	// in: wider by a margin, as the SDK's own limiter is.
	perWindow, serviceWindow, limiterWindow := quota, window, window+margin
	if env.Offline() {
		// The demo takes seconds; give up well before a user would wonder.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		fmt.Fprintf(w, "Simulator at %s enforces %d calls in any %s.\n", env.Server.URL, quota, window)
	} else {
		plan := itick.PlanBase
		if v := os.Getenv("ITICK_PLAN"); v != "" {
			if plan, err = itick.ParsePlan(v); err != nil {
				return fmt.Errorf("ITICK_PLAN: %w", err)
			}
		}
		perWindow, serviceWindow, limiterWindow = redisquota.PerMinute(plan), time.Minute, redisquota.DefaultWindow
		if perWindow == 0 {
			return fmt.Errorf("plan %s has no documented quota: pass your contract's figure to redisquota.New", plan)
		}
		fmt.Fprintf(w, "Using the iTick service at %s: plan %s, %d calls a minute.\n", env.Client.BaseURL(), plan, perWindow)
	}
	// newClient builds a client for what env talks to.
	newClient := func(opts ...itick.Option) (*itick.Client, error) {
		if env.Offline() {
			return env.Server.Client(opts...)
		}
		return itick.NewClientFromEnv(opts...)
	}

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
	clients := make([]*itick.Client, workers)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range workers {
		// Each worker builds what a process of its own would.
		lim, err := redisquota.New(rdb, key, perWindow, redisquota.WithWindow(limiterWindow))
		if err != nil {
			return err
		}
		client, err := newClient(itick.WithLimiter(lim))
		if err != nil {
			return err
		}
		clients[i] = client
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

	total, refused := 0, int64(0)
	for i, r := range results {
		fmt.Fprintf(w, "Worker %d made %d calls.\n", i+1, r.calls)
		if r.err != nil {
			return fmt.Errorf("worker %d: %w", i+1, r.err)
		}
		total += r.calls
		refused += clients[i].Stats().RateLimited
	}
	// The whole quota may go at once, and as much again each window after.
	ideal := time.Duration((total+perWindow-1)/perWindow-1) * serviceWindow
	fmt.Fprintf(w, "%d calls in %s; the quota allows them in no less than %s.\n",
		total, elapsed.Round(10*time.Millisecond), ideal)
	fmt.Fprintf(w, "The service refused %d calls with 429.\n", refused)
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
