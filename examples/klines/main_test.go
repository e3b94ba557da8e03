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

// recent is the latest instant before now at hh:mm UTC on a day that
// day accepts: the program computes its dates from the real clock, so
// the simulator's clock stays close to it.
func recent(day func(time.Weekday) bool, hh, mm int) time.Time {
	now := time.Now().UTC()
	t := time.Date(now.Year(), now.Month(), now.Day(), hh, mm, 0, 0, time.UTC)
	for !t.Before(now) || !day(t.Weekday()) {
		t = t.AddDate(0, 0, -1)
	}
	return t
}

func weekend(d time.Weekday) bool { return d == time.Saturday || d == time.Sunday }

func weekday(d time.Weekday) bool { return !weekend(d) }

// clockTimes are the simulator's clocks the program is run at: a
// weekend, a night and New York's trading hours.
var clockTimes = map[string]time.Time{
	"weekend":          recent(weekend, 12, 0),
	"night":            recent(weekday, 0, 30),
	"New York trading": recent(weekday, 15, 30),
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
			for _, re := range []string{
				`Daily candles of AAPL \(US\) up to `,
				`Page 1: ending at `,
				`Page 2: ending at `,
				`DATE\s+OPEN\s+HIGH\s+LOW\s+CLOSE\s+VOLUME\s+TURNOVER`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			// Ten distinct days, going back in time page by page, all before the end.
			dates := regexp.MustCompile(`(?m)^\s+(\d{4}-\d\d-\d\d)\s+\d`).FindAllStringSubmatch(out, -1)
			if len(dates) != 10 {
				t.Fatalf("%d candles, want 10:\n%s", len(dates), out)
			}
			limit := time.Now().UTC().AddDate(0, 0, -30)
			var prev time.Time
			for i, d := range dates {
				day, err := time.Parse("2006-01-02", d[1])
				if err != nil {
					t.Fatal(err)
				}
				if day.After(limit) {
					t.Errorf("candle %s is after the end %s", d[1], limit)
				}
				switch {
				case i == 5 && !day.Before(prev.AddDate(0, 0, -5)): // page 2 is older than page 1
					t.Errorf("page 2 starts at %s, page 1 ends at %s", d[1], prev)
				case i%5 != 0 && !day.After(prev):
					t.Errorf("candle %d on %s does not follow %s", i, d[1], prev)
				case day.Weekday() == time.Saturday || day.Weekday() == time.Sunday:
					t.Errorf("candle %d on %s, a weekend day", i, d[1])
				}
				prev = day
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
		!strings.HasPrefix(buf.String(), "Usage: klines\n\nKlines fetches ") {
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
	if !strings.HasPrefix(string(out), "Usage: klines\n") {
		t.Errorf("-h printed %q", out)
	}
}
