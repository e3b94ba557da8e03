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
			for _, re := range []string{
				`Page 1: 5 items, more: true, next cursor: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"`,
				`Page 2: 5 items, more: true, next cursor: "`,
				`The 12 latest headlines, through All:\nPUBLISHED \(UTC\)\s+PROVIDER\s+TITLE\s*\n(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\S.*\n){12}$`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			// The two hand-made pages are the first ten headlines All gives.
			sections := strings.Split(out, "\nThe 12 latest")
			rows := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*$`)
			// Columns are padded per table, so compare the words.
			words := func(rows []string) string { return strings.Join(strings.Fields(strings.Join(rows, "\n")), " ") }
			paged, all := rows.FindAllString(sections[0], -1), rows.FindAllString(sections[1], -1)
			if len(paged) != 10 || len(all) != 12 || words(paged) != words(all[:10]) {
				t.Errorf("paging by hand and All disagree:\n%s", out)
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
		!strings.HasPrefix(buf.String(), "Usage: news\n\nNews pages ") {
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
	if !strings.HasPrefix(string(out), "Usage: news\n") {
		t.Errorf("-h printed %q", out)
	}
}
