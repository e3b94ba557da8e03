package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/examples/internal/exampletest"
)

func TestRunOffline(t *testing.T) {
	exampletest.RunAtClocks(t, run, exampletest.Moments(), func(t *testing.T, _ time.Time, out string) {
		exampletest.MatchAll(t, out,
			`Page 1: 5 items, more: true, next cursor: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"`,
			`Page 2: 5 items, more: true, next cursor: "`,
			`The 12 latest headlines, through All:\nPUBLISHED \(UTC\)\s+PROVIDER\s+TITLE\s*\n(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\S.*\n){12}$`,
		)
		// The two hand-made pages are the first ten headlines All gives.
		sections := strings.Split(out, "\nThe 12 latest")
		rows := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*$`)
		// Columns are padded per table, so compare the words.
		words := func(rows []string) string { return strings.Join(strings.Fields(strings.Join(rows, "\n")), " ") }
		paged, all := rows.FindAllString(sections[0], -1), rows.FindAllString(sections[1], -1)
		if len(paged) != 10 || len(all) != 12 || words(paged) != words(all[:10]) {
			t.Errorf("paging by hand and All disagree:\n%s", out)
		}
	})
}

// TestMain lets MainHelp run main in a process of its own.
func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRunRejectsArguments: -h prints the usage and reports flag.ErrHelp;
// an argument the program does not take is an error.
func TestRunRejectsArguments(t *testing.T) {
	exampletest.RunRejectsArguments(t, run, "Usage: news\n\nNews pages ")
}

// TestMainHelp runs the program with -h: usage on stdout, exit status 0.
func TestMainHelp(t *testing.T) {
	exampletest.MainHelp(t, "Usage: news\n\nNews pages ")
}
