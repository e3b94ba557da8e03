package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/examples/internal/exampletest"
	"github.com/d19c4e34/itick/markettest"
)

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, at time.Time, out string) {
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
		// A ratio is shares after to shares before: 10:1 adds shares.
		var wantFwd, wantRev int
		for _, r := range markettest.NewGenerator(1).Splits(itick.RegionUS, at) {
			var after, before int
			if _, err := fmt.Sscanf(r.Ratio, "%d:%d", &after, &before); err != nil {
				t.Fatalf("ratio %q: %v", r.Ratio, err)
			}
			if after > before {
				wantFwd++
			} else {
				wantRev++
			}
		}
		if fwd != wantFwd || rev != wantRev || wantFwd == 0 || wantRev == 0 {
			t.Errorf("%d with more shares and %d with fewer, want %d and %d", fwd, rev, wantFwd, wantRev)
		}
		if n := len(regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d\s+[A-Z]+\s+.+\s+\d+:\d+\s*$`).FindAllString(out, -1)); n != 10 {
			t.Errorf("%d record rows, want 10:\n%s", n, out)
		}
		if !regexp.MustCompile(`EX-DATE\s+CODE\s+NAME\s+RATIO`).MatchString(out) {
			t.Errorf("no table header:\n%s", out)
		}
	})
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: splits\n\nSplits lists ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: splits\n\nSplits lists ")
}
