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
	if !strings.Contains(out, "offline simulator") {
		t.Errorf("no word of the simulator:\n%s", out)
	}
	for _, re := range []string{
		`700 \(HK\): 10 bid and 10 ask levels, spread 0\.\d+`,
		`BTCUSDT \(BA\): 5 bid and 5 ask levels, spread 0\.\d+`,
		`EURUSD \(GB\): 1 bid and 1 ask levels`,
		`GBPUSD \(GB\): 1 bid and 1 ask levels`,
		`USDJPY \(GB\): 1 bid and 1 ask levels`,
		`(?m)^\s+10\s+\d+\s+\d+\s+\d+(\.\d+)?\s+\d+(\.\d+)?`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if n := strings.Count(out, "LEVEL  BID ORDERS"); n != 5 {
		t.Errorf("%d book tables, want 5", n)
	}
}
