// Command quickstart prints quotes, an order book and recent candles for a
// few stocks, crypto pairs and forex pairs, and whether the stock markets
// are open, which says how fresh their quotes are.
//
// With ITICK_TOKEN set it asks the iTick service (ITICK_BASE_URL and
// ITICK_PLAN apply too); without it, it starts the offline simulator from
// markettest and says so, so it runs anywhere:
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
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
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// market is one asset class's products and the service calls for them.
type market struct {
	name   string
	region itick.Region
	codes  []string
	quotes func(context.Context, itick.Region, []string) (map[string]itick.Quote, error)
	klines func(context.Context, itick.Region, []string, itick.Interval, int, ...itick.KlineOption) (map[string][]itick.Kline, error)
}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: quickstart

Quickstart prints quotes, an order book and recent hourly candles of a few
stocks, crypto pairs and forex pairs, from the iTick service when
ITICK_TOKEN is set and from an offline simulator otherwise.
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

	// Stock quotes stand still while their market is closed: say so.
	fmt.Fprintln(w, "\nStock markets")
	for _, region := range []itick.Region{itick.RegionHK, itick.RegionUS} {
		statuses, err := c.Market.Status(ctx, region)
		if err != nil {
			return fmt.Errorf("market status: %w", err)
		}
		for _, st := range statuses {
			fmt.Fprintf(w, "  %s: %s, local time %s\n", st.Code, st.State, st.LocalTime)
		}
	}

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
