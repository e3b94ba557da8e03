package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var newsColumns = cols("published", "-id", "-market", "-lang", "provider", "title", "-link")

func (a *app) newsCommand() *cobra.Command {
	var (
		q     itick.NewsQuery
		limit int
	)
	cmd := &cobra.Command{
		Use:   "news",
		Short: "Print the latest news headlines",
		Long: `Print the latest news headlines of a market, newest first, fetching as many
pages as --limit needs. The table shows the time, provider and title; CSV and
JSON add the id, market, language and link.`,
		Example: `  itick news
  itick news --market crypto --limit 50 --format json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return invalidf("--limit %d is not at least 1", limit)
			}
			q.Limit = min(limit, itick.DefaultNewsLimit)
			f, err := a.rowsFormat(false)
			if err != nil {
				return err
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				w := newRowWriter(a.writer(), f, newsColumns)
				n := 0
				var ferr error
				for item, err := range c.News.All(ctx, q) {
					if err != nil {
						ferr = err // what arrived is still written, in whole rows
						break
					}
					if ferr = w.Write(row{item.Published, item.ID, item.Market, item.Lang, item.Provider, item.Title,
						item.Link}); ferr != nil {
						break
					}
					if n++; n == limit {
						break
					}
				}
				return errors.Join(w.Close(), ferr)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Market, "market", "stock", "the market: stock, crypto, forex, indices, future or fund")
	f.StringVar(&q.Lang, "lang", "en", "the language, such as en or hk")
	f.IntVar(&limit, "limit", itick.DefaultNewsLimit, "how many headlines")
	return cmd
}
