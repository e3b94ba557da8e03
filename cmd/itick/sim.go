package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func (a *app) simCommand() *cobra.Command {
	var (
		addr, token, at string
		seed            uint64
		quota           int
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Serve the simulator, REST and the stream, until Ctrl-C",
		Long: `Serve the bundled simulator of the service (every REST endpoint and the
WebSocket stream, with synthetic, deterministic data) until Ctrl-C, so a
client in any language, or curl, can be tested against it offline.

It prints two lines a shell can read, then serves:

  ITICK_BASE_URL=http://127.0.0.1:PORT
  ITICK_TOKEN=markettest-token

Requests carry the token in the "token" header; the stream is at
ws://127.0.0.1:PORT/{stock,forex,indices,crypto,future,fund}. --plan sets the
plan whose batch size and stream connections it enforces (a connection past
the plan's cap drops the token's oldest, as the service does), --quota a
per-minute quota (HTTP 429 with Retry-After past it). Like the service, it
answers E001 for a product it does not know: a region its class does not
have (stock USA, crypto US) or a code of no market's form (NOSUCHCODE).
--addr is any host:port to listen on; the default, 127.0.0.1:0, is a free
port on loopback, and any other host makes the simulator reachable from the
network. ITICK_TOKEN is not read: the simulator accepts --token.

The simulator answers as of its clock and, like the service, pushes
nothing for a closed market. --at stops its clock at an instant (ITICK_SIM_TIME
without it), so that tests run against it get the same answers whatever
the day and hour: pick one when the markets they are about trade.`,
		Example: `  itick sim
  itick sim --addr 127.0.0.1:8080 --plan free --quota 5 > sim.env &
  itick sim --at 2025-06-04T15:30:00Z   # a Wednesday, 11:30 in New York
  curl -H "token: markettest-token" 'http://127.0.0.1:8080/stock/quote?region=HK&code=700'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" || strings.ContainsFunc(token, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return invalidf("--token is empty or holds a control character, which no header can carry")
			}
			if quota < 0 {
				return invalidf("--quota %d is negative", quota)
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return invalidf("--addr %q is not host:port: %v", addr, err)
			}
			opts := []markettest.Option{markettest.WithToken(token), markettest.WithSeed(seed),
				markettest.WithQuota(quota)}
			clock := "the real clock"
			if at == "" {
				at = strings.TrimSpace(os.Getenv(markettest.EnvSimTime))
			}
			if at != "" {
				t, err := time.Parse(time.RFC3339Nano, at)
				if err != nil {
					return invalidf("--at %q is not an RFC 3339 time such as 2025-06-04T15:30:00Z", at)
				}
				opts = append(opts, markettest.WithFixedClock(t))
				clock = "its clock stopped at " + t.UTC().Format(time.RFC3339Nano)
			}
			plan := itick.PlanBase
			if name := a.planName(); name != "" {
				p, err := itick.ParsePlan(name)
				if err != nil {
					return fmt.Errorf("plan %q: %w", name, err)
				}
				plan = p
			}
			opts = append(opts, markettest.WithPlan(plan))

			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("cannot listen on %s: %w", addr, err)
			}
			// The simulator is an http.Handler, streams included, so it is
			// served on the listener asked for.
			srv := markettest.NewServer(opts...)
			defer srv.Close()
			hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			go func() { served <- hs.Serve(ln) }()
			defer hs.Close()

			base := "http://" + reachable(ln.Addr())
			// The token printed is the simulator's own, for the client to
			// send: it goes out as it is.
			// A script waits for these lines: without them there is
			// nothing to serve.
			if _, err := fmt.Fprintf(a.rawOut, "ITICK_BASE_URL=%s\nITICK_TOKEN=%s\n", shellQuote(base), shellQuote(token)); err != nil {
				return fmt.Errorf("the simulator's address lines: %w", err)
			}
			fmt.Fprintf(a.stderr, "itick: simulator serving REST at %s and the stream at ws%s/{class}, plan %s, on %s; Ctrl-C stops it\n",
				base, base[len("http"):], plan, clock)
			select {
			case <-cmd.Context().Done():
				return nil
			case err := <-served:
				if errors.Is(err, http.ErrServerClosed) {
					return nil
				}
				return err
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:0", "host:port to listen on (port 0: a free one)")
	f.StringVar(&token, "token", markettest.DefaultToken, "the token the simulator accepts")
	f.Uint64Var(&seed, "seed", 1, "seed of the synthetic data: the same seed gives the same data")
	f.IntVar(&quota, "quota", 0, "requests allowed in any minute, past which it answers 429 (0: no quota)")
	f.StringVar(&at, "at", "", "stop the simulator's clock at this RFC 3339 time (default $ITICK_SIM_TIME, else the real clock)")
	return cmd
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters a value can carry bare.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_-./:@%+,=", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// reachable is addr as a client can dial it: a wildcard host becomes
// loopback.
func reachable(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
