package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func TestRunWithItsOwnRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH; install it to run this test (Debian/Ubuntu: apt-get install redis-server)")
	}
	t.Setenv("REDIS_URL", "")
	t.Setenv("ITICK_TOKEN", "")
	out := runOK(t)
	for _, re := range []string{
		`Started redis-server at 127\.0\.0\.1:\d+ for this run`,
		`Simulator at http://127\.0\.0\.1:\d+ enforces 10 calls in any 2s\.`,
		`(?m)^Worker 4 made 6 calls\.$`,
		`24 calls in [\d.]+m?s; the quota allows them in no less than 4s\.`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	checkRefusals(t, out)
}

// checkRefusals holds the run to at most 2 of its 24 calls refused with 429.
// Without a shared quota the four workers' limiters would each let 10 go at
// once, and at least 14 would be refused. With it there are none, unless the machine
// is so loaded that a granted call reaches the simulator more than the
// 200 ms margin late; the SDK then retries it after the service's
// Retry-After, which is why every worker still made its 6 calls.
func checkRefusals(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`The service refused (\d+) calls with 429\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output lacks the count of refused calls:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n > 2 {
		t.Errorf("%d calls refused with 429, want at most 2 (at least 14 without a shared quota):\n%s", n, out)
	}
}

func TestRunWithRedisURL(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH; install it to run this test (Debian/Ubuntu: apt-get install redis-server)")
	}
	// A server started the example's own way stands in for the user's.
	t.Setenv("REDIS_URL", "")
	rdb, stop, err := openRedis(t.Context(), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	t.Setenv("REDIS_URL", "redis://"+rdb.Options().Addr+"/0")
	t.Setenv("ITICK_TOKEN", "")
	out := runOK(t)
	for _, re := range []string{
		`Using Redis at ` + regexp.QuoteMeta(rdb.Options().Addr) + ` \(REDIS_URL\)`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	checkRefusals(t, out)
}

func TestRunWithoutRedisSaysHowToGetIt(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("PATH", t.TempDir())
	out := runOK(t)
	if !strings.Contains(out, "apt-get install redis-server") || !strings.Contains(out, "REDIS_URL") {
		t.Errorf("output does not say how to get Redis:\n%s", out)
	}
}

func TestRunWithABadRedisURLFails(t *testing.T) {
	t.Setenv("REDIS_URL", "http://not-redis")
	// clock: none, the bad URL is refused before a simulator starts.
	if err := run(context.Background(), new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "REDIS_URL") {
		t.Errorf("run = %v, want an error naming REDIS_URL", err)
	}
}

// TestRunAgainstTheServiceUsesThePlansQuota stands a simulator in for the
// service at ITICK_BASE_URL: with ITICK_TOKEN set, the limiters take the
// plan's quota and the default window, and every call goes through.
func TestRunAgainstTheServiceUsesThePlansQuota(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not on PATH; install it to run this test (Debian/Ubuntu: apt-get install redis-server)")
	}
	srv := markettest.NewServer(markettest.WithFixedClock(simStart), markettest.WithToken("env-token-123"),
		markettest.WithPlan(itick.PlanProfessional))
	defer srv.Close()
	t.Setenv("REDIS_URL", "")
	t.Setenv("ITICK_TOKEN", "env-token-123")
	t.Setenv("ITICK_BASE_URL", srv.URL)
	t.Setenv("ITICK_PLAN", "professional")
	out := runOK(t)
	for _, re := range []string{
		`Using the iTick service at ` + regexp.QuoteMeta(srv.URL) + `: plan Professional, 600 calls a minute\.`,
		`24 calls in [\d.]+m?s; the quota allows them in no less than 0s\.`,
		`The service refused 0 calls with 429\.`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	if got := srv.Stats().Succeeded; got != 24 {
		t.Errorf("the service answered %d calls, want 24", got)
	}
	if strings.Contains(out, "env-token-123") {
		t.Errorf("the output shows the token:\n%s", out)
	}
}

// TestCommandLine checks the flags and arguments. clock: none, no case
// gets as far as starting a simulator.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string // in stdout
		wantErr    string // in stderr
	}{
		{"-h", []string{"-h"}, 0, "Usage: sharedquota", ""},
		{"--help", []string{"--help"}, 0, "REDIS_URL", ""},
		{"unknown flag", []string{"-workers=3"}, 2, "", "flag provided but not defined: -workers"},
		{"argument", []string{"now"}, 2, "", `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			status := cli(tt.args, &stdout, &stderr)
			if status != tt.wantStatus || !strings.Contains(stdout.String(), tt.wantOut) || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("cli(%q) = %d\nstdout:\n%s\nstderr:\n%s\nwant status %d, %q in stdout, %q in stderr",
					tt.args, status, stdout.String(), stderr.String(), tt.wantStatus, tt.wantOut, tt.wantErr)
			}
			if tt.wantStatus == 0 && stderr.Len() != 0 {
				t.Errorf("cli(%q) wrote to stderr: %s", tt.args, stderr.String())
			}
		})
	}
}

// simStart is where an offline run's simulator clock starts, a Monday
// with New York's market open; it runs in real time from there, which the
// demo's quota window needs to pass.
var simStart = time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC)

// runOK runs the demo and returns what it printed; the test ends at once
// if it fails.
func runOK(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := run(t.Context(), &buf, markettest.WithClockFrom(simStart)); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	return buf.String()
}
