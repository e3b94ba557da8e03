package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

var quoteColumns = cols("class", "region", "code", "last", "change", "change_percent", "time",
	"-open", "-high", "-low", "-prev_close", "-volume", "-turnover", "-status")

func (a *app) quoteCommand() *cobra.Command {
	var exchange string
	cmd := &cobra.Command{
		Use:   "quote " + productsUse,
		Short: "Print real-time quotes",
		Long: `Print the real-time quotes of one or more products. ` + productsHelp + `

Rows carry the class, region and code. The table shows them with last,
change, change % and time; CSV, JSON and Parquet add open, high, low,
prev_close, volume, turnover and status. Crypto, forex and index quotes
carry no change: those fields are empty (null in JSON and Parquet).`,
		Example: `  itick quote stock HK 700 9988
  itick quote stock:US:AAPL crypto:BA:BTCUSDT forex:GB:EURUSD
  itick quote crypto BA BTCUSDT ETHUSDT --format json
  itick quote stock US AAPL MSFT --format parquet > quotes.parquet`,
		Args: productArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			products, err := parseProducts(args)
			if err != nil {
				return err
			}
			if err := stockOnly("--exchange", exchange != "", products); err != nil {
				return err
			}
			f, err := a.rowsFormat(true)
			if err != nil {
				return err
			}
			return a.withClient(cmd, defaultTimeout, func(ctx context.Context, c *itick.Client) error {
				got, errs := perGroup(products, func(g group) (map[string]itick.Quote, error) {
					if exchange != "" {
						return c.Stock.QuotesWith(ctx, g.region, g.codes, itick.WithQuoteExchange(exchange))
					}
					return marketOf(c, g.class).Quotes(ctx, g.region, g.codes)
				})
				if len(got) == 0 && errs.err() != nil {
					return errs.err() // nothing to write, not even a header
				}
				missing, werr := a.writeQuotes(f, products, got, errs.failed)
				return errors.Join(werr, errs.err(), missingErr(missing))
			})
		},
	}
	cmd.Flags().StringVar(&exchange, "exchange", "", "a secondary exchange of the stock market (the e of the symbol list)")
	return cmd
}

// writeQuotes writes the quotes of products in their order, and names the
// products the service sent nothing for (other than those failed holds).
func (a *app) writeQuotes(f format, products []itick.Product, quotes map[itick.Product]itick.Quote,
	failed map[itick.Product]bool) ([]string, error) {
	if f == formatParquet {
		return a.writeQuotesParquet(products, quotes, failed)
	}
	w := newRowWriter(a.writer(), f, quoteColumns)
	var missing []string
	for _, p := range products {
		q, ok := quotes[p]
		if !ok {
			if !failed[p] {
				missing = append(missing, productName(products, p))
			}
			continue
		}
		var prev, ch, chp any = q.PrevClose, q.Change, q.ChangePercent
		if !hasChange(p.Class) {
			prev, ch, chp = nil, nil, nil
		}
		if err := w.Write(row{string(p.Class), string(p.Region), p.Code, q.Last, ch, chp, q.Time, q.Open, q.High,
			q.Low, prev, q.Volume, q.Turnover, q.TradingStatus().String()}); err != nil {
			return nil, err
		}
	}
	return missing, w.Close()
}

// hasChange reports whether quotes of class carry a previous close and a
// change: those of stocks, futures and funds do.
func hasChange(class itick.AssetType) bool {
	switch class {
	case itick.AssetStock, itick.AssetFuture, itick.AssetFund:
		return true
	}
	return false
}

// stockOnly refuses a stock-only flag (set) when a product is of another
// class.
func stockOnly(flag string, set bool, products []itick.Product) error {
	if !set {
		return nil
	}
	for _, p := range products {
		if p.Class != itick.AssetStock {
			return invalidf("%s applies to stocks only, and %s is not one", flag, p)
		}
	}
	return nil
}

// productName is how a message names p among products: by its code when
// they are all of one class and region, else as CLASS:REGION:CODE.
func productName(products []itick.Product, p itick.Product) string {
	for _, o := range products {
		if o.Class != p.Class || o.Region != p.Region {
			return p.String()
		}
	}
	return p.Code
}

// perGroup makes fetch's batch call for each class and region of products
// in turn, and gathers what they brought by product, and their failures.
// A failure every later call would meet too ends the calls.
func perGroup[V any](products []itick.Product, fetch func(g group) (map[string]V, error)) (map[itick.Product]V, *batchErrors) {
	got := map[itick.Product]V{}
	errs := &batchErrors{}
	for _, g := range groupsOf(products) {
		res, err := fetch(g)
		for _, p := range g.products() {
			if v, ok := lookup(res, p.Code); ok {
				got[p] = v
			}
		}
		if errs.add(g, err) {
			break
		}
	}
	return got, errs
}

// batchErrors gathers the failures of a command's batch calls, one per
// class and region: which products have no result, and why.
type batchErrors struct {
	failed map[itick.Product]bool
	errs   []error
	all    []itick.Product // every product asked for, to name them in messages
}

// add takes the error of g's call; stop says no further call should be
// made, since each would fail alike (a refused token, the plan, the end of
// the context).
func (b *batchErrors) add(g group, err error) (stop bool) {
	b.all = append(b.all, g.products()...)
	if err == nil {
		return false
	}
	if b.failed == nil {
		b.failed = map[itick.Product]bool{}
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		for _, code := range be.FailedCodes() {
			b.failed[itick.Product{Class: g.class, Region: g.region, Code: code}] = true
		}
	} else {
		for _, p := range g.products() {
			b.failed[p] = true
		}
	}
	b.errs = append(b.errs, err)
	return fatal(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// err is the failures as one error, naming the products without a result
// so the user can ask for just those. A single call's error, all its
// products failed, comes as it is.
func (b *batchErrors) err() error {
	if len(b.errs) == 0 {
		return nil
	}
	var be *itick.BatchError
	if len(b.errs) == 1 && !errors.As(b.errs[0], &be) && len(b.failed) == len(b.all) {
		return b.errs[0]
	}
	var names []string
	for _, p := range b.all {
		if b.failed[p] {
			names = append(names, productName(b.all, p))
		}
	}
	return keptError{errors.Join(b.errs...), "no result for " + named(names)}
}
