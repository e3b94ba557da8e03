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
	for _, re := range []string{
		`offline simulator`,
		`Asking for 300 quotes in 30 requests of up to 10 codes\.`,
		`Got 300 quotes in `,
		`Top gainers\n\s+SYMBOL\s+LAST\s+PREV CLOSE\s+CHANGE %\s+VOLUME\n(\s+\d+\s+[\d.]+\s+[\d.]+\s+[+-]\d+\.\d\d%\s+\d+\n){5}`,
		`Top losers\n\s+SYMBOL\s+LAST\s+PREV CLOSE\s+CHANGE %\s+VOLUME\n(\s+\d+\s+[\d.]+\s+[\d.]+\s+[+-]\d+\.\d\d%\s+\d+\n){5}`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "got no quote") {
		t.Errorf("a chunk failed:\n%s", out)
	}
}
