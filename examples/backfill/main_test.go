package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// recent is the latest instant before now at hh:mm UTC on a day that
// day accepts: the program computes its range from the real clock, so
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
func clockTimes() map[string]time.Time {
	return map[string]time.Time{
		"weekend":          recent(weekend, 12, 0),
		"night":            recent(weekday, 0, 30),
		"New York trading": recent(weekday, 15, 30),
	}
}

func TestRunOfflineWritesCSV(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for name, at := range clockTimes() {
		t.Run(name, func(t *testing.T) { runOfflineWritesCSV(t, at) })
	}
}

func runOfflineWritesCSV(t *testing.T, at time.Time) {
	out := filepath.Join(t.TempDir(), "candles.csv")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-out", out}, &stdout, &stderr,
		markettest.WithClock(func() time.Time { return at })); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to stdout with -out set", stdout.Len())
	}
	if first, _, _ := strings.Cut(stderr.String(), "\n"); !strings.HasPrefix(first, "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:") {
		t.Errorf("first line %q", first)
	}
	assertProgress(t, stderr.String())
	if !strings.Contains(stderr.String(), "candles of 50 stocks") {
		t.Errorf("stderr lacks the summary:\n%s", stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "code,date,open,high,low,close,volume,turnover" {
		t.Fatalf("header %q", rows[0])
	}
	to := time.Now().UTC().Truncate(24 * time.Hour)
	from := to.AddDate(-2, 0, 0)
	perCode := map[string][]time.Time{}
	for _, r := range rows[1:] {
		d, err := time.Parse(time.DateOnly, r[1])
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		if d.Before(from) || d.After(at) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			t.Errorf("row %q: a day outside %s..%s or on a weekend", r, from.Format(time.DateOnly), at.Format(time.DateOnly))
		}
		if ds := perCode[r[0]]; len(ds) > 0 && !d.After(ds[len(ds)-1]) {
			t.Errorf("row %q does not follow %s", r, ds[len(ds)-1])
		}
		perCode[r[0]] = append(perCode[r[0]], d)
	}
	if len(perCode) != 50 {
		t.Errorf("%d stocks, want 50", len(perCode))
	}
	for code, ds := range perCode {
		if len(ds) < 480 || len(ds) > 510 || len(ds) != len(perCode["AAPL"]) {
			t.Errorf("%s: %d days, want two years of trading days like AAPL's %d", code, len(ds), len(perCode["AAPL"]))
		}
	}
}

// assertProgress checks the progress line's updates: the share never
// falls, and it reads 100% only once every stock is done, which the last
// update says.
func assertProgress(t *testing.T, stderr string) {
	t.Helper()
	update := regexp.MustCompile(`^\s*(\d+)%  \d+ requests  \d+ candles  (\d+) of 50 stocks done  back to \d{4}-\d\d-\d\d  \S+$`)
	line := strings.Split(stderr, "\n")[1]
	updates := strings.Split(strings.TrimPrefix(line, "\r"), "\r")
	prev := -1
	for _, u := range updates {
		m := update.FindStringSubmatch(u)
		if m == nil {
			t.Fatalf("progress update %q", u)
		}
		pct, _ := strconv.Atoi(m[1])
		done, _ := strconv.Atoi(m[2])
		if pct < prev || (pct == 100) != (done == 50) {
			t.Errorf("progress %q after %d%%", u, prev)
		}
		prev = pct
	}
	if prev != 100 || len(updates) < 3 {
		t.Errorf("%d progress updates, the last at %d%%", len(updates), prev)
	}
}

// TestPercentNeverRoundsUpToDone checks the progress share near the end
// of a range: rounded down, and 100 only when every stock is done.
func TestPercentNeverRoundsUpToDone(t *testing.T) {
	if got := percent(itick.RangeProgress{Codes: 50, Done: 50}); got != 100 {
		t.Errorf("all done: %d%%", got)
	}
	if got := percent(itick.RangeProgress{Codes: 50, Done: 49}); got > 99 {
		t.Errorf("49 of 50 done: %d%%", got)
	}
}

func TestRunOfflineToStdoutOnFreePlan(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var stdout, stderr bytes.Buffer
	// The Free plan's 5 calls a minute, 600 times faster: the ten requests
	// need five more slots after the first five, one a 100 ms.
	if err := run(t.Context(), []string{"-plan", "free", "-speedup", "600", "-years", "2"}, &stdout, &stderr,
		markettest.WithClock(func() time.Time { return recent(weekday, 15, 30) })); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 50*480 {
		t.Errorf("%d rows on stdout", len(rows))
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for _, args := range [][]string{{"-plan", "gold"}, {"-years", "0"}, {"-speedup", "-1"}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, &stdout, &stderr); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) ||
		!strings.HasPrefix(stderr.String(), "Usage: backfill [flags]\n\nBackfill writes ") {
		t.Errorf("-h: %v, printed %q", err, stderr.String())
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

// TestMainHelp runs the program with -h: usage, exit status 0.
func TestMainHelp(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-h")
	cmd.Env = append(os.Environ(), "RUN_MAIN=1", "ITICK_TOKEN=", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "Usage: backfill [flags]\n") || !strings.Contains(string(out), "-speedup float") {
		t.Errorf("-h printed %q", out)
	}
}
