// Command bottesting runs a small trading bot, and its test file shows how
// to test such a bot with markettest: no network, no quota, reproducible
// prices from a fixed clock and seed, and faults injected on purpose.
//
// The bot compares each symbol's last price with the average close of its
// recent hourly candles and says buy, sell or hold.
//
//	go run ./examples/bottesting
//	go test ./examples/bottesting
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
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
		fmt.Fprintln(os.Stderr, "bottesting:", err)
		os.Exit(1)
	}
}

// Bot decides on crypto pairs from quotes and hourly candles.
type Bot struct {
	Client    *itick.Client
	Region    itick.Region
	Window    int     // candles in the average
	Threshold float64 // how far, in percent, the price must be from the average to act
}

// Signal is the bot's decision on one symbol.
type Signal struct {
	Symbol  string
	Last    float64
	Average float64
	Action  string // "buy", "sell" or "hold"
}

// Decide returns a signal for every symbol it could get data for, sorted by
// symbol, and the symbols it had to skip. A failed chunk of a batch call
// skips its symbols instead of failing the whole run.
func (b *Bot) Decide(ctx context.Context, symbols []string) ([]Signal, []string, error) {
	quotes, err := b.Client.Crypto.Quotes(ctx, b.Region, symbols)
	var be *itick.BatchError
	if err != nil && !errors.As(err, &be) {
		return nil, nil, err
	}
	candles, err := b.Client.Crypto.Klines(ctx, b.Region, symbols, itick.OneHour, b.Window)
	if err != nil && !errors.As(err, &be) {
		return nil, nil, err
	}
	var out []Signal
	var skipped []string
	for _, s := range symbols {
		q, ok := quotes[s]
		ks := candles[s]
		if !ok || len(ks) == 0 {
			skipped = append(skipped, s)
			continue
		}
		var sum float64
		for _, k := range ks {
			sum += k.Close
		}
		avg := sum / float64(len(ks))
		sig := Signal{Symbol: s, Last: q.Last, Average: avg, Action: "hold"}
		switch diff := (q.Last - avg) / avg * 100; {
		case diff > b.Threshold:
			sig.Action = "sell"
		case diff < -b.Threshold:
			sig.Action = "buy"
		}
		out = append(out, sig)
	}
	slices.SortFunc(out, func(a, b Signal) int { return strings.Compare(a.Symbol, b.Symbol) })
	return out, skipped, nil
}

var symbols = []string{"BTCUSDT", "ETHUSDT", "SOLUSDT", "BNBUSDT", "XRPUSDT", "DOGEUSDT", "ADAUSDT"}

// run is the program: args are its command-line arguments, sim the
// simulator's options when it runs offline.
func run(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error {
	fs := flag.NewFlagSet("bottesting", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: bottesting

Bottesting runs a small trading bot once: for a few crypto pairs it
compares the last price with the average of the recent hourly closes and
says buy, sell or hold. Its test file shows how to test such a bot with
markettest. It asks the iTick service when ITICK_TOKEN is set and an
offline simulator otherwise.
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
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	bot := &Bot{Client: env.Client, Region: itick.RegionBA, Window: 24, Threshold: 0.5}
	signals, skipped, err := bot.Decide(ctx, symbols)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSignals from the last price against the %d-hour average (act beyond %v%%):\n", bot.Window, bot.Threshold)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SYMBOL\tLAST\tAVERAGE\tACTION\t")
	for _, s := range signals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", s.Symbol, num(s.Last), strconv.FormatFloat(s.Average, 'f', 4, 64), s.Action)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "Skipped for lack of data: %v\n", skipped)
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
