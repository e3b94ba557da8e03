package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
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
			head := regexp.MustCompile(`US splits: (\d+) records on (\d+) pages of 20\.`).FindStringSubmatch(out)
			tail := regexp.MustCompile(`Read (\d+) records through Splits \(the first 10 above\): (\d+) with more shares after, (\d+) with fewer\.`).FindStringSubmatch(out)
			if head == nil || tail == nil {
				t.Fatalf("summary lines missing:\n%s", out)
			}
			total, _ := strconv.Atoi(head[1])
			read, _ := strconv.Atoi(tail[1])
			fwd, _ := strconv.Atoi(tail[2])
			rev, _ := strconv.Atoi(tail[3])
			if total == 0 || read != total || fwd+rev != read {
				t.Errorf("totals disagree: %v %v", head, tail)
			}
			// A ratio is shares after to shares before: 10:1 adds shares.
			var wantFwd, wantRev int
			for _, r := range markettest.NewGenerator(1).Splits(itick.RegionUS, at) {
				var after, before int
				if _, err := fmt.Sscanf(r.Ratio, "%d:%d", &after, &before); err != nil {
					t.Fatalf("ratio %q: %v", r.Ratio, err)
				}
				if after > before {
					wantFwd++
				} else {
					wantRev++
				}
			}
			if fwd != wantFwd || rev != wantRev || wantFwd == 0 || wantRev == 0 {
				t.Errorf("%d with more shares and %d with fewer, want %d and %d", fwd, rev, wantFwd, wantRev)
			}
			if n := len(regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d\s+[A-Z]+\s+.+\s+\d+:\d+\s*$`).FindAllString(out, -1)); n != 10 {
				t.Errorf("%d record rows, want 10:\n%s", n, out)
			}
			if !regexp.MustCompile(`EX-DATE\s+CODE\s+NAME\s+RATIO`).MatchString(out) {
				t.Errorf("no table header:\n%s", out)
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
		!strings.HasPrefix(buf.String(), "Usage: splits\n\nSplits lists ") {
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
	if !strings.HasPrefix(string(out), "Usage: splits\n") {
		t.Errorf("-h printed %q", out)
	}
}
