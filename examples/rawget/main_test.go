package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, _ time.Time, out string) {
		exampletest.MatchAll(t, out,
			`TYPE\s+REGION\s+CODE\s+NAME\s+EXCHANGE\s+SHORT NAME`,
			`stock\s+HK\s+700\s+Tencent Holdings Ltd\.\s+HKEX\s+Tencent`,
			`stock\s+US\s+AAPL\s+Apple Inc\.\s+NASDAQ\s+Apple`,
			`crypto\s+BA\s+BTCUSDT\s+Bitcoin / Tether\s+BA\s+BTC`,
			`forex\s+GB\s+EURUSD\s+Euro / US Dollar\s+GB\s+EUR/USD`,
			`stock\s+US\s+NOSUCHCODE\s+\(not found\)`,
			`GET /symbol/info as raw bytes \(\d+ bytes\):`,
			`(?m)^6 requests in 6 attempts$`,
		)
		_, rawPart, _ := strings.Cut(out, "bytes):\n")
		line, _, _ := strings.Cut(rawPart, "\n")
		var data map[string]any
		if err := json.Unmarshal([]byte(line), &data); err != nil || data["c"] != "700" {
			t.Errorf("the raw data %q is not the symbol's JSON: %v", line, err)
		}
	})
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: rawget\n\nRawget calls ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: rawget\n\nRawget calls ")
}
