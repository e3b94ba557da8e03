package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
			for _, re := range []string{
				`1\. A blank code: ErrInvalidArgument\n   itick: invalid argument: `,
				`2\. A wrong token: ErrUnauthorized \(HTTP 401, "Invalid API key in request"\)`,
				`3\. Two 503s and a dropped connection: no error after 4 requests; BTCUSDT last \d+`,
				`4\. Over the quota, no retries: ErrRateLimited, retry after 30s`,
				`5\. A chunk refused with 429: BatchError, 10 codes without results; 20 quotes arrived; missing \[1011 1012 1013 1014 1015 1016 1017 1018 1019 1020\]`,
				`It also matches ErrRateLimited: true`,
				`Retrying just the missing codes: no error, 10 more quotes`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", re, out)
				}
			}
			if regexp.MustCompile(`not-a-real-token|markettest-token`).MatchString(out) {
				t.Errorf("a token was printed:\n%s", out)
			}
		})
	}
}

// TestKindTestsBatchErrorFirst checks that a batch whose failed chunk
// carries a sentinel is reported as a BatchError, whose map still holds the
// other chunks' results, and not as that sentinel.
func TestKindTestsBatchErrorFirst(t *testing.T) {
	for _, sentinel := range []error{itick.ErrRateLimited, itick.ErrUnauthorized, itick.ErrPlanLimit,
		itick.ErrNotFound, itick.ErrInvalidArgument, context.DeadlineExceeded} {
		err := &itick.BatchError{Chunks: []itick.ChunkError{
			{Codes: []string{"1011", "1012"}, Err: fmt.Errorf("chunk: %w", sentinel)},
		}}
		if got, want := kind(err), "BatchError, 2 codes without results"; got != want {
			t.Errorf("kind(BatchError wrapping %v) = %q, want %q", sentinel, got, want)
		}
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
		!strings.HasPrefix(buf.String(), "Usage: errors\n\nErrors shows ") {
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
	if !strings.HasPrefix(string(out), "Usage: errors\n") {
		t.Errorf("-h printed %q", out)
	}
}
