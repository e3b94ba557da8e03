// Command rawget calls an endpoint the SDK does not model with
// Client.Get: /symbol/info, which one of the service's official demos uses
// and no typed method wraps. Get applies the same rate limiter, retries,
// success rule and size bound as every typed call, and decodes the
// envelope's data into any type you give it.
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest and says so, so it runs anywhere:
//
//	go run ./examples/rawget
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
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
		fmt.Fprintln(os.Stderr, "rawget:", err)
		os.Exit(1)
	}
}

// symbolInfo is the part of /symbol/info's data this program reads; Get
// decodes with encoding/json, so any struct with json tags will do.
type symbolInfo struct {
	Code      string `json:"c"`
	Name      string `json:"n"`
	Type      string `json:"t"`
	Exchange  string `json:"e"`
	ShortName string `json:"l"`
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("rawget", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: rawget

Rawget calls /symbol/info, an endpoint the SDK has no typed method for,
with Client.Get; from the iTick service when ITICK_TOKEN is set and from
an offline simulator otherwise.
`)
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
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	fmt.Fprintln(w, "\nGET /symbol/info, decoded into a struct")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tREGION\tCODE\tNAME\tEXCHANGE\tSHORT NAME")
	for _, s := range []struct{ typ, region, code string }{
		{"stock", "HK", "700"},
		{"stock", "US", "AAPL"},
		{"crypto", "BA", "BTCUSDT"},
		{"forex", "GB", "EURUSD"},
		{"stock", "US", "NOSUCHCODE"},
	} {
		q := url.Values{"type": {s.typ}, "region": {s.region}, "code": {s.code}}
		var info symbolInfo
		err := c.Get(ctx, "/symbol/info", q, &info)
		switch {
		case errors.Is(err, itick.ErrNotFound):
			fmt.Fprintf(tw, "%s\t%s\t%s\t(not found)\t-\t-\n", s.typ, s.region, s.code)
		case err != nil:
			return fmt.Errorf("symbol info for %s: %w", s.code, err)
		default:
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", info.Type, s.region, info.Code, info.Name, info.Exchange, info.ShortName)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	// A *json.RawMessage takes the data as the service sent it, for
	// logging, storing or decoding later.
	var raw json.RawMessage
	q := url.Values{"type": {"stock"}, "region": {"HK"}, "code": {"700"}}
	if err := c.Get(ctx, "/symbol/info", q, &raw); err != nil {
		return fmt.Errorf("raw symbol info: %w", err)
	}
	fmt.Fprintf(w, "\nGET /symbol/info as raw bytes (%d bytes):\n%s\n", len(raw), raw)

	st := c.Stats()
	fmt.Fprintf(w, "\n%d requests in %d attempts\n", st.Requests, st.Attempts)
	return nil
}
