package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunOfflineWritesCSV(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	out := filepath.Join(t.TempDir(), "candles.csv")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to stdout with -out set", stdout.Len())
	}
	for _, want := range []string{"offline simulator", "100%", "50 of 50 stocks done", "candles of 50 stocks"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "code,date,open,high,low,close,volume,turnover" {
		t.Fatalf("header %q", rows[0])
	}
	to := time.Now().UTC().Truncate(24 * time.Hour)
	from := to.AddDate(-2, 0, 0)
	perCode := map[string][]time.Time{}
	for _, r := range rows[1:] {
		d, err := time.Parse(time.DateOnly, r[1])
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		if d.Before(from) || !d.Before(to) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			t.Errorf("row %q: a day outside %s..%s or on a weekend", r, from.Format(time.DateOnly), to.Format(time.DateOnly))
		}
		if ds := perCode[r[0]]; len(ds) > 0 && !d.After(ds[len(ds)-1]) {
			t.Errorf("row %q does not follow %s", r, ds[len(ds)-1])
		}
		perCode[r[0]] = append(perCode[r[0]], d)
	}
	if len(perCode) != 50 {
		t.Errorf("%d stocks, want 50", len(perCode))
	}
	for code, ds := range perCode {
		if len(ds) < 480 || len(ds) > 510 || len(ds) != len(perCode["AAPL"]) {
			t.Errorf("%s: %d days, want two years of trading days like AAPL's %d", code, len(ds), len(perCode["AAPL"]))
		}
	}
}

func TestRunOfflineToStdoutOnFreePlan(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	var stdout, stderr bytes.Buffer
	// The Free plan's 5 calls a minute, 600 times faster: the ten requests
	// need five more slots after the first five, one a 100 ms.
	if err := run(t.Context(), []string{"-plan", "free", "-speedup", "600", "-years", "2"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 50*480 {
		t.Errorf("%d rows on stdout", len(rows))
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	t.Setenv("ITICK_TOKEN", "")
	for _, args := range [][]string{{"-plan", "gold"}, {"-years", "0"}, {"-speedup", "-1"}} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, &stdout, &stderr); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
