// Command service is an HTTP service on the SDK: it streams the quotes of a
// configured list of stocks and crypto pairs, keeps the latest of each in
// memory and serves them, falling back to a REST batch call for products
// whose stream connection is down or that have no streamed quote yet.
//
//	go run ./examples/service -addr 127.0.0.1:8080   # then, in another shell:
//	curl -s '127.0.0.1:8080/quotes?codes=700$HK,BTCUSDT$BA'
//	curl -s 127.0.0.1:8080/healthz
//	curl -s 127.0.0.1:8080/debug/vars | jq '.itick_client, .itick_streams'
//
// Each quote says where it came from, "stream" or "rest"; products the
// REST call returned nothing for (a market outside the plan) are listed as
// missing. Failures of the REST fallback map to statuses: a spent quota is
// 429 with Retry-After, a timeout 504, a refused token 503 (no caller can
// fix it, and the stream reports it in /healthz), any other failure upstream
// 502, and a product the service does not stream 400.
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest and says so, so it runs anywhere. SIGINT or SIGTERM stops it
// cleanly: it stops taking requests, closes the streams, then the client's
// idle connections, and exits 0.
package main

import (
	"context"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}

// config is what the flags set.
type config struct {
	addr       string
	products   []product     // stocks first, then crypto pairs
	timeout    time.Duration // bounds the REST fallback of one request
	restTTL    time.Duration // how long a REST quote is served again
	staleAfter time.Duration // the crypto stream's WithStaleAfter
}

// product is one configured product, as the stream and REST name it.
type product struct {
	symbol string // "700$HK", as configured
	class  itick.AssetType
	code   string
	region itick.Region
}

// key is how the service finds a product: products differ ignoring case,
// as they do to the iTick service.
func key(symbol string) string { return strings.ToUpper(symbol) }

// parseConfig reads the command line.
func parseConfig(args []string, w io.Writer) (config, error) {
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	fs.SetOutput(w)
	addr := fs.String("addr", "127.0.0.1:0", "address to serve on; port 0 picks a free one, printed at start")
	stocks := fs.String("stocks", "700$HK,9988$HK,AAPL$US", "comma-separated code$REGION stocks to stream (may be empty)")
	crypto := fs.String("crypto", "BTCUSDT$BA,ETHUSDT$BA", "comma-separated code$REGION crypto pairs to stream (may be empty)")
	timeout := fs.Duration("timeout", 5*time.Second, "deadline of a request's REST fallback; past it, 504 (a spent quota is 429 at once)")
	restTTL := fs.Duration("rest-ttl", time.Second, "how long a REST fallback quote is served again before it is fetched anew (0: fetch every time)")
	stale := fs.Duration("crypto-stale-after", 30*time.Second, "replace a crypto connection that pushed nothing for this long (0: off)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: service [flags]

Service streams the quotes of the configured stocks and crypto pairs over
the iTick WebSocket channel, keeps the latest of each, and serves them over
HTTP until interrupted:

  GET /quotes?codes=700$HK,BTCUSDT$BA  latest quotes (all products without
                                       codes), each with its source: "stream",
                                       or "rest" while its connection is down
                                       or before its first push
  GET /healthz                         stream and REST client health
  GET /debug/vars                      the same counters through expvar

It asks the service when ITICK_TOKEN is set and an offline simulator
otherwise.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := config{addr: *addr, timeout: *timeout, restTTL: *restTTL, staleAfter: *stale}
	if cfg.timeout <= 0 || cfg.restTTL < 0 || cfg.staleAfter < 0 {
		return config{}, errors.New("-timeout must be positive, -rest-ttl and -crypto-stale-after not negative")
	}
	seen := make(map[string]bool)
	for _, list := range []struct {
		flag, value string
		class       itick.AssetType
	}{{"-stocks", *stocks, itick.AssetStock}, {"-crypto", *crypto, itick.AssetCrypto}} {
		if strings.TrimSpace(list.value) == "" {
			continue
		}
		for _, s := range strings.Split(list.value, ",") {
			s = strings.TrimSpace(s)
			code, region, ok := strings.Cut(s, "$")
			if !ok || code == "" || region == "" || strings.Contains(region, "$") {
				return config{}, fmt.Errorf("%s: product %q is not code$REGION, such as 700$HK", list.flag, s)
			}
			if seen[key(s)] {
				return config{}, fmt.Errorf("%s: product %q is listed twice", list.flag, s)
			}
			seen[key(s)] = true
			cfg.products = append(cfg.products, product{s, list.class, code, itick.Region(strings.ToUpper(region))})
		}
	}
	if len(cfg.products) == 0 {
		return config{}, errors.New("no products: set -stocks or -crypto")
	}
	return cfg, nil
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	cfg, err := parseConfig(args, w)
	if err != nil {
		return err
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
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	return serve(ctx, env.Client, cfg, ln, w)
}

// serve opens the streams, serves HTTP on ln until ctx ends, then shuts
// down in order: no new requests (in-flight ones finish), then the
// streams, then the client's idle keep-alive connections.
func serve(ctx context.Context, c *itick.Client, cfg config, ln net.Listener, w io.Writer) error {
	defer ln.Close()
	log := slog.New(slog.NewTextHandler(w, nil))
	svc, err := start(ctx, c, cfg, log)
	if err != nil {
		return err
	}
	defer svc.close()
	publish(svc)
	defer published.CompareAndSwap(svc, nil)

	srv := &http.Server{Handler: svc.handler(), ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout: cfg.timeout + 10*time.Second, IdleTimeout: time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(w, "Serving on http://%s (GET /quotes, /healthz, /debug/vars); interrupt to stop.\n", ln.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// A request's REST fallback ends by its deadline, so this bound is met
	// unless a handler is stuck elsewhere.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.timeout+5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close() // the handlers left behind end with their connections
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped taking requests; closing the streams")
	return nil
}

// handler routes the service's endpoints.
func (s *service) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /quotes", s.handleQuotes)
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.Handle("GET /debug/vars", expvar.Handler())
	return mux
}

var (
	publishOnce sync.Once
	published   atomic.Pointer[service]
)

// publish makes svc's counters the "itick_client" and "itick_streams"
// variables of /debug/vars. expvar names are process-wide and published
// once, so they read whichever service was published last.
func publish(svc *service) {
	published.Store(svc)
	publishOnce.Do(func() {
		expvar.Publish("itick_client", expvar.Func(func() any {
			if s := published.Load(); s != nil {
				return s.client.Stats() // its JSON tags name the keys: requests, rate_limited, ...
			}
			return nil
		}))
		expvar.Publish("itick_streams", expvar.Func(func() any {
			if s := published.Load(); s != nil {
				out := make(map[itick.AssetType]itick.StreamStats)
				for class, st := range s.streams {
					out[class] = st.Stats()
				}
				return out
			}
			return nil
		}))
	})
}
