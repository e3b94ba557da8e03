package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"
)

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, re := range []string{
		`offline simulator`,
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
}
