package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var quoteColumns = cols("code", "last", "change", "change_percent", "time",
	"-open", "-high", "-low", "-prev_close", "-volume", "-turnover", "-status")

func (a *app) quoteCommand() *cobra.Command {
	var exchange string
	cmd := &cobra.Command{
		Use:   "quote CLASS REGION CODE...",
		Short: "Print real-time quotes",
		Long: `Print the real-time quotes of one or more products of a class (` + classList + `)
in a region. The table shows code, last, change, change % and time; CSV and
JSON add open, high, low, prev_close, volume, turnover and status. Crypto
quotes carry no change: those fields are empty (null in JSON).`,
		Example: `  itick quote stock HK 700 9988
  itick quote crypto BA BTCUSDT ETHUSDT --format json
  itick quote stock US AAPL MSFT > quotes.csv`,
		Args: minArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			class, region, codes, err := parseProducts(args)
			if err != nil {
				return err
			}
			if exchange != "" && class != itick.AssetStock {
				return invalidf("--exchange applies to stocks only")
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				var quotes map[string]itick.Quote
				if exchange != "" {
					quotes, err = c.Stock.QuotesWith(ctx, region, codes, itick.WithQuoteExchange(exchange))
				} else {
					quotes, err = marketOf(c, class).Quotes(ctx, region, codes)
				}
				var be *itick.BatchError
				if err != nil && !errors.As(err, &be) {
					return err
				}
				missing, werr := a.writeQuotes(class, codes, quotes, failedSet(be))
				return errors.Join(werr, partial(err, be), missingErr(missing))
			})
		},
	}
	cmd.Flags().StringVar(&exchange, "exchange", "", "a secondary exchange of the stock market (the e of the symbol list)")
	return cmd
}

// writeQuotes writes the quotes of codes in their order, and names the
// codes the service sent nothing for (other than those failed says failed).
func (a *app) writeQuotes(class itick.AssetType, codes []string, quotes map[string]itick.Quote, failed map[string]bool) ([]string, error) {
	w := newRowWriter(a.writer(), a.outFormat(formatCSV), quoteColumns)
	var missing []string
	for _, code := range codes {
		q, ok := lookup(quotes, code)
		if !ok {
			if !failed[code] {
				missing = append(missing, code)
			}
			continue
		}
		var prev, ch, chp any = q.PrevClose, q.Change, q.ChangePercent
		if class == itick.AssetCrypto {
			prev, ch, chp = nil, nil, nil
		}
		if err := w.Write(row{code, q.Last, ch, chp, q.Time, q.Open, q.High, q.Low, prev, q.Volume, q.Turnover,
			q.TradingStatus().String()}); err != nil {
			return nil, err
		}
	}
	return missing, w.Close()
}

// failedSet holds the codes a batch error names.
func failedSet(be *itick.BatchError) map[string]bool {
	m := map[string]bool{}
	if be != nil {
		for _, c := range be.FailedCodes() {
			m[c] = true
		}
	}
	return m
}
