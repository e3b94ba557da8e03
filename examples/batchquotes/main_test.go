package main

import (
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, _ time.Time, out string) {
		exampletest.MatchAll(t, out,
			`Asking for 300 quotes in 30 requests of up to 10 codes\.`,
			`Got 300 quotes in `,
			`Top gainers\n\s+SYMBOL\s+LAST\s+PREV CLOSE\s+CHANGE %\s+VOLUME\n(\s+\d+\s+[\d.]+\s+[\d.]+\s+[+-]\d+\.\d\d%\s+\d+\n){5}`,
			`Top losers\n\s+SYMBOL\s+LAST\s+PREV CLOSE\s+CHANGE %\s+VOLUME\n(\s+\d+\s+[\d.]+\s+[\d.]+\s+[+-]\d+\.\d\d%\s+\d+\n){5}`,
		)
		if strings.Contains(out, "got no quote") {
			t.Errorf("a chunk failed:\n%s", out)
		}
	})
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: batchquotes\n\nBatchquotes asks ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: batchquotes\n\nBatchquotes asks ")
}
