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
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("rawget", run) }

// symbolInfo is the part of /symbol/info's data this program reads; Get
// decodes with encoding/json, so any struct with json tags will do.
type symbolInfo struct {
	Code      string `json:"c"`
	Name      string `json:"n"`
	Type      string `json:"t"`
	Exchange  string `json:"e"`
	ShortName string `json:"l"`
}

func run(ctx context.Context, w io.Writer) error {
	env, err := exampleenv.Open(w)
	if err != nil {
		return err
	}
	defer env.Close()
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
