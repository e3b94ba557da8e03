package main

import (
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// clockTimes are the simulator's clocks the program is run at.
var clockTimes = map[string]time.Time{
	"weekend":           exampletest.Weekend,
	"night":             exampletest.Night,
	"Hong Kong trading": exampletest.HongKongTrading,
}

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, clockTimes, func(t *testing.T, _ time.Time, out string) {
		exampletest.MatchAll(t, out,
			`700 \(HK\): 10 bid and 10 ask levels, spread 0\.\d+\n\s+LEVEL\s+BID ORDERS\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS\n`,
			`(?m)^\s+10\s+\d+\s+\d+\s+\d+(\.\d+)?\s+\d+(\.\d+)?`,
			// Crypto order counts are labelled for what they are: the volume again.
			`BTCUSDT \(BA\): 5 bid and 5 ask levels, spread 0\.\d+\n\s+LEVEL\s+BID ORDERS\*\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS\*\n(\s+\d\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\n){5}\* not a number of orders: for crypto the service sends the level's volume again here\.\n`,
			`EURUSD \(GB\): 1 bid and 1 ask levels`,
			`GBPUSD \(GB\): 1 bid and 1 ask levels`,
			`USDJPY \(GB\): 1 bid and 1 ask levels`,
		)
		if n := strings.Count(out, "LEVEL  BID ORDERS"); n != 5 {
			t.Errorf("%d book tables, want 5", n)
		}
		if n := strings.Count(out, "* not a number of orders"); n != 1 {
			t.Errorf("the crypto note appears %d times, want once, under the crypto book", n)
		}
	})
}

func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: depth\n\nDepth prints ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: depth\n\nDepth prints ")
}
