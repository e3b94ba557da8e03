package main

import (
	"errors"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/markettest"
)

// now pins the simulator's clock, so every run sees the same prices.
var now = time.Date(2025, 1, 6, 12, 30, 0, 0, time.UTC)

// newBot starts a simulator and a bot that talks to it.
func newBot(t *testing.T, opts ...markettest.Option) (*Bot, *markettest.Server) {
	t.Helper()
	srv := markettest.NewServer(append([]markettest.Option{exampletest.At(now),
		markettest.WithSeed(42)}, opts...)...)
	t.Cleanup(srv.Close)
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	return &Bot{Client: client, Region: itick.RegionBA, Window: 24, Threshold: 0.5}, srv
}

// expected computes the bot's decisions from the simulator's generator:
// the answer the bot must reach from the data the server sends.
func expected(t *testing.T, srv *markettest.Server, bot *Bot, syms []string) []Signal {
	t.Helper()
	g := srv.Generator()
	var want []Signal
	for _, s := range syms {
		q := g.Quote(markettest.Crypto, bot.Region, s, now)
		var sum float64
		for _, k := range g.Klines(markettest.Crypto, bot.Region, s, itick.OneHour, bot.Window, time.Time{}, now) {
			sum += k.Close
		}
		avg := sum / float64(bot.Window)
		action := "hold"
		if d := (q.Last - avg) / avg * 100; d > bot.Threshold {
			action = "sell"
		} else if d < -bot.Threshold {
			action = "buy"
		}
		want = append(want, Signal{Symbol: s, Last: q.Last, Average: avg, Action: action})
	}
	return want
}

func TestBotDecides(t *testing.T) {
	t.Parallel()
	bot, srv := newBot(t)
	got, skipped, err := bot.Decide(t.Context(), []string{"BTCUSDT", "ETHUSDT"})
	if err != nil || len(skipped) > 0 {
		t.Fatalf("Decide: %v, skipped %v", err, skipped)
	}
	if diff := cmp.Diff(expected(t, srv, bot, []string{"BTCUSDT", "ETHUSDT"}), got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
}

func TestBotRidesOutTransientFailures(t *testing.T) {
	t.Parallel()
	bot, srv := newBot(t)
	srv.FailNext(2, http.StatusServiceUnavailable)
	srv.Inject(markettest.Fault{Kind: markettest.FaultTruncate, Times: 1, Path: "/crypto/klines"})
	got, skipped, err := bot.Decide(t.Context(), []string{"BTCUSDT"})
	if err != nil || len(skipped) > 0 {
		t.Fatalf("Decide: %v, skipped %v", err, skipped)
	}
	if diff := cmp.Diff(expected(t, srv, bot, []string{"BTCUSDT"}), got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
	if n := srv.Stats().Faults; n != 3 {
		t.Errorf("%d faults met, want 3", n)
	}
}

func TestBotSkipsSymbolsOfAFailedChunk(t *testing.T) {
	t.Parallel()
	bot, srv := newBot(t, markettest.WithBatchSize(2))
	client, err := srv.Client(itick.WithBatchSize(2), itick.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	bot.Client = client
	srv.Inject(markettest.Fault{Kind: markettest.FaultStatus, Status: http.StatusBadGateway, Code: "SOLUSDT"})
	syms := []string{"BTCUSDT", "ETHUSDT", "SOLUSDT", "BNBUSDT", "XRPUSDT"}
	got, skipped, err := bot.Decide(t.Context(), syms)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks of two: SOLUSDT shares its chunk with BNBUSDT.
	if diff := cmp.Diff([]string{"SOLUSDT", "BNBUSDT"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(expected(t, srv, bot, []string{"BTCUSDT", "ETHUSDT", "XRPUSDT"}), got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
}

func TestBotStopsOnAWrongToken(t *testing.T) {
	t.Parallel()
	bot, srv := newBot(t)
	c, err := itick.NewClient("expired", itick.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	bot.Client = c
	if _, _, err := bot.Decide(t.Context(), []string{"BTCUSDT"}); !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("Decide with a wrong token: %v, want ErrUnauthorized", err)
	}
}

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, _ time.Time, out string) {
		if !regexp.MustCompile(`offline simulator[^\n]*\n\nSignals from the last price against the 24-hour average \(act beyond 0\.5%\):\n\s+SYMBOL\s+LAST\s+AVERAGE\s+ACTION\n`).MatchString(out) {
			t.Errorf("no header:\n%s", out)
		}
		for _, s := range symbols {
			if !regexp.MustCompile(`(?m)^\s+` + s + `\s+[\d.]+\s+[\d.]+\s+(buy|sell|hold)\s*$`).MatchString(out) {
				t.Errorf("no signal for %s:\n%s", s, out)
			}
		}
	})
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: bottesting\n\nBottesting runs ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: bottesting\n\nBottesting runs ")
}
