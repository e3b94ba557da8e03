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
	// The simulator runs on the real clock, so any state may come up.
	state := `(pre-market|open|lunch break|post-market|closed|closed for the weekend|closed for a holiday|holiday half day)`
	stamp := `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`
	for _, re := range []string{
		`offline simulator`,
		`  HK \(Hong Kong\): ` + state + `, local time ` + stamp + ` \(Asia/Hong_Kong\)`,
		`  US \(United States\): ` + state + `, local time ` + stamp + ` \(America/New_York\)`,
		`\d+ US stocks listed; the first five:\nCODE\s+EXCHANGE\s+NAME\s*\n(\S+\s+(NASDAQ|NYSE)\s+\S.*\n){5}`,
		`AAPL\s+NASDAQ\s+Apple Inc\.`,
		`Upcoming US IPOs \(the first five\):\nLISTING\s+CODE\s+PRICE\s+MARKET CAP\s+COMPANY\s*\n(\d{4}-\d\d-\d\d\s+[A-Z]+\s+\d+\.\d\d-\d+\.\d\d\s+\d+\.\d[MB]\s+\S.*\n){5}`,
		`Latest trade of AAPL: \d+(\.\d+)? x \d+ at ` + stamp + `\.\d{3} UTC \((regular|pre-market|after-hours) session\)\n$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "markettest-token") {
		t.Error("the token was printed")
	}
}
