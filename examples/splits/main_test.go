package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
)

func TestRunOffline(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	head := regexp.MustCompile(`US splits: (\d+) records on (\d+) pages of 20\.`).FindStringSubmatch(out)
	tail := regexp.MustCompile(`Read (\d+) records through Splits \(the first 10 above\): (\d+) with more shares after, (\d+) with fewer\.`).FindStringSubmatch(out)
	if head == nil || tail == nil {
		t.Fatalf("summary lines missing:\n%s", out)
	}
	total, _ := strconv.Atoi(head[1])
	read, _ := strconv.Atoi(tail[1])
	fwd, _ := strconv.Atoi(tail[2])
	rev, _ := strconv.Atoi(tail[3])
	if total == 0 || read != total || fwd+rev != read {
		t.Errorf("totals disagree: %v %v", head, tail)
	}
	if n := len(regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d\s+[A-Z]+\s+.+\s+\d+:\d+\s*$`).FindAllString(out, -1)); n != 10 {
		t.Errorf("%d record rows, want 10:\n%s", n, out)
	}
	if !regexp.MustCompile(`EX-DATE\s+CODE\s+NAME\s+RATIO`).MatchString(out) {
		t.Errorf("no table header:\n%s", out)
	}
}
