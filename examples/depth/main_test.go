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

// TestMain runs the program itself when the test binary is started with
// RUN_MAIN=1, so a test can check what main does with its arguments.
func TestMain(m *testing.M) {
	if os.Getenv("RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// clockTimes are the simulator's clocks the program is run at.
var clockTimes = map[string]time.Time{
	"weekend":           time.Date(2025, 6, 7, 12, 0, 0, 0, time.UTC),
	"night":             time.Date(2025, 6, 5, 0, 30, 0, 0, time.UTC),
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
			if !strings.HasPrefix(out, "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:") {
				t.Errorf("no word of the simulator:\n%s", out)
			}
			for _, re := range []string{
				`700 \(HK\): 10 bid and 10 ask levels, spread 0\.\d+\n\s+LEVEL\s+BID ORDERS\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS\n`,
				`(?m)^\s+10\s+\d+\s+\d+\s+\d+(\.\d+)?\s+\d+(\.\d+)?`,
				// Crypto order counts are labelled for what they are: the volume again.
				`BTCUSDT \(BA\): 5 bid and 5 ask levels, spread 0\.\d+\n\s+LEVEL\s+BID ORDERS\*\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS\*\n(\s+\d\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\n){5}\* not a number of orders: for crypto the service sends the level's volume again here\.\n`,
				`EURUSD \(GB\): 1 bid and 1 ask levels`,
				`GBPUSD \(GB\): 1 bid and 1 ask levels`,
				`USDJPY \(GB\): 1 bid and 1 ask levels`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			if n := strings.Count(out, "LEVEL  BID ORDERS"); n != 5 {
				t.Errorf("%d book tables, want 5", n)
			}
			if n := strings.Count(out, "* not a number of orders"); n != 1 {
				t.Errorf("the crypto note appears %d times, want once, under the crypto book", n)
			}
		})
	}
}

func TestRunRejectsArguments(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &buf); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(buf.String(), "Usage: depth\n\nDepth prints ") {
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
	if !strings.HasPrefix(string(out), "Usage: depth\n") {
		t.Errorf("-h printed %q", out)
	}
}
