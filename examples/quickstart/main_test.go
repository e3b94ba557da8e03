package main

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/markettest"
)

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// clockTimes are instants the program must work at, and what the stock
// markets are doing then.
var clockTimes = []struct {
	name   string
	at     time.Time
	hk, us string
}{
	{"weekend", exampletest.Weekend, "closed for the weekend", "closed for the weekend"},
	{"night", exampletest.Night, "closed", "closed"},
	{"New York trading", exampletest.NewYorkTrading, "closed", "open"},
	{"Hong Kong trading", exampletest.HongKongTrading, "open", "closed"},
	{"US holiday", exampletest.USHoliday, "closed", "closed for a holiday"},
	{"US half day", exampletest.USHalfDay, "closed for the weekend", "holiday half day"},
	{"02:00 UTC", exampletest.EarlyUTC, "open", "closed"},
	{"DST change", exampletest.DSTChange, "closed", "open"},
}

func TestRunOffline(t *testing.T) {
	for _, ct := range clockTimes {
		t.Run(ct.name, func(t *testing.T) {
			out := exampletest.RunOffline(t, run, ct.at)
			exampletest.MatchAll(t, out,
				`  HK: `+ct.hk+`, local time \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n`,
				`  US: `+ct.us+`, local time \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n`,
				`MARKET\s+REGION\s+SYMBOL\s+LAST\s+CHANGE\s+CHANGE %\s+OPEN\s+HIGH\s+LOW\s+VOLUME\s+TIME \(UTC\)`,
				`Stock\s+HK\s+700\s+\d+(\.\d+)?\s+[+-]?\d`,
				`Stock\s+US\s+AAPL\s+\d+(\.\d+)?\s+[+-]?\d`,
				`Crypto\s+BA\s+BTCUSDT\s+\d{5}(\.\d+)?\s+-\s+-`,
				`Crypto\s+BA\s+ETHUSDT\s+\d+(\.\d+)?\s+-\s+-`,
				`Forex\s+GB\s+EURUSD\s+1\.\d+\s+[+-]?\d+(\.\d+)?\s+[+-]?\d+(\.\d+)?%`,
				`Forex\s+GB\s+GBPUSD\s+1\.\d+\s+[+-]?\d+(\.\d+)?\s+[+-]?\d+(\.\d+)?%`,
				`Order book: 700 \(HK\)`,
				`LEVEL\s+BID ORDERS\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS`,
				`(?m)^\s+5\s+\d+\s+\d+\s+\d`,
				`SYMBOL\s+TIME \(UTC\)\s+OPEN\s+HIGH\s+LOW\s+CLOSE\s+VOLUME`,
			)
			// The crypto quotes are of the clock's very instant: crypto trades at any hour.
			if !strings.Contains(out, ct.at.Format("2006-01-02 15:04:05")) {
				t.Errorf("no quote at %s:\n%s", ct.at, out)
			}
			for _, code := range []string{"700", "AAPL", "BTCUSDT", "ETHUSDT", "EURUSD", "GBPUSD"} {
				if n := len(regexp.MustCompile(`(?m)^\s+`+code+`\s+\d{4}-\d\d-\d\d \d\d:00\s`).FindAllString(out, -1)); n != 3 {
					t.Errorf("%d candles of %s, want 3", n, code)
				}
			}
		})
	}
}

// TestRunAgainstTheService points the program at a stand-in for the
// service through the environment: it says so without printing the token,
// and sends that token.
func TestRunAgainstTheService(t *testing.T) {
	srv := markettest.NewServer(markettest.WithToken("env-token-123"), exampletest.At(exampletest.NewYorkTrading))
	defer srv.Close()
	exampletest.UseServer(t, srv)
	var buf bytes.Buffer
	// clock: real time for the program's client, which talks to srv as to
	// the service; the program reads no date of its own, and srv's clock is pinned.
	if err := run(t.Context(), nil, &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if first, _, _ := strings.Cut(out, "\n"); first != "Using the iTick service at "+srv.URL+" (ITICK_TOKEN is set)." {
		t.Errorf("first line %q", first)
	}
	if strings.Contains(out, "env-token-123") {
		t.Errorf("the token was printed:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) < 5 {
		t.Fatalf("%d requests reached the service", len(reqs))
	}
	for _, r := range reqs {
		if !r.TokenValid {
			t.Errorf("%s without the environment's token", r.Path)
		}
	}
}

func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: quickstart\n\nQuickstart prints ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0;
// an unknown flag exits with a failure.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: quickstart\n\nQuickstart prints ")
	var ee *exec.ExitError
	if err := exampletest.Command(t.Context(), exampletest.Weekend, "-no-such-flag").Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("an unknown flag: %v, want exit status 1", err)
	}
}
