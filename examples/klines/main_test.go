package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

// TestRunOffline runs the program at each of the moments: its candles end
// a month before the simulator's now, which the client reads.
func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, at time.Time, out string) {
		limit := at.UTC().AddDate(0, 0, -30)
		exampletest.MatchAll(t, out,
			`Daily candles of AAPL \(US\) up to `+limit.Format("2006-01-02 15:04")+`, 5 a page\.`,
			`Page 1: ending at `,
			`Page 2: ending at `,
			`DATE\s+OPEN\s+HIGH\s+LOW\s+CLOSE\s+VOLUME\s+TURNOVER`,
		)
		// Ten distinct days, going back in time page by page, all before the end.
		dates := regexp.MustCompile(`(?m)^\s+(\d{4}-\d\d-\d\d)\s+\d`).FindAllStringSubmatch(out, -1)
		if len(dates) != 10 {
			t.Fatalf("%d candles, want 10:\n%s", len(dates), out)
		}
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

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: klines\n\nKlines fetches ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: klines\n\nKlines fetches ")
}
