package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Tests of where a command's client talks to: the service with a token,
// the simulator only when asked.

// TestOffline checks that with --sim the bundled simulator answers, at
// ITICK_SIM_TIME, a note on stderr says so, and --plan reaches
// the simulator too: 25 codes go in chunks of 20 on the Professional plan,
// which the Base plan's simulator would refuse.
func TestOffline(t *testing.T) {
	t.Parallel()
	codes := make([]string, 25)
	for i := range codes {
		codes[i] = fmt.Sprintf("C%02d", i)
	}
	r := runCLI(t, nil, append([]string{"--sim", "quote", "stock", "US", "--plan", "professional", "--format", "csv"}, codes...)...)
	if r.code != 0 {
		t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
	}
	if want := "itick: the bundled simulator answers (--sim), with synthetic data\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(rows) != 1+len(codes) {
		t.Fatalf("%d lines, want a header and %d rows:\n%s", len(rows), len(codes), r.stdout)
	}
	for i, code := range codes {
		if !strings.HasPrefix(rows[i+1], "stock,US,"+code+",") || !strings.Contains(rows[i+1], ","+fixedNow.Format(time.RFC3339)+",") {
			t.Errorf("row %d is %q, want %s's at %s", i+1, rows[i+1], code, fixedNow.Format(time.RFC3339))
		}
	}
}

// TestOfflineRangeEndsAtTheSimulatorsNow: with ITICK_SIM=1, a range without --to
// ends at the client's now, which is the simulator's: a --from after it is
// refused, though it is long past on the real clock.
func TestOfflineRangeEndsAtTheSimulatorsNow(t *testing.T) {
	t.Parallel()
	sim := []string{"ITICK_SIM=1"}
	r := runCLI(t, sim, "klines", "stock", "US", "AAPL", "--interval", "1d", "--from", "2025-07-01")
	want := "--from 2025-07-01T00:00:00Z is not before --to " + fixedNow.Format(time.RFC3339)
	if r.code != exitInvalid || !strings.Contains(r.stderr, want) {
		t.Errorf("exit code %d, stderr %q; want %d and %q", r.code, r.stderr, exitInvalid, want)
	}
	r = runCLI(t, sim, "klines", "stock", "US", "AAPL", "--interval", "1d", "--from", "2025-05-26", "--format", "csv")
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(rows) < 2 || !strings.HasPrefix(rows[len(rows)-1], "stock,US,AAPL,2025-06-02T00:00:00Z,") {
		t.Errorf("exit code %d, stdout %q, stderr %q; want candles up to the simulator's day, 2025-06-02", r.code, r.stdout, r.stderr)
	}
}

// TestNothingMadeUp: without a token, and without --sim or ITICK_SIM, a
// command that needs the service asks the simulator for nothing: it exits
// with the not-logged-in code and says how to go on, and prints no row.
// Commands that need no service still run.
func TestNothingMadeUp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"quote", "stock", "US", "AAPL"}},
		{nil, []string{"quote", "stock:US:AAPL", "crypto:BA:BTCUSDT", "--format", "json"}},
		{nil, []string{"klines", "stock", "US", "AAPL", "--from", "2025-05-01"}},
		{nil, []string{"depth", "crypto", "BA", "BTCUSDT"}},
		{nil, []string{"stream", "stock", "AAPL$US", "--count", "1"}},
		{nil, []string{"status", "US"}},
		{nil, []string{"news"}},
		{nil, []string{"get", "/stock/quote", "region=US", "code=AAPL"}},
		{[]string{"ITICK_SIM=0"}, []string{"quote", "stock", "US", "AAPL"}},
		{[]string{"ITICK_TOKEN=   "}, []string{"quote", "stock", "US", "AAPL"}},
	} {
		r := runCLI(t, c.env, c.args...)
		if r.code != exitUnauthorized || r.stdout != "" ||
			!regexp.MustCompile(`^itick: not logged in: ITICK_TOKEN is not set; .*--sim.*ITICK_SIM=1`).MatchString(r.stderr) {
			t.Errorf("%v %v: exit code %d, stdout %q, stderr %q; want %d, nothing, and how to log in or ask the simulator",
				c.env, c.args, r.code, r.stdout, r.stderr, exitUnauthorized)
		}
	}
	if r := runCLI(t, []string{"ITICK_SIM=maybe"}, "quote", "stock", "US", "AAPL"); r.code != exitInvalid ||
		!strings.Contains(r.stderr, `ITICK_SIM="maybe" is not 1 or 0`) {
		t.Errorf("ITICK_SIM=maybe: exit code %d, stderr %q; want %d", r.code, r.stderr, exitInvalid)
	}
	for _, args := range [][]string{{"version"}, {"help"}, {"klines", "--help"}} {
		if r := runCLI(t, nil, args...); r.code != 0 || r.stdout == "" {
			t.Errorf("%v without a token: exit code %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// With a token and --sim, the simulator answers, and says so.
	srv := newServer(t)
	r := runCLI(t, append(serverEnv(srv), "ITICK_BASE_URL=http://127.0.0.1:1"), "--sim", "quote", "stock", "US", "AAPL", "--format", "csv")
	if r.code != 0 || !strings.Contains(r.stdout, "stock,US,AAPL,") || !strings.Contains(r.stderr, "(--sim), with synthetic data") {
		t.Errorf("--sim with a token: exit code %d, stdout %q, stderr %q; want the simulator's quote", r.code, r.stdout, r.stderr)
	}
}
