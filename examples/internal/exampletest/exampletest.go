// Package exampletest is the harness the tests of the example programs
// share: running a program's main in a process of its own, the checks of
// its command line and of its offline output, the simulator's clocks the
// programs run at, and bounded waits.
//
// It is test support only, imported from _test.go files. The programs
// themselves import only public packages, so that each stays a standalone
// program a reader can copy out of the repository.
package exampletest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick/internal/testutil"
	"github.com/d19c4e34/itick/markettest"
)

// Run is an example program's run function: the program with its
// command-line arguments, printing to w, and with the simulator's options
// when ITICK_TOKEN is unset.
type Run func(ctx context.Context, args []string, w io.Writer, sim ...markettest.Option) error

// Main is the body of an example's TestMain. Started by [Command] (with
// RUN_MAIN=1), the test binary runs the program's main instead of the
// tests, so a test can check what main does with its arguments and which
// exit status it ends with.
func Main(m *testing.M, main func()) {
	if os.Getenv("RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Command returns a command that runs the program's main with args in a
// process of its own, offline (ITICK_TOKEN is empty) on a simulator whose
// clock stands at at (ITICK_SIM_TIME, which markettest.OpenEnv reads).
// The package's TestMain must call [Main]. The race detector's pause at
// exit is off, so that each process ends when main does.
func Command(ctx context.Context, at time.Time, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RUN_MAIN=1", "ITICK_TOKEN=", "GORACE=atexit_sleep_ms=0",
		markettest.EnvSimTime+"="+at.Format(time.RFC3339Nano))
	return cmd
}

// MainHelp runs the program's main with -h (see [Command]) and checks
// that it exits with status 0 and that what it printed to stdout starts
// with usage and holds each of more.
func MainHelp(t testing.TB, usage string, more ...string) {
	t.Helper()
	out, err := Command(t.Context(), Weekend, "-h").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("-h: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("-h: %v", err)
	}
	if !strings.HasPrefix(string(out), usage) || !containsAll(string(out), more) {
		t.Errorf("-h printed %q, want it to start with %q and hold %q", out, usage, more)
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// RunRejectsArguments checks run's command line, offline: -h prints the
// usage, which starts with usage, and returns flag.ErrHelp; an argument
// the program does not take ("extra") is an error, and so is each of bad.
// It returns what -h printed, for further checks.
func RunRejectsArguments(t testing.TB, run Run, usage string, bad ...[]string) string {
	t.Helper()
	t.Setenv("ITICK_TOKEN", "")
	var help bytes.Buffer
	if err := run(t.Context(), []string{"-h"}, &help); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(help.String(), usage) {
		t.Errorf("-h: %v, printed %q, want flag.ErrHelp and a usage starting with %q", err, help.String(), usage)
	}
	for _, args := range append([][]string{{"extra"}}, bad...) {
		if err := run(t.Context(), args, io.Discard); err == nil {
			t.Errorf("%q: accepted", args)
		}
	}
	return help.String()
}

// offlineLine is the first line of every example run without ITICK_TOKEN.
var offlineLine = regexp.MustCompile(`^ITICK_TOKEN is not set: using the offline simulator at http://127\.0\.0\.1:\d+ \(synthetic data\)\.$`)

// CheckOffline checks that the first line of out says the program uses the
// offline simulator, on the loopback address, with synthetic data.
func CheckOffline(t testing.TB, out string) {
	t.Helper()
	if first, _, _ := strings.Cut(out, "\n"); !offlineLine.MatchString(first) {
		t.Errorf("the first line does not say the simulator is used: %q", first)
	}
}

// RunOffline runs the program offline with args and the simulator's clock
// stopped at at, and returns what it printed. The test ends at once if
// run fails, and fails if the first line does not say the simulator is
// used (see [CheckOffline]).
func RunOffline(t testing.TB, run Run, at time.Time, args ...string) string {
	t.Helper()
	t.Setenv("ITICK_TOKEN", "")
	var buf bytes.Buffer
	if err := run(t.Context(), args, &buf, At(at)); err != nil {
		t.Fatalf("run %q at %s: %v\n%s", args, at, err, buf.String())
	}
	CheckOffline(t, buf.String())
	return buf.String()
}

// RunAtClocks runs the program offline at each of clocks, in a subtest
// named after the clock, and hands check what it printed (see
// [RunOffline]).
func RunAtClocks(t *testing.T, run Run, clocks map[string]time.Time, check func(t *testing.T, at time.Time, out string)) {
	t.Helper()
	for name, at := range clocks {
		t.Run(name, func(t *testing.T) { check(t, at, RunOffline(t, run, at)) })
	}
}

// MatchAll checks that out matches each of the regular expressions res.
func MatchAll(t testing.TB, out string, res ...string) {
	t.Helper()
	for _, re := range res {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
}

// UseServer points the programs a test runs at srv as if it were the
// service, through the environment they read: ITICK_TOKEN and
// ITICK_BASE_URL.
func UseServer(t testing.TB, srv *markettest.Server) {
	t.Helper()
	t.Setenv("ITICK_TOKEN", srv.Token)
	t.Setenv("ITICK_BASE_URL", srv.URL)
}

// WaitMatch polls out, which a running program prints to, until re
// matches it, and returns the submatches. The test ends at once if done
// reports first (the program returned) or if bound passes.
func WaitMatch(t testing.TB, out *testutil.SyncBuffer, re *regexp.Regexp, done <-chan error, bound time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		select {
		case err := <-done:
			t.Fatalf("the program returned %v before printing a match of %s:\n%s", err, re, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no match of %s after %v:\n%s", re, bound, out.String())
		}
	}
}

// WaitFor polls cond until it holds; the test ends at once if it does
// not within bound. what says what is waited for, in the failure.
func WaitFor(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(bound); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", bound, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Returned waits for the error a program sends on done when it returns,
// and gives it back; the test ends at once if none comes within bound.
func Returned(t testing.TB, done <-chan error, bound time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("the program did not return within %v", bound)
		return nil
	}
}
