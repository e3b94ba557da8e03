// Command expvar publishes a client's counters (itick.Stats) with the
// standard library's expvar package and serves them at /debug/vars, where
// a metrics agent, or curl, can read them:
//
//	go run ./examples/expvar            # then, in another shell:
//	curl -s localhost:6060/debug/vars | jq .itick
//
// It makes a few calls first so the counters have something to show
// (offline, the simulator refuses one of them with a 429 that the client
// retries), then serves until interrupted. -addr picks another address;
// keep it on loopback, /debug/vars also shows the command line.
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest and says so, so it runs anywhere.
package main

import (
	"context"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "expvar:", err)
		os.Exit(1)
	}
}

var (
	publishOnce sync.Once
	published   atomic.Pointer[itick.Client]
)

// publish makes c's counters the "itick" variable of /debug/vars. expvar
// names are process-wide and can be published once, so the variable reads
// whichever client was published last.
func publish(c *itick.Client) {
	published.Store(c)
	publishOnce.Do(func() {
		expvar.Publish("itick", expvar.Func(func() any {
			if c := published.Load(); c != nil {
				return counters(c.Stats())
			}
			return nil
		}))
	})
}

// counters names the Stats as metrics usually are: snake case, and the
// wait in seconds rather than a Duration's nanoseconds.
func counters(st itick.Stats) map[string]any {
	return map[string]any{
		"requests":             st.Requests,
		"errors":               st.Errors,
		"attempts":             st.Attempts,
		"retries":              st.Retries,
		"rate_limited":         st.RateLimited,
		"bytes_read":           st.BytesRead,
		"limiter_wait_seconds": st.LimiterWait.Seconds(),
	}
}

// handler serves expvar's variables, the client's among them.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /debug/vars", expvar.Handler())
	return mux
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("expvar", flag.ContinueOnError)
	fs.SetOutput(w)
	addr := fs.String("addr", "127.0.0.1:6060", "address to serve /debug/vars on; keep it on loopback")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: expvar [flags]

Expvar makes a few calls with an iTick client, then serves the client's
counters with the standard library's expvar package at /debug/vars until
interrupted. It asks the iTick service when ITICK_TOKEN is set and an
offline simulator otherwise.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	env, err := markettest.OpenEnv(sim)
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Offline() {
		fmt.Fprintf(w, "ITICK_TOKEN is not set: using the offline simulator at %s (synthetic data).\n", env.Server.URL)
	} else {
		fmt.Fprintf(w, "Using the iTick service at %s (ITICK_TOKEN is set).\n", env.Client.BaseURL())
	}
	c := env.Client
	if env.Offline() {
		// The simulator's own client does not pace its requests; pace this
		// one so that limiter_wait_seconds has something to show, and have
		// the simulator refuse the first request with a 429.
		if c, err = env.Server.Client(itick.WithRateLimit(rate.Limit(20), 1)); err != nil {
			return err
		}
		env.Server.FailNext(1, http.StatusTooManyRequests)
	}
	publish(c)

	if err := work(ctx, c); err != nil {
		return err
	}
	st := c.Stats()
	fmt.Fprintf(w, "\nStats: requests %d, errors %d, attempts %d, retries %d, rate limited %d, bytes read %d, limiter wait %v\n",
		st.Requests, st.Errors, st.Attempts, st.Retries, st.RateLimited, st.BytesRead, st.LimiterWait.Round(time.Millisecond))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Serving the counters at http://%s/debug/vars (the \"itick\" variable); interrupt to stop.\n", ln.Addr())
	return serve(ctx, ln, handler())
}

// work makes a few calls, typed and not, so the counters move.
func work(ctx context.Context, c *itick.Client) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", "9988", "5"}); err != nil {
		return fmt.Errorf("quotes: %w", err)
	}
	if _, err := c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT"); err != nil {
		return fmt.Errorf("depth: %w", err)
	}
	if _, err := c.Forex.Klines(ctx, itick.RegionGB, []string{"EURUSD"}, itick.OneHour, 24); err != nil {
		return fmt.Errorf("klines: %w", err)
	}
	q := url.Values{"type": {"stock"}, "region": {"US"}, "code": {"AAPL"}}
	if err := c.Get(ctx, "/symbol/info", q, nil); err != nil {
		return fmt.Errorf("symbol info: %w", err)
	}
	return nil
}

// serve serves h on ln until ctx ends, then shuts down.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
