package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "offline simulator") {
		t.Errorf("the first line does not say the simulator is used: %q", first)
	}
	want := []string{
		`MARKET\s+REGION\s+SYMBOL\s+LAST\s+CHANGE\s+CHANGE %\s+OPEN\s+HIGH\s+LOW\s+VOLUME\s+TIME \(UTC\)`,
		`Stock\s+HK\s+700\s+\d+(\.\d+)?\s+[+-]?\d`,
		`Stock\s+US\s+AAPL\s+\d+(\.\d+)?\s+[+-]?\d`,
		`Crypto\s+BA\s+BTCUSDT\s+\d{5}(\.\d+)?\s+-\s+-`,
		`Crypto\s+BA\s+ETHUSDT\s+\d+(\.\d+)?\s+-\s+-`,
		`Forex\s+GB\s+EURUSD\s+1\.\d+\s+[+-]?\d+(\.\d+)?\s+[+-]?\d+(\.\d+)?%`,
		`Forex\s+GB\s+GBPUSD\s+1\.\d+\s+[+-]?\d+(\.\d+)?\s+[+-]?\d+(\.\d+)?%`,
		`Order book: 700 \(HK\)`,
		`LEVEL\s+BID ORDERS\s+BID VOLUME\s+BID\s+ASK\s+ASK VOLUME\s+ASK ORDERS`,
		`(?m)^\s+5\s+\d+\s+\d+\s+\d`,
		`SYMBOL\s+TIME \(UTC\)\s+OPEN\s+HIGH\s+LOW\s+CLOSE\s+VOLUME`,
	}
	for _, re := range want {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	for _, code := range []string{"700", "AAPL", "BTCUSDT", "ETHUSDT", "EURUSD", "GBPUSD"} {
		if n := len(regexp.MustCompile(`(?m)^\s+`+code+`\s+\d{4}-\d\d-\d\d \d\d:00\s`).FindAllString(out, -1)); n != 3 {
			t.Errorf("%d candles of %s, want 3", n, code)
		}
	}
}
