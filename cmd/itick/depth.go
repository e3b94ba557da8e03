package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var depthColumns = cols("class", "region", "code", "side", "level", "price", "volume", "orders")

func (a *app) depthCommand() *cobra.Command {
	var exchange string
	cmd := &cobra.Command{
		Use:   "depth " + productsUse,
		Short: "Print order books",
		Long: `Print the order books of one or more products: one row per level, the asks
best first, then the bids best first, product by product. ` + productsHelp + `

Rows carry the class, region and code. Stocks have up to 10 levels a side,
crypto pairs 5, the other classes usually one. A level the service sent
without a price shows 0.`,
		Example: `  itick depth stock HK 700
  itick depth crypto:BA:BTCUSDT stock:US:AAPL --format json`,
		Args: productArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			products, err := parseProducts(args)
			if err != nil {
				return err
			}
			if err := stockOnly("--exchange", exchange != "", products); err != nil {
				return err
			}
			f, err := a.rowsFormat(false)
			if err != nil {
				return err
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				books, errs := perGroup(products, func(g group) (map[string]itick.DepthBook, error) {
					return a.depths(ctx, c, g, exchange)
				})
				if len(books) == 0 && errs.err() != nil {
					return errs.err()
				}
				w := newRowWriter(a.writer(), f, depthColumns)
				var missing []string
				for _, p := range products {
					book, ok := books[p]
					if !ok {
						if !errs.failed[p] {
							missing = append(missing, productName(products, p))
						}
						continue
					}
					for _, side := range []struct {
						name   string
						levels []itick.DepthLevel
					}{{"ask", book.Asks}, {"bid", book.Bids}} {
						for _, l := range side.levels {
							if err := w.Write(row{string(p.Class), string(p.Region), p.Code, side.name, l.Level, l.Price,
								l.Volume, l.Orders}); err != nil {
								return err
							}
						}
					}
				}
				return errors.Join(w.Close(), errs.err(), missingErr(missing))
			})
		},
	}
	cmd.Flags().StringVar(&exchange, "exchange", "", "a secondary exchange of the stock market (the e of the symbol list)")
	return cmd
}

// depths fetches the books of g's codes: the single-product call for one
// code, whose errors say more (a book the service has not), the batch call
// for more.
func (a *app) depths(ctx context.Context, c *itick.Client, g group, exchange string) (map[string]itick.DepthBook, error) {
	var opts []itick.QuoteOption
	if exchange != "" {
		opts = append(opts, itick.WithQuoteExchange(exchange))
	}
	if len(g.codes) > 1 {
		if g.class == itick.AssetStock {
			return c.Stock.DepthsWith(ctx, g.region, g.codes, opts...)
		}
		return marketOf(c, g.class).Depths(ctx, g.region, g.codes)
	}
	var book *itick.DepthBook
	var err error
	if g.class == itick.AssetStock {
		book, err = c.Stock.DepthWith(ctx, g.region, g.codes[0], opts...)
	} else {
		book, err = marketOf(c, g.class).Depth(ctx, g.region, g.codes[0])
	}
	if err != nil {
		return nil, err
	}
	return map[string]itick.DepthBook{g.codes[0]: *book}, nil
}
