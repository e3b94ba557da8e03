package main

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, _ time.Time, out string) {
		exampletest.MatchAll(t, out,
			`1\. A blank code: ErrInvalidArgument\n   itick: invalid argument: `,
			`2\. A wrong token: ErrUnauthorized \(HTTP 401, "Invalid API key in request"\)`,
			`3\. Two 503s and a dropped connection: no error after 4 requests; BTCUSDT last \d+`,
			`4\. Over the quota, no retries: ErrRateLimited, retry after 30s`,
			`5\. A chunk refused with 429: BatchError, 10 codes without results; 20 quotes arrived; missing \[1011 1012 1013 1014 1015 1016 1017 1018 1019 1020\]`,
			`It also matches ErrRateLimited: true`,
			`Retrying just the missing codes: no error, 10 more quotes`,
		)
		if regexp.MustCompile(`not-a-real-token|markettest-token`).MatchString(out) {
			t.Errorf("a token was printed:\n%s", out)
		}
	})
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

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: errors\n\nErrors shows ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: errors\n\nErrors shows ")
}
