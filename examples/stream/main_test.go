package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"-symbols", "700$HK,AAPL$US", "-duration", "700ms"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], "ITICK_TOKEN is not set: using the offline simulator at http://127.0.0.1:") {
		t.Errorf("first line = %q", lines[0])
	}
	if lines[1] != "streaming stock quotes for 700$HK,AAPL$US" {
		t.Errorf("second line = %q", lines[1])
	}
	quote := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} (700\$HK|AAPL\$US) last=\d+\.\d\d high=\d+\.\d\d low=\d+\.\d\d volume=\d+$`)
	seen := map[string]int{}
	for _, l := range lines[2 : len(lines)-1] {
		m := quote.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("unexpected line %q", l)
			continue
		}
		seen[m[1]]++
	}
	if seen["700$HK"] == 0 || seen["AAPL$US"] == 0 {
		t.Errorf("quotes per product = %v, want some of each", seen)
	}
	summary := regexp.MustCompile(`^(\d+) quotes, 0 dropped$`).FindStringSubmatch(lines[len(lines)-1])
	if summary == nil || summary[1] != strconv.Itoa(seen["700$HK"]+seen["AAPL$US"]) {
		t.Errorf("last line = %q, want the count of the %d quote lines", lines[len(lines)-1], seen["700$HK"]+seen["AAPL$US"])
	}
}

func TestRunRejectsBadSymbols(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-symbols", "700", "-duration", "1s"}, &out); err == nil {
		t.Error("run with a symbol without region succeeded")
	}
}
