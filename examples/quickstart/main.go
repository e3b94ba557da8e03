// Command quickstart prints quotes, an order book and recent candles for a
// few stocks, crypto pairs and forex pairs.
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest and says so, so it runs anywhere:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampleenv"
)

func main() { exampleenv.Main("quickstart", run) }

// market is one asset class's products and the service calls for them.
type market struct {
	name   string
	region itick.Region
	codes  []string
	quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
	klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
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

	markets := []market{
		{"Stock", itick.RegionHK, []string{"700"}, c.Stock.Quotes, c.Stock.Klines},
		{"Stock", itick.RegionUS, []string{"AAPL"}, c.Stock.Quotes, c.Stock.Klines},
		{"Crypto", itick.RegionBA, []string{"BTCUSDT", "ETHUSDT"}, c.Crypto.Quotes, c.Crypto.Klines},
		{"Forex", itick.RegionGB, []string{"EURUSD", "GBPUSD"}, c.Forex.Quotes, c.Forex.Klines},
	}

	fmt.Fprintln(w, "\nQuotes")
	tw := table(w)
	fmt.Fprintln(tw, "MARKET\tREGION\tSYMBOL\tLAST\tCHANGE\tCHANGE %\tOPEN\tHIGH\tLOW\tVOLUME\tTIME (UTC)\t")
	for _, m := range markets {
		quotes, err := m.quotes(ctx, m.region, m.codes)
		if err != nil {
			return fmt.Errorf("%s quotes: %w", m.name, err)
		}
		for _, code := range m.codes {
			q, ok := quotes[code]
			if !ok {
				fmt.Fprintf(tw, "%s\t%s\t%s\t(no quote)\t\t\t\t\t\t\t\t\n", m.name, m.region, code)
				continue
			}
			change, pct := "-", "-" // crypto quotes carry no previous close, so no change
			if q.PrevClose != 0 {
				change, pct = signed(q.Change), signed(q.ChangePercent)+"%"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", m.name, m.region, code, num(q.Last),
				change, pct, num(q.Open), num(q.High), num(q.Low), num(q.Volume), q.Time.UTC().Format("2006-01-02 15:04:05"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	book, err := c.Stock.Depth(ctx, itick.RegionHK, "700")
	if err != nil {
		return fmt.Errorf("order book: %w", err)
	}
	fmt.Fprintf(w, "\nOrder book: %s (HK), best 5 levels\n", book.Symbol)
	tw = table(w)
	fmt.Fprintln(tw, "LEVEL\tBID ORDERS\tBID VOLUME\tBID\tASK\tASK VOLUME\tASK ORDERS\t")
	for i := 0; i < 5 && (i < len(book.Bids) || i < len(book.Asks)); i++ {
		var bid, ask itick.DepthLevel
		if i < len(book.Bids) {
			bid = book.Bids[i]
		}
		if i < len(book.Asks) {
			ask = book.Asks[i]
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", i+1, num(bid.Orders), num(bid.Volume), num(bid.Price),
			num(ask.Price), num(ask.Volume), num(ask.Orders))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nRecent hourly candles")
	tw = table(w)
	fmt.Fprintln(tw, "SYMBOL\tTIME (UTC)\tOPEN\tHIGH\tLOW\tCLOSE\tVOLUME\t")
	for _, m := range markets {
		candles, err := m.klines(ctx, m.region, m.codes, itick.OneHour, 3)
		if err != nil {
			return fmt.Errorf("%s candles: %w", m.name, err)
		}
		for _, code := range m.codes {
			for _, k := range candles[code] {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", code, k.Time.UTC().Format("2006-01-02 15:04"),
					num(k.Open), num(k.High), num(k.Low), num(k.Close), num(k.Volume))
			}
		}
	}
	return tw.Flush()
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}

// num prints a number with the digits it has, no exponent.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func signed(x float64) string {
	if x > 0 {
		return "+" + num(x)
	}
	return num(x)
}
