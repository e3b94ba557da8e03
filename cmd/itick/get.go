package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

func (a *app) getCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "get PATH [KEY=VALUE...]",
		Short: "Call any endpoint and print its data as JSON",
		Long: `Call any GET endpoint of the service, with every rule of the typed calls
(the quota, retries, the success rule), and print the envelope's data as JSON:
as the service sent it, indented on a terminal, where control characters in
its strings are written as \u escapes. The query is given as
KEY=VALUE arguments, never in PATH.`,
		Example: `  itick get /symbol/info type=stock region=HK code=700
  itick get /stock/quote region=US code=AAPL | jq .ld`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.format != formatAuto && a.format != formatJSON {
				return invalidf("get writes JSON; --format %s does not apply", a.format)
			}
			query := url.Values{}
			for _, kv := range args[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageError{fmt.Sprintf("query argument %q is not KEY=VALUE", kv)}
				}
				query.Add(k, v)
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				var data json.RawMessage
				if err := c.Get(ctx, args[0], query, &data); err != nil {
					return err
				}
				if len(data) == 0 {
					data = json.RawMessage("null")
				}
				var out bytes.Buffer
				if a.outTTY {
					// For reading: what could drive the terminal is
					// escaped, which leaves the JSON's values as they are.
					if err := json.Indent(&out, jsonSafe(data), "", "  "); err != nil {
						return err
					}
				} else {
					out.Write(bytes.TrimSpace(data))
				}
				out.WriteByte('\n')
				_, err := a.writer().Write(out.Bytes())
				return err
			})
		},
	}
}
