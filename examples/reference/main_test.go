package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

// clockTimes are the simulator's clocks the program is run at, with the
// states of the Hong Kong and US markets then and the time of AAPL's
// latest trade.
var clockTimes = map[string]struct {
	at        time.Time
	hk, us    string
	lastTrade string
}{
	"weekend":           {exampletest.Weekend, "closed for the weekend", "closed for the weekend", "2025-06-06 19:59:59.999"},
	"night":             {exampletest.Night, "closed", "closed", "2025-06-04 19:59:59.999"},
	"New York trading":  {exampletest.NewYorkTrading, "closed", "open", "2025-06-04 15:30:00.000"},
	"Hong Kong trading": {exampletest.HongKongTrading, "open", "closed", "2025-06-03 19:59:59.999"},
}

var (
	hongKong = mustZone("Asia/Hong_Kong")
	newYork  = mustZone("America/New_York")
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func TestRunOffline(t *testing.T) {
	for name, ct := range clockTimes {
		t.Run(name, func(t *testing.T) {
			at := ct.at
			out := exampletest.RunOffline(t, run, at)
			exampletest.MatchAll(t, out,
				`  HK \(Hong Kong\): `+ct.hk+`, local time `+at.In(hongKong).Format(time.DateTime)+` \(Asia/Hong_Kong\)`,
				`  US \(United States\): `+ct.us+`, local time `+at.In(newYork).Format(time.DateTime)+` \(America/New_York\)`,
				`\d+ US stocks listed; the first five:\nCODE\s+EXCHANGE\s+NAME\s*\n(\S+\s+(NASDAQ|NYSE)\s+\S.*\n){5}`,
				`AAPL\s+NASDAQ\s+Apple Inc\.`,
				`Upcoming US IPOs \(the first five\):\nLISTING\s+CODE\s+PRICE\s+MARKET CAP\s+COMPANY\s*\n(\d{4}-\d\d-\d\d\s+[A-Z]+\s+\d+\.\d\d-\d+\.\d\d\s+\d+\.\d[MB]\s+\S.*\n){5}`,
				`Latest trade of AAPL: \d+(\.\d+)? x \d+ at `+regexp.QuoteMeta(ct.lastTrade)+` UTC \((regular|pre-market|after-hours) session\)\n$`,
			)
			if strings.Contains(out, "markettest-token") {
				t.Error("the token was printed")
			}
		})
	}
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: reference\n\nReference prints ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: reference\n\nReference prints ")
}
