package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/markettest"
)

// clockTimes are the simulator's clocks the program is run at, with the
// states of the Hong Kong and US markets then and the time of AAPL's
// latest trade.
var clockTimes = map[string]struct {
	at        time.Time
	hk, us    string
	lastTrade string
}{
	"weekend":           {time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC), "closed for the weekend", "closed for the weekend", "2025-06-06 19:59:59.999"},
	"night":             {time.Date(2025, 6, 5, 0, 30, 0, 0, time.UTC), "closed", "closed", "2025-06-04 19:59:59.999"},
	"New York trading":  {time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC), "closed", "open", "2025-06-04 15:30:00.000"},
	"Hong Kong trading": {time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC), "open", "closed", "2025-06-03 19:59:59.999"},
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
	t.Setenv("ITICK_TOKEN", "")
	for name, ct := range clockTimes {
		t.Run(name, func(t *testing.T) {
			at := ct.at
			var buf bytes.Buffer
			if err := run(t.Context(), nil, &buf, markettest.WithClock(func() time.Time { return at })); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:") {
				t.Errorf("the first line does not say the simulator is used: %q", first)
			}
			for _, re := range []string{
				`  HK \(Hong Kong\): ` + ct.hk + `, local time ` + at.In(hongKong).Format(time.DateTime) + ` \(Asia/Hong_Kong\)`,
				`  US \(United States\): ` + ct.us + `, local time ` + at.In(newYork).Format(time.DateTime) + ` \(America/New_York\)`,
				`\d+ US stocks listed; the first five:\nCODE\s+EXCHANGE\s+NAME\s*\n(\S+\s+(NASDAQ|NYSE)\s+\S.*\n){5}`,
				`AAPL\s+NASDAQ\s+Apple Inc\.`,
				`Upcoming US IPOs \(the first five\):\nLISTING\s+CODE\s+PRICE\s+MARKET CAP\s+COMPANY\s*\n(\d{4}-\d\d-\d\d\s+[A-Z]+\s+\d+\.\d\d-\d+\.\d\d\s+\d+\.\d[MB]\s+\S.*\n){5}`,
				`Latest trade of AAPL: \d+(\.\d+)? x \d+ at ` + regexp.QuoteMeta(ct.lastTrade) + ` UTC \((regular|pre-market|after-hours) session\)\n$`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			if strings.Contains(out, "markettest-token") {
				t.Error("the token was printed")
			}
		})
	}
}

// TestMain runs the program itself when the test binary is started with
// RUN_MAIN=1, so a test can check what main does with its arguments.
func TestMain(m *testing.M) {
	if os.Getenv("RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &buf); !errors.Is(err, flag.ErrHelp) ||
		!strings.HasPrefix(buf.String(), "Usage: reference\n\nReference prints ") {
		t.Errorf("-h: %v, printed %q", err, buf.String())
	}
	if err := run(t.Context(), []string{"extra"}, &buf); err == nil {
		t.Error("an argument was accepted")
	}
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-h")
	cmd.Env = append(os.Environ(), "RUN_MAIN=1", "ITICK_TOKEN=", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("-h: %v", err)
	}
	if !strings.HasPrefix(string(out), "Usage: reference\n") {
		t.Errorf("-h printed %q", out)
	}
}
