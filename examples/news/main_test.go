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
		`Page 1: 5 items, more: true, next cursor: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"`,
		`Page 2: 5 items, more: true, next cursor: "`,
		`The 12 latest headlines, through All:\nPUBLISHED \(UTC\)\s+PROVIDER\s+TITLE\s*\n(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\S.*\n){12}$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	// The two hand-made pages are the first ten headlines All gives.
	sections := strings.Split(out, "\nThe 12 latest")
	rows := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*$`)
	// Columns are padded per table, so compare the words.
	words := func(rows []string) string { return strings.Join(strings.Fields(strings.Join(rows, "\n")), " ") }
	paged, all := rows.FindAllString(sections[0], -1), rows.FindAllString(sections[1], -1)
	if len(paged) != 10 || len(all) != 12 || words(paged) != words(all[:10]) {
		t.Errorf("paging by hand and All disagree:\n%s", out)
	}
}
