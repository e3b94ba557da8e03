package main

import (
	"bytes"
	"encoding/json"
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
		`TYPE\s+REGION\s+CODE\s+NAME\s+EXCHANGE\s+SHORT NAME`,
		`stock\s+HK\s+700\s+Tencent Holdings Ltd\.\s+HKEX\s+Tencent`,
		`stock\s+US\s+AAPL\s+Apple Inc\.\s+NASDAQ\s+Apple`,
		`crypto\s+BA\s+BTCUSDT\s+Bitcoin / Tether\s+BA\s+BTC`,
		`forex\s+GB\s+EURUSD\s+Euro / US Dollar\s+GB\s+EUR/USD`,
		`stock\s+US\s+NOSUCHCODE\s+\(not found\)`,
		`GET /symbol/info as raw bytes \(\d+ bytes\):`,
		`(?m)^6 requests in 6 attempts$`,
	}
	for _, re := range want {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	_, rawPart, _ := strings.Cut(out, "bytes):\n")
	line, _, _ := strings.Cut(rawPart, "\n")
	var data map[string]any
	if err := json.Unmarshal([]byte(line), &data); err != nil || data["c"] != "700" {
		t.Errorf("the raw data %q is not the symbol's JSON: %v", line, err)
	}
}
