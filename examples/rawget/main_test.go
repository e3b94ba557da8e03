package main

import (
	"bytes"
	"encoding/json"
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

// clockTimes are the simulator's clocks the program is run at: a
// weekend, a night when the stock markets are closed, and trading hours.
var clockTimes = map[string]time.Time{
	"weekend":           time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC),
	"night":             time.Date(2025, 6, 5, 0, 30, 0, 0, time.UTC),
	"New York trading":  time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC),
	"Hong Kong trading": time.Date(2025, 6, 4, 3, 0, 0, 0, time.UTC),
}

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for name, at := range clockTimes {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := run(t.Context(), nil, &buf, markettest.WithClock(func() time.Time { return at })); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:") {
				t.Errorf("the first line does not say the simulator is used: %q", first)
			}
			if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "offline simulator") {
				t.Errorf("the first line does not say the simulator is used: %q", first)
			}
			want := []string{
				`TYPE\s+REGION\s+CODE\s+NAME\s+EXCHANGE\s+SHORT NAME`,
				`stock\s+HK\s+700\s+Tencent Holdings Ltd\.\s+HKEX\s+Tencent`,
				`stock\s+US\s+AAPL\s+Apple Inc\.\s+NASDAQ\s+Apple`,
				`crypto\s+BA\s+BTCUSDT\s+Bitcoin / Tether\s+BA\s+BTC`,
				`forex\s+GB\s+EURUSD\s+Euro / US Dollar\s+GB\s+EUR/USD`,
				`stock\s+US\s+NOSUCHCODE\s+\(not found\)`,
				`GET /symbol/info as raw bytes \(\d+ bytes\):`,
				`(?m)^6 requests in 6 attempts$`,
			}
			for _, re := range want {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			_, rawPart, _ := strings.Cut(out, "bytes):\n")
			line, _, _ := strings.Cut(rawPart, "\n")
			var data map[string]any
			if err := json.Unmarshal([]byte(line), &data); err != nil || data["c"] != "700" {
				t.Errorf("the raw data %q is not the symbol's JSON: %v", line, err)
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
		!strings.HasPrefix(buf.String(), "Usage: rawget\n\nRawget calls ") {
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
	if !strings.HasPrefix(string(out), "Usage: rawget\n") {
		t.Errorf("-h printed %q", out)
	}
}
