package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var depthColumns = cols("side", "level", "price", "volume", "orders")

func (a *app) depthCommand() *cobra.Command {
	var exchange string
	cmd := &cobra.Command{
		Use:   "depth CLASS REGION CODE",
		Short: "Print the order book of one product",
		Long: `Print the order book of one product: one row per level, the asks best
first, then the bids best first. Stocks have up to 10 levels a side, crypto
pairs 5, the other classes usually one. A level the service sent without a
price shows 0.`,
		Example: `  itick depth stock HK 700
  itick depth crypto BA BTCUSDT --format json`,
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			class, region, codes, err := parseProducts(args)
			if err != nil {
				return err
			}
			if exchange != "" && class != itick.AssetStock {
				return invalidf("--exchange applies to stocks only")
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				var book *itick.DepthBook
				if exchange != "" {
					book, err = c.Stock.DepthWith(ctx, region, codes[0], itick.WithQuoteExchange(exchange))
				} else {
					book, err = marketOf(c, class).Depth(ctx, region, codes[0])
				}
				if err != nil {
					return err
				}
				w := newRowWriter(a.writer(), a.outFormat(formatCSV), depthColumns)
				for _, side := range []struct {
					name   string
					levels []itick.DepthLevel
				}{{"ask", book.Asks}, {"bid", book.Bids}} {
					for _, l := range side.levels {
						if err := w.Write(row{side.name, l.Level, l.Price, l.Volume, l.Orders}); err != nil {
							return err
						}
					}
				}
				return w.Close()
			})
		},
	}
	cmd.Flags().StringVar(&exchange, "exchange", "", "a secondary exchange of the stock market (the e of the symbol list)")
	return cmd
}
